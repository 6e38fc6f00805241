"""Search answers cached in SQLite (table `search_cache` of the research database), keyed by engine,
endpoint, query, options and engine settings. The key is a SHA-256 of those; no API key is part of it or of
any row (websearch.py redacts an answer before it is stored).

The table's schema is versioned like every store's (component "search_cache" in `schema_versions`, steps in
MIGRATIONS, see DB/connection.py); step 1 adopts a table made before versioning, which had the same columns.

A fresh entry (younger than search_cache_ttl_seconds) answers the search without the network. Older entries
are kept STALE_KEEP_SECONDS so a search that cannot reach its engine can still fall back on them (the
answer says so). Cache trouble (a locked or broken file) never fails a search: it is reported and skipped.
"""
from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable
from urllib.parse import parse_qsl, urlencode, urlsplit

from App_Function_Libraries.DB.connection import open_store_database, write_transaction
from App_Function_Libraries.DB.redact import is_secret_name

STALE_KEEP_SECONDS = 30 * 86400
COMPONENT = "search_cache"
MIGRATIONS = ["""
CREATE TABLE IF NOT EXISTS search_cache (
    key TEXT PRIMARY KEY,
    engine TEXT NOT NULL,
    query TEXT NOT NULL,
    options TEXT NOT NULL,
    created_at REAL NOT NULL,
    answer TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS search_cache_created ON search_cache(created_at);
"""]


@dataclass
class CachedAnswer:
    answer: dict[str, Any]
    created_at: float
    age_seconds: float


def cache_key(engine: str, endpoint: str, options: dict[str, Any], extras: dict[str, str] | None = None) -> str:
    """SHA-256 of everything that decides what the engine answers: engine, endpoint (without user:password@
    and without query parameters named like a credential), options, and the engine's other settings
    (`extras`: Google's search engine id, the ddgs backend). The API key is not part of it: another key
    for the same account and endpoint gives the same results, and a key is never stored, even hashed."""
    parts = urlsplit(endpoint or "")
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not is_secret_name(k)]
    where = f"{parts.scheme}://{parts.netloc.rsplit('@', 1)[-1]}{parts.path}" + (f"?{urlencode(query)}" if query
                                                                                 else "")
    text = json.dumps({"engine": engine, "endpoint": where, "options": options, "extras": extras or {}},
                      sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class SearchCache:
    """Thread-safe: each thread uses its own connection to the file at `path`."""

    def __init__(self, path: str | Path, clock: Callable[[], float] = time.time) -> None:
        self.path = Path(path)
        self._clock = clock

    def _db(self):
        return open_store_database(self.path, COMPONENT, MIGRATIONS)

    def get(self, key: str) -> CachedAnswer | None:
        """The stored answer for key, whatever its age (None when there is none)."""
        row = self._db().execute("SELECT answer, created_at FROM search_cache WHERE key = ?", [key]).fetchone()
        if row is None:
            return None
        try:
            answer = json.loads(row[0])
        except ValueError:
            return None
        return CachedAnswer(answer, row[1], max(0.0, self._clock() - row[1]))

    def put(self, key: str, engine: str, query: str, options: dict[str, Any], answer: dict[str, Any]) -> None:
        now = self._clock()
        db = self._db()
        with write_transaction(db):
            db.execute("INSERT OR REPLACE INTO search_cache (key, engine, query, options, created_at, answer) "
                       "VALUES (?, ?, ?, ?, ?, ?)",
                       [key, engine, query, json.dumps(options, sort_keys=True, default=str), now,
                        json.dumps(answer, default=str)])
            db.execute("DELETE FROM search_cache WHERE created_at < ?", [now - STALE_KEEP_SECONDS])

    def clear(self) -> int:
        db = self._db()
        with write_transaction(db):
            return db.execute("DELETE FROM search_cache").rowcount
