"""Answers from the retrieved chunks with `[n]` citations to file and location, by the cited-answer core
(Retrieval/cited_answer.py) like the web report: an LLM writes when one is configured, otherwise the core's
extractive writer quotes the chunks' own sentences; every citation is verified and given a verdict, and the
chunks are renumbered without gaps (cited first, then the others). Chunk text is untrusted data inside the
prompt. Chunks whose cosine similarity to the question is below [documents] relevance_floor are not used,
unless they hold the names the question states (Retrieval/names.holds_names); when none reaches it, or no
sentence of the others clears the core's relevance floor, the answer says so and lists the closest chunks as
not used.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from App_Function_Libraries.Documents.doc_types import DocsAsked, SearchHit
from App_Function_Libraries.LLM import prompts
from App_Function_Libraries.LLM.base import LLMClient, LLMError
from App_Function_Libraries.LLM.context import fit_evidence
from App_Function_Libraries.Retrieval import cited_answer as core
from App_Function_Libraries.Retrieval import numbering
from App_Function_Libraries.Retrieval.citations import CitableSource
from App_Function_Libraries.Retrieval.names import holds_names
from App_Function_Libraries.records import Answer

NO_HITS = "Nothing in your documents matches this question."
NO_DOCUMENTS = ("There are no documents to answer from yet: add files first (`python app.py docs add PATH`, or "
                "Add to collection in the Documents tab).")
NO_ANSWER = "Nothing in your documents answers this question"
CLOSEST_SHOWN = 3
KIND = "document"


def citable_sources(hits: list[SearchHit]) -> list[CitableSource]:
    """Hit i becomes source i+1; its text is the passage a citation's quote is found in. Its document's title
    says what the chunk is about, as a page's title does for its text (read for relevance, not shown)."""
    return [CitableSource(n=i, url=h.citation_target, title=f"{h.name} ({h.location})", passages=[h.text],
                          about=h.title) for i, h in enumerate(hits, start=1)]


def answer_from_hits(question: str, hits: list[SearchHit], llm: LLMClient | None, embedder=None,
                     on_token: Callable[[str], None] | None = None, relevance_floor: float | None = None,
                     parts: list[str] | None = None) -> DocsAsked:
    """A cited answer to the question from the hits (best first) that reach the relevance floor (default: the
    configured [documents] relevance_floor; it needs the embedder); `parts`: the questions the question holds."""
    if not hits:
        return DocsAsked(question, core.not_answered(NO_HITS, []))
    if relevance_floor is None:
        from App_Function_Libraries.config import get_settings
        relevance_floor = get_settings().documents.relevance_floor
    if embedder is not None and relevance_floor > 0:
        similarity = hit_similarities(question, hits, embedder)
        relevant = [h for h, s in zip(hits, similarity) if s >= relevance_floor
                    or holds_names(question, f"{h.title} {h.text}")]
        if not relevant:
            return DocsAsked(question, closest_unused(hits, similarity, relevance_floor))
        hits = relevant
    sources = citable_sources(hits)
    closest = core.nothing_clears(question, sources, embedder, parts)
    if closest is not None:
        return DocsAsked(question, core.not_answered(f"{NO_ANSWER}.", closest))
    errors: list[str] = []
    if llm is not None:
        try:
            markdown, used = _llm_answer(question, hits, llm, on_token)
            answer = core.finish(markdown, sources[:used], embedder, "llm", kind=KIND)
            return _asked(question, answer, hits[:used], errors)
        except LLMError as exc:
            errors.append(f"the LLM could not answer ({exc}); this answer is extractive")
    answer = core.extractive(question, sources, embedder, parts, statement=NO_ANSWER, kind=KIND)
    return _asked(question, answer, hits, errors)


def hit_similarities(question: str, hits: list[SearchHit], embedder) -> np.ndarray:
    """Cosine similarity of the question to each hit's text (the embedder's unit vectors), or to the text under
    its document's title when that is closer: a chunk that never names its subject ("+ Added Slime Block …") is
    as close to "What is the Bountiful Update?" as its page's title makes it ("Minecraft 1.8 - The Bountiful
    Update")."""
    query = embedder.encode_query(question)
    similarity = embedder.encode([h.text for h in hits]) @ query
    titled = [i for i, h in enumerate(hits) if h.title.strip()]
    if titled:
        under_title = embedder.encode([f"{hits[i].title}\n\n{hits[i].text}" for i in titled]) @ query
        similarity[titled] = np.maximum(similarity[titled], under_title)
    return similarity


def closest_unused(hits: list[SearchHit], similarity: np.ndarray, floor: float) -> Answer:
    """The answer when no chunk reaches the floor: says so, and lists the closest chunks as not used, each named
    as the answer names its sources ("notes.md (chunk-3)"), as when chunks reach it and no sentence clears the
    core's floor."""
    statement = f"{NO_ANSWER}: no chunk reaches the relevance floor ({floor:.2f} cosine similarity to the question)."
    best = np.argsort(-similarity, kind="stable")[:CLOSEST_SHOWN]
    sources = citable_sources(hits)
    return core.not_answered(statement, [(sources[i].title, float(similarity[i]), hits[i].text) for i in best])


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


def _asked(question: str, answer: Answer, hits: list[SearchHit], errors: list[str]) -> DocsAsked:
    """The answer with its chunks numbered 1..k in order of first citation, then the rest (hits in that order)."""
    answer.errors = errors
    if answer.mode == "none":
        return DocsAsked(question, answer)
    mapping = numbering.number_gapless(answer)
    return DocsAsked(question, answer, [hit for _new, hit in sorted((mapping[i], h) for i, h in enumerate(hits, 1))])


def format_sources(asked: DocsAsked) -> str:
    """The numbered source list printed under an answer, `[n] path#location`: cited, then read but not cited."""
    return "\n".join(numbering.listed_lines(asked.answer, lambda s: f"[{s.n}] {s.url}"))
