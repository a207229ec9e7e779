"""The `gitai` console entry: `gitai hook ...` goes straight to the lean agent-hook entry (it runs on
every tool call of an agent, so it must not import click and the command modules), and so do
`gitai exec --again KEY NONCE` and `gitai exec ... -- COMMAND` (before each wrapped shell command);
`gitai hooks run HOOK` (the pre-commit framework's, on every commit) goes to the git hooks' entry; everything
else goes to the click CLI (gitai/cli.py), `blame-intent` after starting its `git blame` (a fresh
clone's first run waits mostly for it: gitai/blame/early.py).

An agent hook ends with `os._exit` once its answer is flushed: the interpreter's own shutdown (freeing
every module, a last garbage collection) costs about 3 ms of CPU on every tool call and does nothing
the hook needs: its files are written and closed, and its git processes have ended, before it answers.

`gitai hook` loads its modules from one file beside their bytecode (`gitai/__pycache__/hooks.<tag>.bundle`)
instead of through Python's path search: importlib's finders and loaders cost about 60-100 µs of CPU per
module, for the 20-odd modules a before-write loads. (It lives here, not in a module of its own, because
importing one more module the normal way before the bundle serves costs as much again.)

The bundle holds each module's compiled code with its source's mtime and size from its `.pyc` header,
which Python checked against the source when it loaded it, and the mtime of each package directory. A
module is served from the bundle only while its source still has that mtime and size, and the bundle
only while no directory changed (a module added, removed or renamed, as an upgrade does); otherwise
the normal import runs, and the hook writes the bundle again after it has answered. So the code that
runs is the code the normal import would run, checked as Python checks a `.pyc`. It lives in gitai's
own package, which the before-write gate and the kernel domain keep out of an agent's reach
(gitai/util/installation.py) as they keep the `.pyc` files beside it; where that directory cannot be
written, or bytecode is not to be written (`PYTHONDONTWRITEBYTECODE`), there is no bundle."""

from __future__ import annotations

import marshal
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import CodeType, ModuleType
    from typing import Any, NoReturn

    # path in the package, is a package, the source's mtime and size (as in its .pyc), code offset, code length
    Entry = tuple[str, bool, int, int, int, int]


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "hook":
        import gc

        gc.disable()  # its collections, while the modules load, find nothing to free in a process this short
        bundle = serve()  # the hook's modules from one file (below)
        from gitai.agents.hook_entry import main as hook_main

        code = hook_main(sys.argv[2:])
        _answered(code, bundle.save)
    if sys.argv[1:3] == ["hooks", "run"] and len(sys.argv) > 3:  # the pre-commit framework's entry: every commit
        from gitai.hook_main import FRAMEWORK_HOOKS, run_for_framework

        if sys.argv[3] in FRAMEWORK_HOOKS:
            sys.exit(run_for_framework(sys.argv[3], sys.argv[4:]))
    if sys.argv[1:3] == ["exec", "--again"]:  # the line before every wrapped shell command: no click
        from gitai.sandbox.enter import again_main

        sys.exit(again_main(sys.argv[2:]))
    if sys.argv[1:2] == ["exec"] and "--" in sys.argv and not {"-h", "--help"} & set(sys.argv[:sys.argv.index("--")]):
        from gitai.sandbox.enter import exec_main  # a wrapped shell command in the older, quoted form: no click

        sys.exit(exec_main(sys.argv[2:]))
    if len(sys.argv) > 1 and sys.argv[1] == "blame-intent":
        from gitai.blame.early import start_blame_ahead

        start_blame_ahead(sys.argv[2:])
    from gitai.cli import main as cli_main

    cli_main()


def _answered(code: int, after: Callable[[], None]) -> NoReturn:
    """Leave without the interpreter's shutdown, with `code` whatever became of the streams: a stream
    that was closed when the hook started is None, and a host reads exit 1 as "let the call through".
    `after` runs once the answer is out, and nothing it raises changes the exit code."""
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            try:
                stream.flush()
            except (OSError, ValueError):  # a reader gone, a stream closed: the answer says what it could
                pass
    try:
        after()
    except Exception:  # noqa: BLE001 -- the answer is given: a failure here must not turn it into another
        pass
    os._exit(code)


PACKAGE = os.path.dirname(os.path.abspath(__file__))
_BOOTSTRAP = sys.modules["_frozen_importlib"]  # ModuleSpec, without importing importlib
_EXTERNAL = sys.modules["_frozen_importlib_external"]  # MAGIC_NUMBER: the bytecode's version


def bundle_path() -> str:
    return os.path.join(PACKAGE, "__pycache__", f"hooks.{sys.implementation.cache_tag}.bundle")


def _stamp(path: str) -> tuple[int, int]:
    """A source's mtime and size as a `.pyc` header keeps them."""
    st = os.stat(path)
    return int(st.st_mtime) & 0xFFFFFFFF, st.st_size & 0xFFFFFFFF


_CODE = type(_stamp.__code__)  # types.CodeType, without importing types


