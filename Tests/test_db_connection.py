"""Opening the SQLite files: pragmas, the Databases folder, write transactions and schema migrations."""
from __future__ import annotations

import sqlite3
import threading

import pytest

from App_Function_Libraries.DB import connection
from App_Function_Libraries.DB.connection import (
    DatabaseBusyError, SchemaTooNewError, StoreError, close_thread_connections, migrate, open_database,
    open_store_database, schema_version, write_transaction)
from App_Function_Libraries.DB.notes_store import get_notes_store
from App_Function_Libraries.DB.research_store import get_research_store


@pytest.fixture(autouse=True)
def _close():
    yield
    close_thread_connections()


def test_first_open_creates_the_folder_and_sets_pragmas(tmp_path):
    path = tmp_path / "Databases" / "deeper" / "quarry.db"
    db = open_database(path)
    assert path.exists()
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert db.execute("PRAGMA busy_timeout").fetchone()[0] >= 10_000
    assert db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_each_thread_gets_its_own_connection(tmp_path):
    path = tmp_path / "q.db"
    mine = open_database(path)
    assert open_database(path) is mine
    seen = []
    thread = threading.Thread(target=lambda: (seen.append(open_database(path)), close_thread_connections()))
    thread.start()
    thread.join()
    assert seen and seen[0] is not mine


def test_settings_paths_are_used_and_stores_share_one_file(make_settings, tmp_path):
    settings = make_settings()
    notes, research = get_notes_store(settings), get_research_store(settings)
    assert notes.path == research.path == tmp_path / "quarry.db"
    assert get_notes_store(settings) is notes
    notes.count_notes()
    research.count_reports()
    db = open_database(tmp_path / "quarry.db")
    versions = dict(db.execute("SELECT component, version FROM schema_versions").fetchall())
    assert versions == {"notes": 1, "research": 7}


def test_write_transaction_rolls_back_on_error(tmp_path):
    db = open_database(tmp_path / "q.db")
    db.execute("CREATE TABLE t (x INTEGER)")
    with pytest.raises(RuntimeError):
        with write_transaction(db):
            db.execute("INSERT INTO t VALUES (1)")
            raise RuntimeError("boom")
    assert db.execute("SELECT count(*) FROM t").fetchone()[0] == 0
    assert not db.conn.in_transaction
    with write_transaction(db):
        db.execute("INSERT INTO t VALUES (2)")
    assert db.execute("SELECT x FROM t").fetchall() == [(2,)]


def test_write_waits_for_another_writer_then_succeeds(tmp_path):
    path = tmp_path / "q.db"
    db = open_database(path)
    db.execute("CREATE TABLE t (x INTEGER)")
    other = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    other.execute("INSERT INTO t VALUES (1)")
    release = threading.Timer(0.3, lambda: other.execute("COMMIT"))
    release.start()
    with write_transaction(db):
        db.execute("INSERT INTO t VALUES (2)")
    release.join()
    assert sorted(db.execute("SELECT x FROM t").fetchall()) == [(1,), (2,)]


def test_a_lock_held_too_long_gives_a_clear_error(tmp_path, monkeypatch):
    path = tmp_path / "q.db"
    db = open_database(path)
    db.execute("PRAGMA busy_timeout = 20")
    monkeypatch.setattr(connection, "WRITE_RETRY_SECONDS", 0.3)
    other = sqlite3.connect(str(path), isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(DatabaseBusyError, match="busy"):
            with write_transaction(db):
                pass
    finally:
        other.execute("ROLLBACK")
        other.close()


def test_nested_write_transaction_is_refused(tmp_path):
    db = open_database(tmp_path / "q.db")
    with write_transaction(db):
        with pytest.raises(StoreError):
            with write_transaction(db):
                pass


def test_migrations_run_in_order_once_and_resume(tmp_path):
    db = open_database(tmp_path / "q.db")
    calls = []
    steps = ["CREATE TABLE a (x INTEGER);\nCREATE TRIGGER a_t AFTER INSERT ON a BEGIN SELECT 1; SELECT 2; END;",
             lambda d: calls.append("step2") or d.execute("ALTER TABLE a ADD COLUMN y TEXT")]
    assert migrate(db, "demo", steps[:1]) == 1
    assert migrate(db, "demo", steps) == 2
    assert migrate(db, "demo", steps) == 2
    assert calls == ["step2"]
    assert [c.name for c in db["a"].columns] == ["x", "y"]
    assert schema_version(db, "other") == 0


def test_a_failing_migration_leaves_the_previous_version(tmp_path):
    db = open_database(tmp_path / "q.db")
    steps = ["CREATE TABLE a (x INTEGER)", "CREATE TABLE b (y INTEGER); CREATE TABLE a (z INTEGER)"]
    with pytest.raises(sqlite3.OperationalError):
        migrate(db, "demo", steps)
    assert schema_version(db, "demo") == 1
    assert not db["b"].exists()


def test_a_newer_schema_is_refused(tmp_path):
    db = open_database(tmp_path / "q.db")
    migrate(db, "demo", ["CREATE TABLE a (x)", "CREATE TABLE b (x)"])
    with pytest.raises(SchemaTooNewError, match="newer"):
        migrate(db, "demo", ["CREATE TABLE a (x)"])


def test_open_store_database_migrates_from_many_threads_at_once(tmp_path):
    path = tmp_path / "q.db"
    steps = ["CREATE TABLE a (x INTEGER)", "CREATE TABLE b (x INTEGER)"]
    errors = []

    def open_it():
        try:
            open_store_database(path, "racing", steps)
        except Exception as exc:  # noqa: BLE001 - the test reports any failure
            errors.append(exc)
        finally:
            close_thread_connections()

    threads = [threading.Thread(target=open_it) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert schema_version(open_database(path), "racing") == 2
