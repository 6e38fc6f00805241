"""Durable runs and watchlists, in the research store's file (tables: DB/run_schema.py, schema 4).

A run is checkpointed as each stage completes, and each dig-deeper round after its report (`checkpoint`: the
result as that stage or round left it, in one transaction), and each page it reads is kept at once (`save_page`). A run whose status is "running" but whose
process is gone (killed, machine off) reads as "interrupted". Watches keep what they have seen (normalized URL,
content hash, passages) and their runs. Secrets are scrubbed before anything is written (redact.py).
"""
from __future__ import annotations

import json
import os
import socket
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from App_Function_Libraries.DB.connection import NotFoundError, open_store_database, shared_store, write_transaction
from App_Function_Libraries.DB.file_errors import report_file_errors
from App_Function_Libraries.DB.redact import configured_secrets, content_secrets, scrub, scrub_result_dict
from App_Function_Libraries.DB.research_store import COMPONENT, MIGRATIONS, _escape_like

RUN_STATUSES = ("running", "interrupted", "cancelled", "failed", "done")
RESUMABLE = ("interrupted", "cancelled", "failed")


@dataclass
class RunRecord:
    """One run as the store keeps it; `state` is the ResearchResult dict its last completed stage left."""
    id: str
    question: str
    status: str  # one of RUN_STATUSES ("interrupted": "running" in the file, its process gone)
    stage: str  # the last stage completed ("" before the first; "rounds" once a dig-deeper round is committed)
    state: dict[str, Any] = field(default_factory=dict)
    plan: dict[str, Any] = field(default_factory=dict)
    budget: dict[str, Any] = field(default_factory=dict)
    watch_id: str = ""
    started_at: float = 0.0
    updated_at: float = 0.0


@dataclass
class WatchRecord:
    id: str
    report_id: str
    question: str
    plan: dict[str, Any]
    params: dict[str, Any]
    every_seconds: float
    next_due: float
    created_at: float
    last_run_at: float | None = None


