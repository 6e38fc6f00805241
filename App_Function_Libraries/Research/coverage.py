"""How well the passages that were read cover each part of a question, without any LLM.

The parts ("aspects") are the sub-questions that were searched, or, when there are none, the question's own
parts (`question_parts`), or the question itself. An aspect's score is the share of
its words, weighted by rarity (idf over the passages), that the single best passage holds: 1.0 when one
passage has every word, 0.0 when none has any. Words that no passage holds are its `missing` words.

The lowest-scoring aspects are what the report most likely lacks: follow-up suggestions come from them, and
a dig-deeper round without an LLM searches for their missing words.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from App_Function_Libraries.Retrieval.bm25 import tokenize
from App_Function_Libraries.Retrieval.quotable import fold_plural
from App_Function_Libraries.records import Source
from App_Function_Libraries.Research.subqueries import dedupe_queries, normalize_query

WEAK_SCORE = 0.75  # below this an aspect counts as a gap
_ASKING = r"(?:how|what|why|when|where|which|who|whom|whose|whether|is|are|was|were|do|does|did|can|could|should|" \
          r"would|will|has|have)\b"
# Where a question holds several questions: at a question mark or semicolon inside it, at "and"/"or"/"but"
# (after a comma or not) that starts a new question ("…, and how do ants find sugar?"), and between the
# things compared ("A vs B", "A compared with B"). Not at every comma or "and": "pros and cons" is one part.
CLAUSE_SPLIT = re.compile(r"\s*(?:;|\?|,?\s+(?:and|or|but)\s+(?=" + _ASKING + r")|\s\bvs\.?\s|\sversus\s|"
                          r"\scompared\s+(?:to|with)\s)\s*", re.IGNORECASE)
MIN_CLAUSE_WORDS = 2
ANCHOR_TERMS = 2


@dataclass
class Aspect:
    text: str
    score: float
    missing: list[str] = field(default_factory=list)


def terms(text: str) -> list[str]:
    out: list[str] = []
    for t in tokenize(text):
        s = fold_plural(t)
        if len(s) > 1 and s not in out:
            out.append(s)
    return out


def aspects_of(question: str, sub_queries: list[str]) -> list[str]:
    """The parts of the question to score: its sub-questions, else its clauses, else itself."""
    key = normalize_query(question).lower().rstrip("?.!")
    subs = [q for q in dedupe_queries(sub_queries) if q.lower().rstrip("?.!") != key]
    if subs:
        return subs
    return question_parts(question) or [normalize_query(question)]


def question_parts(question: str) -> list[str]:
    """The questions a question holds (see CLAUSE_SPLIT), each with at least MIN_CLAUSE_WORDS content words;
    [] when it is a single question."""
    parts = [c.strip(" ?.!,") for c in CLAUSE_SPLIT.split(question)]
    parts = dedupe_queries([c for c in parts if len(terms(c)) >= MIN_CLAUSE_WORDS])
    return parts if len(parts) > 1 else []


def evidence_passages(sources: list[Source]) -> list[str]:
    """The passages the report was written from (numbered sources), else every passage read."""
    numbered = [p.text for s in sources if s.n is not None for p in s.passages]
    return numbered or [p.text for s in sources for p in s.passages]


class _Corpus:
    def __init__(self, passages: list[str]):
        self.docs = [set(terms(p)) for p in passages]
        self.df: dict[str, int] = {}
        for doc in self.docs:
            for t in doc:
                self.df[t] = self.df.get(t, 0) + 1

    def weight(self, term: str) -> float:
        return math.log(1 + (len(self.docs) + 1) / (self.df.get(term, 0) + 0.5))

    def score(self, text: str) -> Aspect:
        words = terms(text)
        if not words:
            return Aspect(text, 1.0)
        total = sum(self.weight(t) for t in words)
        best = max((sum(self.weight(t) for t in words if t in doc) for doc in self.docs), default=0.0)
        return Aspect(text, round(best / total, 4), [t for t in words if not self.df.get(t)])


def score_aspects(question: str, sub_queries: list[str], sources: list[Source]) -> list[Aspect]:
    """Every aspect with its score, lowest (least covered) first."""
    corpus = _Corpus(evidence_passages(sources))
    return sorted((corpus.score(a) for a in aspects_of(question, sub_queries)), key=lambda a: a.score)


def anchor_terms(question: str, sources: list[Source], limit: int = ANCHOR_TERMS) -> list[str]:
    """The question's words the passages hold most often: what keeps a gap query on the topic."""
    corpus = _Corpus(evidence_passages(sources))
    held = [t for t in terms(question) if corpus.df.get(t)]
    return sorted(held, key=lambda t: -corpus.df[t])[:limit]


def gap_queries(question: str, sub_queries: list[str], sources: list[Source], searched: list[str],
                limit: int) -> tuple[list[str], list[str]]:
    """(gaps, queries) without an LLM: each weak aspect is a gap; its query is its missing words with the
    question's anchor words, or the aspect itself when every word was found somewhere. Queries already
    searched are dropped (their gaps stay listed)."""
    weak = [a for a in score_aspects(question, sub_queries, sources) if a.score < WEAK_SCORE or a.missing]
    anchors = anchor_terms(question, sources)
    gaps, queries = [], []
    taken = list(searched)
    for aspect in weak:
        if aspect.missing:
            query = " ".join(anchors + [t for t in aspect.missing if t not in anchors])
            gap = f"nothing read mentions {', '.join(aspect.missing)} ({aspect.text})"
        else:
            query, gap = aspect.text, f"no passage covers all of {aspect.text!r} (score {aspect.score:.2f})"
        gaps.append(gap)
        if dedupe_queries([query], exclude=taken) and len(queries) < limit:
            taken.append(query)
            queries.append(normalize_query(query))
    return gaps, queries
