"""Stage 3: is each search result worth fetching?

With an LLM: results are judged in batches (temperature 0), each answer parsed strictly into one verdict per
result (relevant yes/no and a one-line reason). A batch whose answer cannot be parsed, or too long for the
context window, is asked again one result at a time; a result that still gets no usable answer, or whose
batch the server failed (after the client's retries: asking per result would only repeat that), stays
"unjudged" (and is kept). Batches run concurrently. Results the run could not ask about because it gave up
on the server are returned, for the caller to judge without an LLM. Without an LLM: a result is relevant
when the cosine similarity of the question and its title and snippet reaches a threshold.

Users can override any verdict later (`Source.user_override`); nothing here touches an override.
"""
from __future__ import annotations

import re
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable

from App_Function_Libraries.LLM import prompts
from App_Function_Libraries.LLM.base import LLMClient, LLMContextOverflow, LLMUnavailable
from App_Function_Libraries.LLM.structured import StructuredOutputError, ask_structured, extract_json
from App_Function_Libraries.records import Source

MAX_PARALLEL_CALLS = 8
MAX_REASON_CHARS = 300
SNIPPET_CHARS = 600


@dataclass
class Verdict:
    relevant: bool | None  # None: could not be judged
    reason: str


def apply_verdict(source: Source, verdict: Verdict) -> None:
    source.verdict = {True: "relevant", False: "irrelevant", None: "unjudged"}[verdict.relevant]
    source.reason = verdict.reason


# ---------------------------------------------------------------- parsing

def parse_verdicts(text: str, ids: list[int]) -> dict[int, Verdict]:
    """One Verdict per expected id, or StructuredOutputError. Accepts {"verdicts": [...]} or a bare array."""
    value = extract_json(text)
    if isinstance(value, dict):
        value = value.get("verdicts", value.get("results"))
    if not isinstance(value, list):
        raise StructuredOutputError('expected {"verdicts": [...]}')
    found: dict[int, Verdict] = {}
    for entry in value:
        if not isinstance(entry, dict):
            raise StructuredOutputError("each verdict must be an object")
        rid, relevant = entry.get("id"), _as_bool(entry.get("relevant"))
        if isinstance(rid, str) and rid.strip().isdigit():
            rid = int(rid)
        if rid not in ids or relevant is None:
            raise StructuredOutputError(f"verdict with unknown id or no true/false: {entry!r}"[:200])
        reason = " ".join(str(entry.get("reason", "")).split())[:MAX_REASON_CHARS]
        found[rid] = Verdict(relevant, reason)
    missing = [i for i in ids if i not in found]
    if missing:
        raise StructuredOutputError(f"no verdict for ids {missing}")
    return found


def _as_bool(value) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "yes", "false", "no"):
        return value.strip().lower() in ("true", "yes")
    return None


# ---------------------------------------------------------------- judging with the LLM

def _ask(llm: LLMClient, question: str, sub_queries: list[str],
         batch: list[tuple[int, Source]]) -> tuple[dict[int, Verdict] | None, Exception | None]:
    """(verdicts, None), or (None, why not): a StructuredOutputError, an LLMError, or LLMUnavailable."""
    tag = prompts.new_data_tag()
    items = [(i, s.title, s.url, s.snippet[:SNIPPET_CHARS]) for i, s in batch]
    messages = prompts.relevance_messages(question, sub_queries, items, tag)
    ids = [i for i, _ in batch]
    errors: list[Exception] = []

    def fallback(exc: Exception):
        errors.append(exc)
        return None

    try:
        verdicts, _ok = ask_structured(llm, messages, lambda text: parse_verdicts(text, ids), tries=1,
                                       fallback=fallback, temperature=0.0, json_mode=True)
    except LLMUnavailable as exc:
        return None, exc
    return verdicts, (errors[0] if errors else None)


