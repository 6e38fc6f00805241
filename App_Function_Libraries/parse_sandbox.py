"""Parsing untrusted bytes where a deadline can really stop it: a small pool of warm worker processes.

A thread stuck in a parser (trafilatura on a tag with 500k attributes, pypdf on a page tree that repeats one
page 96,100 times) cannot be stopped: given up, it still burns CPU and memory for minutes. So web pages,
documents and `python app.py extract` parse in a child process instead:

    run_limited(extract_content, body, ctype, charset, url, limits=ParseLimits(seconds=20, memory_mb=1024))

The call runs `fn(*args)` in a worker; a worker that has not answered by the deadline is killed (SIGKILL),
and ParseTimeout is raised. In the worker the address space may grow by at most `memory_mb` during the call
(RLIMIT_AS, where the platform has it): a parse that needs more gets a MemoryError there, which is
ParseTooLarge here (so is any other error from a call that came up to its cap: a C library whose allocation
fails may raise something else). `fn` must be a module-level function (it is sent by name), its arguments and result
picklable; an exception it raises is raised here again. Workers are spawned (never forked: the parent has
threads, perhaps torch), stay warm for the next call and exit after IDLE_SECONDS without work, or when the
parent goes away; one that a call left much larger (freed heap stays resident) is replaced.
"""
from __future__ import annotations

import os
import pickle
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

from App_Function_Libraries.errors import QuarryError

IDLE_SECONDS = 120.0  # a worker without work for this long exits (its memory goes back)
CALLS_PER_WORKER = 200  # then it is replaced, so a slow leak in a parser cannot grow for ever
RECYCLE_GROWTH_MB = 128  # a worker left this much larger by a call is replaced (freed heap stays resident)
POLL_SECONDS = 0.05  # how often a waiting call looks at its cancel event
START_TIMEOUT_SECONDS = 60.0  # a worker that does not come up in this time is a failure to start


class ParseFailed(QuarryError):
    """The parse did not finish; str() is one line."""


class ParseTimeout(ParseFailed):
    pass


class ParseTooLarge(ParseFailed):
    pass


class ParseCrashed(ParseFailed):
    pass


class ParseCancelled(ParseFailed):
    pass


@dataclass(frozen=True)
class ParseLimits:
    seconds: float  # wall clock, from the moment a worker takes the call
    memory_mb: int = 0  # how much the worker's address space may grow during the call; 0: no cap


def run_limited(fn: Callable, *args, limits: ParseLimits, on_start: Callable[[], None] | None = None,
                cancel: threading.Event | None = None, preload: tuple[str, ...] = ()) -> Any:
    """fn(*args) in a worker process under these limits. `on_start` is called when a worker takes the call:
    neither waiting for a free worker nor starting one (importing fn's module and `preload`) counts against
    the deadline."""
    return _default_pool().run(fn, args, limits, on_start, cancel, preload)


def failure_line(exc: ParseFailed, limits: ParseLimits, reading: str, section: str, timeout_key: str,
                 memory_key: str) -> str:
    """The one-line reason a limited parse failed, naming the setting that stopped it, e.g.
    'gave up after 20 s reading the page's text ([fetch] extract_timeout_seconds)'."""
    if isinstance(exc, ParseTimeout):
        return f"gave up after {limits.seconds:g} s {reading} ([{section}] {timeout_key})"
    if isinstance(exc, ParseTooLarge):
        return f"gave up: {reading} needed more than {limits.memory_mb} MB ([{section}] {memory_key})"
    if isinstance(exc, ParseCancelled):
        return "cancelled"
    return f"{reading.replace('reading ', '', 1)} could not be read: {exc}"


def warm(modules: tuple[str, ...] = ()) -> None:
    """Start a worker in the background with these modules imported, so the first call does not wait for it."""
    _default_pool().warm(modules)


# ---------------------------------------------------------------- the worker process

def _serve(conn, idle_seconds: float) -> None:
    """The worker's loop: one call at a time until the parent goes away or nothing comes for a while."""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle; it then closes the pipe
    cap = _MemoryCap()
    resident = _resident()
    while conn.poll(idle_seconds):
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message[0] == "import":
            try:
                for name in message[1]:
                    __import__(name)
                conn.send(("ok", None, 0))
            except Exception as exc:  # noqa: BLE001 - raised in the parent
                conn.send(("error", _portable(exc), 0))
            resident = _resident()
            continue
        _, fn, args, memory_mb = message
        peak = _peak()
        limit = cap.set(memory_mb)
        try:
            status, value = "ok", fn(*args)
        except MemoryError:
            status, value = "memory", None
        except BaseException as exc:  # noqa: BLE001 - sent back and raised in the parent
            status, value = "error", _portable(exc)
        finally:
            cap.lift()
        if status == "error" and _reached(limit, peak, memory_mb):
            status, value = "memory", None
        grown = (_resident() - resident) // 2 ** 20
        try:
            conn.send((status, value, grown))
        except (pickle.PicklingError, TypeError, AttributeError) as exc:  # a result that cannot be sent back
            conn.send(("error", RuntimeError(f"the result could not be sent back: {type(exc).__name__}: {exc}"),
                       grown))


