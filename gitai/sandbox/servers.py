"""Command servers: programs running outside the kernel domain that run a command a client asks for.

Landlock (up to ABI 8) does not govern connect() to a path-named Unix socket, so an agent in the
domain could ask such a server to run a command: it would run outside the domain and the session's
PID namespace, and outlive the session (docs/security.md, "Command servers"). In the domain's mount
namespace each known server's socket (or its directory) is hidden under an empty read-only mount, and
the variables that point a client at one are unset.

Kept reachable on purpose: ssh-agent and gpg-agent (`git push` over ssh and commit signing need them;
they sign and decrypt, they run no command), and any socket in a place not listed here.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

# Variables that point a client at a command server (tmux, screen, the dbus session bus)
SERVER_VARIABLES = ("TMUX", "TMUX_PANE", "STY", "DBUS_SESSION_BUS_ADDRESS")


def command_servers(environ: Mapping[str, str], uid: int, home: str | None) -> list[str]:
    """Where the known command servers listen (sockets, or the directories that hold them), present or not:
    - tmux: `$TMUX_TMPDIR/tmux-UID` (else /tmp), and the socket `$TMUX` names (a server started with -S);
    - screen: `$SCREENDIR`, /run/screen/S-USER, /var/run/screen/S-USER, ~/.screen;
    - the dbus session bus (`systemd-run --user` and any service it starts): `$XDG_RUNTIME_DIR/bus` and
      the path `$DBUS_SESSION_BUS_ADDRESS` names;
    - the systemd user manager's private socket (`systemd-run --user`): `$XDG_RUNTIME_DIR/systemd`;
    - emacs's server (`emacsclient --eval`): `$XDG_RUNTIME_DIR/emacs`, /tmp/emacsUID;
    - docker and podman (a container that mounts the host): /run/docker.sock, /var/run/docker.sock,
      `$XDG_RUNTIME_DIR/docker.sock`, `$XDG_RUNTIME_DIR/podman`, /run/podman."""
    runtime = environ.get("XDG_RUNTIME_DIR") or f"/run/user/{uid}"
    tmux_base = environ.get("TMUX_TMPDIR") or "/tmp"
    user = environ.get("USER") or environ.get("LOGNAME") or ""
    found = [os.path.join(tmux_base, f"tmux-{uid}"), f"/tmp/tmux-{uid}"]
    tmux = environ.get("TMUX", "").split(",")[0]
    if tmux.startswith("/"):
        found.append(tmux)
    found += [environ.get("SCREENDIR", "")]
    if user:
        found += [f"/run/screen/S-{user}", f"/var/run/screen/S-{user}"]
    if home:
        found.append(os.path.join(home, ".screen"))
    found += [os.path.join(runtime, "bus"), os.path.join(runtime, "systemd")]
    for part in environ.get("DBUS_SESSION_BUS_ADDRESS", "").split(";"):
        for field in part.partition(":")[2].split(","):
            if field.startswith("path="):
                found.append(field[len("path="):])
    found += [os.path.join(runtime, "emacs"), f"/tmp/emacs{uid}"]
    found += ["/run/docker.sock", "/var/run/docker.sock", os.path.join(runtime, "docker.sock"),
              os.path.join(runtime, "podman"), "/run/podman"]
    return [path for path in found if path.startswith("/")]


# Servers that make their socket directory in a temporary directory writable in the domain: made now
# (private, as each server makes it) so the agent cannot make it, and a server of its own in it, and the
# person's next server that the agent could then reach.
MADE_IN_TMP = ("tmux-", "emacs")


def hidden_paths(environ: Mapping[str, str], uid: int, home: str | None) -> list[str]:
    """The command servers' paths to hide in the domain (real, each once, none beneath another), those
    missing in a temporary directory made first (MADE_IN_TMP)."""
    found: set[str] = set()
    for path in command_servers(environ, uid, home):
        name = os.path.basename(path)
        if not os.path.lexists(path) and name.startswith(MADE_IN_TMP) and name.endswith(str(uid)):
            try:
                os.mkdir(path, 0o700)
            except OSError:
                pass
        if os.path.lexists(path):
            found.add(os.path.realpath(path))
    return [path for path in sorted(found)
            if not any(path.startswith(other.rstrip(os.sep) + os.sep) for other in found)]
