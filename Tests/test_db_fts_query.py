"""User text turned into FTS5 queries: hostile input never errors, intent (prefix, phrase, OR, NOT) is kept."""
from __future__ import annotations

import sqlite3

import pytest
from hypothesis import given, settings, strategies as st

from App_Function_Libraries.DB.connection import close_thread_connections
from App_Function_Libraries.DB.fts_query import MAX_TERMS, build_match_query
from App_Function_Libraries.DB.notes_store import NotesStore

HOSTILE = [
    '"', '""', '"""', "'", "''", '"unterminated phrase', 'say "hi', "AND", "OR", "NOT", "AND OR NOT", "a AND",
    "OR a", "a OR", "a NOT", "NOT a", "NEAR", "NEAR(", "NEAR(a b", "NEAR(a b, 2)", "NEAR/2", "a NEAR b",
    "(", ")", "((a)", "a)", "()", "*", "**", "a*", "*a", "a**b", "^", "^a", "+", "-", "-a", "a:b", "title:x",
    "{title content}: x", "content:", ":", "a'b", "\\", "\\\"", "%", "_", "a%_b", "; DROP TABLE notes; --",
    "\x00", "a\x00b", "\t\n\r", "😀", "👩‍👩‍👧 family", "🇫🇷", "日本語のテキスト", "Ελληνικά", "عربى", "ﬁ ligature",
    "e\u0301", "\u200b", "\ufeff", "\ud800", "a\udfffb", "x" * 10_000, "word " * 2_000, '"a" ' * 3_000,
    "OR " * 3_000, "(" * 5_000, "NEAR(" * 2_000, "😀" * 5_000,
]


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    s = NotesStore(tmp_path_factory.mktemp("fts") / "notes.db")
    s.add_note("Quantum notes", "NEAR the café 😀 日本語のテキスト and (parentheses) AND OR NOT")
    s.add_note("Other", "family recipes, a ligature ﬁ, title:x")
    yield s
    close_thread_connections()


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_strings_never_error(store, text):
    hits = store.search_notes(text)
    assert isinstance(hits, list)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=()), max_size=200))
def test_any_text_gives_a_valid_expression(text):
    expression = build_match_query(text)
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(a, tokenize='unicode61 remove_diacritics 2')")
    conn.execute("INSERT INTO t VALUES ('some text')")
    if expression is not None:
        conn.execute("SELECT count(*) FROM t WHERE t MATCH ?", [expression]).fetchone()


def test_expressions_are_quoted_terms():
    assert build_match_query("quant") == '"quant"*'
    assert build_match_query("quant", prefix=False) == '"quant"'
    assert build_match_query("quant*", prefix=False) == '"quant"*'
    assert build_match_query('"exact phrase" more') == '"exact phrase" "more"*'
    assert build_match_query("cats OR dogs NOT birds") == '"cats"* OR "dogs"* NOT "birds"*'
    assert build_match_query("NEAR(a, b)") == '"NEAR a"* "b"*'  # one typed word, one phrase
    assert build_match_query("foo-bar") == '"foo bar"*'
    assert build_match_query("OR NOT AND") is None
    assert build_match_query("😀 ()") is None
    assert build_match_query("") is None and build_match_query(None) is None


def test_long_queries_are_capped():
    expression = build_match_query(" ".join(f"w{i}" for i in range(500)))
    assert expression.count('"') == 2 * MAX_TERMS


def test_operator_words_in_content_are_still_searchable(store):
    assert [h.note.title for h in store.search_notes("NEAR")] == ["Quantum notes"]
    assert [h.note.title for h in store.search_notes("日本語のテキスト")] == ["Quantum notes"]
    assert [h.note.title for h in store.search_notes("title:x")] == ["Other"]
