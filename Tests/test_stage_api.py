"""The research stages are one public API: every stage takes the run (which holds the params), and dig deeper,
durable runs and plans call only the public stages, never a private helper of the pipeline; the one page record
(records.Page) reads what an older Quarry kept."""
from __future__ import annotations

import ast
import inspect
import time
from pathlib import Path

from App_Function_Libraries.DB.research_store import ResearchStore
from App_Function_Libraries.Research import pipeline
from App_Function_Libraries.Research.durable import RunPageLog
from App_Function_Libraries.records import Page

PACKAGE = Path(pipeline.__file__).resolve().parent.parent
PIPELINE = "App_Function_Libraries.Research.pipeline"


def private_pipeline_imports(source: str) -> list[str]:
    """Names starting with _ that `source` imports from the pipeline module."""
    return [alias.name for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.ImportFrom) and node.module == PIPELINE
            for alias in node.names if alias.name.startswith("_")]


def test_no_module_imports_a_private_helper_of_the_pipeline():
    found = {str(path.relative_to(PACKAGE)): names for path in PACKAGE.rglob("*.py")
             if (names := private_pipeline_imports(path.read_text(encoding="utf-8")))}
    assert found == {}


def test_control_the_check_sees_a_private_import():
    old_durable = f"from {PIPELINE} import (Run, _stage_subqueries, _usage_delta,\n    _warm_embedder, stage_pages)\n"
    assert private_pipeline_imports(old_durable) == ["_stage_subqueries", "_usage_delta", "_warm_embedder"]


def test_every_stage_takes_the_run_and_no_params_or_flags():
    stages = [name for name in pipeline.__all__ if name.startswith("stage_")]
    assert len(stages) == 8
    for name in stages:
        parameters = list(inspect.signature(getattr(pipeline, name)).parameters)
        assert parameters[0] == "run", name
        assert not {"params", "renumber", "earlier_report", "groups"} & set(parameters), name


def test_the_pipeline_module_stays_under_500_lines():
    assert len(Path(pipeline.__file__).read_text(encoding="utf-8").splitlines()) < 500


def test_a_page_an_older_quarry_kept_for_a_durable_run_loads(tmp_path):
    older = {"url": "https://a.example/", "final_url": "https://a.example/x", "status": 200, "title": "A",
             "text": "Bees dance.", "content_hash": "h", "failure": "", "warning": "cut", "from_cache": False}

    class Store:  # the run store's two calls, answering what an older Quarry saved
        def run_pages(self, run_id):
            return {older["url"]: dict(older, some_later_field=1)}

        def save_page(self, run_id, url, page):
            raise AssertionError("not saved again")

    page = RunPageLog(Store(), "run-1").get("https://a.example/")
    assert page == Page(**older)


def test_the_page_cache_keeps_a_page_and_its_caveat_without_its_outcome(tmp_path):
    """The warning says what the text is (cut at the byte cap, a wrong charset), so it stays with the cached text;
    whether it came from the cache is the outcome of one read, not kept."""
    store = ResearchStore(tmp_path / "r.db", secrets=())
    store.put_page(Page(url="https://a.example/", final_url="https://a.example/x", status=200, title="A",
                        text="Bees dance.", content_hash="h", warning="cut", content_type="text/plain",
                        from_cache=True, fetched_at=time.time()))
    cached = store.get_page("https://a.example/x", 60)
    assert (cached.url, cached.text, cached.title, cached.warning) == ("https://a.example/", "Bees dance.", "A", "cut")
    assert not cached.from_cache


def test_verifying_a_rewritten_report_again_replaces_its_notes_not_adds_to_them(make_settings):
    """Dig deeper verifies the rewritten report on the same result: the verify notes are the last check's, once
    (they piled up once per round); a note of another stage stays."""
    import threading

    from App_Function_Libraries.records import Passage, ResearchResult, Source
    from App_Function_Libraries.Research.params import ResearchParams
    from App_Function_Libraries.Research.pipeline import stage_verify
    from App_Function_Libraries.Research.run import Run, Services
    settings = make_settings({"research": {"use_embeddings": "false"}})
    page = "Honey bees dance to show where food is. The waggle run points along the sun's direction."
    source = Source(title="Bees", url="https://example.org/bees", verdict="relevant", fetched=True,
                    passages=[Passage(page)], n=1)
    result = ResearchResult(question="Why are oceans salty?", sources=[source],
                            report_markdown="Oceans are salty because rivers carry minerals [1].",
                            errors=["report: the LLM failed (timed out); wrote an extractive brief instead"])
    run = Run(result, Services(settings=settings), ResearchParams(use_llm=False), None, threading.Event())
    for _ in range(3):
        stage_verify(run)
    unsupported = [e for e in result.errors if "not supported by the source" in e]
    assert len(unsupported) == 1
    assert result.errors[0].startswith("report: the LLM failed")
