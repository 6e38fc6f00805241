"""The optional cross-encoder ([embeddings] cross_encoder: a model name or path), loaded on first use and kept
once per model for the whole process: web passage ranking, document search and Wikipedia answers share it
(each had its own cache, so one model could load twice). A cross-encoder scores (query, text) pairs together:
slower than the bi-encoder, but it sees both texts at once.
"""
from __future__ import annotations

import threading
from typing import Protocol, Sequence

from App_Function_Libraries.errors import QuarryError

_models: dict[str, object] = {}
_lock = threading.Lock()


class CrossEncoderError(QuarryError, RuntimeError):
    """The configured cross-encoder could not be loaded; str() says which and why."""


class PairScorer(Protocol):
    """A cross-encoder as passage ranking uses it (sentence-transformers' CrossEncoder): one score a
    (query, text) pair, higher is better."""

    def predict(self, pairs: list[tuple[str, str]], /) -> Sequence[float]: ...


def get_cross_encoder(name: str) -> PairScorer | None:
    """The sentence-transformers CrossEncoder `name` (loaded once, then shared), or None when `name` is empty."""
    name = (name or "").strip()
    if not name:
        return None
    with _lock:
        if name not in _models:
            from sentence_transformers import CrossEncoder

            from App_Function_Libraries.Retrieval.embeddings import quiet_model_load
            try:
                with quiet_model_load():
                    _models[name] = CrossEncoder(name, device="cpu")
            except (OSError, ValueError) as exc:
                raise CrossEncoderError(f"cannot load cross-encoder {name!r}: {exc}") from exc
        return _models[name]


def cross_encoder_scores(name: str, query: str, texts: list[str], batch_size: int = 32) -> list[float]:
    """The cross-encoder's score of each (query, text), higher is better."""
    if not texts:
        return []
    model = get_cross_encoder(name)
    if model is None:
        raise CrossEncoderError("no cross-encoder is configured ([embeddings] cross_encoder)")
    out = model.predict([(query, t) for t in texts], batch_size=batch_size, show_progress_bar=False)
    return [float(s) for s in out]
