"""The research store: searches, their results, the reports written from them, and the page cache.

Tables (schema component "research", see MIGRATIONS):
- searches: one row per question asked (id = ResearchResult.id, question, params, sub-queries, time)
- results: the search results of a search, in order (engines, rank, title, URL, snippet, relevance verdict,
  reason, user override, fetch outcome, what went wrong (failure, warning, duplicate, skipped), passages,
  page notes, report number)
- reports: the report written for a search (markdown, models, timings, usage, errors, follow-ups, rounds)
- citations: each citation of a report with the quote that supports it
- report_chats: questions asked about a report and their answers from its own sources (Research/report_chat.py)
- pages: the page cache shared with the fetcher (requested URL, final URL, status, content hash, title,
  text, content type, its caveat (warning: cut at the byte cap, a wrong charset), fetched at)

Saving a ResearchResult is one transaction: a reader (or a crash) sees all of it or none of it. Secrets are
scrubbed before anything is written (see redact.py). Times are epoch seconds (float), as in ResearchResult.
"""
from __future__ import annotations

import json
import time
from dataclasses import MISSING, asdict, dataclass, fields
from pathlib import Path
from typing import Any, Iterable

from App_Function_Libraries.DB.connection import (NotFoundError, StoreError, open_store_database, shared_store,
                                                   write_transaction)
from App_Function_Libraries.DB.file_errors import report_file_errors
from App_Function_Libraries.DB.redact import (configured_secrets, content_secrets, scrub, scrub_message,
                                              scrub_result_dict, scrub_text, to_plain)
from App_Function_Libraries.DB.run_schema import RUNS_MIGRATION
from App_Function_Libraries.records import (VERDICTS, AnswerSource, Citation, Page, ReportExchange, ResearchResult,
                                            Source, split_problem)

COMPONENT = "research"

# Questions asked about a finished report ("Ask about this report"), kept with it: a re-saved report (dig
# deeper keeps its id) keeps them; deleting the report deletes them.
REPORT_CHATS_MIGRATION = """
    CREATE TABLE report_chats (
        report_id TEXT NOT NULL REFERENCES searches(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        question TEXT NOT NULL,
        answer TEXT NOT NULL DEFAULT '',
        mode TEXT NOT NULL DEFAULT 'extractive',
        citations TEXT NOT NULL DEFAULT '[]',
        errors TEXT NOT NULL DEFAULT '[]',
        invalid_citations_removed INTEGER NOT NULL DEFAULT 0,
        asked_at REAL NOT NULL,
        PRIMARY KEY (report_id, position)
    );
    """

# Issue 22: each citation keeps its evidence's passage and its support verdict (Retrieval/cited_answer.py)
CITATION_EVIDENCE_MIGRATION = """
    ALTER TABLE citations ADD COLUMN verdict TEXT NOT NULL DEFAULT '';
    ALTER TABLE citations ADD COLUMN passage TEXT NOT NULL DEFAULT '';
    """

# Issue 22: an exchange's answer is the one answer record (records.Answer): its status, its own numbered
# sources (each with the report's number), the parts not answered and the closest passages not used are kept
# in `extra` (JSON); a row without them ('') is an older exchange, which cited the report's numbers
EXCHANGE_ANSWER_MIGRATION = """
    ALTER TABLE report_chats ADD COLUMN extra TEXT NOT NULL DEFAULT '';
    """
_EXCHANGE_EXTRA = ("status", "sources", "unanswered", "closest")

# A cached page keeps its caveat: read again from the cache, a page cut at the byte cap still says so
PAGE_WARNING_MIGRATION = """
    ALTER TABLE pages ADD COLUMN warning TEXT NOT NULL DEFAULT '';
    """

