"""Abbreviations a text spells out, and the questions that ask for one: "What does AFC stand for?" asks for the
long form of AFC (`asks_expansion`), "What is an abbreviation for the Church of Jesus Christ of Latter-day Saints?"
for a short form (`asks_abbreviation`). A text that defines the abbreviation asked about answers either
(`expands`): "The American Football Conference (AFC) champion …", "AFC (American Football Conference)", "AFC stands
for …", "often abbreviated as ctDNA". The cited-answer core counts such a text as one that pinpoints the answer
(question_forms.pinpoints) and as one holding the words that frame such a question ("stand for", "short for",
"acronym": `FRAME`), which a text mentioning AFC without spelling it out does not.

A short form and the words before (or inside) the brackets beside it are a pair when the short form's letters can be
found, in order and from the end, in those words, its first letter opening the first of them (Schwartz & Hearst's
rule, "A simple algorithm for identifying abbreviation definitions in biomedical text", 2003): "Very high-speed
Backbone Network Service (vBNS)", "Lunar Module Pilot (LMP)". A short form of two words, one of them also in the
long form ("LDS Church" for "The Church of Jesus Christ of Latter-day Saints"), is matched by its other word.
"""
from __future__ import annotations

import re
from functools import lru_cache

from App_Function_Libraries.Retrieval.quotable import stem

#: words that frame a question asking for a long or a short form, not what it is about
FRAME = frozenset("stand stands short abbreviation abbreviations abbreviated abbreviate acronym acronyms initials "
                  "form full letters".split())

_QUOTE = "\"'“”‘’"
_KIND = r"(?:acronym|abbreviation|initials|initialism|letters)"
_NOT_SHORT = rf"(?:{_KIND}|the|an?|it|this|that|these|those|they|you|we)\b"  # "What does the letters stand for?"
_SHORT = rf"[{_QUOTE}]?(?!{_NOT_SHORT})(?P<x>[A-Za-z0-9][\w.&/-]{{0,11}})[{_QUOTE}]?"
_ASKS_EXPANSION = (
    # "What does AFC stand for?", "What did the acronym LEM stand for?", "What did the LMP acronym stand for …"
    re.compile(rf"\b(?:does|did|do)\s+(?:the\s+)?(?:{_KIND}\s+)?{_SHORT}(?:\s+{_KIND})?\s+stand\s+for\b", re.I),
    # "What is QED short for?", "What is X an abbreviation for?", "What is the full form of X?"
    re.compile(rf"^\W*what\s+(?:is|was|are)\s+(?:the\s+)?(?:{_KIND}\s+)?{_SHORT}\s+(?:short|an?\s+{_KIND})\s+"
               rf"(?:for|of)\b", re.I),
    re.compile(rf"^\W*what\s+(?:is|was)\s+the\s+(?:full\s+form|long\s+form|expansion)\s+of\s+(?:the\s+)?"
               rf"(?:{_KIND}\s+)?{_SHORT}\s*\??\s*$", re.I),
    # "What does the acronym FIS mean?"; "What does NATO mean?" for a short form of capitals
    re.compile(rf"\b(?:does|did|do)\s+(?:the\s+)?{_KIND}\s+{_SHORT}\s+(?:mean|denote)\b", re.I),
    re.compile(rf"\b(?:does|did|do)\s+(?:the\s+)?[{_QUOTE}]?(?P<x>[A-Z][A-Za-z]*[A-Z][A-Za-z]*)[{_QUOTE}]?\s+"
               rf"(?:mean|denote)\s*\??\s*$"),
)
_ASKS_ABBREVIATION = re.compile(rf"\b(?:{_KIND}s?\s+(?:for|of)|abbreviated|abbreviate|short\s+form\s+(?:for|of))\b",
                                re.I)
