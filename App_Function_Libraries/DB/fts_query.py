"""Turning what a person types into a safe SQLite FTS5 MATCH expression.

FTS5 has its own query language (quotes, AND/OR/NOT/NEAR, parentheses, column filters, `*`, `^`) and rejects
malformed input with an error. User text never reaches FTS5 as syntax: every word becomes a quoted string.
What is kept of the user's intent:
- words are all required (AND), each matched as a prefix by default (`quant` finds "quantum");
- "double-quoted text" is an exact phrase;
- a word ending in `*` is a prefix even when prefix matching is off;
- OR (in capitals, between two terms) means either;
- `-word`, `-"a phrase"` or `NOT word` leaves out every note that has it, whatever else the query says.
Everything else (AND, NEAR, parentheses, colons, emoji, control characters) is ordinary text.

FTS5 cannot start an expression with NOT, so a query of only left-out terms has no MATCH expression of its
own: `parse_query` gives its parts (`wanted`, `unwanted`) and the caller lists what `unwanted` does not match.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

MAX_QUERY_CHARS = 1000  # the rest of a longer query is ignored
MAX_TERMS = 24  # FTS5 cost grows with the number of terms; a person rarely types more
_PIECE = re.compile(r'(-*)"([^"]*)"?|([^\s"]+)')
_WORD_CHARS = re.compile(r"\w+")


@dataclass(frozen=True)
class ParsedQuery:
    wanted: str | None  # FTS5 expression of what a match must have (None: nothing asked for)
    unwanted: str | None  # FTS5 expression of what a match must not have (None: nothing left out)

    def expression(self) -> str | None:
        """The whole MATCH expression; None when nothing is wanted (FTS5 cannot begin with NOT)."""
        if self.wanted is None or self.unwanted is None:
            return self.wanted
        return f"({self.wanted}) NOT ({self.unwanted})"


def _clean(text: str) -> str:
    """Text without control or unpaired surrogate characters, which have no place in a query."""
    return "".join(ch if unicodedata.category(ch) not in ("Cc", "Cs", "Cf") else " " for ch in text)


def _term(tokens: list[str], prefix: bool) -> str:
    """One FTS5 string (a phrase when several tokens), optionally matched as a prefix."""
    return '"' + " ".join(tokens) + '"' + ("*" if prefix else "")


def parse_query(text: str | None, prefix: bool = True) -> ParsedQuery:
    """The wanted and unwanted parts of `text` as FTS5 expressions (see the module docstring)."""
    if not text:
        return ParsedQuery(None, None)
    text = _clean(str(text)[:MAX_QUERY_CHARS])
    wanted: list[str] = []
    unwanted: list[str] = []
    pending_or = negate_next = False
    for match in _PIECE.finditer(text):
        dashes, phrase, word = match.group(1), match.group(2), match.group(3)
        if word in ("OR", "NOT", "AND"):
            pending_or = pending_or or (word == "OR" and bool(wanted))  # OR needs a term on its left
            negate_next = negate_next or word == "NOT"
            continue
        negative = negate_next or bool(dashes) or (word is not None and word.startswith("-"))
        if phrase is not None:
            tokens, is_prefix = _WORD_CHARS.findall(phrase), False
        else:
            tokens, is_prefix = _WORD_CHARS.findall(word), prefix or word.endswith("*")
        if not tokens:
            continue
        negate_next = False
        if negative:
            unwanted.append(_term(tokens, is_prefix))
        else:
            wanted += ["OR"] if pending_or else []
            wanted.append(_term(tokens, is_prefix))
            pending_or = False
        if len(unwanted) + sum(p != "OR" for p in wanted) >= MAX_TERMS:
            break
    return ParsedQuery(" ".join(wanted) or None, " OR ".join(unwanted) or None)


def build_match_query(text: str | None, prefix: bool = True) -> str | None:
    """An FTS5 MATCH expression for `text`, or None when it asks for nothing (a search of only left-out
    terms included: see parse_query)."""
    return parse_query(text, prefix).expression()