MIGRATIONS = [
    """
    CREATE TABLE searches (
        id TEXT PRIMARY KEY,
        question TEXT NOT NULL,
        params TEXT NOT NULL DEFAULT '{}',
        sub_queries TEXT NOT NULL DEFAULT '[]',
        created_at REAL NOT NULL
    );
    CREATE INDEX searches_created ON searches(created_at);
    CREATE TABLE results (
        search_id TEXT NOT NULL REFERENCES searches(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        url TEXT NOT NULL,
        title TEXT NOT NULL DEFAULT '',
        snippet TEXT NOT NULL DEFAULT '',
        engines TEXT NOT NULL DEFAULT '[]',
        queries TEXT NOT NULL DEFAULT '[]',
        rank INTEGER NOT NULL DEFAULT 0,
        fused_score REAL NOT NULL DEFAULT 0,
        date_published TEXT,
        verdict TEXT NOT NULL DEFAULT 'unjudged' CHECK (verdict IN ('relevant', 'irrelevant', 'unjudged')),
        reason TEXT NOT NULL DEFAULT '',
        user_override INTEGER CHECK (user_override IN (0, 1)),
        fetched INTEGER NOT NULL DEFAULT 0,
        final_url TEXT NOT NULL DEFAULT '',
        status INTEGER,
        content_hash TEXT NOT NULL DEFAULT '',
        error TEXT NOT NULL DEFAULT '',
        passages TEXT NOT NULL DEFAULT '[]',
        extraction TEXT NOT NULL DEFAULT '',
        n INTEGER,
        round INTEGER NOT NULL DEFAULT 0,
        extra TEXT NOT NULL DEFAULT '{}',
        PRIMARY KEY (search_id, position)
    );
    CREATE INDEX results_url ON results(search_id, url);
    CREATE TABLE reports (
        id TEXT PRIMARY KEY REFERENCES searches(id) ON DELETE CASCADE,
        markdown TEXT NOT NULL DEFAULT '',
        mode TEXT NOT NULL DEFAULT 'extractive',
        models TEXT NOT NULL DEFAULT '[]',
        source_count INTEGER NOT NULL,
        citation_count INTEGER NOT NULL,
        uncited_sources TEXT NOT NULL DEFAULT '[]',
        invalid_citations_removed INTEGER NOT NULL DEFAULT 0,
        timings TEXT NOT NULL DEFAULT '{}',
        llm_usage TEXT NOT NULL DEFAULT '{}',
        errors TEXT NOT NULL DEFAULT '[]',
        follow_ups TEXT NOT NULL DEFAULT '[]',
        rounds TEXT NOT NULL DEFAULT '[]',
        extra TEXT NOT NULL DEFAULT '{}',
        saved_at REAL NOT NULL
    );
    CREATE TABLE citations (
        report_id TEXT NOT NULL REFERENCES reports(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        n INTEGER NOT NULL,
        sentence TEXT NOT NULL,
        url TEXT NOT NULL,
        quote TEXT NOT NULL,
        content_hash TEXT NOT NULL DEFAULT '',
        similarity REAL NOT NULL DEFAULT 0,
        PRIMARY KEY (report_id, position)
    );
    CREATE TABLE pages (
        url TEXT PRIMARY KEY,
        final_url TEXT NOT NULL DEFAULT '',
        status INTEGER,
        content_hash TEXT NOT NULL DEFAULT '',
        title TEXT NOT NULL DEFAULT '',
        text TEXT NOT NULL DEFAULT '',
        content_type TEXT NOT NULL DEFAULT '',
        fetched_at REAL NOT NULL
    );
    CREATE INDEX pages_final_url ON pages(final_url);
    """,
    lambda db: _names_of_their_own(db),
    REPORT_CHATS_MIGRATION,
    RUNS_MIGRATION,  # schema 4: durable runs and watchlists (DB/run_schema.py, DB/run_store.py)
    CITATION_EVIDENCE_MIGRATION,  # schema 5: each citation's verdict and passage
    EXCHANGE_ANSWER_MIGRATION,  # schema 6: an exchange's answer record
    PAGE_WARNING_MIGRATION,  # schema 7: a cached page's warning
]


