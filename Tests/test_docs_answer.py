"""Cited answers from local documents (scripted LLM and extractive), and the `docs` CLI."""
from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from App_Function_Libraries.CLI.main import main
from App_Function_Libraries.Documents.answer import NO_DOCUMENTS, NO_HITS
from App_Function_Libraries.Documents.doc_types import SearchFilters
from App_Function_Libraries.Documents.library import DocumentLibrary
from Tests.support.make_pdf import write_pdf
from Tests.support.openai_server import ScriptedLLM

pytestmark = pytest.mark.slow


def corpus(folder: Path) -> Path:
    folder.mkdir()
    write_pdf(folder / "glaciers.pdf", [["Alpine glaciers lost a tenth of their volume between 2021 and 2023."],
                                        ["Meltwater lakes formed below three of the studied glaciers."]])
    (folder / "coffee.md").write_text("# Brewing\n\nA French press needs coarse grounds and four minutes of "
                                      "steeping. Water just off the boil extracts the most flavour.\n",
                                      encoding="utf-8")
    return folder


def llm_settings(make_settings, world, **documents):
    return make_settings({"llm": {"provider": "openai", "base_url": world.url("/v1"), "model": "test-model",
                                  "max_retries": 0}, "documents": documents})


def test_llm_answer_is_cited_and_verified(make_settings, world, tmp_path):
    def reply(prompt: str) -> str:
        n = re.search(r"\[(\d+)\] glaciers\.pdf, p1", prompt).group(1)
        return f"Alpine glaciers lost a tenth of their volume [{n}]. They also sang songs [9]."
    llm = ScriptedLLM(default=reply).install(world)
    lib = DocumentLibrary(llm_settings(make_settings, world))
    lib.add([corpus(tmp_path / "files")])
    asked = lib.ask("How much volume did alpine glaciers lose?", group="coarse")
    answer = asked.answer
    assert answer.mode == "llm"
    assert "[9]" not in answer.markdown and answer.invalid_citations_removed == 1
    cited = answer.citations[0]
    assert cited.url.endswith("glaciers.pdf#p1")
    assert "a tenth of their volume" in cited.quote
    assert asked.hits[cited.n - 1].path.endswith("glaciers.pdf") and answer.sources[cited.n - 1].kind == "document"
    prompt = llm.prompts[-1]
    assert "never instructions" in prompt and re.search(r"<<<DATA-\w+ \[1\] ", prompt)
    streamed: list[str] = []
    again = lib.ask("How much volume did alpine glaciers lose?", group="coarse", on_token=streamed.append)
    assert "".join(streamed).startswith("Alpine glaciers lost") and again.answer.citations
    lib.close()


def test_extractive_answer_without_llm(make_settings, tmp_path):
    lib = DocumentLibrary(make_settings())
    lib.add([corpus(tmp_path / "files")])
    asked = lib.ask("How long should coffee steep in a French press?")
    answer = asked.answer
    assert answer.mode == "extractive"
    assert answer.markdown.splitlines()[0].startswith("A French press needs coarse grounds")  # the lead (issue 22)
    numbers = {int(n) for n in re.findall(r"\[(\d+)\]", answer.markdown)}
    assert numbers and numbers <= set(range(1, len(answer.sources) + 1))
    for c in answer.citations:
        source = asked.hits[c.n - 1]
        assert c.quote in source.text and c.url == source.citation_target == answer.sources[c.n - 1].url
    lib.close()


def test_llm_failure_falls_back_to_extractive(make_settings, world, tmp_path):
    ScriptedLLM().install(world)
    world.fault("/v1/chat/completions", status=401, body=b'{"error": {"message": "bad key"}}')
    lib = DocumentLibrary(llm_settings(make_settings, world))
    lib.add([corpus(tmp_path / "files")])
    answer = lib.ask("Where did meltwater lakes form?").answer
    assert answer.mode == "extractive" and re.search(r"\[\d\]", answer.markdown)
    assert "extractive" in answer.errors[0]
    lib.close()


def test_empty_library_answer(make_settings, tmp_path):
    """An empty library says what to do; one with documents that match nothing says so (control)."""
    lib = DocumentLibrary(make_settings())
    asked = lib.ask("Anything?")
    assert asked.answer.markdown == NO_DOCUMENTS and "docs add" in NO_DOCUMENTS
    assert asked.answer.status == "not_answered" and not asked.answer.sources
    lib.add([corpus(tmp_path / "files")])
    assert lib.ask("Anything?", filters=SearchFilters(types=["docx"])).answer.markdown == NO_HITS
    lib.close()


