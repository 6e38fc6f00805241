"""Optional cross-encoder re-ranking of fused hits ([embeddings] cross_encoder: a model name or path).

The model is loaded on first use and kept; it scores (query, chunk) pairs together, which is slower than
the bi-encoder but sees both texts at once.
"""
from __future__ import annotations

import threading

from App_Function_Libraries.Documents.doc_types import DocumentsError, SearchHit
from App_Function_Libraries.Documents.store import index_text


class CrossEncoderReranker:
    def __init__(self, model_name: str, batch_size: int = 32):
        self.model_name = model_name
        self.batch_size = batch_size
        self._model = None
        self._lock = threading.Lock()

    @property
    def model(self):
        with self._lock:
            if self._model is None:
                from sentence_transformers import CrossEncoder
                try:
                    self._model = CrossEncoder(self.model_name, device="cpu")
                except (OSError, ValueError) as exc:
                    raise DocumentsError(f"cannot load the cross-encoder {self.model_name!r}: {exc}") from exc
            return self._model

    def scores(self, query: str, texts: list[str]) -> list[float]:
        if not texts:
            return []
        out = self.model.predict([(query, t) for t in texts], batch_size=self.batch_size, show_progress_bar=False)
        return [float(s) for s in out]

    def rerank(self, query: str, hits: list[SearchHit]) -> list[SearchHit]:
        """The hits ordered by the cross-encoder's score (ties keep the fused order)."""
        scores = self.scores(query, [index_text(h.context, h.text) for h in hits])
        for hit, score in zip(hits, scores):
            hit.rerank_score = score
        order = sorted(range(len(hits)), key=lambda i: (-scores[i], i))
        return [hits[i] for i in order]


_rerankers: dict[str, CrossEncoderReranker] = {}
_cache_lock = threading.Lock()


def get_reranker(settings) -> CrossEncoderReranker | None:
    """The configured cross-encoder (cached per model), or None when none is configured."""
    name = settings.embeddings.cross_encoder.strip()
    if not name:
        return None
    with _cache_lock:
        if name not in _rerankers:
            _rerankers[name] = CrossEncoderReranker(name)
        return _rerankers[name]