def _names_of_their_own(db) -> None:
    """Schema 2: page notes and the kinds of source problem get names of their own. results.extraction ->
    notes; results.error -> failure, warning, duplicate or skipped (records.split_problem); in reports.timings
    "extract" (then the page notes' time) -> "notes" ("extract" now times the HTML/PDF -> text step)."""
    conn = db.conn
    conn.execute("ALTER TABLE results RENAME COLUMN extraction TO notes")
    for column in ("warning", "duplicate", "skipped"):
        conn.execute(f"ALTER TABLE results ADD COLUMN {column} TEXT NOT NULL DEFAULT ''")
    rows = conn.execute("SELECT search_id, position, error, fetched FROM results WHERE error != ''").fetchall()
    for search_id, position, text, fetched in rows:
        (column, value), = split_problem(text, bool(fetched)).items()
        if column != "failure":
            conn.execute(f"UPDATE results SET error = '', {column} = ? WHERE search_id = ? AND position = ?",
                         [value, search_id, position])
    conn.execute("ALTER TABLE results RENAME COLUMN error TO failure")
    for rid, timings in conn.execute("SELECT id, timings FROM reports").fetchall():
        try:
            data = json.loads(timings or "{}")
        except ValueError:  # never written so by Quarry; left for the loader to refuse, not the whole file
            continue
        if isinstance(data, dict) and "extract" in data and "notes" not in data:
            data["notes"] = data.pop("extract")
            conn.execute("UPDATE reports SET timings = ? WHERE id = ?", [_dumps(data), rid])

_JSON_SOURCE_FIELDS = ("engines", "queries", "passages")
_EXTRA_SOURCE_FIELDS = ("kind", "paper", "in_hand")  # kept in the results row's `extra` JSON, not in columns
_DERIVED_SOURCE_FIELDS = ("error",)  # in a source's dict (to_dict) for readers, made again on load: not stored
_SOURCE_COLUMNS = [f.name for f in fields(Source) if f.name not in _EXTRA_SOURCE_FIELDS]
_SOURCE_DEFAULTS = {f.name: f.default_factory() if f.default_factory is not MISSING else
                    ("" if f.default is MISSING else f.default) for f in fields(Source)}
_NULLABLE_SOURCE_FIELDS = {"date_published", "status", "n", "user_override"}
_REPORT_JSON_FIELDS = ("uncited_sources", "timings", "llm_usage", "errors", "follow_ups", "rounds")
# kept in the reports row's `extra` JSON, not in columns of their own
_EXTRA_RESULT_FIELDS = ("stage_failures", "answer_status", "unanswered_parts", "unsupported_citations", "closest",
                        "budget_reached")
_RESULT_FIELDS = {f.name for f in fields(ResearchResult)} - set(_EXTRA_RESULT_FIELDS)
# the page cache's columns: a records.Page keyed by the URL that was asked for, with its caveat (warning); the
# outcome of one read (failure, from_cache) is not kept
_PAGE_COLUMNS = ("url", "final_url", "status", "content_hash", "title", "text", "content_type", "warning",
                 "fetched_at")


@dataclass
class ReportSummary:
    """A line of the history: a past search and its report."""
    id: str
    question: str
    created_at: float
    source_count: int
    citation_count: int
    mode: str
    models: list[str]


