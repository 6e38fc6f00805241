"""Answers from the retrieved chunks with `[n]` citations to file and location, verified like the web
report: an LLM writes when one is configured, otherwise an extractive answer is built from the chunks'
own sentences. Chunk text is untrusted data inside the prompt. Chunks whose cosine similarity to the question
is below [documents] relevance_floor are not used; when none reaches it, the answer says so and lists the
closest chunks as not used.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from App_Function_Libraries.Documents.doc_types import DocAnswer, SearchHit
from App_Function_Libraries.LLM import prompts
from App_Function_Libraries.LLM.base import LLMClient, LLMError
from App_Function_Libraries.LLM.context import fit_evidence
from App_Function_Libraries.Retrieval.citations import (CitableSource, extractive_answer, no_answer_markdown,
                                                        verify_citations)
from App_Function_Libraries.Retrieval.passages import split_sentences

NO_HITS = "Nothing in your documents matches this question."
NO_ANSWER = "Nothing in your documents answers this question"
CLOSEST_SHOWN = 3


def citable_sources(hits: list[SearchHit]) -> list[CitableSource]:
    """Hit i becomes source i+1; its sentences are the passages a citation's quote is chosen from."""
    return [CitableSource(n=i, url=h.citation_target, title=f"{h.name} ({h.location})",
                          passages=split_sentences(h.text) or [h.text])
            for i, h in enumerate(hits, start=1)]


def answer_from_hits(question: str, hits: list[SearchHit], llm: LLMClient | None, embedder=None,
                     on_token: Callable[[str], None] | None = None, relevance_floor: float | None = None) -> DocAnswer:
    """A cited answer to the question from the hits (best first) that reach the relevance floor (default: the
    configured [documents] relevance_floor; it needs the embedder)."""
    if not hits:
        return DocAnswer(question=question, markdown=NO_HITS)
    if relevance_floor is None:
        from App_Function_Libraries.config import get_settings
        relevance_floor = get_settings().documents.relevance_floor
    if embedder is not None and relevance_floor > 0:
        similarity = hit_similarities(question, hits, embedder)
        relevant = [h for h, s in zip(hits, similarity) if s >= relevance_floor]
        if not relevant:
            return DocAnswer(question=question, markdown=closest_unused(hits, similarity, relevance_floor),
                             mode="none")
        hits = relevant
    errors: list[str] = []
    if llm is not None:
        try:
            markdown, used = _llm_answer(question, hits, llm, on_token)
            return _verified(question, markdown, hits[:used], embedder, "llm", errors)
        except LLMError as exc:
            errors.append(f"the LLM could not answer ({exc}); this answer is extractive")
    markdown = extractive_answer(question, citable_sources(hits), embedder)
    return _verified(question, markdown, hits, embedder, "extractive", errors)


def hit_similarities(question: str, hits: list[SearchHit], embedder) -> np.ndarray:
    """Cosine similarity of the question to each hit's text (the embedder's unit vectors)."""
    return embedder.encode([h.text for h in hits]) @ embedder.encode_query(question)


def closest_unused(hits: list[SearchHit], similarity: np.ndarray, floor: float) -> str:
    """The answer when no chunk reaches the floor: says so, and lists the closest chunks as not used."""
    statement = f"{NO_ANSWER}: no chunk reaches the relevance floor ({floor:.2f} cosine similarity to the question)."
    best = np.argsort(-similarity, kind="stable")[:CLOSEST_SHOWN]
    return no_answer_markdown(statement, [(hits[i].citation_target, float(similarity[i]), hits[i].text) for i in best])


def _llm_answer(question: str, hits: list[SearchHit], llm: LLMClient,
                on_token: Callable[[str], None] | None) -> tuple[str, int]:
    """(markdown, number of hits that fitted in the prompt)."""
    tag = prompts.new_data_tag()
    pieces = [prompts.wrap_untrusted(h.text, tag, f"[{n}] {h.name}, {h.location}")
              for n, h in enumerate(hits, start=1)]
    shown: list[int] = [0]

    def build(kept: list[str]):
        shown[0] = len(kept)  # fit_evidence's last call is the one whose messages are sent
        return prompts.doc_answer_messages(question, kept, tag)

    messages, _ = fit_evidence(llm, build, pieces)
    if on_token is None:
        return llm.chat(messages).text, shown[0]
    parts: list[str] = []
    for token in llm.stream_chat(messages):
        parts.append(token)
        on_token(token)
    return "".join(parts).strip(), shown[0]


def _verified(question: str, markdown: str, hits: list[SearchHit], embedder, mode: str,
              errors: list[str]) -> DocAnswer:
    check = verify_citations(markdown, citable_sources(hits), embedder)
    return DocAnswer(question=question, markdown=check.markdown, sources=list(hits), citations=check.citations,
                     invalid_citations_removed=check.invalid_removed, uncited_sources=check.uncited,
                     mode=mode, errors=errors)


def format_sources(answer: DocAnswer) -> str:
    """The numbered source list printed under an answer: `[n] path#location`."""
    return "\n".join(f"[{n}] {h.citation_target}" for n, h in enumerate(answer.sources, start=1))