def _portable(exc: BaseException) -> BaseException:
    """The exception itself when it survives pickling, else a RuntimeError with its type and message."""
    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:  # noqa: BLE001 - any pickling failure
        return RuntimeError(f"{type(exc).__name__}: {exc}")


class _MemoryCap:
    """RLIMIT_AS set to the current address space plus the call's allowance, lifted after the call."""

    def __init__(self):
        try:
            import resource
            self.resource = resource
            self.soft, self.hard = resource.getrlimit(resource.RLIMIT_AS)
        except (ImportError, AttributeError, OSError):  # Windows; platforms without RLIMIT_AS
            self.resource = None

    def set(self, memory_mb: int) -> int:
        """The address space (bytes) the call may reach; 0 where no cap is set."""
        if not self.resource or memory_mb <= 0:
            return 0
        limit = _address_space() + memory_mb * 2 ** 20
        if self.hard != self.resource.RLIM_INFINITY:
            limit = min(limit, self.hard)
        try:
            self.resource.setrlimit(self.resource.RLIMIT_AS, (limit, self.hard))
        except (ValueError, OSError):
            return 0
        return limit

    def lift(self) -> None:
        if self.resource:
            try:
                self.resource.setrlimit(self.resource.RLIMIT_AS, (self.soft, self.hard))
            except (ValueError, OSError):
                pass


