"""Runs saved by an older Quarry (research schema 1) still open: the file is migrated to schema 2 (page notes
and each kind of source problem in columns of their own) and History loads the run with the new names."""
from __future__ import annotations

import json

import pytest

from App_Function_Libraries.DB.connection import close_thread_connections, migrate, open_database
from App_Function_Libraries.DB.research_store import ResearchStore
from App_Function_Libraries.records import ResearchResult, Round

# The research schema as Quarry wrote it before schema 2 (step 1 of its MIGRATIONS, verbatim).
SCHEMA_1 = """
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
"""

RID = "0f0e0d0c-aaaa-4bbb-8ccc-123456789abc"
CUT = "cut at 5,000,000 bytes (larger than [fetch] max_bytes)"
TWIN = "same page as source [1] (https://bees.example/dance/)"
SKIP = "not read: only the first 2 selected results are read (pages_max)"
# (url, fetched, error, extraction, n) as the old pipeline left them
OLD_RESULTS = [
    ("https://bees.example/dance", 1, CUT, "The dance encodes direction and distance.", 1),
    ("https://mirror.example/dance", 1, TWIN, "The dance encodes direction and distance.", None),
    ("https://slow.example/", 0, "timed out after 10 s", "", None),
    ("https://late.example/", 0, SKIP, "", None),
    ("https://plain.example/", 1, "", "Bees also smell the food.", 2),
]
OLD_TIMINGS = {"search": 1.25, "fetch": 3.5, "rank": 0.5, "extract": 2.0, "report": 4.0, "total": 12.0}
OLD_ROUNDS = [{"round": 1, "queries": ["bee dance distance"], "gaps": ["distance"], "considered": 3,
               "added": [{"n": 2, "url": "https://plain.example/", "title": "Smell"}],
               "change": {"added_sentences": ["Bees smell [2]."], "removed_sentences": [], "diff": ""},
               "stop": "", "seconds": 2.5}]


def write_schema_1_run(path) -> None:
    """A research run saved the way Quarry did before schema 2 (its schema, its rows, its stage names)."""
    db = open_database(path)
    assert migrate(db, "research", [SCHEMA_1]) == 1
    conn = db.conn
    with conn:
        conn.execute("INSERT INTO searches (id, question, params, sub_queries, created_at) VALUES (?, ?, ?, ?, ?)",
                     [RID, "How do bees share where food is?", "{}", '["waggle dance"]', 1700000000.0])
        for position, (url, fetched, error, extraction, n) in enumerate(OLD_RESULTS):
            conn.execute("INSERT INTO results (search_id, position, url, title, fetched, status, error, extraction, "
                         "n, passages) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                         [RID, position, url, f"page {position}", fetched, 200 if fetched else None, error,
                          extraction, n, json.dumps([{"text": extraction, "score": 0.5}] if extraction else [])])
        conn.execute("INSERT INTO reports (id, markdown, mode, source_count, citation_count, timings, rounds, "
                     "saved_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                     [RID, "Bees dance [1]. Bees smell [2].", "llm", len(OLD_RESULTS), 0, json.dumps(OLD_TIMINGS),
                      json.dumps(OLD_ROUNDS), 1700000001.0])
    close_thread_connections()


@pytest.fixture
def old_file(tmp_path):
    path = tmp_path / "quarry.db"
    write_schema_1_run(path)
    yield path
    close_thread_connections()


def test_a_schema_1_run_opens_with_the_new_names(old_file):
    store = ResearchStore(old_file, secrets=[])
    assert [s.id for s in store.list_reports()] == [RID]  # History lists it
    result = store.load_report(RID)
    by_url = {s.url: s for s in result.sources}
    dance, twin, slow, late, plain = (by_url[url] for url, *_ in OLD_RESULTS)
    assert dance.notes == "The dance encodes direction and distance." and dance.n == 1
    assert (dance.fetched, dance.warning, dance.failure) == (True, CUT, "")
    assert (twin.duplicate, twin.warning, twin.failure) == (TWIN, "", "")
    assert (slow.fetched, slow.failure, slow.warning) == (False, "timed out after 10 s", "")
    assert (late.skipped, late.failure) == (SKIP, "")
    assert (plain.notes, plain.error) == ("Bees also smell the food.", "")
    assert [s.error for s in result.sources] == [e for _, _, e, _, _ in OLD_RESULTS]  # the one line, as before
    assert isinstance(result.rounds[0], Round) and result.rounds[0].queries == ["bee dance distance"]
    assert result.rounds[0].added[0]["n"] == 2
    # "extract" timed the page notes then; now it is the HTML -> text step and the notes are "notes"
    assert result.timings == {"search": 1.25, "fetch": 3.5, "rank": 0.5, "notes": 2.0, "report": 4.0,
                              "total": 12.0}


def test_the_migrated_file_has_the_new_columns_and_version(old_file):
    ResearchStore(old_file, secrets=[]).count_reports()
    db = open_database(old_file)
    assert json.loads(db.execute("SELECT timings FROM reports").fetchone()[0])["notes"] == 2.0
    columns = {row[1] for row in db.execute("PRAGMA table_info(results)").fetchall()}
    assert {"notes", "failure", "warning", "duplicate", "skipped"} <= columns
    assert not {"extraction", "error"} & columns
    versions = dict(db.execute("SELECT component, version FROM schema_versions").fetchall())
    # 2: names of their own; 3: the report_chats table; 4: runs, watches; 5: citation evidence;
    # 6: an exchange's answer record; 7: a cached page's warning
    assert versions["research"] == 7
    citation_columns = {row[1] for row in db.execute("PRAGMA table_info(citations)").fetchall()}
    assert {"verdict", "passage"} <= citation_columns
    assert "extra" in {row[1] for row in db.execute("PRAGMA table_info(report_chats)").fetchall()}
    assert "warning" in {row[1] for row in db.execute("PRAGMA table_info(pages)").fetchall()}


def test_a_migrated_run_saves_and_loads_back_identical(old_file):
    store = ResearchStore(old_file, secrets=[])
    result = store.load_report(RID)
    result.report_markdown += " More."
    store.save_research(result)
    assert store.load_report(RID).to_dict() == result.to_dict()


def test_an_old_json_copy_reads_with_the_new_names():
    """Copies that never pass through the database (a note's report snapshot, a JSON export, the UI's state)."""
    old = {"question": "q", "rounds": OLD_ROUNDS, "timings": dict(OLD_TIMINGS),
           "sources": [{"title": "t", "url": url, "fetched": bool(fetched), "error": error, "extraction": notes}
                       for url, fetched, error, notes, _n in OLD_RESULTS]}
    result = ResearchResult.from_dict(old)
    assert [(s.failure, s.warning, s.duplicate, s.skipped) for s in result.sources] == [
        ("", CUT, "", ""), ("", "", TWIN, ""), ("timed out after 10 s", "", "", ""), ("", "", "", SKIP),
        ("", "", "", "")]
    assert result.sources[0].notes == "The dance encodes direction and distance."
    assert result.rounds[0].stop == "" and result.rounds[0]["considered"] == 3
    assert result.timings["notes"] == 2.0 and "extract" not in result.timings
    new = {"fetch": 1.0, "extract": 0.5, "rank": 0.25, "notes": 2.0}  # a run of this Quarry: kept as it is
    assert ResearchResult.from_dict({"question": "q", "timings": new}).timings == new
    assert ResearchResult.from_dict(result.to_dict()).to_dict() == result.to_dict()
