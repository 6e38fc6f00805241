"""Answering a question from the local Wikipedia index, with [n] citations that resolve to articles.

search (sign scan, int8 rescoring, BM25 fusion) -> drop passages below the relevance floor (an estimated
cosine similarity to the question, [wikipedia] relevance_floor) -> rerank (cross-encoder when configured,
else embedding + BM25 fusion) -> keep top_k_nodes -> related-node expansion (the best other passages of the
top documents) -> group by article -> the cited-answer core (Retrieval/cited_answer.py): when no sentence of
those passages clears its relevance floor the answer says so, else with an LLM each article is condensed and
the answer cites [n]; without one the core's extractive writer quotes the passages. Every citation is
verified against the passages and given a verdict; articles are renumbered without gaps, cited first (the one
answer record, records.Answer, inside a WikiAsked with the passages and timings). When
no passage clears the similarity floor, the answer says the index has none that answers the question and
lists the closest passages as not used.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from App_Function_Libraries.LLM import prompts
from App_Function_Libraries.LLM.base import LLMClient, LLMError, LLMUnavailable
from App_Function_Libraries.LLM.breaker import LLMHealth, RunClient
from App_Function_Libraries.Retrieval.bm25 import BM25
from App_Function_Libraries.Retrieval import cited_answer as core
from App_Function_Libraries.Retrieval import numbering
from App_Function_Libraries.Retrieval.citations import CitableSource
from App_Function_Libraries.Retrieval.fusion import reciprocal_rank_fusion
from App_Function_Libraries.Retrieval.names import holds_names
from App_Function_Libraries.Retrieval.rerank import cross_encoder_scores
from App_Function_Libraries.records import Answer
from App_Function_Libraries.Wikipedia.index import SearchParams, WikiHit, WikiIndex, get_wiki_index

USE_CONFIGURED_LLM = object()
RELATIVE_SCORE_FLOOR = 0.5  # candidates below half the best passage's similarity are dropped before reranking
NO_ANSWER = "The index has no passage that answers this question"
CLOSEST_SHOWN = 3
KIND = "wikipedia"


@dataclass
class WikiAsked:
    """A question asked of the index: its answer (the one answer record; its sources are the articles, numbered
    1..k, cited first), the passages it was written from, and how long each step took."""
    question: str
    answer: Answer
    passages: list[WikiHit] = field(default_factory=list)  # none when no passage cleared the floor
    timings: dict[str, float] = field(default_factory=dict)


# ---------------------------------------------------------------- ranking

def rerank_scores(question: str, texts: list[str], embedding_scores: list[float], settings,
                  errors: list[str] | None = None) -> list[float]:
    """Higher is better. The cross-encoder's scores when one is configured (and loads), else reciprocal rank
    fusion of the embedding ranking and a BM25 ranking over these texts."""
    if not texts:
        return []
    if settings.embeddings.cross_encoder.strip():
        try:
            return cross_encoder_scores(settings.embeddings.cross_encoder, question, texts)
        except Exception as exc:  # a model that fails to load must not stop the answer
            if errors is not None:
                errors.append(f"cross-encoder unavailable, used embedding + BM25 ranking: {exc}")
    by_embedding = list(np.argsort(-np.asarray(embedding_scores, dtype=np.float32), kind="stable"))
    fused = dict(reciprocal_rank_fusion([by_embedding, BM25(texts).ranking(question)]))
    return [fused[i] for i in range(len(texts))]


def select_passages(question: str, hits: list[WikiHit], index: WikiIndex, settings,
                    errors: list[str]) -> list[WikiHit]:
    """The top_k_nodes reranked hits at or above the relevance floor (or holding every name the question states,
    names.holds_names), then the best other passages of the top documents (none when no hit clears
    the floor)."""
    w = settings.wikipedia
    named = {h.row for h in hits if holds_names(question, f"{h.title} {h.text}")}  # a rare name, little known
    hits = [h for h in hits if h.vector_score >= w.relevance_floor or h.row in named]  # to the embedding model
    best = max((h.vector_score for h in hits), default=0.0)
    if best > 0:  # passages far less similar than the best one are noise, not evidence
        hits = [h for h in hits if h.vector_score >= RELATIVE_SCORE_FLOOR * best or h.row in named]
    scores = rerank_scores(question, [h.text for h in hits], [h.vector_score for h in hits], settings, errors)
    order = sorted(range(len(hits)), key=lambda i: (-scores[i], i))[:w.top_k_nodes]
    chosen = [hits[i] for i in order]
    for hit, i in zip(chosen, order):
        hit.score = float(scores[i])
    return chosen + related_passages(question, chosen, index, settings, errors)


def related_passages(question: str, chosen: list[WikiHit], index: WikiIndex, settings,
                     errors: list[str]) -> list[WikiHit]:
    w = settings.wikipedia
    if not chosen or w.top_k_related_documents <= 0 or w.top_k_related_nodes <= 0:
        return []
    taken = {h.row for h in chosen}
    top_urls = list(dict.fromkeys(h.url for h in chosen))[:w.top_k_related_documents]
    query = index.embed_query(question)
    added: list[WikiHit] = []
    for url in top_urls:
        rows = [r for r in index.store.document_rows(url) if r not in taken]
        if not rows:
            continue
        candidates = index.store.passages(rows)
        vec = index.score_rows(query, [p.row for p in candidates]).tolist()
        scores = rerank_scores(question, [p.text for p in candidates], vec, settings, errors)
        best = sorted(range(len(candidates)), key=lambda i: (-scores[i], i))[:w.top_k_related_nodes]
        for i in best:
            p = candidates[i]
            added.append(WikiHit(p.row, p.title, p.url, p.text, p.pid, float(scores[i]), float(vec[i])))
    return added


def group_by_article(passages: list[WikiHit]) -> list[CitableSource]:
    """One numbered source per article, in order of its best passage; passages in article order."""
    groups: dict[str, list[WikiHit]] = {}
    for h in passages:
        groups.setdefault(h.url, []).append(h)
    sources = []
    for n, (url, hits) in enumerate(groups.items(), start=1):
        hits = sorted(hits, key=lambda h: h.row)
        sources.append(CitableSource(n=n, url=url, title=hits[0].title, passages=[h.text for h in hits]))
    return sources


# ---------------------------------------------------------------- writing

def condense(question: str, source: CitableSource, llm) -> str | None:
    """What one article's passages say about the question (LLM); None when they say nothing useful."""
    tag = prompts.new_data_tag()
    reply = llm.chat(prompts.wiki_condense_messages(question, source.title, "\n\n".join(source.passages), tag))
    text = reply.text.strip() if hasattr(reply, "text") else str(reply).strip()
    return None if not text or prompts.WIKI_NOTHING.lower() in text.lower()[:40] else text