@report_file_errors("[databases] research_db")
class ResearchStore:
    """Thread-safe: each thread uses its own connection to the file at `path`."""

    def __init__(self, path: str | Path, secrets: Iterable[str] | None = None):
        self.path = Path(path)
        self._secrets = None if secrets is None else set(secrets)

    def _db(self):
        return open_store_database(self.path, COMPONENT, MIGRATIONS)

    def _current_secrets(self) -> set[str]:
        return configured_secrets() if self._secrets is None else self._secrets

    # ------------------------------------------------------------ saving and loading reports

    def save_research(self, result: ResearchResult | dict[str, Any]) -> str:
        """Save (or replace) a whole research run in one transaction; returns its id."""
        data = result.to_dict() if isinstance(result, ResearchResult) else dict(result)
        data = scrub_result_dict(data, self._current_secrets())
        if not str(data.get("question") or "").strip():
            raise StoreError("cannot save a research run without a question")
        rid = str(data.get("id") or ResearchResult(question="").id)
        db = self._db()
        with write_transaction(db):
            chats = list(db.query("SELECT * FROM report_chats WHERE report_id = ?", [rid]))  # kept on a re-save
            db.conn.execute("DELETE FROM searches WHERE id = ?", [rid])  # a re-save replaces (cascades)
            db["searches"].insert(_search_row(rid, data))
            db["results"].insert_all([_result_row(rid, i, s) for i, s in enumerate(data.get("sources") or [])])
            db["reports"].insert(_report_row(rid, data))
            db["citations"].insert_all([_citation_row(rid, i, c) for i, c in enumerate(data.get("citations") or [])])
            db["report_chats"].insert_all(chats)
        return rid

    def load_report(self, report_id: str) -> ResearchResult:
        """The saved research run `report_id` as a ResearchResult. Raises NotFoundError."""
        db = self._db()
        rows = list(db.query("SELECT s.*, r.* FROM searches s JOIN reports r ON r.id = s.id WHERE s.id = ?",
                             [report_id]))
        if not rows:
            raise NotFoundError(f"no saved report with id {report_id!r}")
        row = rows[0]
        sources = [_source_from_row(r) for r in
                   db.query("SELECT * FROM results WHERE search_id = ? ORDER BY position", [report_id])]
        citations = [{k: r[k] for k in ("n", "sentence", "url", "quote", "content_hash", "similarity", "verdict",
                                        "passage")}
                     for r in db.query("SELECT * FROM citations WHERE report_id = ? ORDER BY position", [report_id])]
        data: dict[str, Any] = json.loads(row["extra"])
        data.update({"id": row["id"], "question": row["question"], "params": json.loads(row["params"]),
                     "sub_queries": json.loads(row["sub_queries"]), "created_at": row["created_at"],
                     "report_markdown": row["markdown"], "mode": row["mode"],
                     "invalid_citations_removed": row["invalid_citations_removed"],
                     "sources": sources, "citations": citations})
        data.update({k: json.loads(row[k]) for k in _REPORT_JSON_FIELDS})
        return ResearchResult.from_dict(data)

    def list_reports(self, limit: int = 50, offset: int = 0, query: str | None = None) -> list[ReportSummary]:
        """Past research runs, newest first; `query` keeps those whose question or report contains it."""
        sql = ("SELECT s.id, s.question, s.created_at, r.source_count, r.citation_count, r.mode, r.models "
               "FROM searches s JOIN reports r ON r.id = s.id")
        args: list[Any] = []
        if query and query.strip():
            pattern = "%" + _escape_like(query.strip()) + "%"
            sql += " WHERE s.question LIKE ? ESCAPE '\\' OR r.markdown LIKE ? ESCAPE '\\'"
            args += [pattern, pattern]
        sql += " ORDER BY s.created_at DESC, s.id LIMIT ? OFFSET ?"
        args += [max(0, int(limit)), max(0, int(offset))]
        return [ReportSummary(id=r["id"], question=r["question"], created_at=r["created_at"],
                              source_count=r["source_count"], citation_count=r["citation_count"], mode=r["mode"],
                              models=json.loads(r["models"])) for r in self._db().query(sql, args)]

    def count_reports(self) -> int:
        return self._db().execute("SELECT count(*) FROM reports").fetchone()[0]

    def resolve_id(self, prefix: str) -> str:
        """The full id of the report whose id starts with `prefix` (as printed by `history`)."""
        rows = self._db().execute("SELECT id FROM searches WHERE id LIKE ? ESCAPE '\\' LIMIT 2",
                                  [_escape_like(prefix.strip()) + "%"]).fetchall()
        if not prefix.strip() or not rows:
            raise NotFoundError(f"no saved report with id {prefix!r}")
        if len(rows) > 1:
            raise NotFoundError(f"id {prefix!r} matches several reports; give more characters")
        return rows[0][0]

    def delete_report(self, report_id: str) -> None:
        db = self._db()
        with write_transaction(db):
            if db.conn.execute("DELETE FROM searches WHERE id = ?", [report_id]).rowcount == 0:
                raise NotFoundError(f"no saved report with id {report_id!r}")

    def set_user_override(self, report_id: str, url: str, value: bool | None) -> None:
        """Record that the user ticked a result in (True) or out (False), or cleared that choice (None)."""
        stored = None if value is None else int(bool(value))
        db = self._db()
        with write_transaction(db):
            cur = db.conn.execute("UPDATE results SET user_override = ? WHERE search_id = ? AND url = ?",
                                  [stored, report_id, url])
            if cur.rowcount == 0:
                raise NotFoundError(f"report {report_id!r} has no result with URL {url!r}")

    # ------------------------------------------------------------ questions asked about a report

    def save_exchange(self, report_id: str, exchange: ReportExchange) -> int:
        """Add a question asked about report `report_id` and its answer; returns its position (0, 1, …)."""
        secrets = content_secrets(self._current_secrets())
        answer = scrub(to_plain(exchange.answer.to_dict()), secrets)
        db = self._db()
        with write_transaction(db):
            if db.execute("SELECT 1 FROM searches WHERE id = ?", [report_id]).fetchone() is None:
                raise NotFoundError(f"no saved report with id {report_id!r}")
            position = db.execute("SELECT coalesce(max(position) + 1, 0) FROM report_chats WHERE report_id = ?",
                                  [report_id]).fetchone()[0]
            db["report_chats"].insert({
                "report_id": report_id, "position": position,
                "question": scrub_text(str(exchange.question), secrets),
                "answer": str(answer["markdown"]), "mode": str(answer["mode"]),
                "citations": _dumps(answer["citations"]),
                "errors": _dumps([scrub_message(str(e), secrets) for e in answer["errors"]]),
                "invalid_citations_removed": int(answer["invalid_citations_removed"] or 0),
                "asked_at": float(exchange.asked_at or time.time()),
                "extra": _dumps({k: answer[k] for k in _EXCHANGE_EXTRA})})
        return position

    def list_exchanges(self, report_id: str) -> list[ReportExchange]:
        """The questions asked about report `report_id`, in the order they were asked."""
        rows = list(self._db().query("SELECT * FROM report_chats WHERE report_id = ? ORDER BY position",
                                     [report_id]))
        exchanges = []
        for r in rows:
            answer = {"markdown": r["answer"], "mode": r["mode"], "citations": json.loads(r["citations"]),
                      "errors": json.loads(r["errors"]), "invalid_citations_removed": r["invalid_citations_removed"]}
            data = {"question": r["question"], "report_id": report_id, "asked_at": r["asked_at"]}
            if r["extra"]:
                exchanges.append(ReportExchange.from_dict({**data, "answer": {**answer, **json.loads(r["extra"])}}))
                continue
            old = ReportExchange.from_dict({**data, **answer, "answer_markdown": r["answer"]})  # the flat form
            self._own_numbers(report_id, old)
            exchanges.append(old)
        return exchanges

    def _own_numbers(self, report_id: str, exchange: ReportExchange) -> None:
        """An older exchange cited the report's numbers: its sources are the report's sources it cites, each
        numbered 1..k in the answer, keeping its report number (as a new exchange is)."""
        from App_Function_Libraries.Retrieval.numbering import number_gapless
        cited = {c.n for c in exchange.answer.citations}
        rows = self._db().query("SELECT n, title, url, final_url, extra FROM results "
                                "WHERE search_id = ? AND n IS NOT NULL ORDER BY n", [report_id])
        exchange.answer.sources = [AnswerSource(r["n"], r["title"], r["final_url"] or r["url"],
                                                (json.loads(r["extra"] or "{}") or {}).get("kind", "web"), True,
                                                r["n"]) for r in rows if r["n"] in cited]
        number_gapless(exchange.answer, keep_uncited=False)

    # ------------------------------------------------------------ page cache

    def get_page(self, url: str, max_age_seconds: float) -> Page | None:
        """The cached page for `url` (asked-for or final URL) fetched at most `max_age_seconds` ago, else None."""
        if max_age_seconds is None or max_age_seconds <= 0:
            return None
        oldest = time.time() - max_age_seconds
        rows = list(self._db().query(
            "SELECT * FROM pages WHERE (url = ? OR final_url = ?) AND fetched_at >= ? "
            "ORDER BY (url = ?) DESC, fetched_at DESC LIMIT 1", [url, url, oldest, url]))
        return Page.from_dict(rows[0]) if rows else None

    def put_page(self, page: Page) -> None:
        """Store (or refresh) a fetched page in the cache."""
        row = {k: v for k, v in asdict(page).items() if k in _PAGE_COLUMNS}
        secrets = content_secrets(self._current_secrets())
        row = {k: scrub_text(v, secrets) if isinstance(v, str) else v for k, v in row.items()}
        row["fetched_at"] = float(page.fetched_at or time.time())
        db = self._db()
        with write_transaction(db):
            db["pages"].upsert(row, pk="url")

    def prune_pages(self, older_than_seconds: float) -> int:
        """Drop cached pages fetched longer ago than `older_than_seconds`; returns how many."""
        db = self._db()
        with write_transaction(db):
            cur = db.conn.execute("DELETE FROM pages WHERE fetched_at < ?", [time.time() - older_than_seconds])
        return cur.rowcount


