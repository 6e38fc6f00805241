"""Numbering without gaps: an answer's sources numbered 1..k, the cited ones in order of first citation, then the
others in their old order, with the markdown's citation groups and the citations rewritten to match; and the one
order every door lists an answer's sources in (cited, then "Read but not cited:").
"""
from __future__ import annotations

import re
from typing import Callable

from App_Function_Libraries.Retrieval.citations import CITATION_GROUP_RE, cited_sentences, format_group, parse_group
from App_Function_Libraries.records import Answer, AnswerSource

def gapless_numbers(markdown: str, numbers: list[int]) -> dict[int, int]:
    """New numbers for the sources `numbers`: the cited ones 1..k in order of first citation, then the others
    in their old order. {old: new}."""
    first: list[int] = []
    for _s, ns in cited_sentences(markdown):
        first += [n for n in ns if n in numbers and n not in first]
    rest = [n for n in sorted(numbers) if n not in first]
    return {old: new for new, old in enumerate(first + rest, start=1)}


def renumber(markdown: str, mapping: dict[int, int]) -> str:
    """Every citation group rewritten with the new numbers."""
    def fix(m: re.Match) -> str:
        return format_group([mapping.get(n, n) for n in parse_group(m.group(1))])
    return CITATION_GROUP_RE.sub(fix, markdown)


def listed_lines(answer: Answer, entry: Callable[[AnswerSource], str]) -> list[str]:
    """An answer's sources as plain-text lines, in the one order every door lists them: those it cites, then
    "Read but not cited:" and the others."""
    cited = [entry(s) for s in answer.sources if s.cited]
    rest = [entry(s) for s in answer.sources if not s.cited]
    return (cited or ["None cited."]) + (["", "Read but not cited:"] + rest if rest else [])


def number_gapless(answer: Answer, keep_uncited: bool = True) -> dict[int, int]:
    """The answer's sources numbered 1..k: the cited ones in order of first citation, then (keep_uncited) the
    others in their old order; its markdown and citations follow. {old number: new number}."""
    mapping = gapless_numbers(answer.markdown, [s.n for s in answer.sources])
    answer.markdown = renumber(answer.markdown, mapping)
    for c in answer.citations:
        c.n = mapping.get(c.n, c.n)
    cited = {c.n for c in answer.citations}
    for s in answer.sources:
        s.n = mapping[s.n]
        s.cited = s.n in cited
    answer.sources = sorted((s for s in answer.sources if keep_uncited or s.cited), key=lambda s: s.n)
    return mapping