def llm_answer(question: str, sources: list[CitableSource], llm, errors: list[str]) -> str:
    """Each article condensed, then the cited answer. A server that stops answering is given up at once
    (LLMUnavailable): one timeout-with-retries, not one per article."""
    from App_Function_Libraries.LLM.context import fit_evidence
    if isinstance(llm, LLMClient) and llm.health is None:
        llm = RunClient(llm, LLMHealth())
    notes = []
    for src in sources:
        try:
            note = condense(question, src, llm)
        except LLMUnavailable:  # the server stopped answering: the whole answer is extractive
            raise
        except LLMError as exc:
            errors.append(f"condensing [{src.n}] {src.title} failed, used its passages: {exc}")
            note = "\n".join(src.passages)
        if note:
            notes.append((src, note))
    if not notes:
        return ""
    tag = prompts.new_data_tag()
    pieces = [prompts.wrap_untrusted(note, tag, f"[{src.n}] {src.title}") for src, note in notes]
    messages, trimmed = fit_evidence(llm, lambda kept: prompts.wiki_answer_messages(question, kept, tag), pieces)
    if trimmed:
        errors.append(f"{trimmed} note(s) were shortened to fit the model's context window")
    reply = llm.chat(messages)
    return reply.text.strip() if hasattr(reply, "text") else str(reply).strip()


def closest_unused(closest: list[WikiHit], floor: float) -> Answer:
    """The answer when no passage reaches the floor: says so, and lists the closest passages as not used."""
    statement = (f"{NO_ANSWER}: no passage reaches the relevance floor ({floor:.2f} estimated similarity to the "
                 f"question).")
    return core.not_answered(statement, [(h.title, h.vector_score, h.text) for h in closest])


def answer_question(question: str, settings=None, index: WikiIndex | None = None, llm=USE_CONFIGURED_LLM,
                    embedder=None, parts: list[str] | None = None) -> WikiAsked:
    """Search, rerank, expand, and write a cited answer (LLM when one is configured, else extractive); `parts`:
    the questions the question holds, each answered or named as not answered."""
    if settings is None:
        from App_Function_Libraries.config import get_settings
        settings = get_settings()
    index = index or get_wiki_index(settings)
    embedder = embedder or index.embedder
    if llm is USE_CONFIGURED_LLM:
        from App_Function_Libraries.LLM.registry import get_llm
        llm = get_llm("final_answer", settings)
    timings, errors = {}, []
    t = time.perf_counter()
    hits = index.search(question, SearchParams.from_settings(settings))
    timings["search"] = time.perf_counter() - t
    t = time.perf_counter()
    passages = select_passages(question, hits, index, settings, errors)
    sources = group_by_article(passages)
    timings["rerank"] = time.perf_counter() - t
    if not passages:
        closest = sorted(hits, key=lambda h: -h.vector_score)[:CLOSEST_SHOWN]
        answer = closest_unused(closest, settings.wikipedia.relevance_floor)
        answer.errors = errors
        return WikiAsked(question, answer, timings=timings)
    t = time.perf_counter()
    answer = write_answer(question, sources, llm, embedder, errors, parts)
    timings["answer"] = time.perf_counter() - t
    return WikiAsked(question, answer, passages if answer.mode != "none" else [], timings)


def write_answer(question: str, sources: list[CitableSource], llm, embedder, errors: list[str],
                 parts: list[str] | None = None) -> Answer:
    """The core's answer, its articles numbered 1..k (cited first): not answered below its floor, else the
    LLM's (when configured) or extractive."""
    answer = _written(question, sources, llm, embedder, errors, parts)
    answer.errors = errors
    numbering.number_gapless(answer)
    return answer


def _written(question: str, sources: list[CitableSource], llm, embedder, errors: list[str],
             parts: list[str] | None) -> Answer:
    closest = core.nothing_clears(question, sources, embedder, parts)
    if closest is not None:
        return core.not_answered(f"{NO_ANSWER}.", closest)
    if llm is not None and sources:
        try:
            markdown = llm_answer(question, sources, llm, errors)
            if markdown:  # no article said anything useful: the extractive answer
                return core.finish(markdown, sources, embedder, "llm", kind=KIND)
        except LLMUnavailable as exc:
            errors.append(f"{exc}: Quarry stopped calling it, so this answer is extractive")
        except LLMError as exc:
            errors.append(f"the LLM failed, answered extractively instead: {exc}")
    return core.extractive(question, sources, embedder, parts, statement=NO_ANSWER, kind=KIND)
