"""Turning what a person types into a safe SQLite FTS5 MATCH expression.

FTS5 has its own query language (quotes, AND/OR/NOT/NEAR, parentheses, column filters, `*`, `^`) and rejects
malformed input with an error. User text never reaches FTS5 as syntax: every word becomes a quoted string.
What is kept of the user's intent:
- words are all required (AND), each matched as a prefix by default (`quant` finds "quantum");
- "double-quoted text" is an exact phrase;
- a word ending in `*` is a prefix even when prefix matching is off;
- OR and NOT (in capitals, between two terms) mean either / but not.
Everything else (AND, NEAR, parentheses, colons, emoji, control characters) is ordinary text.
"""
from __future__ import annotations

import re
import unicodedata

MAX_QUERY_CHARS = 1000  # the rest of a longer query is ignored
MAX_TERMS = 24  # FTS5 cost grows with the number of terms; a person rarely types more
_PIECE = re.compile(r'"([^"]*)"?|([^\s"]+)')
_WORD_CHARS = re.compile(r"\w+")
_OPERATORS = ("OR", "NOT")


def _clean(text: str) -> str:
    """Text without control or unpaired surrogate characters, which have no place in a query."""
    return "".join(ch if unicodedata.category(ch) not in ("Cc", "Cs", "Cf") else " " for ch in text)


def _term(tokens: list[str], prefix: bool) -> str:
    """One FTS5 string (a phrase when several tokens), optionally matched as a prefix."""
    return '"' + " ".join(tokens) + '"' + ("*" if prefix else "")


def build_match_query(text: str | None, prefix: bool = True) -> str | None:
    """An FTS5 MATCH expression for `text`, or None when it holds nothing searchable (match nothing)."""
    if not text:
        return None
    text = _clean(str(text)[:MAX_QUERY_CHARS])
    parts: list[str] = []
    pending_op: str | None = None
    for match in _PIECE.finditer(text):
        phrase, word = match.group(1), match.group(2)
        if word in _OPERATORS:
            pending_op = word if parts else None  # an operator needs a term on its left
            continue
        if phrase is not None:
            tokens, is_prefix = _WORD_CHARS.findall(phrase), False
        else:
            tokens, is_prefix = _WORD_CHARS.findall(word), prefix or word.endswith("*")
        if not tokens or (word is not None and word == "AND"):
            continue
        if pending_op:
            parts.append(pending_op)
        parts.append(_term(tokens, is_prefix))
        pending_op = None
        if sum(p not in _OPERATORS for p in parts) >= MAX_TERMS:
            break
    return " ".join(parts) or None
