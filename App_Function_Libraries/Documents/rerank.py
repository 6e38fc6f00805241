"""Optional cross-encoder re-ranking of fused document hits ([embeddings] cross_encoder), with the model that
Retrieval/rerank.py loads once for every feature."""
from __future__ import annotations

from App_Function_Libraries.Documents.doc_types import DocumentsError, SearchHit
from App_Function_Libraries.Documents.store import index_text
from App_Function_Libraries.Retrieval.rerank import CrossEncoderError, cross_encoder_scores


class CrossEncoderReranker:
    def __init__(self, model_name: str, batch_size: int = 32):
        self.model_name = model_name
        self.batch_size = batch_size

    def scores(self, query: str, texts: list[str]) -> list[float]:
        try:
            return cross_encoder_scores(self.model_name, query, texts, self.batch_size)
        except CrossEncoderError as exc:
            raise DocumentsError(str(exc)) from exc

    def rerank(self, query: str, hits: list[SearchHit]) -> list[SearchHit]:
        """The hits ordered by the cross-encoder's score (ties keep the fused order)."""
        scores = self.scores(query, [index_text(h.context, h.text) for h in hits])
        for hit, score in zip(hits, scores):
            hit.rerank_score = score
        order = sorted(range(len(hits)), key=lambda i: (-scores[i], i))
        return [hits[i] for i in order]


def get_reranker(settings) -> CrossEncoderReranker | None:
    """The configured cross-encoder, or None when none is configured."""
    name = settings.embeddings.cross_encoder.strip()
    return CrossEncoderReranker(name) if name else None
