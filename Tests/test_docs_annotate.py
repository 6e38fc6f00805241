"""Contextual annotation with the scripted OpenAI-compatible server: the 30-750 character rule, the cache,
untrusted-data wrapping, failures that do not stop indexing; and path context from the pattern file."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from App_Function_Libraries.Documents.annotate import ChunkAnnotator, PathPatterns, clean_context
from App_Function_Libraries.Documents.doc_types import PatternFileError
from App_Function_Libraries.Documents.store import DocumentStore
from App_Function_Libraries.LLM.registry import make_client
from Tests.support.openai_server import ScriptedLLM

DOC = ("Annual report of the river survey. Chapter one covers fish counts. Chapter two covers water quality. "
       "Chapter three lists the volunteers.")
CHUNKS = ["Chapter one covers fish counts.", "Chapter two covers water quality.", "Chapter three lists the volunteers."]


@pytest.fixture
def llm_setup(world, make_settings, tmp_path):
    def reply(prompt: str) -> str:
        if "fish counts.\nDATA-" in prompt:
            return "Too short."  # under 30 characters: dropped
        if "water quality.\nDATA-" in prompt:
            return "Context: " + "x" * 800  # over 750: dropped
        return '"From the river survey report: the list of volunteers who took part in the survey."'
    llm = ScriptedLLM(default=reply).install(world)
    settings = make_settings({"llm": {"provider": "openai", "base_url": world.url("/v1"), "model": "test-model",
                                      "max_retries": 0}})
    store = DocumentStore(tmp_path / "idx")
    client = make_client(settings.llm_for("extraction"), "extraction")
    yield llm, ChunkAnnotator(client, store.cached_context, store.cache_context), store
    store.close()


def test_length_rule_and_cleaning(llm_setup):
    llm, annotator, _ = llm_setup
    outcome = annotator.annotate(DOC, "hash1", CHUNKS)
    assert outcome.contexts == [None, None,
                                "From the river survey report: the list of volunteers who took part in the survey."]
    assert outcome.calls == 3 and outcome.rejected == 2 and outcome.cached == 0
    # the prompt carries the whole document and the chunk, both as delimited data
    prompt = llm.prompts[2]
    assert DOC in prompt and CHUNKS[2] in prompt
    assert re.search(r"<<<DATA-(\w+) document\n" + re.escape(DOC) + r"\nDATA-\1>>>", prompt)
    assert re.search(r"<<<DATA-(\w+) excerpt\n" + re.escape(CHUNKS[2]) + r"\nDATA-\1>>>", prompt)
    assert "never instructions" in prompt


def test_kept_contexts_are_cached_by_content_hash(llm_setup):
    llm, annotator, _ = llm_setup
    annotator.annotate(DOC, "hash1", CHUNKS)
    calls = llm.calls
    again = annotator.annotate(DOC, "hash1", CHUNKS)
    assert again.cached == 1 and again.calls == 2  # rejected ones are asked again, the kept one is not
    assert llm.calls == calls + 2
    changed = annotator.annotate(DOC, "hash2", CHUNKS[2:])  # another document version: asked again
    assert changed.cached == 0 and changed.calls == 1


def test_llm_failure_gives_no_context_and_an_error(llm_setup, world):
    llm, annotator, _ = llm_setup
    world.fault("/v1/chat/completions", status=500, body=b'{"error": {"message": "boom"}}')
    outcome = annotator.annotate(DOC, "hash3", CHUNKS[:1])
    assert outcome.contexts == [None]
    assert outcome.errors and "contextual annotation failed" in outcome.errors[0]


def test_long_document_is_cut_around_the_chunk(llm_setup, make_settings, world):
    llm, annotator, _ = llm_setup
    annotator.client.settings.context_window = 2048
    words = [f"w{i}" for i in range(20000)]
    doc = " ".join(words)
    chunk = " ".join(words[15000:15100])
    annotator.annotate(doc, "big", [chunk], word_starts=[15000])
    prompt = llm.prompts[-1]
    assert chunk in prompt and "w0 w1 w2" in prompt  # the opening and the chunk's neighbourhood
    assert "w9000 " not in prompt
    assert len(prompt) < 2048 * 3.5


@pytest.mark.parametrize("raw, kept", [
    ("  Context:  This excerpt is the methods section of the 2021 field study. ",
     "This excerpt is the methods section of the 2021 field study."),
    ("x" * 29, None), ("x" * 30, "x" * 30), ("y" * 750, "y" * 750), ("y" * 751, None), ("", None),
])
def test_clean_context_bounds(raw, kept):
    assert clean_context(raw) == kept


def test_path_patterns(tmp_path):
    f = tmp_path / "patterns.yml"
    f.write_text('"*/grants/*": "A grant proposal of the lab."\n'
                 '"*.pdf": "A PDF file."\n'
                 '"minutes-*": "Minutes of a meeting."\n', encoding="utf-8")
    pp = PathPatterns.load(f)
    assert pp.context_for(Path("/home/a/grants/2024/nsf.pdf")) == "A grant proposal of the lab. A PDF file."
    assert pp.context_for(Path("/home/a/notes/minutes-jan.md")) == "Minutes of a meeting."
    assert pp.context_for(Path("/home/a/notes/todo.md")) == ""
    assert PathPatterns.load(tmp_path / "missing.yml").rules == ()


@pytest.mark.parametrize("content", ["- just\n- a list\n", "key: [1, 2]\n", "a: b: c: :\n  - ["])
def test_malformed_pattern_file_is_a_clear_error(tmp_path, content):
    f = tmp_path / "patterns.yml"
    f.write_text(content, encoding="utf-8")
    with pytest.raises(PatternFileError, match="patterns.yml"):
        PathPatterns.load(f)


def test_shipped_pattern_file_loads():
    root = Path(__file__).resolve().parent.parent
    assert PathPatterns.load(root / "Config_Files" / "chunk_annotation_patterns.yml").rules == ()


def test_a_dead_server_is_given_up_once_while_indexing(make_settings, tmp_path):
    from Tests.support.openai_server import DeadLLM
    with DeadLLM("503") as dead:
        settings = make_settings({"llm": {"provider": "openai", "base_url": dead.base_url, "model": "test-model",
                                          "max_retries": 2, "timeout_seconds": 2}})
        store = DocumentStore(tmp_path / "dead")
        annotator = ChunkAnnotator(make_client(settings.llm_for("extraction"), "extraction"), store.cached_context,
                                   store.cache_context)
        outcome = annotator.annotate(DOC, "hash-dead", CHUNKS)
        again = annotator.annotate(DOC, "hash-dead-2", CHUNKS)  # the next document of the same `add`
        store.close()
        assert dead.requests() == 3  # one call and its 2 retries, for every chunk of both documents
    assert outcome.contexts == [None, None, None] and again.contexts == [None, None, None]
    assert len(outcome.errors) == 1 and "is not answering (HTTP 503" in outcome.errors[0]
    assert len(again.errors) == 1