def test_cli_round_trip(make_settings, tmp_path, capsys):
    settings = make_settings()
    folder = corpus(tmp_path / "files")
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4 nothing")
    cfg = str(settings.path)
    assert main(["--config", cfg, "docs", "add", str(folder), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "added" in out and "broken.pdf: not a readable PDF" in out and "2 added" in out
    assert main(["--config", cfg, "docs", "add", str(folder), "--quiet"]) == 0
    assert "2 unchanged" in capsys.readouterr().out
    assert main(["--config", cfg, "docs", "list", "--skipped"]) == 0
    out = capsys.readouterr().out
    assert "glaciers.pdf" in out and "skipped" in out and "broken.pdf" in out
    assert main(["--config", cfg, "docs", "search", "meltwater lakes", "--type", "pdf", "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert hits and all(h["file_type"] == "pdf" for h in hits)
    assert main(["--config", cfg, "docs", "search", "meltwater", "--type", "md", "--method", "bm25"]) == 0
    assert "No matching chunks." in capsys.readouterr().out
    assert main(["--config", cfg, "docs", "ask", "How long should coffee steep?"]) == 0
    out = capsys.readouterr().out
    assert "Sources:" in out and re.search(r"\[\d\] .*coffee\.md#chunk-1", out)
    answer, listed = out.split("\nSources:\n")
    cited, _, rest = listed.partition("Read but not cited:")  # the one order: cited, then the others
    assert set(re.findall(r"^\[(\d+)\]", cited, re.M)) == set(re.findall(r"\[(\d+)\]", answer))
    assert not set(re.findall(r"^\[(\d+)\]", rest, re.M)) & set(re.findall(r"\[(\d+)\]", answer))
    assert main(["--config", cfg, "docs", "remove", "999"]) == 1
    assert "no document" in capsys.readouterr().err
    assert main(["--config", cfg, "docs", "remove", str(folder / "coffee.md")]) == 0
    assert "removed" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["--config", cfg, "docs", "search", "x", "--after", "not-a-date"])
    assert "not a date" in capsys.readouterr().err


def test_the_printed_sources_are_the_cited_then_those_read_but_not_cited():
    """The CLI's list under a documents answer (the round trip above cites every chunk it retrieves, so this one
    has a chunk read but not cited)."""
    from App_Function_Libraries.Documents.answer import format_sources
    from App_Function_Libraries.Documents.doc_types import DocsAsked
    from App_Function_Libraries.records import Answer, AnswerSource
    answer = Answer("Steep it four minutes. [1]", sources=[
        AnswerSource(1, "coffee.md", "/d/coffee.md#chunk-1", "document", cited=True),
        AnswerSource(2, "tea.md", "/d/tea.md#chunk-3", "document", cited=False)])
    assert format_sources(DocsAsked("How long?", answer)) == ("[1] /d/coffee.md#chunk-1\n\nRead but not cited:\n"
                                                               "[2] /d/tea.md#chunk-3")
    answer.sources[0].cited = False
    assert format_sources(DocsAsked("How long?", answer)).startswith("None cited.\n\nRead but not cited:\n[1]")


def test_a_question_the_documents_do_not_answer_is_refused_plainly(make_settings, tmp_path):
    from App_Function_Libraries.Documents.answer import NO_ANSWER
    lib = DocumentLibrary(make_settings())
    lib.add([corpus(tmp_path / "files")])
    answer = lib.ask("What is the capital of Mongolia?").answer
    assert answer.mode == "none" and not answer.sources and not answer.citations and answer.closest
    assert answer.markdown.startswith(NO_ANSWER) and "Closest passages, not used:" in answer.markdown
    assert "[1]" not in answer.markdown
    # each closest chunk is named as an answer names its sources ("coffee.md (chunk-1)"), not by its file's path
    assert all(re.fullmatch(r"\w+\.(?:md|pdf) \((?:chunk-|p)\d+\)", c.where) for c in answer.closest), answer.closest
    assert lib.ask("How long should coffee steep in a French press?").answer.sources  # answerable: answered
    lib.close()


def test_the_library_answers_with_its_own_relevance_floor(make_settings, tmp_path):
    """A library built with floor 0 (no floor) answers even an unrelated question, whatever the process-wide
    settings say (they keep the default floor here)."""
    from App_Function_Libraries import config as config_mod
    no_floor = make_settings({"documents": {"relevance_floor": "0"}})
    config_mod.set_settings(dataclasses.replace(no_floor, documents=config_mod.DocumentSettings()))  # default floor
    lib = DocumentLibrary(no_floor)
    lib.add([corpus(tmp_path / "files")])
    assert config_mod.get_settings().documents.relevance_floor > 0
    # no chunk is dropped by the similarity floor; the answer core's own relevance floor (issue 22) still says
    # that nothing answers this question (before: an extractive answer quoting unrelated chunks)
    answer = lib.ask("What is the capital of Mongolia?").answer
    assert "no chunk reaches the relevance floor" not in answer.markdown and not answer.citations
    lib.close()


def _terrarium_hit(title: str):
    from App_Function_Libraries.Documents.doc_types import SearchHit
    return SearchHit(node_id=1, doc_id=1, path="/docs/notes-3.md", name="notes-3.md", file_type="md", group="fine",
                     index=2, text="What you'll need:\n- Glass jar\n- Moss\n- Pebbles\n- Small fern\nLine the bottom of "
                     "the jar with pebbles before anything else.", context="", page=None, title=title)


@pytest.mark.parametrize("title, leads", [("How to build a terrarium", True), ("", False)])
def test_a_chunk_is_read_with_its_document_s_title(title, leads):
    """A chunk's text often does not name its topic ("What you'll need: Glass jar; Moss; …" in a file called
    notes-3.md): its document's title does, as a web page's title does for its text. Asked what a terrarium
    needs, the list leads; control: the same chunk with no title says nothing of terrariums."""
    from App_Function_Libraries.Documents.answer import answer_from_hits
    from App_Function_Libraries.Retrieval.embeddings import get_embedder
    asked = answer_from_hits("What do you need to build a terrarium?", [_terrarium_hit(title)], None, get_embedder())
    lead = asked.answer.markdown.splitlines()[0]
    assert lead.startswith("What you'll need: Glass jar; Moss; Pebbles; Small fern") is leads, asked.answer.markdown
    assert "How to build a terrarium" not in asked.answer.markdown  # read, not shown: sources keep their names


@pytest.mark.parametrize("title", ["Minecraft 1.8 - The Bountiful Update", ""])
def test_a_chunk_is_as_close_to_the_question_as_its_title_makes_it(title):
    """The relevance floor reads a chunk with its document's title when that is closer: the changelog's lines
    never say "Bountiful Update", its title does. Control: with no title the same chunk stays below the floor."""
    from App_Function_Libraries.Documents.answer import hit_similarities
    from App_Function_Libraries.Documents.doc_types import SearchHit
    from App_Function_Libraries.Retrieval.embeddings import get_embedder
    hit = SearchHit(node_id=1, doc_id=1, path="/docs/changes.html", name="changes.html", file_type="html",
                    group="fine", index=1, text="+ Added granite, andesite and diorite blocks\n+ Added slime blocks\n"
                    "+ Added iron trapdoors\n+ Added banners and armor stands", context="", page=None, title=title)
    similarity = float(hit_similarities("What is the Bountiful Update?", [hit], get_embedder())[0])
    from App_Function_Libraries.config import DocumentSettings
    floor = DocumentSettings().relevance_floor
    assert (similarity >= floor) is bool(title), similarity


EXPLOIT = ("The patch went out on a Thursday, after months of quiet reports to the game's maker. Chess club veteran "
           "and developer Ada Quill wrote the exploit up in a long blog post, saying servers could be crashed with "
           "one packet. Server owners were told to update at once.")


@pytest.mark.parametrize("question, answered", [("Who is Ada Quill?", True), ("Who is Bo Lindqvist?", False)])
def test_a_chunk_holding_the_name_asked_about_reaches_the_floor(question, answered):
    """An embedding model knows too little of a rare name: "Who is Ada Quill?" is far below the floor from the
    chunk that names her (cosine about 0.18). A chunk holding every word of the names the question states
    reaches the floor, and the core's floor judges its sentences. Control: a name the chunk does not hold."""
    from App_Function_Libraries.Documents.answer import answer_from_hits, hit_similarities
    from App_Function_Libraries.Documents.doc_types import SearchHit
    from App_Function_Libraries.Retrieval.embeddings import get_embedder
    from App_Function_Libraries.config import DocumentSettings
    hit = SearchHit(node_id=1, doc_id=1, path="/docs/exploit.md", name="exploit.md", file_type="md", group="fine",
                    index=0, text=EXPLOIT, context="", page=None, title="")
    assert float(hit_similarities(question, [hit], get_embedder())[0]) < DocumentSettings().relevance_floor
    answer = answer_from_hits(question, [hit], None, get_embedder()).answer
    assert bool(answer.citations) is answered, answer.markdown
    if answered:
        lead = answer.markdown.splitlines()[0]
        assert lead.startswith("Chess club veteran and developer Ada Quill wrote") and "[1]" in lead, answer.markdown
        assert "none of the quoted texts" not in answer.markdown  # "who is X" asks what X is, not for a name
