"""The verifier of the cited-answer core (Retrieval/cited_answer.py), for every answer Quarry writes.

Verifier. Every [n] naming no source is removed; every cited sentence gets its evidence and a verdict:
  supported        the source holds the sentence (normalised: case, punctuation and markup ignored), or its
                   best passage holds at least SUPPORTED_SHARE of the sentence's content words and every
                   number the sentence states;
  partly supported the best passage holds at least PARTLY_SHARE of the content words;
  not supported    otherwise: the sentence is marked in the answer (`UNSUPPORTED_MARK`) and counted.
The stored quote is the source's own sentence when the source holds it (its passage stored with it), else the
best-supporting passage. The check needs no LLM.
"""
from __future__ import annotations

import re

from App_Function_Libraries.Retrieval.bm25 import tokenize
from App_Function_Libraries.Retrieval.citations import (CITATION_GROUP_RE, UNSUPPORTED_MARK, CitableSource,
                                                        CitationCheck, best_passages, clean_citation_groups,
                                                        cited_sentences)
from App_Function_Libraries.Retrieval.quotable import INLINE_TAGS, stem
from App_Function_Libraries.records import Citation

SUPPORTED_SHARE, PARTLY_SHARE = 0.8, 0.5
SUPPORTED, PARTLY, NOT_SUPPORTED = "supported", "partly supported", "not supported"


def words_of(text: str) -> set[str]:
    return {stem(t) for t in tokenize(text) if len(t) > 1}


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w]+", " ", text.lower()).split())


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


# the title may hold brackets of its own, not quotation marks (each mark scans to the next one at most)
_ATTRIBUTION = re.compile(r"^[“\"]|[”\"]\s*(\([^”\"]*\))?\s*$")


def own_sentence(sentence: str) -> str:
    """A quoted sentence without the quotation marks and the source's name put around it (see `quoted`)."""
    return _ATTRIBUTION.sub("", sentence.strip()).strip()


def _plain_passage(passage: str) -> str:
    """The passage as quotes are made from it: the page's own [n] marks and editors' tags left out."""
    return CITATION_GROUP_RE.sub("", INLINE_TAGS.sub("", passage))


def _holding(sentence: str, passages: list[str]) -> tuple[int, str] | None:
    """(passage index, the source's own words) of the first passage holding the sentence, else None."""
    want = _norm(own_sentence(sentence))
    if not want:
        return None
    for j, passage in enumerate(passages):
        plain = _plain_passage(passage)
        if want in _norm(plain):
            return j, _own_words(want, plain)
    return None


def _own_words(want: str, passage: str) -> str:
    """The passage's sentence(s) holding the normalised text, as the passage writes them."""
    parts = [p for line in passage.splitlines() for p in _SENTENCE_END.split(line) if p.strip()]
    for size in range(1, 4):
        for i in range(len(parts) - size + 1):
            chunk = " ".join(parts[i:i + size])
            if want in _norm(chunk):
                return " ".join(chunk.split())
    return " ".join(passage.split())


_NUMBER = re.compile(r"\d[\d,.]*")


def verdict(sentence: str, passage: str) -> str:
    """supported / partly supported / not supported (see the module docstring), without an LLM."""
    if _norm(sentence) and _norm(sentence) in _norm(passage):
        return SUPPORTED
    words = words_of(sentence)
    if not words:
        return NOT_SUPPORTED
    share = len(words & words_of(passage)) / len(words)
    numbers = {x.strip(".,") for x in _NUMBER.findall(sentence)}
    have = {x.strip(".,") for x in _NUMBER.findall(passage)}
    if share >= SUPPORTED_SHARE and numbers <= have:
        return SUPPORTED
    return PARTLY if share >= PARTLY_SHARE else NOT_SUPPORTED


def verify(markdown: str, sources: list[CitableSource], embedder=None) -> CitationCheck:
    """Citations naming no source removed; each cited sentence paired with its evidence and a verdict; the
    sentences their source does not support marked in the markdown."""
    by_n = {s.n: s for s in sources}
    text, removed = clean_citation_groups(markdown.replace(UNSUPPORTED_MARK, ""), set(by_n))
    pairs = [(sentence, n) for sentence, numbers in cited_sentences(text) for n in numbers]
    held = [_holding(s, by_n[n].passages) for s, n in pairs]
    need = [i for i, h in enumerate(held) if h is None]
    picks = dict(zip(need, best_passages([pairs[i][0] for i in need], [by_n[pairs[i][1]].passages for i in need],
                                         embedder)))
    citations, unsupported = [], set()
    for i, (sentence, n) in enumerate(pairs):
        src = by_n[n]
        if held[i] is not None:
            j, own = held[i]
            passage, quote, sim, v = _plain_passage(src.passages[j]), own, 1.0, SUPPORTED
            sentence = own_sentence(sentence)
        else:
            j, sim = picks[i]
            passage = src.passages[j] if j >= 0 else ""
            quote, v = passage, verdict(sentence, passage)
        if v == NOT_SUPPORTED:
            unsupported.add(sentence)
        citations.append(Citation(n=n, sentence=sentence, url=src.url, quote=" ".join(quote.split()),
                                  content_hash=src.content_hash, similarity=round(float(sim), 4), verdict=v,
                                  passage=" ".join(passage.split())))
    if unsupported:
        text = mark_unsupported(text, unsupported)
    cited = {c.n for c in citations}
    return CitationCheck(markdown=text, citations=citations, invalid_removed=removed,
                         uncited=sorted(n for n in by_n if n not in cited))


def mark_unsupported(markdown: str, sentences: set[str]) -> str:
    """UNSUPPORTED_MARK after the last citation group of each sentence its source does not support."""
    out = []
    for line in markdown.splitlines():
        for sentence in sentences:
            words = sentence.rstrip(".!?").strip()
            at = line.find(words) if words else -1
            if at < 0:
                continue
            groups = list(CITATION_GROUP_RE.finditer(line, at + len(words)))
            if groups:
                end = groups[0].end()
                while True:  # "[1][2]" or "[1] [2]": after the last group of the run
                    nxt = CITATION_GROUP_RE.match(line, end) or CITATION_GROUP_RE.match(line, end + 1)
                    if not nxt:
                        break
                    end = nxt.end()
                line = line[:end] + " " + UNSUPPORTED_MARK + line[end:]
        out.append(line)
    return "\n".join(out)
