"""User text turned into FTS5 queries: hostile input never errors, intent (prefix, phrase, OR, -word/NOT) is kept."""
from __future__ import annotations

import sqlite3

import pytest
from hypothesis import given, settings, strategies as st

from App_Function_Libraries.DB.connection import close_thread_connections
from App_Function_Libraries.DB.fts_query import MAX_TERMS, build_match_query, parse_query
from App_Function_Libraries.DB.notes_store import NotesStore

HOSTILE = [
    '"', '""', '"""', "'", "''", '"unterminated phrase', 'say "hi', "AND", "OR", "NOT", "AND OR NOT", "a AND",
    "OR a", "a OR", "a NOT", "NOT a", "NEAR", "NEAR(", "NEAR(a b", "NEAR(a b, 2)", "NEAR/2", "a NEAR b",
    "(", ")", "((a)", "a)", "()", "*", "**", "a*", "*a", "a**b", "^", "^a", "+", "-", "-a", "a:b", "title:x",
    "{title content}: x", "content:", ":", "a'b", "\\", "\\\"", "%", "_", "a%_b", "; DROP TABLE notes; --",
    "\x00", "a\x00b", "\t\n\r", "😀", "👩‍👩‍👧 family", "🇫🇷", "日本語のテキスト", "Ελληνικά", "عربى", "ﬁ ligature",
    "e\u0301", "\u200b", "\ufeff", "\ud800", "a\udfffb", "x" * 10_000, "word " * 2_000, '"a" ' * 3_000,
    "OR " * 3_000, "(" * 5_000, "NEAR(" * 2_000, "😀" * 5_000,
    # left-out terms: alone (FTS5 cannot start with NOT), doubled, empty, as phrases, among operators
    "--", "- -", "-\"", '-""', '-"a b"', "-(", "-)", "-*", "-NOT", "-OR", "-AND", "NOT NOT", "NOT NOT a", "a NOT",
    "a -", "a - b", "-a -b", "--a", "a OR -b", "OR -a", "-a OR b", "a -b OR c", "-😀", "-日本語", "-NEAR(",
    "-title:x", "-a*", "NOT -a", "-" * 5_000, "-a " * 3_000, "a -b " * 2_000,
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
@given(st.text(alphabet=st.characters(blacklist_categories=()), max_size=200)
       | st.lists(st.sampled_from(["-", "NOT", "OR", "AND", '"', "a", "-b", "c*", "(", "😀"]), max_size=12).map(" ".join))
def test_any_text_gives_a_valid_expression(text):
    parsed = parse_query(text)
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(a, tokenize='unicode61 remove_diacritics 2')")
    conn.execute("INSERT INTO t VALUES ('some text')")
    for expression in (parsed.expression(), parsed.unwanted):
        if expression is not None:
            conn.execute("SELECT count(*) FROM t WHERE t MATCH ?", [expression]).fetchone()


def test_expressions_are_quoted_terms():
    assert build_match_query("quant") == '"quant"*'
    assert build_match_query("quant", prefix=False) == '"quant"'
    assert build_match_query("quant*", prefix=False) == '"quant"*'
    assert build_match_query('"exact phrase" more') == '"exact phrase" "more"*'
    assert build_match_query("cats OR dogs NOT birds") == '("cats"* OR "dogs"*) NOT ("birds"*)'
    assert build_match_query('bees -honey -"royal jelly"') == '("bees"*) NOT ("honey"* OR "royal jelly")'
    assert build_match_query("-honey") is None
    assert parse_query("-honey NOT wax") == parse_query("NOT honey -wax")
    assert parse_query("-honey NOT wax").unwanted == '"honey"* OR "wax"*'
    assert build_match_query("a - b") == '"a"* "b"*'  # a lone dash leaves nothing out
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


@pytest.fixture
def bees(tmp_path):
    s = NotesStore(tmp_path / "bees.db")
    titles = {}
    for title, content in [("Hive", "Bees make honey and wax."), ("Dance", "Bees dance to show flowers."),
                           ("Royal", "Royal jelly feeds the bees' queen."), ("Ants", "Ants follow trails.")]:
        titles[s.add_note(title, content).id] = title
    yield lambda query: sorted(titles[h.note.id] for h in s.search_notes(query))
    close_thread_connections()


def test_minus_words_leave_notes_out(bees):
    assert bees("bees") == ["Dance", "Hive", "Royal"]
    assert bees("bees -honey") == ["Dance", "Royal"]
    assert bees("bees NOT honey") == ["Dance", "Royal"]
    assert bees('bees -"royal jelly" -wax') == ["Dance"]
    assert bees("honey OR dance -wax") == ["Dance"]  # left out of every alternative
    assert bees("bees -hon") == ["Dance", "Royal"]  # a left-out word is a prefix too


def test_a_query_of_only_left_out_words_lists_the_other_notes(bees):
    assert bees("-honey") == ["Ants", "Dance", "Royal"]
    assert bees("-bees -trails") == []
    assert bees("NOT ants") == ["Dance", "Hive", "Royal"]