# ---------------------------------------------------------------- rows

def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _search_row(rid: str, data: dict[str, Any]) -> dict[str, Any]:
    return {"id": rid, "question": str(data["question"]), "params": _dumps(data.get("params") or {}),
            "sub_queries": _dumps(list(data.get("sub_queries") or [])),
            "created_at": float(data.get("created_at") or time.time())}


def _result_row(rid: str, position: int, source: dict[str, Any]) -> dict[str, Any]:
    row: dict[str, Any] = {"search_id": rid, "position": position}
    for name in _SOURCE_COLUMNS:
        value = source.get(name)
        if value is None and name not in _NULLABLE_SOURCE_FIELDS:
            value = _SOURCE_DEFAULTS[name]
        if name in _JSON_SOURCE_FIELDS:
            value = _dumps(list(value))
        elif name in ("fetched", "user_override") and value is not None:
            value = int(bool(value))
        elif name == "verdict" and value not in VERDICTS:
            value = "unjudged"
        row[name] = value
    row["extra"] = _dumps({k: v for k, v in source.items()
                           if k not in _SOURCE_COLUMNS and k not in _DERIVED_SOURCE_FIELDS})
    return row


def _source_from_row(row: dict[str, Any]) -> dict[str, Any]:
    data = json.loads(row["extra"])
    for name in _SOURCE_COLUMNS:
        value = row[name]
        if name in _JSON_SOURCE_FIELDS:
            value = json.loads(value)
        elif name == "fetched":
            value = bool(value)
        elif name == "user_override" and value is not None:
            value = bool(value)
        data[name] = value
    return data


