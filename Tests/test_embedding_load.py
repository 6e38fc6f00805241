"""The embedding model loads only when a run has something to rank, and a run that waits for it shows the wait
as the stage `embedding_model` (progress events and a timing): a run whose search found nothing never loads it.
A run that does not load it says why: the model was ready, had nothing to encode, or embeddings are off."""
from __future__ import annotations

import pytest

from App_Function_Libraries.Research.pipeline import LOAD_STAGE, STAGES, Services, process_question
from App_Function_Libraries.Retrieval.embeddings import ModelOnFirstUse, get_embedder
from Tests.support.mini_web import MiniWeb, research_config
from Tests.support.search_apis import clean_health  # noqa: F401 - autouse: no engine suspension leaks in

QUESTION = "How do honey bees communicate the location of food?"


def counted_services(settings) -> tuple[Services, list[int]]:
    """Services whose embedding model is the real one, counting each time it is asked to load."""
    loads: list[int] = []
    services = Services.from_settings(settings, use_llm=False)
    services.embedder_factory = lambda: loads.append(1) or get_embedder(settings)
    return services, loads


def run_on_mini_web(world, make_settings, question: str, embeddings: bool, **research):
    """A run on the mini web: (its result, its progress events, the model's loads, its services)."""
    web = MiniWeb(world, include_faults=False).install()
    settings = make_settings(research_config(web, embeddings=embeddings, research=research))
    services, loads = counted_services(settings)
    events: list = []
    result = process_question(question, services=services, on_progress=events.append)
    return result, events, loads, services


def test_a_run_that_found_nothing_never_loads_the_model(world, make_settings):
    result, events, loads, _ = run_on_mini_web(world, make_settings, "Qwxz vrpl jmkt zzyq?", True)
    assert result.sources == [] and loads == []
    said = [e for e in events if e.stage == LOAD_STAGE]
    assert [(e.done, e.total, e.message, e.skipped) for e in said] == [(0, 0, "skipped: nothing to encode", True)]
    assert LOAD_STAGE not in result.timings
    assert events.index(said[0]) == len(events) - 2 and events[-1].stage == "done"
    assert {"search", "report", "verify"} <= {e.stage for e in events}  # a control: the run did run its stages


def test_a_run_with_embeddings_off_says_the_load_was_skipped(world, make_settings):
    result, events, loads, _ = run_on_mini_web(world, make_settings, QUESTION, False, pages_max=2)
    assert result.sources and loads == []  # a control: it had pages to rank, and ranked them without the model
    said = [(e.done, e.total, e.message, e.skipped) for e in events if e.stage == LOAD_STAGE]
    assert said == [(0, 0, "skipped: embeddings off", True)] and LOAD_STAGE not in result.timings


def test_the_model_is_loaded_on_the_first_text_and_once():
    loads = []

    class Encoder:
        def encode(self, texts, is_query=False):
            return [[1.0] for _ in texts]
    lazy = ModelOnFirstUse(lambda: loads.append(1) or Encoder())
    assert loads == []
    assert lazy.encode(["a", "b"]) == [[1.0], [1.0]] and lazy.encode_query("q") == [1.0]
    assert loads == [1]


def test_the_load_stage_has_a_place_in_the_stages():
    assert STAGES.index("search") < STAGES.index(LOAD_STAGE) < STAGES.index("relevance")


@pytest.mark.slow
def test_a_run_that_waits_for_the_model_shows_the_wait_as_its_own_stage(world, make_settings):
    result, events, loads, services = run_on_mini_web(world, make_settings, QUESTION, True, pages_max=3)
    assert result.sources and loads == [1]
    waits = [e for e in events if e.stage == LOAD_STAGE]
    assert [(e.done, e.total) for e in waits] == [(0, 1), (1, 1)]
    assert waits[0].message == "loading the embedding model" and waits[1].message.startswith("loaded in ")
    assert result.timings[LOAD_STAGE] >= 0
    assert events.index(waits[0]) > max(i for i, e in enumerate(events) if e.stage == "search")
    events.clear()
    again = process_question(QUESTION, services=services, on_progress=events.append)  # the model is loaded now
    assert again.sources and loads == [1]
    said = [(e.done, e.total, e.message, e.skipped) for e in events if e.stage == LOAD_STAGE]
    assert said == [(1, 1, "ready (loaded before this run)", False)] and LOAD_STAGE not in again.timings