@dataclass
class WatchRun:
    watch_id: str
    run_id: str
    ran_at: float
    new_sources: int
    changed_sources: int
    notified: bool


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _alive(pid: int, host: str) -> bool:
    """Whether the process that runs a run is still there (a run on another machine is taken as alive)."""
    if host and host != socket.gethostname():
        return True
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@report_file_errors("[databases] research_db")
class RunStore:
    """Thread-safe: each thread uses its own connection to the file at `path`."""

    def __init__(self, path: str | Path, secrets: Iterable[str] | None = None):
        self.path = Path(path)
        self._secrets = None if secrets is None else set(secrets)

    def _db(self):
        return open_store_database(self.path, COMPONENT, MIGRATIONS)

    def _scrub_state(self, state: dict[str, Any]) -> dict[str, Any]:
        secrets = configured_secrets() if self._secrets is None else self._secrets
        return scrub_result_dict(state, secrets) if state.get("question") else scrub(state, content_secrets(secrets))

    # ------------------------------------------------------------ runs

    def start_run(self, run_id: str, question: str, state: dict[str, Any], plan: dict[str, Any] | None = None,
                  budget: dict[str, Any] | None = None, watch_id: str = "") -> None:
        """Record a run that begins (or resumes: its stage and state are kept, its process is now this one)."""
        now = time.time()
        db = self._db()
        with write_transaction(db):
            row = db.execute("SELECT stage FROM runs WHERE id = ?", [run_id]).fetchone()
            if row is None:
                db["runs"].insert({"id": run_id, "question": question, "status": "running", "stage": "",
                                   "state": _dumps(self._scrub_state(state)), "plan": _dumps(plan or {}),
                                   "budget": _dumps(budget or {}), "pid": os.getpid(), "host": socket.gethostname(),
                                   "watch_id": watch_id, "started_at": now, "updated_at": now})
            else:
                db.conn.execute("UPDATE runs SET status = 'running', pid = ?, host = ?, updated_at = ? WHERE id = ?",
                                [os.getpid(), socket.gethostname(), now, run_id])

    def checkpoint(self, run_id: str, stage: str, state: dict[str, Any]) -> None:
        """The run completed `stage`, leaving `state` (committed at once)."""
        db = self._db()
        with write_transaction(db):
            db.conn.execute("UPDATE runs SET stage = ?, state = ?, updated_at = ? WHERE id = ?",
                            [stage, _dumps(self._scrub_state(state)), time.time(), run_id])

    def set_status(self, run_id: str, status: str) -> None:
        """A run's new status. "done" (its report is saved) also drops what resuming needed: its checkpoint
        and kept pages (the report has the one; the page cache the other)."""
        if status not in RUN_STATUSES:
            raise ValueError(f"unknown run status {status!r}")
        db = self._db()
        with write_transaction(db):
            db.conn.execute("UPDATE runs SET status = ?, updated_at = ? WHERE id = ?", [status, time.time(), run_id])
            if status == "done":
                db.conn.execute("UPDATE runs SET state = '{}' WHERE id = ?", [run_id])
                db.conn.execute("DELETE FROM run_pages WHERE run_id = ?", [run_id])

    def get_run(self, run_id: str) -> RunRecord:
        rows = list(self._db().query("SELECT * FROM runs WHERE id = ?", [run_id]))
        if not rows:
            raise NotFoundError(f"no run with id {run_id!r}")
        return _run(rows[0])

    def list_runs(self, unfinished: bool = True, limit: int = 50) -> list[RunRecord]:
        """Runs newest first; `unfinished`: those not done (interrupted, cancelled, failed, still running)."""
        sql = "SELECT * FROM runs" + (" WHERE status != 'done'" if unfinished else "")
        sql += " ORDER BY updated_at DESC LIMIT ?"
        return [_run(r) for r in self._db().query(sql, [max(0, int(limit))])]

    def resolve_run_id(self, prefix: str) -> str:
        return self._by_prefix("runs", prefix, "run")

    def _by_prefix(self, table: str, prefix: str, what: str) -> str:
        """The full id in `table` that starts with `prefix` (ids as printed, shortened); NotFoundError."""
        rows = self._db().execute(f"SELECT id FROM {table} WHERE id LIKE ? ESCAPE '\\' LIMIT 2",
                                  [_escape_like(prefix.strip()) + "%"]).fetchall()
        if not prefix.strip() or not rows:
            raise NotFoundError(f"no {what} with id {prefix!r}")
        if len(rows) > 1:
            raise NotFoundError(f"id {prefix!r} matches several {table}; give more characters")
        return rows[0][0]

    def save_page(self, run_id: str, url: str, page: dict[str, Any]) -> None:
        """A page the run has read (or failed to read), kept at once."""
        secrets = configured_secrets() if self._secrets is None else self._secrets
        db = self._db()
        with write_transaction(db):
            db["run_pages"].upsert({"run_id": run_id, "url": url, "page": _dumps(scrub(page, content_secrets(secrets))),
                                    "read_at": time.time()}, pk=("run_id", "url"))

    def run_pages(self, run_id: str) -> dict[str, dict[str, Any]]:
        return {r["url"]: json.loads(r["page"]) for r in
                self._db().query("SELECT url, page FROM run_pages WHERE run_id = ?", [run_id])}

    # ------------------------------------------------------------ watches

    def add_watch(self, report_id: str, question: str, plan: dict[str, Any], params: dict[str, Any],
                  every_seconds: float, first_due: float | None = None) -> WatchRecord:
        now = time.time()
        record = WatchRecord(id=str(uuid.uuid4()), report_id=report_id, question=question, plan=plan,
                             params=params, every_seconds=float(every_seconds),
                             next_due=now + every_seconds if first_due is None else first_due, created_at=now)
        db = self._db()
        with write_transaction(db):
            db["watches"].insert({**record.__dict__, "plan": _dumps(plan), "params": _dumps(params)})
        return record

    def list_watches(self) -> list[WatchRecord]:
        return [_watch(r) for r in self._db().query("SELECT * FROM watches ORDER BY created_at, id")]

    def get_watch(self, prefix: str) -> WatchRecord:
        watch_id = self._by_prefix("watches", prefix, "watch")
        return _watch(next(iter(self._db().query("SELECT * FROM watches WHERE id = ?", [watch_id]))))

    def remove_watch(self, prefix: str) -> WatchRecord:
        watch = self.get_watch(prefix)
        db = self._db()
        with write_transaction(db):
            db.conn.execute("DELETE FROM watches WHERE id = ?", [watch.id])
        return watch

    def due_watches(self, now: float | None = None) -> list[WatchRecord]:
        now = time.time() if now is None else now
        return [_watch(r) for r in self._db().query("SELECT * FROM watches WHERE next_due <= ? ORDER BY next_due",
                                                    [now])]

    def seen(self, watch_id: str) -> dict[str, dict[str, Any]]:
        """url_key -> {content_hash, passages, seen_at}: what the watch's runs have read so far."""
        return {r["url_key"]: {"content_hash": r["content_hash"], "passages": json.loads(r["passages"]),
                               "seen_at": r["seen_at"]}
                for r in self._db().query("SELECT * FROM watch_seen WHERE watch_id = ?", [watch_id])}

    def record_watch_run(self, watch_id: str, run_id: str, seen: dict[str, dict[str, Any]], new: int,
                         changed: int, notified: bool, ran_at: float | None = None, schedule: bool = True) -> None:
        """One run of a watch: what it read becomes seen, the run is linked, and (`schedule`) the next run is
        due `every_seconds` from now (the watched report itself is recorded with schedule=False)."""
        ran_at = time.time() if ran_at is None else ran_at
        db = self._db()
        with write_transaction(db):
            for key, entry in seen.items():
                db["watch_seen"].upsert({"watch_id": watch_id, "url_key": key, "content_hash": entry["content_hash"],
                                         "passages": _dumps(entry.get("passages") or []), "seen_at": ran_at},
                                        pk=("watch_id", "url_key"))
            db["watch_runs"].upsert({"watch_id": watch_id, "run_id": run_id, "ran_at": ran_at, "new_sources": new,
                                     "changed_sources": changed, "notified": int(notified)}, pk=("watch_id", "run_id"))
            db.conn.execute("UPDATE watches SET last_run_at = ? WHERE id = ?", [ran_at, watch_id])
            if schedule:
                db.conn.execute("UPDATE watches SET next_due = ? + every_seconds WHERE id = ?", [time.time(), watch_id])

    def watch_runs(self, watch_id: str) -> list[WatchRun]:
        return [WatchRun(r["watch_id"], r["run_id"], r["ran_at"], r["new_sources"], r["changed_sources"],
                         bool(r["notified"])) for r in
                self._db().query("SELECT * FROM watch_runs WHERE watch_id = ? ORDER BY ran_at", [watch_id])]

    def watches_of_report(self, report_id: str) -> list[tuple[WatchRecord, list[WatchRun]]]:
        """The watches a saved report belongs to (as the watched research or one of its runs), with their runs."""
        ids = {r[0] for r in self._db().execute(
            "SELECT id FROM watches WHERE report_id = ? UNION SELECT watch_id FROM watch_runs WHERE run_id = ?",
            [report_id, report_id]).fetchall()}
        return [(w, self.watch_runs(w.id)) for w in self.list_watches() if w.id in ids]


def _run(row: dict[str, Any]) -> RunRecord:
    status = row["status"]
    if status == "running" and not _alive(int(row["pid"] or 0), row["host"]):
        status = "interrupted"
    return RunRecord(id=row["id"], question=row["question"], status=status, stage=row["stage"],
                     state=json.loads(row["state"]), plan=json.loads(row["plan"]), budget=json.loads(row["budget"]),
                     watch_id=row["watch_id"], started_at=row["started_at"], updated_at=row["updated_at"])


def _watch(row: dict[str, Any]) -> WatchRecord:
    return WatchRecord(id=row["id"], report_id=row["report_id"], question=row["question"],
                       plan=json.loads(row["plan"]), params=json.loads(row["params"]),
                       every_seconds=row["every_seconds"], next_due=row["next_due"], created_at=row["created_at"],
                       last_run_at=row["last_run_at"])


def get_run_store(settings=None) -> RunStore:
    """The run store in `settings.databases.research_db`, shared by the whole process."""
    return shared_store(RunStore, "research_db", settings)
