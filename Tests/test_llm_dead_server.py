"""A research run whose LLM server is down: it is given up once (one timeout-with-retries per run, not one per
call), the run finishes extractively and says so in one note; `check` words it the same way."""
from __future__ import annotations

import threading

import pytest

from App_Function_Libraries.LLM.openai_provider import OpenAICompatibleClient
from App_Function_Libraries.status import check_llm_role
from App_Function_Libraries.Research.pipeline import process_question
from App_Function_Libraries.Research.params import ResearchParams
from Tests.support.deadline import finishes_within
from Tests.support.mini_web import MiniWeb, research_config
from Tests.support.openai_server import DeadLLM, ScriptedLLM
from Tests.support.research_llm import script_research
from Tests.support.search_apis import clean_health  # noqa: F401 - autouse: no engine suspension leaks in

QUESTION = "How do honey bees communicate the location of food?"
BEE_WORDS = ("bee", "honey", "waggle", "forag", "hive")
RETRIES = 2


@pytest.fixture
def attempts(monkeypatch):
    """Requests the client tried to send (counted where it sends them; a refused connection reaches no
    server that could count it)."""
    count, lock = [0], threading.Lock()
    real_chat, real_stream = OpenAICompatibleClient._chat, OpenAICompatibleClient._stream_chat

    def counted(real):
        def wrapper(self, *args, **kw):
            with lock:
                count[0] += 1
            return real(self, *args, **kw)
        return wrapper

    monkeypatch.setattr(OpenAICompatibleClient, "_chat", counted(real_chat))
    monkeypatch.setattr(OpenAICompatibleClient, "_stream_chat", counted(real_stream))
    return count


def dead_settings(world, make_settings, dead: DeadLLM, **research):
    web = MiniWeb(world, include_faults=False, mirrors=1, slow_chunk_delay=0.0).install()
    return make_settings(research_config(web, dead.base_url, research={"pages_max": 8, **research},
                                         search={"search_result_max": 8},
                                         llm={"timeout_seconds": 1, "max_retries": RETRIES}))


def llm_notes(result) -> list[str]:
    return [e for e in result.errors if "LLM" in e or "llm" in e]


@pytest.mark.parametrize("mode", ["503", "hang", "refused"])
def test_a_dead_server_costs_one_call_with_retries_per_run(world, make_settings, attempts, mode):
    with DeadLLM(mode) as dead:
        dead_settings(world, make_settings, dead)
        # one time-out with retries (3 x 1 s plus 1.5 s back-off) and the pages, with room for a loaded machine
        result = finishes_within(60, lambda: process_question(QUESTION))
        received = dead.requests()
    assert attempts[0] <= RETRIES + 1
    if received is not None:
        assert received == attempts[0]
    assert result.mode == "extractive" and result.citations and result.report_markdown
    notes = llm_notes(result)
    assert len(notes) == 1, notes
    assert notes[0].startswith(f"the LLM at {dead.base_url} is not answering (")
    assert f"{RETRIES + 1} tries" in notes[0] and notes[0].endswith("so this report is extractive")
    cause = {"503": "HTTP 503", "hang": "no answer within 1 s", "refused": "connection refused"}[mode]
    assert cause in notes[0]
    # no embeddings here: kept, said why, and read
    assert all(s.verdict == "unjudged" and s.reason == "not judged: the LLM stopped answering" for s in result.sources)
    assert sum(1 for s in result.sources if s.fetched) == 8


def test_calls_in_flight_wait_for_one_calls_retries(world, make_settings, attempts):
    """Four relevance batches sent at once to a server answering 503: each sends its one request, then one of
    them retries while the others wait for its outcome; nobody asks per result."""
    with DeadLLM("503") as dead:
        settings = dead_settings(world, make_settings, dead, relevance_batch_size=2)
        params = ResearchParams.from_settings(settings, subqueries=False)
        result = finishes_within(60, lambda: process_question(QUESTION, params))
        received = dead.requests()
    assert received == attempts[0] <= 4 + RETRIES
    assert result.mode == "extractive" and len(llm_notes(result)) == 1


def test_a_server_that_recovers_within_its_retries_is_kept(world, web_and_llm, make_settings):
    web, model = web_and_llm
    make_settings(research_config(web, world.url("/v1"), llm={"max_retries": RETRIES}))
    world.fault("/v1/chat/completions", status=503, times=1)
    result = finishes_within(60, lambda: process_question(QUESTION))
    assert result.mode == "llm" and not any("not answering" in e for e in result.errors)
    assert len(world.requests_to("/v1/chat/completions")) == model.calls + 1


@pytest.fixture
def web_and_llm(world):
    web = MiniWeb(world, include_faults=False).install()
    model = script_research(ScriptedLLM(default="?"), BEE_WORDS).install(world)
    return web, model


def test_check_gives_the_runs_diagnosis(world, make_settings):
    with DeadLLM("503") as dead:
        settings = make_settings({"llm": {"provider": "openai", "base_url": dead.base_url, "model": "m",
                                          "max_retries": 0, "timeout_seconds": 2}})
        verdict = check_llm_role(settings, "final_answer")
    assert verdict.ok is False
    assert verdict.message == f"the LLM at {dead.base_url} is not answering (HTTP 503: Service Unavailable)"
