"""A warm kernel factory for the runs of a book build (a "zygote"): one process per worker that
imports, once, what every page's kernel imports (ipykernel, numpy, pandas, matplotlib, scipy,
``ensel`` and its page modules) and then forks a fresh kernel for each run.

A kernel started the ordinary way spends ~2 CPU-s in its interpreter's start and these
imports; a forked one starts with them done, so the fixed cost of a run shrinks to the
kernel's own set-up. What the page computes does not change: each run still gets a new
process (a fork of a zygote that has run no page code), with the run's environment, working
folder and command line (``python -m ipykernel_launcher -f <connection file> ...``, which the
child runs as ``__main__``), in a session of its own as jupyter_client starts kernels, and
its ``JPY_PARENT_PID`` names the zygote (a kernel exits when its zygote is gone).

Fork safety: the zygote runs no Python thread when it forks (it checks), its BLAS/OpenMP
libraries are loaded with one thread (the worker starts it with the kernels' thread pins,
``KERNEL_ENV``), and it never creates a ZMQ context, an event loop or an IPython shell. Its one
native thread besides the main one is the background thread of pyarrow's jemalloc (pandas
loads pyarrow), which jemalloc's own fork handlers stop in the child.
``MPLBACKEND`` is set as ipykernel sets it before a page imports matplotlib; the inline
backend module itself is left to the kernel (imported without a shell it would not install
itself). The preloaded imports add one warnings filter that a kernel whose page never
imports ``scipy.stats`` would not have (ignore numpy's "matrix subclass" pending
deprecation).

Protocol (one line of JSON per message): the worker writes ``{"argv", "env", "cwd"}`` to the
zygote's stdin; the zygote answers ``{"pid"}`` (or ``{"error"}``) on its reply pipe, and
``{"exited", "code"}`` when it reaps a kernel. End of its stdin (the worker is gone): it
kills the kernels still running and exits. ``ENSEL_KERNEL_ZYGOTE=0`` switches it off (every
kernel is then started by jupyter_client as usual)."""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from typing import Any

#: What the zygote imports before it forks: the kernel's own modules, then what the pages
#: import (the modules ``install_figure_data`` and the pages' first cells need).
PRELOAD = ("ipykernel.kernelapp", "ipykernel.ipkernel", "ipykernel.zmqshell", "numpy", "pandas",
           "matplotlib.pyplot", "scipy.special", "scipy.stats", "ensel", "ensel.book.figures",
           "ensel.book.claims", "ensel.book.theory_pages", "ensel.book.protocol",
           "ensel.book.guide", "ensel.book.tables", "ensel.theory", "ensel.select",
           "ensel.aggregate", "ensel.copula", "ensel.datasets", "ensel.info", "ensel.stats",
           "ensel.data", "IPython.display", "myst_nb")

#: The variable that switches the zygote off (``0``).
SWITCH = "ENSEL_KERNEL_ZYGOTE"

_LAUNCHER = ["-m", "ipykernel_launcher"]


def enabled() -> bool:
    """Whether the runs of this process may fork their kernels (``ENSEL_KERNEL_ZYGOTE`` is
    not ``0``; POSIX only)."""
    return hasattr(os, "fork") and os.environ.get(SWITCH, "1").strip() != "0"


class ForkedKernel:
    """The part of :class:`subprocess.Popen` that jupyter_client's local provisioner uses,
    for a kernel forked by the zygote (not a child of this process: its exit comes from the
    zygote's notice)."""

    stdin = stdout = stderr = None

    def __init__(self, pid: int, zygote: Zygote) -> None:
        self.pid = pid
        self.returncode: int | None = None
        self._zygote = zygote

    def poll(self) -> int | None:
        if self.returncode is None:
            self.returncode = self._zygote.exit_code(self.pid)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(f"kernel {self.pid}", timeout or 0.0)
            self._zygote.wait_notice(0.05)
        return int(self.returncode or 0)

    def send_signal(self, signum: int) -> None:
        """Signal the kernel's process group (its session, as jupyter_client's provisioner
        does for a started kernel). After SIGKILL the kernel counts as ended at once, as a
        started one does (``Popen.poll`` reaps it): waiting for the zygote's notice would
        leave nbclient's liveness poll time to report the killed kernel as a death."""
        if self.poll() is not None:
            return
        try:
            os.killpg(self.pid, signum)
        except OSError:
            os.kill(self.pid, signum)
        if signum == signal.SIGKILL:
            self.returncode = -signal.SIGKILL

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


