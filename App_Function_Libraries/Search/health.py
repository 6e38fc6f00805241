"""Per-engine health: consecutive failures, the last error, and suspension, kept in the research database
(table `engine_health`, component "engine_health" in `schema_versions`) so that every Quarry process - the
UI, `python app.py search`, `python app.py check` - sees and obeys the same record.

After `search_suspend_after_failures` failures in a row an engine is suspended: searches to it fail at once
with a message saying until when, instead of waiting on a service that is down or refusing us. A suspension
lasts SHORT_SUSPENSION seconds (LONG_SUSPENSION after rate limiting, a refusal, a bad key or a used-up
quota, or the server's Retry-After if longer) and doubles each time it is renewed, up to MAX_SUSPENSION.
After it, one search is let through: success clears the record, failure suspends again.

    board = health_board(settings)          # the board of settings' research database (one per file)
    board.suspension_message(engine)  -> str|None
    board.record_success(engine) / board.record_failure(engine, error, threshold, message=None)
    board.snapshot() -> {engine: EngineHealth}      (for the UI and `python app.py check`)

A board made without a path (HealthBoard()) keeps its records in memory; so does a board whose database
cannot be used (broken file, newer schema), after one logged warning: health never fails a search.
"""
from __future__ import annotations

import dataclasses
import logging
import math
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from App_Function_Libraries.DB.connection import open_store_database, write_transaction
from App_Function_Libraries.Search.errors import InvalidOption, NotConfigured, SearchError

log = logging.getLogger(__name__)
SHORT_SUSPENSION = 60.0
LONG_SUSPENSION = 600.0
MAX_SUSPENSION = 6 * 3600.0
NOT_COUNTED = (NotConfigured, InvalidOption)  # the caller's problem, not the engine's
COMPONENT = "engine_health"
MIGRATIONS = ["""
CREATE TABLE IF NOT EXISTS engine_health (
    engine TEXT PRIMARY KEY,
    consecutive_failures INTEGER NOT NULL DEFAULT 0,
    failures INTEGER NOT NULL DEFAULT 0,
    successes INTEGER NOT NULL DEFAULT 0,
    last_error TEXT NOT NULL DEFAULT '',
    last_error_kind TEXT NOT NULL DEFAULT '',
    last_success_at REAL,
    last_failure_at REAL,
    suspended_until REAL NOT NULL DEFAULT 0,
    suspensions_in_a_row INTEGER NOT NULL DEFAULT 0
)"""]


@dataclass
class EngineHealth:
    engine: str
    consecutive_failures: int = 0
    failures: int = 0
    successes: int = 0
    last_error: str = ""
    last_error_kind: str = ""
    last_success_at: float | None = None
    last_failure_at: float | None = None
    suspended_until: float = 0.0
    suspensions_in_a_row: int = 0

    def seconds_suspended(self, now: float) -> float:
        return max(0.0, self.suspended_until - now)

    def describe(self, now: float) -> str:
        left = self.seconds_suspended(now)
        if left:
            return (f"suspended for {_duration(left)} more after {self.consecutive_failures} failures in a row "
                    f"(last: {self.last_error})")
        if self.consecutive_failures:
            return f"{self.consecutive_failures} failure(s) in a row (last: {self.last_error})"
        if self.successes:
            return "healthy"
        return "not used yet"


class _MemoryRecords:
    """Health records in this process only."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._rows: dict[str, EngineHealth] = {}

    def get(self, engine: str) -> EngineHealth | None:
        with self._lock:
            state = self._rows.get(engine)
            return dataclasses.replace(state) if state else None

    def all(self) -> dict[str, EngineHealth]:
        with self._lock:
            return {name: dataclasses.replace(state) for name, state in self._rows.items()}

    def update(self, engine: str, change: Callable[[EngineHealth], None]) -> None:
        with self._lock:
            change(self._rows.setdefault(engine, EngineHealth(engine)))

    def clear(self, engine: str | None) -> None:
        with self._lock:
            if engine is None:
                self._rows.clear()
            else:
                self._rows.pop(engine, None)


_COLUMNS = [f.name for f in dataclasses.fields(EngineHealth)]


class _SqliteRecords:
    """Health records in the `engine_health` table; each change is one write transaction (read, change,
    write), so processes updating the same engine do not lose each other's counts."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _db(self):
        return open_store_database(self.path, COMPONENT, MIGRATIONS)

    def _read(self, db, where: str = "", args: tuple = ()) -> dict[str, EngineHealth]:
        rows = db.execute(f"SELECT {', '.join(_COLUMNS)} FROM engine_health {where}", list(args)).fetchall()
        return {row[0]: EngineHealth(*row) for row in rows}

    def get(self, engine: str) -> EngineHealth | None:
        return self._read(self._db(), "WHERE engine = ?", (engine,)).get(engine)

    def all(self) -> dict[str, EngineHealth]:
        return self._read(self._db())

    def update(self, engine: str, change: Callable[[EngineHealth], None]) -> None:
        db = self._db()
        with write_transaction(db):
            state = self._read(db, "WHERE engine = ?", (engine,)).get(engine) or EngineHealth(engine)
            change(state)
            db.execute(f"INSERT OR REPLACE INTO engine_health ({', '.join(_COLUMNS)}) VALUES "
                       f"({', '.join('?' * len(_COLUMNS))})", [getattr(state, c) for c in _COLUMNS])

    def clear(self, engine: str | None) -> None:
        db = self._db()
        with write_transaction(db):
            if engine is None:
                db.execute("DELETE FROM engine_health")
            else:
                db.execute("DELETE FROM engine_health WHERE engine = ?", [engine])


