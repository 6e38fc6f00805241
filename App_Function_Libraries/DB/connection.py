"""Opening Quarry's SQLite files: one connection per thread and file, WAL, a generous busy timeout, foreign
keys, write transactions that retry while another writer holds the lock, and versioned migrations.

Every store (research, notes, the search cache, ...) keeps its own schema version in the shared table
`schema_versions` (component, version), so several stores can live in one file and migrate independently:

    db = open_database(path)
    migrate(db, "notes", NOTES_MIGRATIONS)   # a list of SQL scripts; script i brings the schema to version i+1
    with write_transaction(db):
        db.execute("INSERT ...")
"""
from __future__ import annotations

import sqlite3
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, Sequence, Union

import sqlite_utils

from App_Function_Libraries.errors import QuarryError

BUSY_TIMEOUT_SECONDS = 30.0
WRITE_RETRY_SECONDS = 120.0  # how long a write keeps retrying a busy database before giving up
_BUSY_CODES = {5, 6}  # SQLITE_BUSY, SQLITE_LOCKED

Migration = Union[str, Callable[[sqlite_utils.Database], None]]


class StoreError(QuarryError):
    """Base of the storage errors; str() is a one-line message a person can act on."""


class NotFoundError(StoreError, LookupError):
    """The note, report or page asked for does not exist."""


class DatabaseBusyError(StoreError):
    """Another writer held the database for longer than we were willing to wait."""


class SchemaTooNewError(StoreError):
    """The file was written by a newer Quarry whose schema this version does not know."""


_local = threading.local()


def open_database(path: str | Path) -> sqlite_utils.Database:
    """This thread's connection to the SQLite file at `path` (created, with its folder, on first use).

    sqlite3 connections may not be shared across threads, so each thread gets its own, cached."""
    key = str(Path(path).resolve())
    dbs: dict[str, sqlite_utils.Database] = getattr(_local, "dbs", None) or {}
    _local.dbs = dbs
    db = dbs.get(key)
    if db is None:
        db = dbs[key] = _connect(Path(key))
    return db


def close_thread_connections() -> None:
    """Close this thread's cached connections (tests, and threads that are about to end)."""
    for db in (getattr(_local, "dbs", None) or {}).values():
        db.close()
    _local.dbs = {}


def _connect(path: Path) -> sqlite_utils.Database:
    path.parent.mkdir(parents=True, exist_ok=True)
    # isolation_level=None: no implicit transactions; every write goes through write_transaction().
    conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None)
    conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_SECONDS * 1000)}")
    _retry_busy(lambda: conn.execute("PRAGMA journal_mode = WAL"))
    conn.execute("PRAGMA synchronous = FULL")  # a committed save survives a crash of the machine too
    conn.execute("PRAGMA foreign_keys = ON")
    return sqlite_utils.Database(conn, execute_plugins=False)