def _reached(limit: int, peak_before: int, memory_mb: int) -> bool:
    """Whether the call's address space came up to its cap. A C library whose allocation fails under the cap
    does not always raise MemoryError (fontconfig, under a PDF renderer, ended in "SystemError: error return
    without exception set"): an error from a call that grew to within an eighth of its allowance (at least
    16 MB) of the cap is a memory failure. Undecidable, so not one, when the worker had been that large
    before (its peak does not move)."""
    if not limit:
        return False
    peak = _peak()
    margin = max(16, memory_mb // 8) * 2 ** 20
    return peak > peak_before and peak >= limit - margin


def _peak() -> int:
    """Bytes of the largest address space this process has had (/proc/self/status VmPeak); 0 where unknown."""
    try:
        with open("/proc/self/status", "rb") as fh:
            for line in fh:
                if line.startswith(b"VmPeak:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _address_space() -> int:
    return _statm(0)


def _resident() -> int:
    return _statm(1)


def _statm(field: int) -> int:
    """Bytes of /proc/self/statm's field (0: address space, 1: resident); 0 where there is no /proc."""
    try:
        with open("/proc/self/statm", "rb") as fh:
            return int(fh.read().split()[field]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


# ---------------------------------------------------------------- the parent's side

class _Worker:
    def __init__(self, ctx, modules: tuple[str, ...]):
        self.conn, child_conn = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(child_conn, IDLE_SECONDS), name="quarry-parse", daemon=True)
        self.proc.start()
        child_conn.close()
        self.conn.send(("import", modules))
        self.modules = set(modules)
        self.last_used = time.monotonic()
        self.calls = 0

    def ready(self, cancel) -> None:
        """Wait until it has imported its modules (raises what the import raised)."""
        waited = 0.0
        while not self.conn.poll(POLL_SECONDS):
            waited += POLL_SECONDS
            if cancel is not None and cancel.is_set():
                raise ParseCancelled("cancelled")
            if waited > START_TIMEOUT_SECONDS or not self.proc.is_alive():
                raise ParseCrashed(f"the worker process did not start (exit code {self.proc.exitcode})")
        try:
            status, value, _ = self.conn.recv()
        except (EOFError, OSError):
            raise ParseCrashed(f"the worker process did not start (exit code {self.proc.exitcode})") from None
        if status != "ok":
            raise value

    def load(self, modules: tuple[str, ...], cancel) -> None:
        """Import the modules it does not have yet."""
        missing = tuple(m for m in modules if m not in self.modules)
        if missing:
            self.conn.send(("import", missing))
            self.ready(cancel)
            self.modules.update(missing)

    def usable(self) -> bool:
        """Alive and not about to exit for idleness (a call sent then would find it gone)."""
        return (self.proc.is_alive() and self.calls < CALLS_PER_WORKER
                and time.monotonic() - self.last_used < IDLE_SECONDS - 10)

    def stop(self) -> None:
        """Kill it and wait until it is gone: nothing of a given-up parse keeps running."""
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(10)
        self.conn.close()


class _Pool:
    def __init__(self, size: int):
        import multiprocessing
        self.ctx = multiprocessing.get_context("spawn")
        self.size = size
        self.idle: list[_Worker] = []
        self.busy = 0
        self.modules: set[str] = set()  # every worker imports these when it starts
        self.cond = threading.Condition()

    def run(self, fn: Callable, args: tuple, limits: ParseLimits, on_start, cancel, preload=()) -> Any:
        worker = self._acquire(cancel, (fn.__module__, *preload))
        keep = False
        try:
            try:
                worker.conn.send(("call", fn, args, limits.memory_mb))
            except (BrokenPipeError, OSError) as exc:
                raise ParseCrashed(f"the worker process went away ({exc})") from None
            if on_start is not None:
                on_start()
            status, value, grown = self._wait(worker, time.monotonic() + limits.seconds, limits, cancel)
            keep = status in ("ok", "error") and grown < RECYCLE_GROWTH_MB
        finally:
            self._release(worker, keep)
        if status == "memory":
            raise ParseTooLarge(f"needed more than {limits.memory_mb} MB")
        if status == "error":
            raise value
        return value

    def _wait(self, worker: _Worker, deadline: float, limits: ParseLimits, cancel) -> tuple[str, Any, int]:
        """(status, value, MB the worker grew by) of the call; raises when it has to be given up."""
        while True:
            left = deadline - time.monotonic()
            if cancel is not None and cancel.is_set():
                raise ParseCancelled("cancelled")
            if left <= 0:
                raise ParseTimeout(f"gave up after {limits.seconds:g} s")
            if worker.conn.poll(min(left, POLL_SECONDS) if cancel is not None else left):
                break
        try:
            return worker.conn.recv()
        except (EOFError, OSError):
            worker.proc.join(5)
            code = worker.proc.exitcode
            how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit code {code}"
            cap = f"; memory cap {limits.memory_mb} MB" if limits.memory_mb else ""
            raise ParseCrashed(f"the worker process died ({how}{cap})") from None

    def _acquire(self, cancel, modules: tuple[str, ...]) -> _Worker:
        """An idle worker, else a new one (started outside the lock), with these modules imported."""
        with self.cond:
            self.modules.update(modules)
            wanted = tuple(sorted(self.modules))
            worker = self._take_idle()
            while worker is None and self.busy >= self.size:
                if cancel is not None and cancel.is_set():
                    raise ParseCancelled("cancelled")
                self.cond.wait(POLL_SECONDS)
                worker = self._take_idle()
            self.busy += 1
        try:
            if worker is None:
                worker = _Worker(self.ctx, wanted)
                worker.ready(cancel)
            worker.load(modules, cancel)
            return worker
        except BaseException:
            if worker is not None:
                worker.stop()
            with self.cond:
                self.busy -= 1
                self.cond.notify()
            raise

    def _take_idle(self) -> _Worker | None:
        while self.idle:
            worker = self.idle.pop()
            if worker.usable():
                return worker
            self._retire(worker)
        return None

    def _release(self, worker: _Worker, keep: bool) -> None:
        worker.last_used = time.monotonic()
        worker.calls += 1
        if not keep:
            worker.stop()
        with self.cond:
            self.busy -= 1
            if keep:
                self.idle.append(worker)
            self.cond.notify()

    def _retire(self, worker: _Worker) -> None:
        threading.Thread(target=worker.stop, name="parse-retire", daemon=True).start()

    def warm(self, modules: tuple[str, ...]) -> None:
        with self.cond:
            self.modules.update(modules)
            if self.idle or self.busy:
                return
        threading.Thread(target=self._warm, args=(modules,), name="parse-warm", daemon=True).start()

    def _warm(self, modules: tuple[str, ...]) -> None:
        try:
            worker = self._acquire(None, modules)
        except Exception:  # noqa: BLE001 - warming is best effort; the first call starts a worker itself
            return
        self._release(worker, True)


_POOL: _Pool | None = None
_POOL_LOCK = threading.Lock()


def _default_pool() -> _Pool:
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = _Pool(max(1, min(4, os.cpu_count() or 1)))
        return _POOL
