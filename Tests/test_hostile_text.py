"""Text from outside that Quarry could decode but not store: a lone surrogate (\\ud800) in a search result or an
LLM answer is made valid Unicode where it is decoded, so the run saves, `--json` prints and every export
works; a citation group of thousands of digits (more than Python converts to an int) names no source, in the
run, the note preview and the exports; a control character in a DOI or URL never reaches the Word export."""
from __future__ import annotations

import io
import json
import zipfile

from App_Function_Libraries import quarry
from App_Function_Libraries.DB.export import ALL_FORMATS, export_note, export_report
from App_Function_Libraries.DB.markdown_html import markdown_to_html
from App_Function_Libraries.quarry import plain
from App_Function_Libraries.records import Paper, ResearchResult, Source
from App_Function_Libraries.Retrieval.citations import NO_SOURCE, clean_citation_groups, parse_group
from App_Function_Libraries.Search.engine import search_with
from App_Function_Libraries.valid_unicode import loads_json, valid_unicode
from Tests.support.hostile_search import HostileSearch
from Tests.support.mini_web import MiniWeb, research_config
from Tests.support.openai_server import ScriptedLLM
from Tests.support.research_llm import script_research
from Tests.support.search_apis import clean_health  # noqa: F401 - autouse: no engine suspension leaks in

QUESTION = "How do honey bees communicate the location of food with a dance?"
BEE_WORDS = ("bee", "honey", "waggle", "forag", "hive", "dance")
HUGE = "9" * 5000  # more digits than int() converts (4,300)


def exports_everywhere(result_id: str, settings) -> dict[str, bytes]:
    """Every export format of a saved report, as bytes (a text format encoded as UTF-8, which a lone
    surrogate breaks), and the JSON the CLI's `--json` and the MCP research tool answer."""
    out = {}
    for fmt in ALL_FORMATS:
        value = quarry.history.export(result_id, fmt, settings=settings)
        out[fmt] = value.encode("utf-8") if isinstance(value, str) else value
    saved = quarry.history.get(result_id, settings=settings)
    out["--json"] = json.dumps(saved.to_dict(), ensure_ascii=False).encode("utf-8")
    out["mcp"] = json.dumps(plain.research_out(saved, True), ensure_ascii=False).encode("utf-8")
    return out


# ---------------------------------------------------------------- lone surrogates

def test_valid_unicode_replaces_only_lone_surrogates():
    assert valid_unicode("a\ud800b\udfffc") == "a\ufffdb\ufffdc"
    assert loads_json('{"t\\ud800": ["\\ud83d\\udc1d", "\\udc00"]}') == {"t\ufffd": ["\U0001f41d", "\ufffd"]}
    assert loads_json('{"plain": "text"}') == {"plain": "text"}


def test_a_search_result_with_a_lone_surrogate_is_valid_text(world, make_settings):
    hostile = HostileSearch(world).install()
    settings = make_settings({"engines": {"searxng_api_url": hostile.base("surrogate")},
                              "search": {"search_cache_ttl_seconds": 0}})
    answer = search_with("searxng", "honey bees", settings)
    assert answer.error is None
    assert [h.title for h in answer.hits] == ["Waggle \ufffd dance \ufffd", "Bees \U0001f41d (a pair, kept)"]
    assert answer.hits[1].snippet == "A lone low \ufffd surrogate in a snippet."
    json.dumps(answer.to_dict(), ensure_ascii=False).encode("utf-8")


def test_research_over_surrogates_from_the_engine_and_the_llm_saves_and_exports(world, make_settings):
    web = MiniWeb(world, include_faults=False).install()
    hostile = HostileSearch(world, pages=web.search(QUESTION)).install()
    llm = script_research(ScriptedLLM(default="?"), BEE_WORDS, invalid_citation=None,
                          missing="The sources leave out \ud800 how far the dance reaches.").install(world)
    settings = make_settings(research_config(web, llm and world.url("/v1"),
                                             engines={"searxng_api_url": hostile.base("text-surrogate")},
                                             search={"search_cache_ttl_seconds": 0}))
    result = quarry.research(QUESTION, settings=settings)
    assert not [e for e in result.errors if "save" in e]
    assert "Waggle \ufffd dance \ufffd" in [s.title for s in result.sources]
    assert "leave out \ufffd how far" in result.report_markdown
    exported = exports_everywhere(result.id, settings)
    assert "leave out \ufffd how far".encode() in exported["md"]
    assert exported["pdf"].startswith(b"%PDF") and zipfile.is_zipfile(io.BytesIO(exported["docx"]))