#: "… (AFC) …", "… (American Football Conference) …": a bracket of at most ten words
_BRACKET = re.compile(r"\(([^()]{1,120})\)")
#: after the short form: "AFC stands for …", "QED, short for …", "TGIF (which … stood for "Thank …")",
#: "TARDIS, an acronym of …"
_SAYS_FOR = re.compile(r"\b(?:stands?|stood|short|acronym|abbreviation|initialism)\s+(?:for|of)\s+", re.I)
_SAYS_FOR_SPAN = 80  # characters after the short form the words saying what it stands for may start within
_ABBREVIATED_AS = re.compile(rf"\babbreviated\s+(?:as\s+|to\s+)?[{_QUOTE}]?(?P<x>[A-Za-z][\w.&/-]{{1,11}})")
_BEFORE_SPAN = 400  # characters before a bracket a long form is looked for in
_LONG_WORDS = 5  # a long form has at most this many words more than its short form has letters


@lru_cache(maxsize=256)
def asks_expansion(question: str) -> str:
    """The short form whose long form the question asks for ("AFC" of "What does AFC stand for?"), else ''."""
    for pattern in _ASKS_EXPANSION:
        m = pattern.search(question)
        if m and _letters(m.group("x")) >= 2 and _named_short(m):
            return m.group("x").strip(".")
    return ""


def _named_short(m: re.Match) -> bool:
    """The word asked about is an abbreviation: two capitals or more ("AFC", "vBNS"), or quoted, or called an
    acronym or abbreviation by the question ("What does the acronym fob stand for?"); not "What does Trump stand
    for?"."""
    said = m.group(0)
    return (sum(c.isupper() for c in m.group("x")) >= 2 or any(q in said for q in _QUOTE)
            or bool(re.search(_KIND, said, re.I)))


@lru_cache(maxsize=256)
def asks_abbreviation(question: str) -> bool:
    """The question asks for a short form ("What is an abbreviation for …?", "What is X often abbreviated as?")."""
    return not asks_expansion(question) and bool(_ASKS_ABBREVIATION.search(question))


def asks_either(question: str) -> bool:
    """The question asks for a long form or a short form."""
    return bool(asks_expansion(question)) or asks_abbreviation(question)


def expands(question: str, text: str) -> bool:
    """The text spells out the abbreviation the question asks about: for "What does X stand for?" a long form of X;
    for "What is an abbreviation for Y?" a short form of Y (a pair whose long form's words the question holds, or
    "abbreviated as …")."""
    short = asks_expansion(question)
    if short:
        key = _key(short)
        return any(_key(s) == key for s, _ in pairs(text)) or says_for(short, text)
    if not asks_abbreviation(question):
        return False
    asked = {stem(w) for w in re.findall(r"[\w'-]+", question.lower())}
    for _, long in pairs(text):
        words = [stem(w) for w in re.findall(r"[\w'-]+", long.lower()) if len(w) > 3]
        if words and all(w in asked for w in words):
            return True
    return bool(_ABBREVIATED_AS.search(text))


#: what a text spelling out the abbreviation asked about is read as holding too: the question's framing words
FRAMING = " ".join(sorted(FRAME))


def says_for(short: str, text: str) -> bool:
    """The text says in words what `short` stands for, and the words after saying so spell it: "GDP stands for
    gross domestic product", 'the "TGIF" block (which promotions referenced stood for "Thank Goodness It's
    Funny")'."""
    for m in re.finditer(rf"(?<![\w.&/-]){re.escape(short)}(?![\w&/-])", text, re.I):
        said = _SAYS_FOR.search(text, m.end(), m.end() + _SAYS_FOR_SPAN + 30)
        if said and said.start() - m.end() <= _SAYS_FOR_SPAN:
            words = [w.strip(_QUOTE + ",;:.()") for w in text[said.end():said.end() + 200].split()]
            if _long_form(short, words[:_letters(short) + _LONG_WORDS], anchored=True):
                return True
    return False


def pairs(text: str) -> list[tuple[str, str]]:
    """(short form, long form) pairs the text defines with brackets: "Long Form (LF)" or "LF (Long Form)"."""
    out = []
    for m in _BRACKET.finditer(text):
        inside = m.group(1).strip()
        window = max(0, m.start() - _BEFORE_SPAN)
        before = text[window:m.start()].split()[1 if window else 0:]
        if _is_short(inside):
            long = _long_form(inside, before[-(_letters(inside) + _LONG_WORDS):])
            if long:
                out.append((inside, long))
        elif before and _is_short(before[-1].strip(_QUOTE + ",")):
            short = before[-1].strip(_QUOTE + ",")
            long = _long_form(short, inside.split()[:_letters(short) + _LONG_WORDS], anchored=True)
            if long:
                out.append((short, long))
    return out