def _unjudged(problem: Exception | None) -> Verdict:
    return Verdict(None, f"could not be judged: {problem}"[:MAX_REASON_CHARS])


def judge_batch(llm: LLMClient, question: str, sub_queries: list[str], batch: list[Source],
                cancel: threading.Event | None = None) -> list[Verdict | None]:
    """Verdicts for one batch: asked together, then one by one for a batch whose answer could not be parsed
    or that does not fit the context window. None for a result not asked about because the run gave up on
    the server."""
    numbered = list(enumerate(batch, start=1))
    verdicts, problem = _ask(llm, question, sub_queries, numbered)
    if verdicts is not None:
        return [verdicts[i] for i, _ in numbered]
    if isinstance(problem, LLMUnavailable):
        return [None] * len(batch)
    if len(batch) == 1 or not isinstance(problem, (StructuredOutputError, LLMContextOverflow)):
        return [_unjudged(problem)] * len(batch)  # the server failed: asking per result would repeat that
    out: list[Verdict | None] = []
    for source in batch:
        if cancel is not None and cancel.is_set():
            out.append(Verdict(None, "not judged: cancelled"))
            continue
        single, problem = _ask(llm, question, sub_queries, [(1, source)])
        out.append(single[1] if single else None if isinstance(problem, LLMUnavailable) else _unjudged(problem))
    return out


def judge_with_llm(llm: LLMClient, question: str, sub_queries: list[str], sources: list[Source],
                   batch_size: int = 8, cancel: threading.Event | None = None,
                   on_progress: Callable[[int, int], None] | None = None,
                   max_parallel: int = MAX_PARALLEL_CALLS) -> list[Source]:
    """Set verdict and reason on every source (batches judged concurrently). Returns the sources left
    unasked because the run gave up on the LLM server (LLMUnavailable), for judging without it."""
    batches = [sources[i:i + batch_size] for i in range(0, len(sources), batch_size)]
    done, lock = [0], threading.Lock()
    left: list[Source] = []

    def run(batch: list[Source]) -> None:
        if cancel is not None and cancel.is_set():
            return
        for source, verdict in zip(batch, judge_batch(llm, question, sub_queries, batch, cancel)):
            if verdict is None:
                with lock:
                    left.append(source)
            else:
                apply_verdict(source, verdict)
        with lock:
            done[0] += len(batch)
            if on_progress:
                on_progress(done[0], len(sources))

    if not batches:
        return left
    with ThreadPoolExecutor(max_workers=max(1, min(max_parallel, len(batches))),
                            thread_name_prefix="relevance") as pool:
        list(pool.map(run, batches))
    unasked = {id(s) for s in left}
    return [s for s in sources if id(s) in unasked]


# ---------------------------------------------------------------- judging without an LLM

SIMILARITY_REASON = re.compile(r"similarity to the question (-?\d+\.\d+) \((?:at least|below) the threshold "
                               r"(-?\d+\.\d+)\)")


def judge_with_embeddings(embedder, question: str, sources: list[Source], threshold: float) -> None:
    """Relevant when cos(question, title + snippet) >= threshold; the reason gives the similarity."""
    if not sources:
        return
    texts = [f"{s.title}. {s.snippet}".strip() for s in sources]
    sims = embedder.encode(texts) @ embedder.encode_query(question)
    for source, sim in zip(sources, sims):
        relevant = bool(sim >= threshold)
        word = "at least" if relevant else "below"
        apply_verdict(source, Verdict(relevant, f"similarity to the question {float(sim):.2f} ({word} the "
                                                f"threshold {threshold:.2f})"))


def similarity_of(reason: str) -> tuple[float, float] | None:
    """(similarity, threshold) of a verdict judged without an LLM (its reason, as judge_with_embeddings writes
    it); None for any other reason (an LLM's)."""
    found = SIMILARITY_REASON.fullmatch(reason.strip())
    return (float(found.group(1)), float(found.group(2))) if found else None
