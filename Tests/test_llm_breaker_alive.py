"""The run's LLM breaker gives up a server only when it stops answering, not when one call's prompt fails:
a call that runs out of retries while the server answered another call fails alone; a 403 on one request's
text fails that call only; relevance asks one result at a time when a batch does not fit the context window."""
from __future__ import annotations

import json
import threading
import time

import pytest

from App_Function_Libraries.config import LLMSettings
from App_Function_Libraries.LLM.base import LLMError, LLMTimeout, LLMUnavailable
from App_Function_Libraries.LLM.breaker import LLMHealth, RunClient
from App_Function_Libraries.LLM.registry import make_client
from App_Function_Libraries.Research.relevance import judge_with_llm
from App_Function_Libraries.records import Source
from Tests.support.deadline import finishes_within
from Tests.support.openai_server import ScriptedLLM

LONG = "LONG-PROMPT"


def run_client(world, llm: ScriptedLLM, **settings) -> RunClient:
    llm.install(world)
    base = {"provider": "openai", "base_url": world.url("/v1"), "model": "test-model", "max_retries": 1,
            "timeout_seconds": 1}
    return RunClient(make_client(LLMSettings(**{**base, **settings}), "default"), LLMHealth())


def slow_on_long(prompt: str) -> str:
    time.sleep(2.5)  # longer than the client's 1 s time-out: only this prompt is too slow
    return "late"


def test_a_call_failing_while_the_server_answers_others_fails_alone(world):
    # a 3 s time-out, so the short call is surely answered within the long call's retry on a loaded machine
    llm = ScriptedLLM(default="short answer").when(LONG, lambda prompt: time.sleep(7) or "late")
    client = run_client(world, llm, timeout_seconds=3)
    outcome: list[BaseException | str] = []

    def long_call():
        try:
            outcome.append(client.chat_text("s", f"{LONG} " + "x" * 2000))
        except LLMError as exc:
            outcome.append(exc)

    worker = threading.Thread(target=long_call)
    worker.start()
    finishes_within(10, lambda: _wait_for(lambda: sum(LONG in p for p in llm.prompts) == 2))
    # a short call started during the long call's retry is answered, without waiting for it
    assert finishes_within(10, lambda: client.chat_text("s", "short one")) == "short answer"
    worker.join(30)
    assert not worker.is_alive()
    assert isinstance(outcome[0], LLMTimeout), outcome  # its own error: the server is not given up
    assert sum(LONG in p for p in llm.prompts) == 2  # it did retry
    assert not client.health.is_down(client) and client.health.notes("x") == []
    assert client.chat_text("s", "short two") == "short answer"


def test_a_call_failing_with_nothing_answered_meanwhile_gives_the_server_up(world):
    llm = ScriptedLLM(default="short answer").when(LONG, slow_on_long)
    client = run_client(world, llm)
    assert client.chat_text("s", "short one") == "short answer"  # before the failing call started
    with pytest.raises(LLMUnavailable):
        client.chat_text("s", LONG)
    with pytest.raises(LLMUnavailable):
        client.chat_text("s", "short two")
    assert sum(LONG in p for p in llm.prompts) == 2 and llm.calls == 3


def test_a_403_on_one_request_fails_that_call_only(world):
    client = run_client(world, ScriptedLLM(default="fine"))
    world.fault("/v1/chat/completions", status=403, times=1, headers={"Content-Type": "application/json"},
                body=json.dumps({"error": {"message": "Your request was flagged by our moderation system.",
                                           "type": "invalid_request_error", "param": None,
                                           "code": "content_policy_violation"}}).encode())
    with pytest.raises(LLMError) as info:
        client.chat_text("s", "a page's text")
    assert not isinstance(info.value, LLMUnavailable)
    assert "403" in str(info.value) and "moderation" in str(info.value)
    assert client.chat_text("s", "another page") == "fine"
    assert not client.health.is_down(client)


def test_a_401_still_gives_the_client_up_at_once(world):
    client = run_client(world, ScriptedLLM(default="fine", api_key="right"), api_key="wrong")
    with pytest.raises(LLMUnavailable, match="401"):
        client.chat_text("s", "hello")
    assert client.health.is_down(client)


def test_relevance_asks_one_at_a_time_when_a_batch_does_not_fit_the_context_window(world):
    verdict = json.dumps({"verdicts": [{"id": 1, "relevant": True, "reason": "about bees"}]})
    llm = ScriptedLLM(default=verdict)
    client = run_client(world, llm, context_window=2048, max_output_tokens=256)
    sources = [Source(title=f"Bees {i}", url=f"https://example.org/{i}", snippet=("bee dance " * 60)[:600])
               for i in range(8)]
    left = judge_with_llm(client, "How do bees talk?", [], sources, batch_size=8)
    assert left == []
    assert [s.verdict for s in sources] == ["relevant"] * 8, [s.reason for s in sources]
    assert llm.calls == 8  # the batch was never sent: it did not fit


def _wait_for(cond) -> None:
    while not cond():
        time.sleep(0.02)
