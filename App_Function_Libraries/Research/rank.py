"""Passage ranking: each page split into passages (paragraph- and sentence-aware), ranked against the question
by BM25 and embedding similarity fused with reciprocal rank fusion, re-ranked by a cross-encoder when one is
configured; the top k of each page are kept.

`rank_pages` ranks any number of pages in one call and embeds all their passages in ONE batch (the
pipeline calls it with every page that has arrived so far).
"""
from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from App_Function_Libraries.Retrieval.bm25 import BM25
from App_Function_Libraries.Retrieval.embeddings import TextEncoder
from App_Function_Libraries.Retrieval.fusion import reciprocal_rank_fusion
from App_Function_Libraries.Retrieval.passages import split_passages
from App_Function_Libraries.Retrieval.rerank import PairScorer
from App_Function_Libraries.records import Passage

CROSS_ENCODER_POOL = 3  # the cross-encoder re-scores this many times top_k candidates per page


@dataclass
class RankSettings:
    top_k: int = 5
    min_words: int = 100
    max_words: int = 200


def passages_of(text: str, settings: RankSettings) -> list[str]:
    """The page's passages; a heading stays on a line of its own (never glued to the sentence after it)."""
    return split_passages(text, settings.min_words, settings.max_words)


def rank_pages(question: str, texts: list[str], settings: RankSettings, embedder: TextEncoder | None = None,
               cross_encoder: PairScorer | None = None) -> list[list[Passage]]:
    """For each page text, its top passages for the question (best first, score = fused score or the
    cross-encoder's). BM25 statistics come from all the pages' passages together."""
    split = [passages_of(t, settings) for t in texts]
    flat = [p for ps in split for p in ps]
    if not flat:
        return [[] for _ in texts]
    bm25 = np.asarray(BM25(flat).scores(question), dtype=np.float32)
    dense = _similarities(question, flat, embedder)
    out: list[list[Passage]] = []
    offset = 0
    for ps in split:
        idx = range(offset, offset + len(ps))
        offset += len(ps)
        out.append(_top_of_page(question, ps, [bm25[i] for i in idx],
                                None if dense is None else [dense[i] for i in idx], settings, cross_encoder))
    return out


def _similarities(question: str, passages: list[str], embedder: TextEncoder | None) -> np.ndarray | None:
    if embedder is None:
        return None
    vectors = embedder.encode(passages)
    return vectors @ embedder.encode_query(question)


def _top_of_page(question: str, passages: list[str], bm25: list[float], dense: list[float] | None,
                 settings: RankSettings, cross_encoder: PairScorer | None) -> list[Passage]:
    if not passages:
        return []
    rankings = [sorted(range(len(passages)), key=lambda i: -bm25[i])]
    if dense is not None:
        rankings.append(sorted(range(len(passages)), key=lambda i: -dense[i]))
    fused = reciprocal_rank_fusion(rankings)
    if cross_encoder is None:
        return [Passage(passages[i], round(float(score), 6)) for i, score in fused[:settings.top_k]]
    pool = [i for i, _ in fused[:settings.top_k * CROSS_ENCODER_POOL]]
    scores = cross_encoder.predict([(question, passages[i]) for i in pool])
    order = sorted(range(len(pool)), key=lambda j: -float(scores[j]))
    return [Passage(passages[pool[j]], round(float(scores[j]), 6)) for j in order[:settings.top_k]]




# ---------------------------------------------------------------- embeddings computed once per run

class MemoEmbedder:
    """Wraps an embedder so each text is encoded once per research run: the passages embedded for ranking
    are reused when citations are verified and when the extractive brief ranks sentences."""

    def __init__(self, embedder: TextEncoder):
        self.embedder = embedder
        self._vectors: dict[tuple[str, bool], np.ndarray] = {}
        self._lock = threading.Lock()

    def encode(self, texts: list[str], is_query: bool = False) -> np.ndarray:
        with self._lock:
            missing = list(dict.fromkeys(t for t in texts if (t, is_query) not in self._vectors))
        if missing:
            vectors = self.embedder.encode(missing, is_query=is_query)
            with self._lock:
                for text, vector in zip(missing, vectors):
                    self._vectors[(text, is_query)] = vector
        with self._lock:
            rows = [self._vectors[(t, is_query)] for t in texts]
        if not rows:
            return self.embedder.encode([], is_query=is_query)
        return np.stack(rows)

    def encode_query(self, text: str) -> np.ndarray:
        return self.encode([text], is_query=True)[0]