class HealthBoard:
    def __init__(self, clock: Callable[[], float] = time.time, path: str | Path | None = None) -> None:
        self._clock = clock
        self._memory = _MemoryRecords()
        self._records: _MemoryRecords | _SqliteRecords = _SqliteRecords(Path(path)) if path else self._memory

    def _use(self, operation: str, *args):
        """records.<operation>(*args), moving to the in-memory records for good if the database fails."""
        try:
            return getattr(self._records, operation)(*args)
        except Exception as exc:  # noqa: BLE001 - a broken database must not break searching
            if self._records is self._memory:
                raise
            log.warning("engine health kept in memory only: %s cannot be used (%s)",
                        getattr(self._records, "path", "?"), exc)
            self._records = self._memory
            return getattr(self._memory, operation)(*args)

    def suspension_message(self, engine: str) -> str | None:
        """Why the engine may not be searched now, or None when it may."""
        state, now = self._use("get", engine), self._clock()
        if state is None or not state.seconds_suspended(now):
            return None
        return f"{engine} is {state.describe(now)}; other engines still work"

    def record_success(self, engine: str) -> None:
        now = self._clock()

        def change(state: EngineHealth) -> None:
            state.successes += 1
            state.consecutive_failures = 0
            state.suspensions_in_a_row = 0
            state.suspended_until = 0.0
            state.last_success_at = now
        self._use("update", engine, change)

    def record_failure(self, engine: str, error: SearchError, threshold: int, message: str | None = None) -> None:
        """Count a failure; `message` (already free of keys) is kept as the last error, else str(error)."""
        if isinstance(error, NOT_COUNTED):
            return
        now = self._clock()

        def change(state: EngineHealth) -> None:
            state.failures += 1
            state.consecutive_failures += 1
            state.last_error, state.last_error_kind = message if message is not None else str(error), error.kind
            state.last_failure_at = now
            if state.consecutive_failures >= max(1, threshold):
                base = LONG_SUSPENSION if error.long_suspension else SHORT_SUSPENSION
                length = min(MAX_SUSPENSION, base * 2 ** state.suspensions_in_a_row)
                length = max(length, min(MAX_SUSPENSION, error.retry_after or 0.0))
                state.suspended_until = now + length
                state.suspensions_in_a_row += 1
        self._use("update", engine, change)

    def snapshot(self) -> dict[str, EngineHealth]:
        return self._use("all")

    def describe(self, engine: str) -> str:
        state = self._use("get", engine)
        return state.describe(self._clock()) if state else "not used yet"

    def reset(self, engine: str | None = None) -> None:
        self._use("clear", engine)


_boards: dict[str, HealthBoard] = {}
_boards_lock = threading.Lock()


def health_board(settings) -> HealthBoard:
    """The health board kept in `settings`' research database (one per file and process)."""
    path = str(settings.resolve_path(settings.databases.research_db))
    with _boards_lock:
        if path not in _boards:
            _boards[path] = HealthBoard(path=path)
        return _boards[path]


def forget_health_boards() -> None:
    """Drop this process's boards (tests: a board that fell back to memory does not outlive its test)."""
    with _boards_lock:
        _boards.clear()


def _duration(seconds: float) -> str:
    """Time left, rounded up: a suspension still running never reads "0 s", and one just begun reads in full."""
    if seconds <= 90:
        return f"{math.ceil(seconds)} s"
    if seconds <= 5400:
        return f"{math.ceil(seconds / 60)} min"
    return f"{math.ceil(seconds / 360) / 10:.1f} h"

