"""Build, search and ask with the real MiniLM model: extractive answers, the LLM path against the scripted
OpenAI-compatible server, the CLI, model/dimension mismatches and over-long questions."""
from __future__ import annotations

import dataclasses
import json
import re
import time

import numpy as np
import pytest

from App_Function_Libraries.CLI.main import main as cli_main
from App_Function_Libraries.Retrieval.embeddings import Embedder, get_embedder
from App_Function_Libraries.Wikipedia import quantize
from App_Function_Libraries.Wikipedia.answer import answer_question
from App_Function_Libraries.Wikipedia.builder import build_index
from App_Function_Libraries.Wikipedia.demo import DEMO_CORPUS
from App_Function_Libraries.Wikipedia.index import (SearchParams, WikiIndex, forget_wiki_index, get_wiki_index,
                                                    index_status)
from App_Function_Libraries.Wikipedia.layout import ModelMismatch, QueryError
from Tests.support.openai_server import ScriptedLLM

pytestmark = pytest.mark.slow

ARTICLES = {
    "Lighthouse": ["A lighthouse is a tower with a bright lamp that guides ships at night and warns them of rocks.",
                   "Many lighthouses once had keepers who lived on site and tended the lamp every evening.",
                   "Modern lighthouses are usually automated and powered by electricity or solar panels."],
    "Glacier": ["A glacier is a large mass of ice that forms where snow builds up faster than it melts.",
                "Glaciers move slowly downhill under their own weight, carving valleys as they go.",
                "Many mountain glaciers are shrinking as the climate warms."],
    "Kite": ["A kite is a tethered craft that flies because wind pushing on its surface creates lift.",
             "Kites were flown in China more than two thousand years ago.",
             "Kite festivals are held in many countries, with large and colourful designs."],
    "Sourdough": ["Sourdough bread rises thanks to a starter of wild yeasts and lactic acid bacteria.",
                  "The bacteria give sourdough its slightly sour taste.",
                  "Bakers feed a starter with flour and water to keep it alive."],
}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    folder = tmp_path_factory.mktemp("wiki")
    with (folder / "in.jsonl").open("w") as fh:
        for title, passages in ARTICLES.items():
            for i, text in enumerate(passages):
                fh.write(json.dumps({"id": f"{title}-{i}", "title": title, "text": text}) + "\n")
    return folder / "in.jsonl"


@pytest.fixture
def wiki(make_settings, corpus, tmp_path):
    settings = make_settings({"wikipedia": {"index_dir": str(tmp_path / "idx"), "top_k_nodes": 3}})
    build_index(corpus, tmp_path / "idx", get_embedder(settings))
    forget_wiki_index()
    yield settings
    forget_wiki_index()


def test_search_finds_the_right_article_and_the_index_stays_loaded(wiki):
    index = get_wiki_index(wiki)
    assert index.open_seconds < 1.0
    hits = index.search("What guides ships at night?", SearchParams.from_settings(wiki))
    assert hits[0].title == "Lighthouse" and hits[0].url == "https://en.wikipedia.org/wiki/Lighthouse"
    assert hits[0].vector_score > 0.4 and hits[0].bm25 is not None
    assert get_wiki_index(wiki) is index  # cached across queries
    vector_only = index.search("What guides ships at night?", SearchParams(hybrid=False))
    assert vector_only[0].title == "Lighthouse" and vector_only[0].bm25 is None


def test_an_index_replaced_by_a_settings_change_still_serves_a_search_in_flight(wiki):
    """Another UI thread may hold the old index when a settings change opens a new one: it keeps working."""
    import dataclasses
    old = get_wiki_index(wiki)
    changed = dataclasses.replace(wiki, wikipedia=dataclasses.replace(wiki.wikipedia, search_threads=3))
    new = get_wiki_index(changed)
    assert new is not old
    hits = old.search("What guides ships at night?", SearchParams.from_settings(wiki))
    assert hits[0].title == "Lighthouse" and old.store.passages([hits[0].row])


