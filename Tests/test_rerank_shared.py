"""One cross-encoder per model for the whole process: web passage ranking, document search and Wikipedia
answers use the model Retrieval/rerank.py loads (each feature had its own cache, so one model loaded twice)."""
import pytest

from App_Function_Libraries.Retrieval import rerank

pytestmark = pytest.mark.slow


def test_documents_wikipedia_and_web_ranking_share_one_loaded_model(make_settings, monkeypatch):
    # No trained cross-encoder ships offline: MiniLM's weights with a fresh scoring head exercise the loading
    from App_Function_Libraries.Documents.rerank import get_reranker
    from App_Function_Libraries.Retrieval.embeddings import default_model_path
    from App_Function_Libraries.Wikipedia.answer import rerank_scores
    monkeypatch.setattr(rerank, "_models", {})
    name = default_model_path()
    settings = make_settings({"embeddings": {"cross_encoder": name}})
    texts = ["Coffee roasting darkens the beans.", "Tea leaves are dried."]
    docs = get_reranker(settings).scores("coffee", texts)
    errors: list[str] = []
    wiki = rerank_scores("coffee", texts, [0.5, 0.4], settings, errors)
    web = rerank.get_cross_encoder(name)
    assert errors == [] and len(rerank._models) == 1 and web is rerank._models[name]
    assert docs == pytest.approx(wiki)  # the same model scored both


def test_a_cross_encoder_that_cannot_load_is_a_clear_error(tmp_path):
    with pytest.raises(rerank.CrossEncoderError, match="cannot load cross-encoder"):
        rerank.get_cross_encoder(str(tmp_path / "no-such-model"))
    assert rerank.get_cross_encoder("  ") is None