class Zygote:
    """The worker's handle on its zygote process (started at once; it preloads while the
    worker does other work)."""

    def __init__(self, env: dict[str, str], cwd: str | None = None) -> None:
        read_fd, self._reply = os.pipe()
        self._proc = subprocess.Popen(
            [sys.executable, "-c", "from ensel.book.runner._zygote import _serve; "
             f"_serve({self._reply})"],
            stdin=subprocess.PIPE, env=env, cwd=cwd, pass_fds=(self._reply,),
            start_new_session=True)
        os.close(self._reply)
        self._reply = read_fd
        self._buffer = b""
        self._exits: dict[int, int] = {}
        self._pending: list[dict[str, Any]] = []
        self.alive = True

    def _read(self, timeout: float) -> None:
        """Read what the zygote said within ``timeout`` seconds (its end: not alive)."""
        if not self.alive:
            return
        ready, _, _ = select.select([self._reply], [], [], timeout)
        if not ready:
            return
        chunk = os.read(self._reply, 65536)
        if not chunk:
            self.alive = False
            return
        self._buffer += chunk
        *lines, self._buffer = self._buffer.split(b"\n")
        for line in lines:
            msg = json.loads(line)
            if "exited" in msg:
                self._exits[int(msg["exited"])] = int(msg["code"])
            else:
                self._pending.append(msg)

    def wait_notice(self, timeout: float) -> None:
        self._read(timeout)

    def exit_code(self, pid: int) -> int | None:
        """The exit code of a forked kernel, ``None`` while it runs."""
        self._read(0.0)
        if pid in self._exits:
            return self._exits[pid]
        if not self.alive:  # the zygote is gone: its kernels follow it (JPY_PARENT_PID)
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return -signal.SIGKILL
        return None

    def spawn(self, argv: Sequence[str], env: dict[str, str], cwd: str) -> ForkedKernel | None:
        """Fork a kernel running ``argv`` (``None``: the zygote could not; start it the usual
        way)."""
        if not self.alive or self._proc.stdin is None:
            return None
        try:
            self._proc.stdin.write(json.dumps({"argv": list(argv), "env": env,
                                               "cwd": cwd}).encode() + b"\n")
            self._proc.stdin.flush()
        except OSError:
            self.alive = False
            return None
        while not self._pending and self.alive:
            self._read(1.0)
            if self._proc.poll() is not None:
                self._read(0.0)
                self.alive = bool(self._pending)
        if not self._pending:
            return None
        msg = self._pending.pop(0)
        return ForkedKernel(int(msg["pid"]), self) if "pid" in msg else None

    @property
    def pid(self) -> int:
        return self._proc.pid

    def close(self) -> None:
        """End the zygote (its kernels are killed) and wait for it."""
        with contextlib.suppress(OSError):
            if self._proc.stdin is not None:
                self._proc.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._proc.wait(timeout=10)
        if self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()
        os.close(self._reply)
        self.alive = False


_ZYGOTE: Zygote | None = None


def start(env: dict[str, str], cwd: str | None = None) -> None:
    """Start this process's zygote (a worker of a book build does, once) with the kernels'
    base environment ``env``, in their working folder ``cwd`` (matplotlib reads a
    ``matplotlibrc`` there when it is imported); nothing when switched off."""
    global _ZYGOTE
    if _ZYGOTE is None and enabled():
        import atexit

        env = dict(env)
        env.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
        _ZYGOTE = Zygote(env, cwd)
        atexit.register(stop)


