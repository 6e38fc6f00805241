"""A hard wall-clock deadline for one download's whole exchange (a web page, a search API's answer): connecting,
the headers, every redirect hop and the body. Socket time-outs bound each read, not their sum, so a server that
sends one byte just inside the read time-out (headers included) would otherwise hold the download for ever.

Every socket a download opens is registered with its `DownloadDeadline` (through the connection class of the
adapter, see `deadline_pools`). One watchdog thread shuts the registered sockets down when their deadline
passes or the run's cancel event is set; the read blocked on such a socket then returns at once, and the
caller reports the total time-out (or the cancellation) instead of whatever the broken read raised. The
watchdog thread ends as soon as no deadline is watched (a later download starts it again), so no thread
outlives the downloads it watches. Used by Research/fetch.py (pages) and Search/runner.py (search APIs).
"""
from __future__ import annotations

import socket
import threading
import time

POLL_SECONDS = 0.05  # how often cancel events are looked at


class DownloadDeadline:
    """One fetch's deadline and the sockets it has opened so far."""

    def __init__(self, seconds: float, cancel: threading.Event | None = None):
        self.seconds = seconds
        self.at = time.monotonic() + seconds
        self.cancel = cancel
        self.expired = False  # the deadline passed or the run was cancelled: the sockets were shut down
        self.cancelled = False
        self._socks: list[socket.socket] = []  # our own duplicates of the fetch's sockets
        self._lock = threading.Lock()

    def __enter__(self) -> "DownloadDeadline":
        _WATCHDOG.add(self)
        return self

    def __exit__(self, *exc) -> None:
        _WATCHDOG.remove(self)
        self.release()

    def remaining(self) -> float:
        return self.at - time.monotonic()

    def watch(self, sock: socket.socket) -> None:
        """Register a freshly connected socket. A duplicate descriptor is kept: shutting it down ends reads on
        the original too (also once TLS has wrapped it), and it cannot be closed and reused behind our back."""
        try:
            dup = sock.dup()
        except OSError:
            return
        with self._lock:
            self._socks.append(dup)
            if self.expired:
                _shut(dup)

    def expire(self, cancelled: bool = False) -> None:
        with self._lock:
            if self.expired:
                return
            self.expired, self.cancelled = True, cancelled
            for sock in self._socks:
                _shut(sock)

    def release(self) -> None:
        """Close our duplicates (the hop is over; its own sockets are closed by their response)."""
        with self._lock:
            socks, self._socks = self._socks, []
        for sock in socks:
            try:
                sock.close()
            except OSError:
                pass


def _shut(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:  # already closed by the peer
        pass


class _Watchdog:
    """One daemon thread for all downloads: expires each deadline when it passes or its cancel event is set; it
    ends when nothing is left to watch."""

    def __init__(self):
        self._active: set[DownloadDeadline] = set()
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None

    def add(self, deadline: DownloadDeadline) -> None:
        with self._cond:
            self._active.add(deadline)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="fetch-deadlines", daemon=True)
                self._thread.start()
            self._cond.notify()

    def remove(self, deadline: DownloadDeadline) -> None:
        with self._cond:
            self._active.discard(deadline)
            self._cond.notify()  # the thread ends at once when this was the last one

    def _run(self) -> None:
        while True:
            with self._cond:
                due, wait = self._due(time.monotonic())
                if not due and not self._active:
                    self._thread = None  # add() starts a new thread for the next deadline
                    return
                if not due:
                    self._cond.wait(wait)
                    continue
            for deadline, cancelled in due:
                deadline.expire(cancelled)

    def _due(self, now: float) -> tuple[list[tuple[DownloadDeadline, bool]], float | None]:
        """(deadlines to expire now, seconds to sleep when there are none: None while nothing is watched)."""
        due = []
        for d in list(self._active):
            cancelled = d.cancel is not None and d.cancel.is_set()
            if cancelled or now >= d.at:
                self._active.discard(d)
                due.append((d, cancelled))
        if due or not self._active:
            return due, None
        wait = min(d.at for d in self._active) - now
        if any(d.cancel is not None for d in self._active):
            wait = min(wait, POLL_SECONDS)
        return due, max(wait, 0.001)


_WATCHDOG = _Watchdog()


def deadline_pools(deadline: DownloadDeadline) -> dict[str, type]:
    """urllib3 connection-pool classes whose connections register each new socket with this deadline (for
    `PoolManager.pool_classes_by_scheme`)."""
    from urllib3.connection import HTTPConnection, HTTPSConnection
    from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

    class Watched:
        def _new_conn(self):
            sock = super()._new_conn()
            deadline.watch(sock)
            return sock

    class WatchedHTTP(Watched, HTTPConnection):
        pass

    class WatchedHTTPS(Watched, HTTPSConnection):
        pass

    class Pool(HTTPConnectionPool):
        ConnectionCls = WatchedHTTP

    class TLSPool(HTTPSConnectionPool):
        ConnectionCls = WatchedHTTPS

    return {"http": Pool, "https": TLSPool}
