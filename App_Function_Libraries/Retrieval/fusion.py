"""Reciprocal rank fusion: merge several rankings of the same items into one."""
from __future__ import annotations

from typing import Hashable, Iterable, Sequence

RRF_K = 60


def reciprocal_rank_fusion(rankings: Iterable[Sequence[Hashable]], k: int = RRF_K,
                           weights: Sequence[float] | None = None) -> list[tuple[Hashable, float]]:
    """Items ordered by sum(weight / (k + rank)) over the rankings they appear in (rank starts at 1).
    Ties keep the order of first appearance."""
    scores: dict[Hashable, float] = {}
    order: dict[Hashable, int] = {}
    for i, ranking in enumerate(rankings):
        w = 1.0 if weights is None else weights[i]
        for rank, item in enumerate(ranking, start=1):
            if item not in order:
                order[item] = len(order)
            scores[item] = scores.get(item, 0.0) + w / (k + rank)
    return sorted(scores.items(), key=lambda kv: (-kv[1], order[kv[0]]))