def is_busy_error(exc: BaseException) -> bool:
    if not isinstance(exc, sqlite3.OperationalError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return (code & 0xFF) in _BUSY_CODES
    text = str(exc).lower()
    return "database is locked" in text or "database is busy" in text or "database table is locked" in text


def _retry_busy(step: Callable[[], object], deadline: float | None = None) -> object:
    """Run `step`, retrying with a short back-off while SQLite says the database is busy."""
    deadline = deadline if deadline is not None else time.monotonic() + WRITE_RETRY_SECONDS
    delay = 0.01
    while True:
        try:
            return step()
        except sqlite3.OperationalError as exc:
            if not is_busy_error(exc):
                raise
            if time.monotonic() >= deadline:
                raise DatabaseBusyError(
                    "the database stayed busy (another Quarry window or process is writing); try again") from None
            time.sleep(delay)
            delay = min(delay * 2, 0.5)


@contextmanager
def write_transaction(db: sqlite_utils.Database) -> Iterator[sqlite_utils.Database]:
    """One atomic write: BEGIN IMMEDIATE (taking the write lock up front, so no deadlock between readers
    upgrading), retried while busy; COMMIT on success (retried while busy), ROLLBACK on any exception."""
    conn = db.conn
    if conn.in_transaction:
        raise StoreError("a write transaction is already open on this connection")
    deadline = time.monotonic() + WRITE_RETRY_SECONDS
    _retry_busy(lambda: conn.execute("BEGIN IMMEDIATE"), deadline)
    try:
        yield db
        _retry_busy(lambda: conn.execute("COMMIT"), deadline)
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


# ---------------------------------------------------------------- migrations

_VERSIONS_TABLE = """
CREATE TABLE IF NOT EXISTS schema_versions (
    component TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    updated_at REAL NOT NULL
)"""


def schema_version(db: sqlite_utils.Database, component: str) -> int:
    if not db["schema_versions"].exists():
        return 0
    row = db.execute("SELECT version FROM schema_versions WHERE component = ?", [component]).fetchone()
    return int(row[0]) if row else 0


def migrate(db: sqlite_utils.Database, component: str, migrations: Sequence[Migration]) -> int:
    """Bring `component`'s schema up to len(migrations), each step in its own transaction. Returns the version.

    A step is an SQL script or a function taking the Database. Safe when several processes start at once:
    the version is re-read under the write lock before a step runs."""
    target = len(migrations)
    current = schema_version(db, component)
    if current > target:
        raise SchemaTooNewError(
            f"{db.conn.execute('PRAGMA database_list').fetchone()[2]}: the {component} schema is version "
            f"{current}, newer than this Quarry knows ({target}); update Quarry")
    while current < target:
        with write_transaction(db):
            db.conn.execute(_VERSIONS_TABLE)
            current = schema_version(db, component)
            if current >= target:
                break
            _apply(db, migrations[current])
            current += 1
            db.conn.execute(
                "INSERT INTO schema_versions (component, version, updated_at) VALUES (?, ?, ?) "
                "ON CONFLICT(component) DO UPDATE SET version = excluded.version, updated_at = excluded.updated_at",
                [component, current, time.time()])
    return current


def _apply(db: sqlite_utils.Database, step: Migration) -> None:
    if callable(step):
        step(db)
        return
    for statement in _split_sql(step):
        db.conn.execute(statement)


def _split_sql(script: str) -> list[str]:
    """Statements of an SQL script (executescript would COMMIT our transaction), triggers kept whole."""
    statements, buffer = [], ""
    for piece in script.split(";"):
        buffer += piece + ";"
        if sqlite3.complete_statement(buffer):
            if buffer.strip(" \t\r\n;"):
                statements.append(buffer.strip())
            buffer = ""
    if buffer.strip(" \t\r\n;"):
        statements.append(buffer.strip())
    return statements


# ---------------------------------------------------------------- per-file store cache

_ready: set[tuple[str, str]] = set()
_ready_lock = threading.Lock()


def open_store_database(path: str | Path, component: str, migrations: Sequence[Migration]) -> sqlite_utils.Database:
    """This thread's connection with `component`'s schema brought up to date (checked once per process)."""
    db = open_database(path)
    key = (str(Path(path).resolve()), component)
    if key not in _ready:
        with _ready_lock:
            if key not in _ready:
                migrate(db, component, migrations)
                _ready.add(key)
    return db


def forget_schema_checks() -> None:
    """Make the next open re-check every schema (tests that delete and recreate a file)."""
    with _ready_lock:
        _ready.clear()


_stores: dict[tuple[type, str], object] = {}
_stores_lock = threading.Lock()


def shared_store(cls: type, path_setting: str, settings=None):
    """The one `cls(path)` of this process for the database file named by `settings.databases.<path_setting>`."""
    if settings is None:
        from App_Function_Libraries.config import get_settings
        settings = get_settings()
    path = str(settings.resolve_path(getattr(settings.databases, path_setting)))
    with _stores_lock:
        if (cls, path) not in _stores:
            _stores[(cls, path)] = cls(path)
        return _stores[(cls, path)]
