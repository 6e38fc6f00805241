"""The LLM layer against the OpenAI-compatible test server: retries, time-outs, streaming, <think>
stripping, context fitting, typed errors."""
import pytest

from App_Function_Libraries.LLM.base import (
    LLMAuthError, LLMContextOverflow, LLMModelNotFound, LLMRateLimited, LLMServerError, LLMTimeout,
    LLMUnreachable, Message, ThinkFilter, strip_think)
from App_Function_Libraries.LLM.context import fit_evidence
from App_Function_Libraries.LLM.openai_provider import OpenAICompatibleClient
from App_Function_Libraries.LLM.registry import get_llm
from App_Function_Libraries.LLM.structured import StructuredOutputError, ask_structured, parse_string_list
from Tests.support.openai_server import ScriptedLLM


@pytest.fixture
def llm_server(world):
    return ScriptedLLM(default="plain answer").install(world)


def client_for(world, make_settings, sleeps=None, **llm):
    values = {"provider": "openai", "base_url": world.url("/v1"), "model": "test-model", "max_retries": 2,
              "timeout_seconds": 5, **llm}
    s = make_settings({"llm": values})
    c = OpenAICompatibleClient(s.llm_for("final_answer"), "final_answer",
                               sleep=(sleeps.append if sleeps is not None else (lambda _: None)))
    return c


def test_chat_round_trip_and_usage(world, llm_server, make_settings):
    llm_server.when("capital of France", "Paris.")
    c = client_for(world, make_settings)
    assert c.chat([Message("user", "What is the capital of France?")]).text == "Paris."
    assert c.usage.calls == 1 and c.usage.prompt_tokens > 0
    assert llm_server.bodies[-1]["model"] == "test-model"


def test_registry_none_provider_means_extractive(make_settings):
    s = make_settings({})
    assert get_llm("relevance", s) is None


def test_retry_on_429_honours_retry_after(world, llm_server, make_settings):
    world.fault("/v1/chat", status=429, headers={"Retry-After": "7"}, times=2)
    sleeps = []
    c = client_for(world, make_settings, sleeps=sleeps)
    assert c.chat([Message("user", "hi")]).text == "plain answer"
    assert sleeps == [7.0, 7.0]
    assert len(world.requests_to("/v1/chat")) == 3


def test_retry_gives_up_with_typed_error(world, llm_server, make_settings):
    world.fault("/v1/chat", status=429, headers={"Retry-After": "1"})
    with pytest.raises(LLMRateLimited, match="rate limiting"):
        client_for(world, make_settings).chat([Message("user", "hi")])
    assert len(world.requests_to("/v1/chat")) == 3  # 1 + max_retries


def test_retry_on_500_then_success(world, llm_server, make_settings):
    world.fault("/v1/chat", status=500, body=b'{"error": {"message": "boom"}}', times=1)
    sleeps = []
    assert client_for(world, make_settings, sleeps=sleeps).chat([Message("user", "x")]).text == "plain answer"
    assert len(sleeps) == 1 and 0 < sleeps[0] < 2


def test_persistent_500_is_server_error(world, llm_server, make_settings):
    world.fault("/v1/chat", status=503)
    with pytest.raises(LLMServerError):
        client_for(world, make_settings, max_retries=0).chat([Message("user", "x")])


def test_timeout_is_typed_and_bounded(world, llm_server, make_settings):
    world.fault("/v1/chat", delay=3)
    import time
    t = time.time()
    with pytest.raises(LLMTimeout, match="did not answer within 1 s"):
        client_for(world, make_settings, timeout_seconds=1, max_retries=0).chat([Message("user", "x")])
    assert time.time() - t < 2.9


def test_unreachable_server(make_settings):
    s = make_settings({"llm": {"provider": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "m",
                               "max_retries": 0}})
    with pytest.raises(LLMUnreachable, match="cannot reach the LLM server at http://127.0.0.1:9/v1"):
        get_llm("final_answer", s).chat([Message("user", "x")])