def test_extractive_answer_cites_the_articles_it_quotes(wiki):
    asked = answer_question("How does sourdough bread rise?", wiki, llm=None)
    answer = asked.answer
    assert answer.mode == "extractive" and answer.status == "answered"
    first = answer.sources[0]
    assert first.title == "Sourdough" and first.url.endswith("/Sourdough") and first.kind == "wikipedia"
    assert "[1]" in answer.markdown and "wild yeasts" in answer.markdown

    def passages_of(n: int) -> list[str]:
        url = next(s.url for s in answer.sources if s.n == n)
        return [p.text for p in asked.passages if p.url == url]
    assert answer.citations and all(c.quote in " ".join(passages_of(c.n)) for c in answer.citations)
    # related-node expansion brought the other passages of the top article
    assert len(passages_of(first.n)) == 3


def test_llm_answer_uses_the_scripted_server_and_drops_invalid_citations(make_settings, wiki, world, tmp_path):
    llm = ScriptedLLM(default="unused")
    llm.when("What do these passages say", lambda p: "Glaciers are ice masses that flow downhill."
             if "Glacier" in p else "NOTHING RELEVANT")
    llm.when("Answer the question from the notes", "Glaciers flow slowly downhill under their weight [1]. "
             "They are made of ice [7].")
    llm.install(world)
    settings = make_settings({"wikipedia": {"index_dir": str(tmp_path / "idx"), "top_k_nodes": 3},
                              "llm": {"provider": "openai", "base_url": world.url("/v1"), "model": "test-model"}})
    answer = answer_question("How do glaciers move?", settings).answer
    assert answer.mode == "llm"
    assert answer.invalid_citations_removed == 1 and "[7]" not in answer.markdown
    assert answer.citations[0].n == 1 and answer.sources[0].title == "Glacier"
    final_prompt = llm.prompts[-1]
    assert "DATA-" in final_prompt and "[1] Glacier" in final_prompt
    assert "Lighthouse" not in final_prompt  # articles the model found irrelevant are left out


def test_model_and_dimension_mismatch_are_refused(wiki, tmp_path):
    manifest = json.loads((tmp_path / "idx" / "manifest.json").read_text())
    with pytest.raises(ModelMismatch, match="set \\[embeddings\\] model"):
        WikiIndex.open(tmp_path / "idx", Embedder(model_name="/nonexistent/other-model"))
    manifest["model"], manifest["dimension"] = Embedder().label, 768
    (tmp_path / "idx" / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ModelMismatch, match="768-dimensional"):
        WikiIndex.open(tmp_path / "idx", Embedder())


def test_a_question_longer_than_the_model_window_is_refused(wiki):
    index = get_wiki_index(wiki)
    with pytest.raises(QueryError, match="shorten it"):
        index.search("glacier " * 600)
    with pytest.raises(QueryError, match="empty"):
        index.search("   ")


