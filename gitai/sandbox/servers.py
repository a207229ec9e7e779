"""Command servers: programs running outside the kernel domain that run a command a client asks for.

Landlock (up to ABI 8) does not govern connect() to a path-named Unix socket, so an agent in the
domain could ask such a server to run a command: it would run outside the domain and the session's
PID namespace, and outlive the session (docs/security.md, "Command servers"). In the domain's mount
namespace each known server's socket (or its directory) is hidden under an empty read-only mount, and
the variables that point a client at one are unset.

Beyond the known places, every Unix socket this user's programs listen on when the domain is made is
hidden too (a tmux started with `-S anywhere`), but those kept reachable on purpose (KEPT_NAMES) and
those beneath the work tree (a dev server's socket there: a mount point in it could not be removed, and
the agent may change what listens there anyway). Still reachable: a server that starts listening at
another path after the domain is made, and servers of other users (a docker daemon's socket beyond the
places listed).
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


# Sockets kept reachable: they sign, decrypt or hand out a stored credential, and run no command.
# ssh-agent (`$SSH_AUTH_SOCK`: git push over ssh) and gpg-agent's sockets (commit signing; dirmngr and
# keyboxd beside it), and git's credential cache where git in the domain can find it (the domain's own
# XDG_CACHE_HOME hides the usual one from git: docs/security.md, "Command servers").
KEPT_NAMES = ("S.gpg-agent", "S.gpg-agent.ssh", "S.gpg-agent.extra", "S.gpg-agent.browser", "S.dirmngr",
              "S.keyboxd", "S.scdaemon")
KEPT_ENDINGS = ("/git/credential/socket", "/.git-credential-cache/socket")
_LISTENING = 0x10000  # __SO_ACCEPTCON in /proc/net/unix's Flags


def _kept(path: str, environ: Mapping[str, str]) -> bool:
    agent = environ.get("SSH_AUTH_SOCK", "")
    return (os.path.basename(path) in KEPT_NAMES or path.endswith(KEPT_ENDINGS)
            or (agent.startswith("/") and os.path.realpath(agent) == path))


def listening_sockets(uid: int, environ: Mapping[str, str]) -> list[str]:
    """The path-named Unix sockets listening now whose file `uid` owns (its programs made them), real,
    but those KEPT: a command server at any path is among them. None where /proc cannot say."""
    import stat

    try:
        with open("/proc/net/unix", encoding="utf-8", errors="surrogateescape") as handle:
            lines = handle.read().splitlines()[1:]
    except OSError:
        return []
    found = []
    for line in lines:
        fields = line.split(None, 7)
        if len(fields) < 8 or not fields[7].startswith("/"):
            continue  # unnamed, abstract (Landlock scopes those), or relative
        try:
            if not int(fields[3], 16) & _LISTENING:
                continue
            info = os.lstat(fields[7])
        except (ValueError, OSError):
            continue
        path = os.path.realpath(fields[7])
        if stat.S_ISSOCK(info.st_mode) and info.st_uid == uid and not _kept(path, environ):
            found.append(path)
    return found


# Servers that make their socket directory in a temporary directory writable in the domain: made now
# (private, as each server makes it) so the agent cannot make it, and a server of its own in it, and the
# person's next server that the agent could then reach.
MADE_IN_TMP = ("tmux-", "emacs")


def hidden_paths(environ: Mapping[str, str], uid: int, home: str | None, worktrees: tuple[str, ...] = ()) -> list[str]:
    """The command servers' paths to hide in the domain (real, each once, none beneath another): the
    known places (those missing in a temporary directory made first: MADE_IN_TMP) and the sockets this
    user's programs listen on, but those beneath the `worktrees` (real)."""
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
    found.update(path for path in listening_sockets(uid, environ)
                 if not any(path.startswith(tree.rstrip(os.sep) + os.sep) for tree in worktrees))
    return [path for path in sorted(found)
            if not any(path.startswith(other.rstrip(os.sep) + os.sep) for other in found)]