# ---------------------------------------------------------------- citation numbers past int()

def test_a_citation_of_thousands_of_digits_names_no_source():
    assert parse_group(HUGE) == [NO_SOURCE]
    assert parse_group(f"1, {HUGE}-2, 0003") == [1, NO_SOURCE, 2, 3]
    assert clean_citation_groups(f"Bees dance [1, {HUGE}]. Wasps [{HUGE}].", {1}) == ("Bees dance [1]. Wasps.", 2)


def test_a_research_whose_llm_writes_a_huge_citation_saves_and_exports_and_so_does_a_note_of_it(world,
                                                                                               make_settings):
    web = MiniWeb(world, include_faults=False).install()
    script_research(ScriptedLLM(default="?"), BEE_WORDS, invalid_citation=HUGE).install(world)
    settings = make_settings(research_config(web, world.url("/v1")))
    result = quarry.research(QUESTION, settings=settings)
    assert result.mode == "llm" and result.citations and HUGE not in result.report_markdown
    assert result.invalid_citations_removed >= 1
    exports_everywhere(result.id, settings)
    note = quarry.notes.add(from_report=result.id, settings=settings).to_dict()
    note["content"] += f"\n\nA long one [{HUGE}], a range [1-{HUGE}] and a group [1, {HUGE}]."
    html = markdown_to_html(note["content"], lambda n: ("https://a.example/", "A") if n == 1 else None)
    assert HUGE in html and 'href="https://a.example/"' in html  # the preview: shown as written, not linked
    for fmt in ("md", "html", "docx", "pdf"):
        assert export_note(note, fmt)


# ---------------------------------------------------------------- control characters in a DOI or URL

def test_a_control_character_in_a_doi_or_url_does_not_break_the_word_export():
    paper = Paper(authors=["Ann Bee"], year=2021, venue="Apidologie", doi="10.1000/bee\x01s\x0b")
    result = ResearchResult(question="How do bees dance?", report_markdown="Bees dance [1].")
    result.sources = [Source("Bees\x07", "https://bees.example/a\x1bb", kind="paper", paper=paper, n=1,
                             verdict="relevant", fetched=True)]
    data = export_report(result, "docx")
    assert zipfile.is_zipfile(io.BytesIO(data))
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        document = z.read("word/document.xml").decode("utf-8") + z.read("word/_rels/document.xml.rels").decode()
    assert "10.1000/bee" in document and "\x01" not in document and "\x1b" not in document


def test_a_lone_surrogate_in_a_wikipedia_dump_is_made_valid_where_it_is_read(tmp_path):
    from App_Function_Libraries.Wikipedia.readers import iter_passages
    dump = tmp_path / "dump.jsonl"
    dump.write_text('{"title": "Bees \\ud800", "text": "Bees dance \\udfff to tell the way."}\n', encoding="utf-8")
    passage = next(iter(iter_passages(dump)))
    assert (passage.title, passage.text) == ("Bees \ufffd", "Bees dance \ufffd to tell the way.")


def test_a_lone_surrogate_in_a_note_file_is_made_valid_and_the_note_imported(tmp_path, make_settings):
    settings = make_settings({})
    notes = tmp_path / "notes.json"
    notes.write_text('[{"title": "Dance \\ud800", "content": "Waggle \\udc00 runs."}]', encoding="utf-8")
    from App_Function_Libraries.DB.notes_io import import_notes
    from App_Function_Libraries.DB.notes_store import get_notes_store
    summary = import_notes(get_notes_store(settings), notes)
    found = quarry.notes.search("Waggle", settings=settings)
    assert [(h.note.title, h.note.content) for h in found] == [("Dance \ufffd", "Waggle \ufffd runs.")], summary
