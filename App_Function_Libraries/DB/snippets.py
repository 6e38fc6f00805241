"""Search snippets with their matches marked, shown safely in each place they appear.

FTS5's snippet() marks each match with MARKS: two control characters, which a note's text does not hold
(unlike markdown's `**` or `_`, which notes are full of and which made `**dance**` show as `****dance****`).
Each display then turns the marks into its own highlighting after making the text safe for it: markdown with
the note's own markup escaped (the Notes list), bold on a terminal (the CLI), or plain text with the offsets
of the matches (JSON). Any other control character in the text becomes a space.
"""
from __future__ import annotations

import re
import unicodedata

START, END = "\x02", "\x03"
MARKS = (START, END)
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+\-.!|~&])")
BOLD, NORMAL = "\x1b[1m", "\x1b[22m"


def _printable(text: str) -> str:
    return "".join(" " if unicodedata.category(ch) == "Cc" else ch for ch in text)


def segments(snippet: str, limit: int | None = None) -> list[tuple[str, bool]]:
    """(text, is_match) pieces of a marked snippet: runs of white space made one space, cut (with …) after
    `limit` characters of text."""
    pieces: list[tuple[str, bool]] = []
    matched = False
    for part in re.split(f"([{START}{END}])", snippet or ""):
        if part in MARKS:
            matched = part == START
            continue
        text = re.sub(r"\s+", " ", _printable(part))
        if pieces and pieces[-1][0].endswith(" ") and text.startswith(" "):
            text = text[1:]
        if text:
            pieces.append((text, matched))
    if pieces:
        pieces[0] = (pieces[0][0].lstrip(), pieces[0][1])
        pieces[-1] = (pieces[-1][0].rstrip(), pieces[-1][1])
    return _cut([p for p in pieces if p[0]], limit)


def _cut(pieces: list[tuple[str, bool]], limit: int | None) -> list[tuple[str, bool]]:
    if limit is None or sum(len(t) for t, _ in pieces) <= limit:
        return pieces
    out, room = [], limit - 1
    for text, matched in pieces:
        if room <= 0:
            break
        out.append((text[:room], matched))
        room -= len(text)
    return out + [("…", False)]


def plain(snippet: str, limit: int | None = None) -> tuple[str, list[tuple[int, int]]]:
    """The snippet's text without marks, and the (start, end) offsets of its matches in that text."""
    text, spans = "", []
    for piece, matched in segments(snippet, limit):
        if matched:
            spans.append((len(text), len(text) + len(piece)))
        text += piece
    return text, spans


def as_markdown(snippet: str, limit: int | None = None) -> str:
    """Markdown showing the snippet's text as typed (its markup escaped) with the matches in bold."""
    out = []
    for text, matched in segments(snippet, limit):
        text = _MARKDOWN_SPECIAL.sub(r"\\\1", text)
        out.append(f"**{text}**" if matched else text)
    return "".join(out)


def for_terminal(snippet: str, bold: bool) -> str:
    """The snippet for a terminal: matches in bold when `bold` (a TTY), else plain text."""
    return "".join(f"{BOLD}{text}{NORMAL}" if matched and bold else text for text, matched in segments(snippet))