def _is_short(s: str) -> bool:
    """A word or two that may be a short form: one of them has two capitals ("AFC", "vBNS", "LDS Church")."""
    words = s.split()
    return (1 <= len(words) <= 2 and 2 <= len(s) <= 16 and s[0].isalnum()
            and any(sum(c.isupper() for c in w) >= 2 for w in words))


def _long_form(short: str, words: list[str], anchored: bool = False) -> str:
    """The words (the last ones before a bracket, or the first ones inside it when `anchored`) whose letters spell
    `short` (see the module docstring), else ''."""
    shorts = short.split()
    if len(shorts) == 2:  # "LDS Church": the word not in the long form is the abbreviation
        plain = {w.lower().strip(_QUOTE + ",") for w in words}
        rest = [w for w in shorts if w.lower() not in plain]
        if len(rest) != 1:
            return ""
        short = rest[0]
    words = [w.strip(_QUOTE + ",;:") for w in words]
    if anchored:
        candidate = " ".join(words)
        return _trim(short, candidate) if _spells(short, candidate) else ""
    for start in range(len(words) - 1, -1, -1):  # the shortest run of words before the bracket that spells it
        candidate = " ".join(words[start:])
        if _spells(short, candidate):
            return candidate
    return ""


def _spells(short: str, long: str) -> bool:
    """Schwartz & Hearst: the short form's letters and digits in `long` from the end, the first opening a word,
    and `long` opening with that letter."""
    s, i = [c.lower() for c in short if c.isalnum()], len(long) - 1
    if not s or len(long) <= len(short) or long[:1].lower() != s[0]:
        return False
    for k in range(len(s) - 1, -1, -1):
        while i >= 0 and (long[i].lower() != s[k] or (k == 0 and i > 0 and long[i - 1].isalnum())):
            i -= 1
        if i < 0:
            return False
        i -= 1
    return True


def _trim(short: str, long: str) -> str:
    """A long form inside brackets, cut after the word its last letter is in."""
    words = long.split()
    for end in range(1, len(words) + 1):
        if _spells(short, " ".join(words[:end])):
            return " ".join(words[:end])
    return long


def _letters(s: str) -> int:
    return sum(c.isalnum() for c in s)


def _key(short: str) -> str:
    return "".join(c for c in short if c.isalnum()).lower()


#: short forms of names every reader knows, which texts write either way: "US" and "the United States"
_WELL_KNOWN = {"US": "United States", "USA": "United States", "UK": "United Kingdom", "EU": "European Union",
               "UN": "United Nations", "USSR": "Soviet Union", "UAE": "United Arab Emirates", "NYC": "New York City"}
_LONGEST_FIRST = sorted(_WELL_KNOWN, key=len, reverse=True)  # "U.S.S.R." is no "U.S."
_WRITTEN_SHORT = re.compile(r"(?<![\w.])(?:" + "|".join(r"\.?".join(k) for k in _LONGEST_FIRST) + r")\.?(?![\w])")
_WRITTEN_LONG = re.compile(r"\b(?:" + "|".join(sorted({v.replace(" ", r"\s+") for v in _WELL_KNOWN.values()})) + r")\b",
                           re.IGNORECASE)


def other_forms(text: str) -> str:
    """The other forms of the well-known short and long names the text writes ("US" or "U.S." gives "United
    States US", "the United Kingdom" gives "UK"), as words to count with the text's own: a question on "US
    citizenship" is held by "a citizen of the United States"."""
    out = []
    for m in _WRITTEN_SHORT.finditer(text):
        short = m.group(0).replace(".", "")
        out += [_WELL_KNOWN[short], short]
    for m in _WRITTEN_LONG.finditer(text):
        long = " ".join(m.group(0).split()).lower()
        out += [k for k, v in _WELL_KNOWN.items() if v.lower() == long]
    return " ".join(out)