def stop() -> None:
    """End this process's zygote, if it has one."""
    global _ZYGOTE
    if _ZYGOTE is not None:
        _ZYGOTE.close()
        _ZYGOTE = None


def spawn(argv: Sequence[str], env: dict[str, str] | None, cwd: str | None,
          ) -> ForkedKernel | None:
    """A kernel forked by this process's zygote, or ``None`` (no zygote, switched off, or a
    command that is not ``<this python> -m ipykernel_launcher ...``)."""
    if _ZYGOTE is None or not enabled() or list(argv[:3]) != [sys.executable, *_LAUNCHER]:
        return None
    return _ZYGOTE.spawn(argv, dict(os.environ if env is None else env),
                         cwd or os.getcwd())


# --- the zygote process -------------------------------------------------------------------

def _become_kernel(request: dict[str, Any], reply_fd: int, sigint: Any) -> None:
    """In the forked child: take the run's environment, folder and command line, and run
    ipykernel's launcher as ``__main__``; never returns."""
    code = 1
    try:
        os.setsid()
        for signum in (signal.SIGCHLD, signal.SIGTERM):
            signal.signal(signum, signal.SIG_DFL)
        signal.signal(signal.SIGINT, sigint)
        os.close(reply_fd)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.environ.clear()
        os.environ.update(request["env"])
        os.environ["JPY_PARENT_PID"] = str(os.getppid())
        os.chdir(request["cwd"])
        sys.path[0] = os.getcwd()  # as ``python -m`` sets it (the launcher removes it)
        # ipykernel read JPY_PARENT_PID when the zygote imported it: say it again
        sys.argv = ["", *request["argv"][3:], f"--IPKernelApp.parent_handle={os.getppid()}"]
        import runpy

        runpy.run_module("ipykernel_launcher", run_name="__main__", alter_sys=True)
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # noqa: BLE001 - the kernel's own traceback, on its stderr
        import traceback

        traceback.print_exc()
    finally:
        import atexit

        atexit._run_exitfuncs()
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


@contextlib.contextmanager
def _as_in_a_kernel() -> Iterator[None]:
    """While preloading, the bare name ``get_ipython`` answers as in a kernel (a shell with a
    ``kernel``): pandas chooses its default ``display.max_columns`` at import by it (20 in a
    kernel, 0 = the terminal's width elsewhere), and the pages' tables are printed with it.
    (Among the preloaded modules, only pandas asks at import.)"""
    import builtins

    class _KernelShell:
        kernel = True

    builtins.get_ipython = _KernelShell
    try:
        yield
    finally:
        delattr(builtins, "get_ipython")


def _serve(reply_fd: int) -> None:
    """The zygote: preload, then fork a kernel per request until stdin ends."""
    import gc
    import importlib
    import threading

    sigint = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with _as_in_a_kernel():
        for name in PRELOAD:
            importlib.import_module(name)
    children: set[int] = set()

    def say(msg: dict[str, Any]) -> None:
        os.write(reply_fd, json.dumps(msg).encode() + b"\n")

    def reap(signum: int, frame: Any) -> None:
        while True:  # every exited child, also one that exits before its pid is recorded
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            children.discard(pid)
            say({"exited": pid, "code": os.waitstatus_to_exitcode(status)})

    signal.signal(signal.SIGCHLD, reap)
    gc.collect()
    gc.freeze()  # the children share these pages and their collector skips them
    for line in sys.stdin.buffer:
        request = json.loads(line)
        if threading.active_count() != 1:  # forking a threaded process can deadlock
            say({"error": "the zygote has started threads"})
            continue
        pid = os.fork()
        if pid == 0:
            _become_kernel(request, reply_fd, sigint)
        children.add(pid)
        say({"pid": pid})
    for pid in list(children):  # the worker is gone: so are its kernels
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)