def test_bad_key_and_unknown_model(world, make_settings):
    ScriptedLLM(api_key="right-key").install(world)
    with pytest.raises(LLMAuthError, match="refused the API key"):
        client_for(world, make_settings, api_key="wrong-key").chat([Message("user", "x")])
    with pytest.raises(LLMModelNotFound, match="model 'nope' not found"):
        client_for(world, make_settings, api_key="right-key", model="nope").chat([Message("user", "x")])


def test_server_side_context_overflow_is_typed(world, make_settings):
    ScriptedLLM(context_tokens=50).install(world)
    with pytest.raises(LLMContextOverflow):
        client_for(world, make_settings).chat([Message("user", "word " * 400)])


def test_streaming_strips_think_blocks(world, llm_server, make_settings):
    llm_server.when("stream me", "<think>private reasoning here</think>The visible answer [1].")
    c = client_for(world, make_settings)
    pieces = list(c.stream_chat([Message("user", "stream me")]))
    assert len(pieces) > 1  # really streamed in pieces
    assert "".join(pieces) == "The visible answer [1]."
    assert c.usage.calls == 1


def test_think_stripped_in_plain_chat(world, llm_server, make_settings):
    llm_server.when("think", "<think>\nhmm\n</think>\n\nDone.")
    assert client_for(world, make_settings).chat([Message("user", "think")]).text == "Done."


@pytest.mark.parametrize("text, expected", [
    ("<think>a</think>b", "b"), ("no tags", "no tags"), ("<THINK>x</THINK> y", "y"),
    ("<think>never closed", ""), ("reasoning spilled</think>answer", "answer")])
def test_strip_think(text, expected):
    assert strip_think(text) == expected


def test_think_filter_handles_tags_split_across_chunks():
    f = ThinkFilter()
    chunks = ["Hel", "lo <th", "ink>sec", "ret</thi", "nk> world"]
    assert "".join(f.feed(c) for c in chunks) + f.flush() == "Hello  world"


def test_client_side_context_check_before_sending(world, llm_server, make_settings):
    c = client_for(world, make_settings, context_window=600, max_output_tokens=100)
    with pytest.raises(LLMContextOverflow, match="context window of 600"):
        c.chat([Message("user", "word " * 2000)])
    assert llm_server.calls == 0


def test_fit_evidence_trims_evidence_never_instructions(world, llm_server, make_settings):
    c = client_for(world, make_settings, context_window=1000, max_output_tokens=200)
    instructions = "INSTRUCTIONS: answer only from the evidence. " * 5
    evidence = [f"evidence {i}: " + "fact " * 150 for i in range(6)]

    def build(pieces):
        return [Message("system", instructions), Message("user", "\n\n".join(pieces))]
    msgs, trimmed = fit_evidence(c, build, evidence)
    assert msgs[0].content == instructions
    assert trimmed >= 1
    assert "evidence 0" in msgs[1].content and "evidence 5" not in msgs[1].content
    assert sum(c.count_tokens(m.content) for m in msgs) + 200 <= 1000
    c.chat(msgs)  # fits: no overflow raised


def test_structured_retry_then_fallback(world, llm_server, make_settings):
    replies = iter(["not json at all", '["q1", "q2"]'])
    llm_server.when("make queries", lambda p: next(replies))
    c = client_for(world, make_settings)
    value, ok = ask_structured(c, [Message("user", "make queries")], parse_string_list,
                               fallback=lambda e: ["fallback"])
    assert (value, ok) == (["q1", "q2"], True) and llm_server.calls == 2
    llm_server.when("always bad", "{}")
    value, ok = ask_structured(c, [Message("user", "always bad")], parse_string_list, fallback=lambda e: ["fb"])
    assert (value, ok) == (["fb"], False)


@pytest.mark.parametrize("text", ['```json\n["a"]\n```', 'Sure! ["a"] hope this helps', '{"queries": ["a"]}'])
def test_parse_string_list_accepts_wrapped_arrays(text):
    assert parse_string_list(text) == ["a"]


@pytest.mark.parametrize("text", ["[]", '[1, 2]', '{"x": 1}', "nothing", '[""]'])
def test_parse_string_list_refuses_wrong_shapes(text):
    with pytest.raises(StructuredOutputError):
        parse_string_list(text)
