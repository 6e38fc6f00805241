"""Splitting text into passages: paragraph- and sentence-aware, sized in words."""
from __future__ import annotations

import re

#: a sentence ends at . ! ? (and their full-width forms) and any closing quotes or brackets after it, straight or
#: curly, which stay with it; the space after it (group 1) is cut when a capital or a digit follows, perhaps after an
#: opening quote or bracket
_SENTENCE_END = re.compile(r"[.!?。！？][\"'”’»)\]]*(\s+)"
                           r"(?=[\"'“‘«(\[]?[A-Z0-9À-ÖØ-Þ\u0400-\u042F\u4e00-\u9fff])")


#: a word before a full stop that does not end a sentence: a title or short form before a name ("St. Augustine",
#: "Dr. Schmitt", "Mt. Everest") or an initial ("John F. Kennedy", "J. R. R. Tolkien")
_ABBREVIATION = re.compile(r"(?:^|\s)(?:St|Sts|Dr|Mr|Mrs|Ms|Mme|Prof|Rev|Fr|Gen|Col|Lt|Capt|Sgt|Adm|Gov|Sen|Rep|"
                           r"Pres|Jr|Sr|Mt|Ft|No|Nos|Vol|vs|cf|ca|approx|e\.g|i\.e|(?:[A-Z]\.)*[A-Z])\.$")


#: a bracketed aside with no sentence end of its own, perhaps cited, after a sentence: its source's name after a
#: quote ("“We value it.” (Notes.md (chunk-3)) [2]") or a reference ("(Smith 2010)"); it belongs to that sentence
_ASIDE = re.compile(r"^\((?:[^()]|\([^()]*\))+(?<![.!?。！？])\)(?:\s*\[[\d,;\s–—-]+\])*$")


def split_sentences(text: str) -> list[str]:
    """Sentences of a paragraph (a light rule-based splitter): a full stop after a title, a short form or an
    initial (`_ABBREVIATION`) does not end a sentence, and a bracketed aside after one (`_ASIDE`) is part of it."""
    text = " ".join(text.split())
    if not text:
        return []
    out: list[str] = []
    for part in (p.strip() for p in _cut(text)):
        if not part:
            continue
        if out and (_ABBREVIATION.search(out[-1]) or _ASIDE.match(part)):
            out[-1] = f"{out[-1]} {part}"
        else:
            out.append(part)
    return out


def _cut(text: str) -> list[str]:
    parts, start = [], 0
    for m in _SENTENCE_END.finditer(text):
        parts.append(text[start:m.start(1)])
        start = m.end(1)
    return parts + [text[start:]]


def split_paragraphs(text: str) -> list[str]:
    paras = re.split(r"\n\s*\n|\r\n\s*\r\n", text)
    out = []
    for p in paras:
        p = " ".join(p.split())
        if p:
            out.append(p)
    return out


def split_passages(text: str, min_words: int = 100, max_words: int = 200) -> list[str]:
    """Passages of about min_words..max_words words. Paragraphs are kept whole when they fit; short ones
    are joined with their neighbours; long ones are cut between sentences (a sentence longer than
    max_words is cut between words). A line that introduces what follows it (a heading, "Step 3", "What
    you'll need:") stays in the passage of what it introduces."""
    units: list[str] = []
    for para in split_paragraphs(text):
        if len(para.split()) <= max_words:
            units.append(para)
            continue
        for sent in split_sentences(para):
            words = sent.split()
            while len(words) > max_words:
                units.append(" ".join(words[:max_words]))
                words = words[max_words:]
            if words:
                units.append(" ".join(words))
    passages: list[str] = []
    current: list[str] = []
    count = 0
    for unit in units:
        n = len(unit.split())
        if current and count + n > max_words:
            carried = [current.pop()] if len(current) > 1 and _introduces(current[-1]) else []
            passages.append(_join(current))
            current, count = carried, sum(len(u.split()) for u in carried)
        current.append(unit)
        count += n
        if count >= min_words and not _introduces(unit):
            passages.append(_join(current))
            current, count = [], 0
    if current:
        if passages and count < min_words // 2 and len(passages[-1].split()) + count <= max_words:
            passages[-1] = _join([passages[-1]] + current)
        else:
            passages.append(_join(current))
    return passages


_ENDS_SENTENCE = re.compile(r"[.!?。！？:;][\"'”’)\]]*$")


def _introduces(unit: str) -> bool:
    """A short line that introduces what follows: a heading or label (no sentence end) or a lead-in ending
    with a colon."""
    return len(unit.split()) <= 12 and (unit.rstrip().endswith(":") or not _ENDS_SENTENCE.search(unit))


#: a unit that is a line of its own kind: a list item ("- …", "+ …", "1. …") or a table row ("| … |")
_LINE_UNIT = re.compile(r"^(?:[-+*•·▪]|\d{1,3}[.)])\s+\S|^\|")


def _join(units: list[str]) -> str:
    """Units joined by a space, but by a line break after one that does not end a sentence (a heading), so
    that it is never read as the start of the sentence after it, and before and after a list item or a table
    row, so that it is quoted as what it is (Retrieval/quotable.py), not glued to its neighbours."""
    out = units[0]
    for before, unit in zip(units, units[1:]):
        apart = not _ENDS_SENTENCE.search(out) or _LINE_UNIT.match(before) or _LINE_UNIT.match(unit)
        out += ("\n" if apart else " ") + unit
    return out
