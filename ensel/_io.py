"""Low-level helpers of the commands and the book runner: the repository, output protection
(one place, so every writer refuses the same things), output files that survive races and
signals, and a quiet exit on a closed pipe.

Nothing here imports a command module or the book layer; :mod:`ensel.cli`,
:mod:`ensel.book.runner` and :mod:`ensel.collect.cli` import from here.

:func:`write_atomic` is the one way the command line writes a user's output file: the content
goes to a unique temporary file in the target folder, which is then published under the
target name in one step, while an exclusive lock file (created with ``O_CREAT | O_EXCL``)
keeps a second writer of the same path out. Without ``force`` the publication is a hard link,
which fails if the name exists, so of several processes writing one new path exactly one
wins and the others are refused with :class:`ensel._errors.UsageError`; a reader never sees a
partial file. The temporary files registered here are removed on any exit, including the
``SIGINT``/``SIGTERM`` handled by :func:`exit_on_signals`.
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from ensel._errors import EnselError, UsageError

__all__ = ["NotebookRunError", "UsageError", "book_folders", "check_output",
           "exit_on_signals", "quiet_closed_stdout", "repository_root", "signal_guard",
           "temporary_paths", "write_atomic"]


class NotebookRunError(EnselError, RuntimeError):
    """A notebook failed to execute, or printed a warning."""


def repository_root() -> Path | None:
    """The repository holding the book (``$ENSEL_REPO_ROOT``, else the first folder from the
    current one upwards, then this package's parent, that holds ``notebooks/runs.yml``), or
    ``None`` (an installed package used elsewhere)."""
    env = os.environ.get("ENSEL_REPO_ROOT")
    if env:
        return Path(env).resolve()
    for base in (Path.cwd(), *Path.cwd().parents, Path(__file__).resolve().parents[1]):
        if (base / "notebooks" / "runs.yml").is_file():
            return base
    return None


def book_folders() -> list[Path]:
    """The folders no command may write into: the repository's ``book``, ``_build`` and
    ``notebooks`` (and ``$ENSEL_RESULTS_DIR``)."""
    roots = {r for r in (repository_root(), Path(__file__).resolve().parents[1])
             if r is not None and (r / "notebooks" / "runs.yml").is_file()}
    out = [r / sub for r in sorted(roots) for sub in ("book", "_build", "notebooks")]
    if os.environ.get("ENSEL_RESULTS_DIR", "").strip():
        out.append(Path(os.environ["ENSEL_RESULTS_DIR"]).expanduser())
    return [f.resolve() for f in out]


def check_output(path: str | Path, *, inputs: Sequence[str | Path] = (),
                 force: bool = False, option: str = "-o") -> Path:
    """The resolved output path, or :class:`UsageError` when writing it would replace an
    input, an existing file without ``force``, or land in the book's folders."""
    try:
        out = Path(path).expanduser().resolve()
    except (RuntimeError, OSError):  # a symbolic link loop
        raise UsageError(f"{option} {path}: a symbolic link loop (the link leads back to "
                         "itself); give another output path") from None
    for folder in book_folders():
        if out == folder or folder in out.parents:
            raise UsageError(f"{option} {path}: refusing to write into {folder} (the book's "
                             "folders); choose another output path")
    for i in inputs:
        try:
            same = Path(i).exists() and out.exists() and os.path.samefile(out, i)
            same = same or out == Path(i).expanduser().resolve()
        except (OSError, RuntimeError):  # an input's link loop: its reader names it
            same = False
        if same:
            raise UsageError(f"{option} {path}: is also an input; write to another file")
    if out.is_dir():
        raise UsageError(f"{option} {path}: is a directory; give a file name")
    for parent in out.parents:  # the nearest existing folder on the way must be a folder
        if parent.exists():
            if not parent.is_dir():
                raise UsageError(f"{option} {path}: {parent} is a file, not a folder; give an "
                                 "output path inside a folder")
            break
    if out.exists() and not force:
        raise UsageError(f"{option} {path}: the file exists; pass --force to overwrite it")
    return out


#: Temporary files and folders of this process, removed on a signal (see exit_on_signals).
_TEMPORARY: set[Path] = set()


def _remove(path: Path) -> None:
    import shutil

    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
    except OSError:
        pass


@contextlib.contextmanager
def temporary_paths(*paths: Path) -> Iterator[None]:
    """Register ``paths`` as this process's temporary files: removed when the block ends,
    however it ends (an exception, or a signal under :func:`exit_on_signals`)."""
    _TEMPORARY.update(paths)
    try:
        yield
    finally:
        for p in paths:
            _remove(p)
            _TEMPORARY.discard(p)


def _lock(path: Path, option: str) -> Path:
    """Take the exclusive lock of writing ``path`` (a ``.<name>.ensel-lock`` file holding the
    writer's process id); a lock left by a process that no longer runs is taken over."""
    lock = path.with_name(f".{path.name}.ensel-lock")
    for _ in range(2):
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            try:
                pid = int(lock.read_text(encoding="ascii").strip() or "0")
            except (OSError, ValueError):
                pid = 0
            if pid > 0 and _alive(pid):
                raise UsageError(f"{option} {path}: another process (pid {pid}) is writing "
                                 "this file; wait for it, or choose another path") from None
            lock.unlink(missing_ok=True)  # stale: its writer was killed
            continue
        with os.fdopen(fd, "w", encoding="ascii") as fh:
            fh.write(str(os.getpid()))
        return lock
    raise UsageError(f"{option} {path}: cannot take the lock {lock}; another process keeps "
                     "taking it")


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def write_atomic(path: str | os.PathLike[str], write: Callable[[Path], Any], *,
                 force: bool = False, option: str = "-o", lock: bool = True) -> Path:
    """Write ``path`` through ``write(tmp)`` and publish it in one step.

    Parameters
    ----------
    path : path-like
        The output file. Its folder is created if needed.
    write : callable
        Called with a unique temporary path in the same folder (same suffix); it writes the
        whole content there.
    force : bool, default=False
        Replace an existing file. Without it a file that appeared meanwhile (another writer
        won) is kept and this writer is refused.
    option : str, default="-o"
        The option that named the path, for messages.
    lock : bool, default=True
        Keep a second writer of ``path`` out with the lock file. ``False`` is for a cache
        whose writers of one path all write the same bytes (:mod:`ensel._picks`): no lock,
        the last rename wins (implies ``force``); the temporary file is still unique and
        removed however the call ends, and a reader still never sees a partial file.

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    ensel._errors.UsageError
        Another process holds the lock of ``path``, or (without ``force``) the file exists.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "x.txt"
    >>> _ = write_atomic(out, lambda tmp: tmp.write_text("hello"))
    >>> out.read_text(), sorted(p.name for p in out.parent.iterdir())
    ('hello', ['x.txt'])
    >>> write_atomic(out, lambda tmp: tmp.write_text("again"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ensel._errors.UsageError: -o .../x.txt: the file exists (another writer made it); pass \
--force to overwrite it
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    suffix = "".join(target.suffixes[-2:]) if target.suffix == ".gz" else target.suffix
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=f".tmp{suffix}",
                                dir=target.parent)
    os.close(fd)
    tmp = Path(name)
    # mkstemp makes the file private (0600); the output gets the mode `open(path, "w")`
    # would give it: that of the file it replaces, else that of any new file (umask)
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except OSError:
        mode = 0o666 & ~_umask()
    os.chmod(tmp, mode)
    with temporary_paths(tmp):
        write(tmp)
        if not lock:  # a cache: every writer writes the same bytes
            os.replace(tmp, target)
            return target
        held = _lock(target, option)
        with temporary_paths(held):
            if force:
                os.replace(tmp, target)
            else:
                try:
                    os.link(tmp, target)  # fails if the name exists: an exclusive create
                except FileExistsError:
                    raise UsageError(f"{option} {path}: the file exists (another writer made "
                                     "it); pass --force to overwrite it") from None
                except OSError:  # no hard links here (some network or FAT file systems)
                    if target.exists():
                        raise UsageError(f"{option} {path}: the file exists (another writer "
                                         "made it); pass --force to overwrite it") from None
                    os.replace(tmp, target)
    return target


def _umask() -> int:
    """The process's umask: from ``/proc/self/status`` (Linux), else by setting it and
    setting it back (the only portable way to read it, briefly process-wide)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


class _Interrupted(SystemExit):
    """SIGINT (exit 130) or SIGTERM (exit 143), raised in the main thread."""


#: Exit code of each signal the commands honour.
_SIGNAL_CODES: dict[int, int] = {signal.SIGINT: 130, signal.SIGTERM: 143}


class SignalGuard:
    """What :func:`signal_guard` saw: ``received`` is the exit code (130 for SIGINT, 143 for
    SIGTERM) of the first signal that arrived inside the block, else ``None``."""

    def __init__(self, raise_for: Callable[[int], BaseException]) -> None:
        self.received: int | None = None
        self._signum: int | None = None
        self._raise_for = raise_for

    def _note(self, signum: int) -> None:
        if self._signum is None:
            self._signum, self.received = signum, _SIGNAL_CODES[signum]

    def check(self) -> None:
        """Raise the interruption now if a signal arrived, even one that library code
        caught on its way (a kernel client that takes Ctrl-C for a failed start)."""
        if self._signum is not None:
            raise self._raise_for(self._signum)


@contextlib.contextmanager
def signal_guard(*, exit: bool = False) -> Iterator[SignalGuard]:
    """Inside the block, SIGINT and SIGTERM are remembered in the yielded
    :class:`SignalGuard` (so :meth:`SignalGuard.check` raises them again however library code
    treated them) and raised in the main thread: with ``exit``, as :class:`_Interrupted` (a
    ``SystemExit`` with code 130/143, :func:`exit_on_signals`); else as the handler they had
    would have (``KeyboardInterrupt`` for Ctrl-C in a library caller, the command's
    interruption under :func:`exit_on_signals`, :class:`_Interrupted` for a default SIGTERM;
    an ignored signal stays ignored). The previous handlers come back when the block ends.
    Outside the main thread (where signals never arrive) nothing is installed."""
    old: dict[int, Any] = {}

    def raise_for(signum: int) -> BaseException:
        previous = old.get(signum)
        if not exit and callable(previous):
            try:
                previous(signum, None)  # raises the caller's own interruption
            except BaseException as exc:  # noqa: BLE001 - it is re-raised by the caller
                return exc
        return _Interrupted(_SIGNAL_CODES[signum])

    guard = SignalGuard(raise_for)
    if threading.current_thread() is not threading.main_thread():
        yield guard
        return

    def handler(signum: int, frame: Any) -> None:
        guard._note(signum)
        raise raise_for(signum) from None

    for signum in _SIGNAL_CODES:
        previous = signal.getsignal(signum)
        if previous is signal.SIG_IGN and not exit:
            continue  # ignored by the caller: stays ignored
        old[signum] = previous
        signal.signal(signum, handler)
    try:
        yield guard
    finally:
        for signum, h in old.items():  # None: a handler set from C, not restorable
            signal.signal(signum, h if h is not None else signal.SIG_DFL)


@contextlib.contextmanager
def exit_on_signals(prog: str) -> Iterator[None]:
    """Turn SIGINT and SIGTERM into one line on stderr and exit code 130/143, after the
    ``finally`` blocks of the running command have removed its temporary and partial files."""
    with signal_guard(exit=True) as guard:  # a second signal in the clean-up exits quietly
        try:
            yield
            guard.check()
        except _Interrupted as exc:
            for p in list(_TEMPORARY):
                _remove(p)
            what = "interrupted" if exc.code == 130 else "terminated"
            print(f"{prog}: {what}; temporary and partial files removed", file=sys.stderr)
            raise SystemExit(exc.code) from None


def quiet_closed_stdout() -> int:
    """After a ``BrokenPipeError`` (output piped into ``head``): point stdout at
    ``/dev/null`` so the interpreter's last flush stays quiet, and return exit code 0."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 0