def test_cli_status_search_and_ask(wiki, capsys):
    cfg = ["--config", str(wiki.path)]
    assert cli_main(cfg + ["wiki", "status"]) == 0
    assert "4 articles, 12 passages" in capsys.readouterr().out
    assert cli_main(cfg + ["wiki", "search", "kites in ancient China", "-k", "2"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].endswith("Kite <https://en.wikipedia.org/wiki/Kite>")
    assert cli_main(cfg + ["wiki", "ask", "Who tended lighthouses?", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["mode"] == "extractive" and data["sources"][0]["title"] == "Lighthouse"
    assert cli_main(cfg + ["wiki", "ask", "Who tended lighthouses?"]) == 0
    answer, listed = capsys.readouterr().out.split("\nSources:\n")
    cited, _, rest = listed.partition("Read but not cited:")  # the one order: cited, then the others
    assert cited.startswith("[1] Lighthouse <https://en.wikipedia.org/wiki/Lighthouse>")
    assert set(re.findall(r"^\[(\d+)\]", cited, re.M)) == set(re.findall(r"\[(\d+)\]", answer))
    assert not set(re.findall(r"^\[(\d+)\]", rest, re.M)) & set(re.findall(r"\[(\d+)\]", answer))


def test_cli_reports_a_missing_index(make_settings, tmp_path, capsys):
    cfg = ["--config", str(make_settings({"wikipedia": {"index_dir": str(tmp_path / "none")}}).path)]
    forget_wiki_index()
    assert cli_main(cfg + ["wiki", "search", "anything"]) == 1
    assert "build --demo" in capsys.readouterr().err
    assert cli_main(cfg + ["wiki", "status"]) == 1


def test_the_demo_encyclopedia_builds_and_answers(make_settings, tmp_path):
    settings = make_settings({"wikipedia": {"index_dir": str(tmp_path / "demo")}})
    lines = DEMO_CORPUS.read_text(encoding="utf-8").splitlines()
    assert len(lines) >= 250 and len({json.loads(line)["title"] for line in lines}) >= 60
    from App_Function_Libraries.Wikipedia.demo import build_demo_index
    report = build_demo_index(progress=lambda done, total: None)
    assert report.count == len(lines)
    exists, description = index_status(settings)
    assert exists and f"{report.count} passages" in description
    answer = answer_question("Who first reached the summit of Mount Everest?", settings, llm=None).answer
    assert answer.sources[0].title == "Mount Everest"
    assert "Tenzing Norgay" in answer.markdown
    check_the_relevance_floor(settings)
    forget_wiki_index()


def check_the_relevance_floor(settings) -> None:
    """On the demo index: what it cannot answer is said plainly, with the closest passages marked as not used;
    the team's answerable questions all clear the floor, and most unanswerable ones do not."""
    asked = answer_question("What is the capital of Mongolia?", settings, llm=None)
    answer = asked.answer
    assert answer.mode == "none" and not answer.sources and not asked.passages and not answer.citations
    assert answer.status == "not_answered"
    assert answer.markdown.startswith("The index has no passage that answers this question")
    assert "Closest passages, not used:" in answer.markdown and "[1]" not in answer.markdown
    assert answer.closest and all(c.score < settings.wikipedia.relevance_floor for c in answer.closest)
    index, params = get_wiki_index(settings), SearchParams.from_settings(settings)
    questions = json.loads((DEMO_CORPUS.parent / "questions.json").read_text(encoding="utf-8"))
    best = {kind: [max(h.vector_score for h in index.search(q, params)) for q in questions[kind]]
            for kind in ("answerable", "unanswerable")}
    floor = settings.wikipedia.relevance_floor
    assert min(best["answerable"]) >= floor
    assert sum(b < floor for b in best["unanswerable"]) >= 0.4 * len(best["unanswerable"])  # 47.6% measured
    with_floor_off = dataclasses.replace(settings, wikipedia=dataclasses.replace(settings.wikipedia,
                                                                                relevance_floor=0.0))
    # control: with the index's floor and the answer core's floor both off the question gets sources, so the
    # refusal above is the floors' doing (the core's floor alone also refuses it: no passage is about Mongolia)
    from App_Function_Libraries.Retrieval import cited_answer as core
    assert not answer_question("What is the capital of Mongolia?", with_floor_off, llm=None).answer.sources
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(core, "RELEVANCE_FLOOR", -1.0)
        assert answer_question("What is the capital of Mongolia?", with_floor_off, llm=None).answer.sources


def test_the_index_query_prompt_wins_and_a_broken_cross_encoder_falls_back(wiki, make_settings, tmp_path):
    manifest = json.loads((tmp_path / "idx" / "manifest.json").read_text())
    manifest["query_prompt"] = "Represent this question: "
    (tmp_path / "idx" / "manifest.json").write_text(json.dumps(manifest))
    index = WikiIndex.open(tmp_path / "idx", Embedder())
    assert index.query_prompt == "Represent this question: "
    assert index.search("What guides ships at night?", SearchParams(hybrid=False))[0].title == "Lighthouse"
    settings = make_settings({"wikipedia": {"index_dir": str(tmp_path / "idx")},
                              "embeddings": {"cross_encoder": str(tmp_path / "no-such-cross-encoder")}})
    answer = answer_question("How do kites fly?", settings, index=index, llm=None).answer
    assert answer.sources[0].title == "Kite"
    assert any("cross-encoder unavailable" in e for e in answer.errors)


def precomputed_records(dim: int, n: int = 6) -> list[dict]:
    vecs = np.random.default_rng(3).standard_normal((n, dim)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    bits, int8 = quantize.to_ubinary(vecs), np.clip(np.rint(vecs * 127), -128, 127).astype(np.int8)
    return [{"id": f"p{i}", "title": f"Article {i}", "text": f"Passage {i}.", "emb_ubinary": bits[i].tolist(),
             "emb_int8": int8[i].tolist()} for i in range(n)]


def test_cli_build_paths_are_relative_to_the_current_directory(make_settings, tmp_path, monkeypatch, capsys):
    from App_Function_Libraries.config import PROJECT_ROOT
    work = tmp_path / "work"
    work.mkdir()
    for name, dim in (("in.jsonl", 384), ("in64.jsonl", 64)):
        (work / name).write_text("".join(json.dumps(r) + "\n" for r in precomputed_records(dim)))
    cfg = ["--config", str(make_settings().path)]
    monkeypatch.chdir(work)
    assert cli_main(cfg + ["wiki", "build", "--input", "in.jsonl", "--out", "rel-idx"]) == 0
    assert (work / "rel-idx" / "manifest.json").is_file() and not (PROJECT_ROOT / "rel-idx").exists()
    # precomputed vectors of another dimension than the configured model's are refused, naming both
    assert cli_main(cfg + ["wiki", "build", "--input", "in64.jsonl", "--out", "idx64"]) == 1
    err = capsys.readouterr().err
    assert "have 64 dimensions" in err and f"{Embedder().label!r} makes 384" in err
    assert not (work / "idx64" / "manifest.json").exists()


def test_open_time_leaves_out_the_embedding_model_load(wiki, tmp_path):
    started = time.perf_counter()
    index = WikiIndex.open(tmp_path / "idx", Embedder())  # a new embedder: its model loads now
    elapsed = time.perf_counter() - started
    assert index.model_seconds > 0 and index.open_seconds < 0.5
    assert index.model_seconds + index.open_seconds <= elapsed
    again = WikiIndex.open(tmp_path / "idx", index.embedder)  # the model is loaded already
    # loading the model (tens of ms at least, from a warm disk cache) against reading an attribute (microseconds):
    # compared with each other, not with a fixed time a fast machine beats (0.047 s once failed "> 0.05")
    assert again.model_seconds < index.model_seconds / 10 and again.open_seconds < 0.5


@pytest.mark.parametrize("question, answered", [("Who is Ada Quill?", True), ("Who is Bo Lindqvist?", False)])
def test_a_passage_holding_the_name_asked_about_reaches_the_floor(question, answered, make_settings, tmp_path):
    """The embedding model knows too little of a rare name: "Who is Ada Quill?" is far below the floor from the
    passage that names her. A passage holding every word of the names the question states reaches it, and the
    core's floor judges its sentences. Control: a name no passage holds stays refused."""
    (tmp_path / "in.jsonl").write_text(json.dumps({
        "id": "Exploit-0", "title": "Server exploit", "text": "The patch went out on a Thursday, after months of quiet "
        "reports to the game's maker. Chess club veteran and developer Ada Quill wrote the exploit up in a long blog "
        "post, saying servers could be crashed with one packet."}) + "\n", encoding="utf-8")
    settings = make_settings({"wikipedia": {"index_dir": str(tmp_path / "idx")}})
    build_index(tmp_path / "in.jsonl", tmp_path / "idx", get_embedder(settings))
    forget_wiki_index()
    try:
        hits = get_wiki_index(settings).search(question, SearchParams.from_settings(settings))
        assert max(h.vector_score for h in hits) < settings.wikipedia.relevance_floor
        answer = answer_question(question, settings, llm=None).answer
        assert bool(answer.citations) is answered, answer.markdown
        assert ("Ada Quill wrote the exploit up" in answer.markdown.splitlines()[0]) is answered, answer.markdown
    finally:
        forget_wiki_index()
