"""Fitting prompts into a model's context window: the instructions are kept whole, the evidence trimmed."""
from __future__ import annotations

from typing import Callable

from App_Function_Libraries.LLM.base import LLMClient, LLMContextOverflow, Message

SAFETY_MARGIN_TOKENS = 64


def fit_evidence(client: LLMClient, build: Callable[[list[str]], list[Message]], evidence: list[str],
                 max_tokens: int | None = None) -> tuple[list[Message], int]:
    """Messages built from as much of `evidence` (in order) as fits the window with room for the answer.

    `build(pieces)` makes the messages from a list of evidence pieces. Returns (messages, pieces_trimmed):
    pieces that do not fit are cut at a word boundary or dropped. If even the bare instructions do not fit,
    LLMContextOverflow is raised."""
    answer = max_tokens or client.settings.max_output_tokens
    bare = sum(client.count_tokens(m.content) + 4 for m in build([]))
    budget = client.context_window - answer - bare - SAFETY_MARGIN_TOKENS
    if budget <= 0:
        raise LLMContextOverflow(
            f"{client.describe()}: the instructions alone need about {bare} tokens plus {answer} for the answer, "
            f"more than the context window of {client.context_window}")
    kept, trimmed = [], 0
    for piece in evidence:
        cost = client.count_tokens(piece) + 2
        if cost <= budget:
            kept.append(piece)
            budget -= cost
            continue
        trimmed += 1
        if budget > 50:  # room for a useful part of this piece
            kept.append(_cut_to_tokens(client, piece, budget - 2))
        budget = 0
    return build(kept), trimmed


def _cut_to_tokens(client: LLMClient, text: str, tokens: int) -> str:
    words = text.split(" ")
    lo, hi = 0, len(words)
    while lo < hi:  # longest word prefix within the budget
        mid = (lo + hi + 1) // 2
        if client.count_tokens(" ".join(words[:mid]) + " …") <= tokens:
            lo = mid
        else:
            hi = mid - 1
    return " ".join(words[:lo]) + " …"