class Bundle:
    """A meta path finder and loader of gitai's modules from the bundle; `save` writes it again when
    this process loaded a gitai module the normal way (one it lacked, or one whose source changed)."""

    def __init__(self, fd: int, base: int, entries: dict[str, Entry]) -> None:
        self.fd = fd  # the bundle, open: a module's code is read from it when the module is imported
        self.base = base  # where the codes start
        self.entries = entries
        self.before = set(sys.modules)  # loaded already: never counted as missing
        self.served: dict[str, bytes] = {}
        self.found: dict[str, CodeType] = {}  # the code of the modules find_spec answered for, until loaded

    def find_spec(self, name: str, path: object = None, target: object = None) -> Any:
        entry = self.entries.get(name)
        if entry is None:
            return None
        relative, is_package, mtime, size, _, _ = entry
        origin = os.path.join(PACKAGE, relative)
        try:
            data = self._code(name) if _stamp(origin) == (mtime, size) else None
            code = marshal.loads(data) if data is not None else None
        except (OSError, ValueError, EOFError, TypeError):
            return None
        if data is None or not isinstance(code, _CODE):
            return None  # changed since, or a bundle cut short or damaged: the normal import, then a new bundle
        self.found[name], self.served[name] = code, data
        spec = _BOOTSTRAP.ModuleSpec(name, self, origin=origin, is_package=is_package)
        spec.has_location = True
        if is_package:
            spec.submodule_search_locations = [os.path.dirname(origin)]
        return spec

    def create_module(self, spec: object) -> None:
        return None  # the default module object

    def exec_module(self, module: ModuleType) -> None:
        exec(self.found.pop(module.__name__), module.__dict__)

    def _code(self, name: str) -> bytes | None:
        if name in self.served:
            return self.served[name]
        *_, offset, length = self.entries[name]
        try:
            code = os.pread(self.fd, length, self.base + offset)
        except OSError:
            return None
        return code if len(code) == length else None

    def save(self) -> None:
        """Write the bundle again if this process loaded a gitai module without it; nothing it cannot
        write stops the hook (which has answered already)."""
        if sys.dont_write_bytecode or not hasattr(os, "pread"):
            return
        if not os.access(os.path.dirname(bundle_path()), os.W_OK):
            return  # a system-wide install this user cannot write: no `.pyc` read for a bundle never written
        loaded = [m for m in list(sys.modules) if m.startswith("gitai.") and m not in self.before
                  and m not in self.served]
        fresh = {name: compiled for name in loaded if (compiled := _compiled(name)) is not None}
        if not fresh:
            return
        modules = {}
        for name, entry in self.entries.items():
            code = self._code(name)
            if code is not None:
                modules[name] = (entry[:4], code)
        _write({**modules, **fresh})


def _compiled(name: str) -> tuple[tuple[str, bool, int, int], bytes] | None:
    """A module's entry and code from its `.pyc` (timestamp-checked ones only), if that still matches its source."""
    spec = getattr(sys.modules.get(name), "__spec__", None)
    origin, cached = getattr(spec, "origin", None), getattr(spec, "cached", None)
    if not (origin and cached and origin.endswith(".py") and origin.startswith(PACKAGE + os.sep)):
        return None
    try:
        with open(cached, "rb") as handle:
            data = handle.read()
        mtime, size = int.from_bytes(data[8:12], "little"), int.from_bytes(data[12:16], "little")
        if data[:4] != _EXTERNAL.MAGIC_NUMBER or data[4:8] != b"\0\0\0\0" or _stamp(origin) != (mtime, size):
            return None
    except OSError:
        return None
    is_package = spec.submodule_search_locations is not None  # type: ignore[union-attr]
    return (os.path.relpath(origin, PACKAGE), is_package, mtime, size), data[16:]


def _write(modules: dict[str, tuple[tuple[str, bool, int, int], bytes]]) -> None:
    """The bundle: its header's length (4 bytes), the header (marshal: the bytecode's version, each
    directory's mtime, each module's entry), then each module's code; written whole, then renamed."""
    entries: dict[str, Entry] = {}
    offset = 0
    for name, (entry, code) in modules.items():
        entries[name] = (*entry, offset, len(code))
        offset += len(code)
    target = bundle_path()
    temporary = f"{target}.{os.getpid()}.tmp"
    try:
        directories = {os.path.dirname(os.path.join(PACKAGE, entry[0])) for entry in entries.values()}
        header = marshal.dumps((_EXTERNAL.MAGIC_NUMBER, {d: os.stat(d).st_mtime_ns for d in directories}, entries))
        with open(temporary, "wb") as handle:
            handle.write(len(header).to_bytes(4, "little") + header + b"".join(c for _, c in modules.values()))
        os.replace(temporary, target)
    except OSError:
        try:
            os.unlink(temporary)
        except OSError:
            pass


def serve() -> Bundle:
    """Load gitai's modules from the bundle from now on (those it holds, unchanged); a bundle that is
    missing, of another Python, or whose directories changed serves none (nor does one where the
    system has no `pread`: Windows)."""
    fd, base, entries = -1, 0, {}
    try:
        if not hasattr(os, "pread"):
            raise OSError("no pread")
        fd = os.open(bundle_path(), os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        head = os.read(fd, 8192)
        base = 4 + int.from_bytes(head[:4], "little")
        if base > len(head):
            head += os.pread(fd, base - len(head), len(head))
        magic, directories, found = marshal.loads(head[4:base])
        if magic == _EXTERNAL.MAGIC_NUMBER and all(os.stat(d).st_mtime_ns == ns for d, ns in directories.items()):
            entries = found
    except (OSError, ValueError, EOFError, TypeError):
        pass  # none yet, or not one this Python wrote: the normal import, and a new bundle after the answer
    bundle = Bundle(fd, base, entries)
    sys.meta_path.insert(0, bundle)
    return bundle