def _report_row(rid: str, data: dict[str, Any]) -> dict[str, Any]:
    usage = data.get("llm_usage") or {}
    models = usage.get("models") if isinstance(usage, dict) else None
    if isinstance(models, dict):
        models = sorted(set(str(m) for m in models.values()))
    known = _RESULT_FIELDS
    row = {"id": rid, "markdown": str(data.get("report_markdown") or ""), "mode": str(data.get("mode") or ""),
           "models": _dumps(list(models or [])), "source_count": len(data.get("sources") or []),
           "citation_count": len(data.get("citations") or []),
           "invalid_citations_removed": int(data.get("invalid_citations_removed") or 0),
           "extra": _dumps({k: v for k, v in data.items() if k not in known}),
           "saved_at": time.time()}
    defaults: dict[str, Any] = {"timings": {}, "llm_usage": {}}
    row.update({k: _dumps(data.get(k) or defaults.get(k, [])) for k in _REPORT_JSON_FIELDS})
    return row


def _citation_row(rid: str, position: int, citation: dict[str, Any]) -> dict[str, Any]:
    c = Citation(**{k: citation[k] for k in ("n", "sentence", "url", "quote") if k in citation},
                 content_hash=citation.get("content_hash") or "", similarity=float(citation.get("similarity") or 0),
                 verdict=str(citation.get("verdict") or ""), passage=str(citation.get("passage") or ""))
    return {"report_id": rid, "position": position, **asdict(c)}


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def get_research_store(settings=None) -> ResearchStore:
    """The store at `settings.databases.research_db` (default Databases/quarry.db), shared by the whole process."""
    return shared_store(ResearchStore, "research_db", settings)
