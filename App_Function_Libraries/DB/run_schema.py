"""Schema 4 of the research store: durable runs and watchlists (DB/run_store.py). Only adds tables, so every
run saved before it stays as it was.

- runs: a research run while it runs and after: its status (running, cancelled, failed, done), the last stage
  it completed, the result as that stage left it (JSON), its plan, budget, the process that runs it, and the
  watch it ran for (if any). A run whose status is "running" but whose process is gone was interrupted.
- run_pages: each page a run has read (or failed to read), kept as soon as it is read: a resumed run reads
  these instead of fetching them again.
- watches: saved researches re-run on a schedule (every N seconds); the plan they reuse.
- watch_seen: per watch, each normalized URL seen, its content hash and passages when last seen.
- watch_runs: the runs of a watch, in order (linked in History), with what each found new.
"""
from __future__ import annotations

RUNS_MIGRATION = """
    CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        question TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'running',
        stage TEXT NOT NULL DEFAULT '',
        state TEXT NOT NULL DEFAULT '{}',
        plan TEXT NOT NULL DEFAULT '{}',
        budget TEXT NOT NULL DEFAULT '{}',
        pid INTEGER NOT NULL DEFAULT 0,
        host TEXT NOT NULL DEFAULT '',
        watch_id TEXT NOT NULL DEFAULT '',
        started_at REAL NOT NULL,
        updated_at REAL NOT NULL
    );
    CREATE INDEX runs_status ON runs(status, updated_at);
    CREATE TABLE run_pages (
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        url TEXT NOT NULL,
        page TEXT NOT NULL,
        read_at REAL NOT NULL,
        PRIMARY KEY (run_id, url)
    );
    CREATE TABLE watches (
        id TEXT PRIMARY KEY,
        report_id TEXT NOT NULL,
        question TEXT NOT NULL,
        plan TEXT NOT NULL DEFAULT '{}',
        params TEXT NOT NULL DEFAULT '{}',
        every_seconds REAL NOT NULL,
        next_due REAL NOT NULL,
        created_at REAL NOT NULL,
        last_run_at REAL
    );
    CREATE TABLE watch_seen (
        watch_id TEXT NOT NULL REFERENCES watches(id) ON DELETE CASCADE,
        url_key TEXT NOT NULL,
        content_hash TEXT NOT NULL DEFAULT '',
        passages TEXT NOT NULL DEFAULT '[]',
        seen_at REAL NOT NULL,
        PRIMARY KEY (watch_id, url_key)
    );
    CREATE TABLE watch_runs (
        watch_id TEXT NOT NULL REFERENCES watches(id) ON DELETE CASCADE,
        run_id TEXT NOT NULL,
        ran_at REAL NOT NULL,
        new_sources INTEGER NOT NULL DEFAULT 0,
        changed_sources INTEGER NOT NULL DEFAULT 0,
        notified INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (watch_id, run_id)
    );
    """
