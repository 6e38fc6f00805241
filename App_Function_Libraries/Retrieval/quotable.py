"""Which source sentences an extractive answer may quote, and which of them answer the question.

Without an LLM an answer is made of sentences copied from the sources, so a sentence that lost part of itself
on the way from the page (a formula or markup dropped by text extraction, a heading glued to the text after
it, the debris of a list) would be quoted broken. `reads_as_sentence` keeps only sentences that read as
sentences. The rule, each part a sign of text that lost something:
  1. wiki edit markers or list debris ("[edit]", a leading "- ", a "•" inside); an editor's inline tag such
     as "[citation needed]" is no loss: the quote leaves it out;
  2. doubled or orphaned punctuation (",,", ", .", "( )", a space before a comma or full stop), where an
     inline formula or link text was removed; " :" and " ;" are French spacing and pass);
  3. a dangling connective: it starts with a lower-case word or a joining word with nothing before it
     ("and the matrices."), or a joining word has no word after it ("the ,", "of ."), or a relative word is
     followed straight by its verb with no subject between ("where denotes", "then is");
  4. heading residue: it opens with a title-cased run glued to the sentence after it with no punctuation
     ("Reality of quadratic forms A square matrix …");
  5. too few letters: under 12 letters, or letters and digits under 55% of its characters (symbols, markup);
  6. no end: the last character is not a full stop, question or exclamation mark (or one followed by a
     closing quote or bracket), as with headings, menu lines and cut text.
A sentence that only repeats its source's title (a PDF's or a page's heading kept as a line of its text, "Field
notes: calibrating the bee dance.") reads as a sentence but says nothing the title does not: `repeats_title`.

`answer_shape` says whether a sentence has what the question asks for (`has_kind`): a year or date for "when",
a number for "how many/much/long…", a name for "who", a place for "where" (a capitalised word after the first,
or a first word the texts use as a name, `known_names`), and, for any question, words the question does not
already have. Sentences that merely repeat the question's words rank below those that add to them. `may_give`
is the lenient form an answer is checked with before it is said to lack the kind asked for.
`counted_noun`/`counted_words` and `asks_name`/`gives_name` say what "how many N" counts and whether a question
asks for a name, for the answer core's `pinpoints`.
"""
from __future__ import annotations

import re
import threading
import unicodedata
from functools import lru_cache

from App_Function_Libraries.Retrieval.bm25 import STOPWORDS, tokenize

_MARKERS = re.compile(r"\[\s*edit\s*\]|^[-–•·▪*]\s|\s[•·▪]\s", re.IGNORECASE)
# an editor's inline tag is no loss: it is left out of the quote (and of these checks), not a reason to drop it
# and so is a page reference left after a full stop by a copied citation: "graduating in 1873.:33"
INLINE_TAGS = re.compile(r"\s?\[\s*(?:citation needed|clarification needed|when\?|who\?|which\?|dubious|"
                         r"according to whom\?|by whom\?|verification needed|original research\?|"
                         r"better source needed|page needed|full citation needed)\s*\]|"
                         r"(?<=[.!?\"”]):\d+(?:[–-]\d+)?(?:,\s?\d+(?:[–-]\d+)?)*", re.IGNORECASE)
# (" :" and " ;" are French typography, not a loss)
_BROKEN_PUNCT = re.compile(r"[,;:]\s*[,;:.!?]|\.\s+,|\(\s*[,;.]?\s*\)|\[\s*\]|\s,(?!\d)|\s\.(?![\d.])")
# a joining word with nothing after it (lower case only: "Plan A." and "Vitamin A." are whole)
_DANGLING_END = re.compile(r"\b(?:and|or|nor|of|the|an|a|with|by|from)\s*[,;:.!?]")
_NO_SUBJECT = re.compile(r"\b(?:where|which|then|that|if|when)\s*,?\s+(?:denotes?|equals?|represents?)\b|"
                         r"\bwhere\s+(?:is|are)\s+(?:a|an|the)\b", re.IGNORECASE)
# a lower-case word run straight into a new sentence's opening word: "… quadratic forms A square matrix"
_HEADING_GLUE = re.compile(r"\b[a-z]+\s+(?:A|An|The|This|These|Each|Every)\s+[a-z]")
HEADING_WORDS = 10
_END = re.compile(r"[.!?。！？][\"'”’)\]]*$")
MIN_LETTERS, MIN_LETTER_SHARE = 12, 0.55


def reads_as_sentence(sentence: str) -> bool:
    """True when the sentence can be quoted as it is (see the rule above)."""
    s = " ".join(INLINE_TAGS.sub("", sentence).split())
    letters = sum(ch.isalpha() for ch in s)
    words = sum(ch.isalnum() for ch in s)  # figures count as words: "1,234,567 in 2010" is prose
    if letters < MIN_LETTERS or words < MIN_LETTER_SHARE * len(s.replace(" ", "")):
        return False
    first = s.split()[0]
    if not _END.search(s) or first.islower() and first.isalpha():  # "eBay was founded" starts a sentence
        return False
    if _MARKERS.search(s) or _BROKEN_PUNCT.search(s) or _NO_SUBJECT.search(s) or _DANGLING_END.search(s):
        return False
    return not _HEADING_GLUE.search(" ".join(s.split()[:HEADING_WORDS]))


# ---------------------------------------------------------------- what a quote may be
#
# Beyond reading as a sentence, an extractive answer quotes a source's text as a finding only when it stands
# on its own as one:
#  7. not a meta-sentence: one about the page itself rather than its subject ("The method presented above …",
#     "In this article we …", "Here, we offer another …", "see below", "the following example"), nor a pointer
#     to another page ("For details of individual countries see …", "See also …", "Main article: …"), nor an
#     entry of a reference list (it holds an ISBN, ISSN or DOI, "Retrieved 3 May 2015" or "Archived from the
#     original"); nor a question ("Are there general rules for finding such situations?"): it asks, it does
#     not state;
#  8. not opening with a pronoun whose referent is in a sentence the reader does not see ("It …", "This
#     implies …", "These are …", "He was …", "A decent one costs …"): such a sentence is quoted only with the
#     sentence before it; an "it" that stands for nothing, the one that opens a statement of what is expected,
#     said or known ("It is expected that …", "It was reported that …", "It is not clear whether …"), needs
#     no sentence before;
#  9. no Markdown, code or TeX shown raw: emphasis marks and link syntax become their text, inline code its
#     text; a sentence holding TeX (`\[`, `\(`, `$$`) or a code fence is left out;
# 10. a list item ("+ Added …", "- …", "1. …") or a table row ("| a | b |") is quoted as what it is: the item's
#     text, or the row's cells joined by " — ", even without a full stop (`quotable_line`);
# 11. a step of a how-to, the sentence after a line that is only its label ("Step 3"), is quoted with its label:
#     "Step 3: Insert your plant into the hole." (`step_label`, `step_number`); an item of a numbered list keeps
#     its number, "3. Add one teaspoon of tea per cup." (`list_number`), and is a step too.

_META = re.compile(
    r"\b(?:this|the present|the following|the next|the previous|the above|the below)\s+(?:article|section|page|"
    r"chapter|paper|post|tutorial|guide|lesson|example|figure|table|list|video|blog|entry|answer)\b|"
    r"\b(?:presented|shown|described|discussed|mentioned|given|listed|explained)\s+(?:above|below|earlier|here)\b|"
    r"\b(?:see|shown|as)\s+(?:above|below)\b|"
    r"^\W*(?:for\s+(?:(?:more|further)\s+)?(?:details|information)\b[^.]{0,80}?,?\s+see\b|for\s+more\s*,\s*see\b|"
    r"see\s+also\b|"
    r"main\s+articles?\s*:)|"
    r"\b(?-i:ISBN|ISSN)(?:-1[03])?:?\s*[\dX]|\bdoi\s*:\s*10\.\d|\bdoi\.org/10\.|"
    r"(?:^|[.,]\s+)(?-i:Retrieved)\s+(?:on\s+)?(?:\d{1,2}\s+(?-i:[A-Z])|(?-i:[A-Z])[a-z]+\.?\s+\d|\d{4}-\d\d-\d\d)|"
    r"\b(?-i:Archived from the original)\b|"
    r"^\W*(?:here|in this \w+|below|above)\s*,?\s+(?:we|i|you)\b|"
    r"\b(?:we|i)\s+(?:will|shall|now|offer|present|show|discuss|describe|consider|look|introduce|explain|"
    r"review|begin|start|turn|focus|give|provide)\b|\blet(?:'s|\s+us)\b",
    re.IGNORECASE)
_PRONOUN_OPENER = re.compile(r"^\W*(?:(?:it|this|these|that|those|they|he|she|such|them|its|their|his|her|"
                             r"thus|hence|therefore|however|also|moreover|furthermore)\b|"
                             r"(?:a|an|the|another)\s+(?-i:(?:[a-z]+\s+)?ones?\s+(?!of\b)[a-z]))", re.IGNORECASE)
#: "It is expected that …": an "it" standing for the clause after it, not for something said before
_EMPTY_IT = re.compile(r"^\W*it\s+(?:is|was|has\s+been|had\s+been|will\s+be|would\s+be|may\s+be|might\s+be|"
                       r"seems|seemed|appears|appeared|remains|remained)\s+(?:not\s+)?(?:\w+ly\s+)?(?:\w+\s+)?"
                       r"(?:that|whether|if)\b", re.IGNORECASE)
_RAW_MARKUP = re.compile(r"\\[\[\(]|\$\$|```|\\(?:frac|sum|int|mathbf|begin|end|left|right)\b")
_MD_LINK = re.compile(r"!?\[([^\[\]]*)\]\([^)\[]*\)")  # no "[" inside: each "[" scans to the next one at most
_MD_EMPHASIS = re.compile(r"(\*\*|__|(?<!\w)[*_](?=\S)|(?<=\S)[*_](?!\w))")
_MD_CODE = re.compile(r"`([^`]*)`")
#: a list item's mark at a line's start ("- ", "+ ", "• ", "1. ", "2) "), with the space after it
LIST_MARK = re.compile(r"^\s*(?:[-+*•·▪]|\d{1,3}[.)])\s+(?=\S)", re.MULTILINE)
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}")
_QUOTED_SPAN = re.compile(r'"[^"]*"|“[^”“]*”')  # a quotation inside a sentence: someone else's words
_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|we|We|our|Our|my|My|us)\b")


def is_meta(sentence: str) -> bool:
    """True when the sentence is about the page itself, not its subject (rule 7). Words inside its quotation
    marks are someone else's ('"I thought a lot before writing this post," Askar wrote' is about his post)."""
    return bool(_META.search(_QUOTED_SPAN.sub(" ", sentence)))


_QUESTION_END = re.compile(r"[?？][\"'”’)\]]*$")


def is_question(sentence: str) -> bool:
    """True when the sentence asks rather than states: it ends with a question mark (rule 7)."""
    return bool(_QUESTION_END.search(sentence.strip()))


def needs_previous(sentence: str) -> bool:
    """True when the sentence opens with a pronoun or link word whose referent is in the sentence before (8),
    "one" standing for a thing named there among them ("A decent one costs $600", after "… a gaming PC."); not
    an "it" that stands for the clause after it ("It is expected that …")."""
    return bool(_PRONOUN_OPENER.match(sentence)) and not _EMPTY_IT.match(sentence)


def plain_text(text: str) -> str | None:
    """The text without Markdown or code syntax, whitespace collapsed; None when it holds TeX or a code fence
    that cannot be shown as text (rule 9)."""
    if _RAW_MARKUP.search(text):
        return None
    text = _MD_LINK.sub(r"\1", text)
    text = _MD_CODE.sub(r"\1", text)
    text = _MD_EMPHASIS.sub("", text)
    return " ".join(text.split())


def quotable_line(line: str) -> tuple[str, str] | None:
    """(kind, text) for a line that is a list item ('item') or a table row ('row'), its markers removed;
    None for a line of prose, a table's rule line or an empty item (rule 10)."""
    if _TABLE_ROW.match(line):
        if _TABLE_RULE.match(line.replace("|", "", 1)) or set(line.strip()) <= set("|-: "):
            return None
        cells = [c.strip() for c in line.strip().strip("|").split("|") if c.strip()]
        return ("row", " — ".join(cells)) if len(cells) >= 2 else None
    m = LIST_MARK.match(line)
    if m:
        text = line[m.end():].strip()
        return ("item", text) if text else None
    return None


_STEP_LABEL = re.compile(r"^\W*((?:step|stage|phase)\s+\d{1,2})\W*$", re.IGNORECASE)
_STEP = re.compile(r"^(?:(?:step|stage|phase)\s+(\d{1,2}):|(\d{1,2})[.)])\s", re.IGNORECASE)
_LIST_NUMBER = re.compile(r"^\s*(\d{1,2})[.)]\s+(?=\S)")
_HOW_TO = re.compile(r"^\W*how\s+(?:do|does|can|could|should|would|will|must|might)\s+(?:i|you|we|one|people|"
                     r"someone|they)\b|^\W*how\s+to\b|\bwhat\s+(?:are\s+)?the\s+steps\b|\bsteps?\s+(?:to|for)\b",
                     re.IGNORECASE)


def step_label(line: str) -> str:
    """"Step 3" for a line that is only a step's label ("Step 3", "STEP 3:"), else '' (rule 11)."""
    m = _STEP_LABEL.match(line)
    return " ".join(m.group(1).split()).capitalize() if m else ""


def step_number(text: str) -> int | None:
    """The number of a quoted step ("Step 3: Insert …", or an item of a numbered list, "3. Add …" -> 3),
    else None."""
    m = _STEP.match(text)
    return int(m.group(1) or m.group(2)) if m else None


def list_number(line: str) -> int | None:
    """The number of a numbered list's item ("3. Add the tea." -> 3), else None."""
    m = _LIST_NUMBER.match(line)
    return int(m.group(1)) if m else None


def asks_how_to(question: str) -> bool:
    """True when the question asks how to do something ("How do I …", "How can you …", "How to …", "What are the
    steps …"): the steps of a how-to answer it, in their order."""
    return bool(_HOW_TO.search(question))


def first_person(sentence: str) -> bool:
    """True when the sentence speaks as I/we: quoted, it must be marked as a quote (not the report's voice).
    Words inside its own quotation marks are another's, reported: '"I thought a lot," Askar wrote' is not."""
    return bool(_FIRST_PERSON.search(_QUOTED_SPAN.sub(" ", sentence)))


def is_quotation(sentence: str) -> bool:
    """True when the whole sentence is one quotation, in its own quotation marks ('"On the one hand I …"'):
    another's words, with no reporting clause saying whose."""
    text = sentence.strip()
    return bool(_QUOTED_SPAN.fullmatch(text))


def item_reads_whole(text: str) -> bool:
    """A list item or table row can be quoted: enough letters, no markup debris (rules 2 and 5)."""
    letters = sum(ch.isalpha() for ch in text)
    words = sum(ch.isalnum() for ch in text)
    return letters >= MIN_LETTERS and words >= MIN_LETTER_SHARE * len(text.replace(" ", "")) \
        and not _BROKEN_PUNCT.search(text) and len(text.split()) >= 3


# ---------------------------------------------------------------- what the question asks for

_YEAR = re.compile(r"\b(?:1[0-9]{3}|20[0-9]{2})s?\b|\b\d{1,2}(?:st|nd|rd|th)\s+century\b|\bcentury\b", re.I)
_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
_MONTH = re.compile(rf"\b(?:{_MONTHS})\b")
_DATE = re.compile(rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTHS})\b(?:,?\s+\d{{4}})?|"
                   rf"\b(?:{_MONTHS})(?:\s+\d{{1,2}}(?:st|nd|rd|th)?)?(?:,?\s+\d{{4}})?\b|"
                   r"\b(?:in|on|since|by|until|till|from|during|circa|of|before|after)\s+(?:the\s+)?"
                   r"(?:1[0-9]{3}|20[0-9]{2})s?\b", re.I)
_NUMBER = re.compile(r"\b\d[\d,.]*\b|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
                     r"twenty|thirty|forty|fifty|hundred|thousand|million|billion|dozen|half)\b", re.I)
#: how often something happens: "every day", "daily", "twice a week", "three times a year", "once per hour"
_FREQUENCY = re.compile(r"\b(?:every|each|daily|nightly|weekly|fortnightly|monthly|quarterly|yearly|annually|"
                        r"hourly|once|twice|thrice|(?:\d+|two|three|four|five|six|seven|eight|nine|ten|several|many|"
                        r"few|a few) times|per (?:second|minute|hour|day|night|week|month|year))\b", re.I)
_ASKS = (
    ("when", re.compile(r"^\s*(?:when\b|in what (?:year|decade|century)|what (?:year|decade|century|date|day)|"
                        r"(?:which|what) (?:period|era))", re.I)),
    ("often", re.compile(r"\bhow (?:often|frequently)\b|\bat what (?:interval|frequency)\b", re.I)),
    ("number", re.compile(r"\bhow (?:many|much|long|far|old|large|big|high|tall|deep|fast)\b|"
                          r"\bwhat (?:percentage|percent|number|amount|proportion|fraction)\b", re.I)),
    ("who", re.compile(r"^\s*(?:who|whom|whose)\b|\b(?:which|what) (?:\w+ )?(?:person|man|woman|people|king|"
                       r"queen|emperor|president|leader|author|writer|artist|composer|architect|engineer|player|"
                       r"company|team|group|band|party|family|dynasty|organi[sz]ation|\w+ist|\w+ian)s?\b", re.I)),
    ("where", re.compile(r"^\s*where\b|\bin (?:what|which) (?:city|country|state|region|place|town)\b", re.I)),
)


#: a question opening with a "when" clause that asks something else: "When a cell eats a pathogen, what does it
#: become?", "When rock buckles upwards it creates what?" (group 1: what it asks)
#: (a "when" question puts a verb after "when": "When did …", "When was …")
_WHEN_CLAUSE = re.compile(r"^\s*when\s+(?!(?:is|are|was|were|did|does|do|will|would|can|could|has|have|had|should|"
                          r"shall|may|might|must)\b).*?\b((?:what|who|whom|whose|which|where|how|why)\b.*)$",
                          re.IGNORECASE)


def asked_for(question: str) -> str:
    """'when', 'often', 'number', 'who', 'where', or '' when the question's form does not say."""
    clause = _WHEN_CLAUSE.match(question)
    if clause:
        question = clause.group(1)
    for kind, pattern in _ASKS:
        if pattern.search(question):
            return kind
    return ""


_COUNTED = re.compile(r"\bhow\s+(?:many|much)\s+(.*)", re.IGNORECASE)
#: where the counted phrase of "how many …" ends: a verb, a preposition, a conjunction, the unit of a rate ("how
#: many tasks per second", "how many times a day")
_COUNTED_END = frozenset("""did does do is are was were has have had can could will would should may might must
of in on at for from by with to that there and or per a an every each""".split())
COUNTED_PHRASE = 5  # words at most
_ASKS_NAME = re.compile(r"\b(?:names?|named|call|called|known\s+as|term)\b", re.IGNORECASE)
#: a naming word and the name it gives, quoted or capitalised: "a story called Children of Earth"
_GIVES_NAME = re.compile(r"\b(?:called|named|known\s+as|dubbed|termed|nicknamed)\s+(?:(?:the|a|an)\s+)?[\"'“‘A-Z]")
COUNTED_SPAN = 3  # a number counts the words up to this far after it: "500 points", "2 million people"


def counted_noun(question: str) -> str:
    """What "how many …" counts: the last word of the phrase after it, which ends at a verb, a preposition or
    a conjunction ("how many first downs did …": downs; "how many species of X": species), lower case; '' when
    there is none ("how much did …")."""
    m = _COUNTED.search(question)
    phrase: list[str] = []
    for word in re.findall(r"[\w'-]+", m.group(1).lower()) if m else []:
        if word in _COUNTED_END or len(phrase) == COUNTED_PHRASE:
            break
        phrase.append(word)
    return next(iter(tokenize(phrase[-1])), "") if phrase else ""


def counted_words(sentence: str) -> set[str]:
    """The words a number in the sentence may count: the COUNTED_SPAN words after each number, lower case."""
    out: set[str] = set()
    for m in _NUMBER.finditer(sentence):
        out.update(w.lower() for w in re.findall(r"[^\W\d_]+", sentence[m.end():m.end() + 60])[:COUNTED_SPAN])
    return out


def asks_name(question: str) -> bool:
    """The question asks what something is named or called ("What was the name of …", "… called?")."""
    return bool(_ASKS_NAME.search(question))


_NEEDED = r"(?:need|needs|needed|require|requires|required|ingredients|materials|supplies|tools|equipment)"
_ASKS_NEEDED = re.compile(rf"^\W*(?:what|which)\b[^?]*\b{_NEEDED}\b", re.IGNORECASE)
_LISTS_NEEDED = re.compile(rf"^[^:;]{{0,60}}\b{_NEEDED}\b[^:;]{{0,40}}:\s[^;]+;", re.IGNORECASE)


def asks_what_is_needed(question: str) -> bool:
    """The question asks what is needed ("What do you need to …", "Which tools are required …", "What
    ingredients …"): a list of what is needed answers it."""
    return bool(_ASKS_NEEDED.search(question))


def lists_what_is_needed(text: str) -> bool:
    """The text is a list quoted whole under a lead-in naming what is needed ("What You'll Need: Cloche; Moss;
    …", "Ingredients: …"; citations._whole_list)."""
    return bool(_LISTS_NEEDED.search(text))


_WHO_DOES = re.compile(r"^\W*who\s+(.+)", re.IGNORECASE)
#: words that cannot be the one who does what the question says ("This was the first …", "… who was the first …")
_NO_DOER = STOPWORDS | frozenset("""i he she it we you they this these those there who whom whose which also then
not never only all both each some many most any one other such""".split())


def says_who(question: str, sentence: str) -> bool:
    """For a question whose "who" does what it says ("Who has the authority of a pastor …?", "Who was limited by
    Denver's defense?"), the sentence says that, its words up to their second content word, right after a word
    of its own that may be the doer: "The licensed local pastor has the authority of a pastor …", "Newton was
    limited by Denver's defense": it names who, by a name or a role."""
    m = _WHO_DOES.match(question)
    words, content = [], 0
    for word in _tokens(m.group(1)) if m else []:
        words.append(word)
        content += word not in STOPWORDS
        if content == 2:
            said = _tokens(sentence)  # compared word by word: a pattern over untrusted text could backtrack
            n = len(words)
            return any(said[i + 1:i + 1 + n] == words and said[i] not in _NO_DOER for i in range(len(said) - n))
    return False


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower().replace("’", "'"))


_TOKEN = re.compile(r"[\w'-]+")


def gives_name(sentence: str) -> bool:
    """The sentence gives a name with a naming word: "called Children of Earth", 'named "dephlogisticated air"'."""
    return bool(_GIVES_NAME.search(sentence))


def repeats_title(sentence: str, title: str) -> bool:
    """Every word of the sentence (stop words aside) is in the title: a heading kept as text, not a finding."""
    words = set(tokenize(sentence))
    return bool(words) and words <= set(tokenize(title))


_WORD = re.compile(r"[^\W\d_][\w'-]*")
#: what comes before a sentence's first word: the end of the sentence before it, perhaps with closing quotes
_AFTER_END = re.compile(r"[.!?:][\"'”’)\]]*\s*[\"'“‘(\[]?$")


def known_names(texts: list[str]) -> frozenset[str]:
    """Words the texts use as names: capitalised inside a sentence ("researcher Ammar Askar said") and never
    written in lower case. A sentence's first word is capitalised whatever it is; it is a name when it is one of
    these ("Askar has released …"), not when the texts also write it in lower case ("Bees dance …")."""
    capitalised: set[str] = set()
    lower: set[str] = set()
    for text in texts:
        for i, m in enumerate(_WORD.finditer(text)):
            word = m.group(0)
            if word.islower():
                lower.add(word)
            elif i and word[0].isupper() and not _AFTER_END.search(text[max(0, m.start() - 6):m.start()]):
                capitalised.add(word)
    return frozenset(w for w in capitalised if w.lower() not in lower)


def answer_shape(question: str, sentence: str, kind: str | None = None, names: frozenset[str] = frozenset()) -> int:
    """2: the sentence has what the question asks for and adds to the question's words; 1: it adds at least
    three content words the question does not have; 0: it mostly repeats the question. `names` (known_names of
    the texts the sentence is among) says when a sentence's first word is a name."""
    kind = asked_for(question) if kind is None else kind
    sentence = _LIST_NUMBER.sub("", sentence, count=1)  # a step's number ("2. Warm the pot.") is no answer
    asked = set(tokenize(question))
    new = [w for w in tokenize(sentence) if w not in asked]
    if len(new) < 3:
        return 0
    if not kind:
        return 1
    return 2 if has_kind(question, sentence, kind, names) else 1


def has_kind(question: str, sentence: str, kind: str, names: frozenset[str] = frozenset()) -> bool:
    """The sentence holds the kind of answer asked for (asked_for): a year or month for "when", a number the
    question does not state for "number", a frequency for "often", else a name the question does not have: a
    capitalised word inside a sentence, or one that opens the sentence (or a sentence within the text, "… dance.
    She runs …") when the texts use it as a name (`names`: known_names)."""
    if kind == "when":
        return bool(_YEAR.search(sentence) or _MONTH.search(sentence))
    if kind == "number":  # a count or amount: a date's day and year do not answer "how many"
        stated = set(re.findall(r"\d[\d,.]*", question))
        return any(m.group(0) not in stated for m in _NUMBER.finditer(_DATE.sub(" ", sentence)))
    if kind == "often":
        return bool(_FREQUENCY.search(sentence))
    if kind == "who" and says_who(question, sentence):  # a role answers too: "The licensed local pastor has …"
        return True
    named = set()
    for i, m in enumerate(_WORD.finditer(sentence)):
        word = re.sub(r"'s$", "", m.group(0))
        opens = i == 0 or _AFTER_END.search(sentence[max(0, m.start() - 6):m.start()])
        if word[0].isupper() and (not opens or word in names or m.group(0) in names):  # an opener: a known name
            named.add(word.lower())
    return bool(named - set(tokenize(question)))


#: words that may say when or how many in a form `has_kind` does not read ("in 430 BC", "within five years", "in
#: the spring", "several", "dozens"): an answer holding one is not said to lack a date or a number
_MAY_SAY_WHEN = re.compile(r"\d|\b(?:centur(?:y|ies)|decades?|years?|months?|weeks?|days?|hours?|era|ages?|ago|"
                           r"spring|summer|autumn|fall|winter|season|(?:mon|tues|wednes|thurs|fri|satur|sun)days?|"
                           r"today|yesterday|tomorrow|morning|evening|night|dawn|dusk|noon|midnight|annually|"
                           r"reign|war|dynasty|period)\b", re.IGNORECASE)
#: an amount of money, a share or an age, which says no time: "$19 billion", "€3.5m", "40%", "two million
#: dollars", "the 93-year-old", "aged 93" (a figure is tried from its start only, and no two runs of spaces meet:
#: "1,1,1,…" or "1" and many spaces took time growing with the square of their length)
_TIMELESS = re.compile(r"[$€£¥]\s?\d[\d,.]*(?:\s*(?:thousand|million|billion|trillion|bn|m|k)\b)?|"
                       r"(?<![\d,.])\b\d[\d,.]*\s*(?:%|percent\b|per\s+cent\b|"
                       r"(?:(?:thousand|million|billion|trillion)\s*)?(?:dollars?|euros?|pounds?|yen|yuan|rupees?)\b)|"
                       r"\b\d+[\s-]*(?:years?|months?)[\s-]*old\b|\baged\s+\d+\b", re.IGNORECASE)
_MAY_SAY_AMOUNT = re.compile(r"\b(?:several|dozens|few|many|numerous|single|multiple|both|none|no|all|hundreds|"
                             r"thousands|millions|billions|countless|various|some|most|half|twice|once|double|"
                             r"triple)\b", re.IGNORECASE)


def may_give(question: str, sentence: str, kind: str, names: frozenset[str] = frozenset()) -> bool:
    """Leniently, whether the sentence may hold the kind of answer asked for: `has_kind`, or for "when" any
    figure (not money, a share or an age) or time word, for "number" any quantifier. An answer is said to lack
    the kind only when none of its texts may hold it, so the line that says so is not said of an answer in a form
    has_kind misses."""
    if has_kind(question, sentence, kind, names):
        return True
    if kind == "when":
        timeless = _TIMELESS.sub(" ", sentence)
        return bool(_MAY_SAY_WHEN.search(timeless) or _MONTH.search(timeless))
    if kind == "number":
        return bool(_MAY_SAY_AMOUNT.search(sentence))
    return False


# ---------------------------------------------------------------- word forms (the verifier's too)

def fold_plural(word: str) -> str:
    """A crude plural fold, so "bees" meets "bee" and "colonies" meets "colony" (not a linguistic stemmer)."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def stem(word: str) -> str:
    """The word's stem (the Snowball English stemmer), so the forms of one word meet: "mediating" and
    "mediation", "provides" and "provided", "retiring" and "retirements". Snowball keeps a final "y" as "i"
    ("discovery" gives "discoveri", "discovered" gives "discov"): a stem of six letters or more ending in "eri" or
    "ori" (the nouns in -ery and -ory) is stemmed again without its "i", so "discovered" meets "discoveries",
    "delivery" meets "delivered" and "history" meets "historical" ("party" stays apart from "part"). How a
    question's terms meet a text's words (cited_answer.coverage) and how the verifier counts a sentence's words
    in its quote. A decade is its year ("1950s" meets "1950's"). Accents are dropped first, so "Temüjin" meets
    "Temujin" and "Gospić" meets "Gospic"."""
    if word.isalpha():
        return _stem(word)
    return word[:-1] if word.endswith("s") and word[:-1].isdigit() else word


def _unaccented(text: str) -> str:
    """The text without accents and other combining marks ("São Paulo" gives "Sao Paulo")."""
    if text.isascii():
        return text
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    word = _unaccented(word)
    with _STEMMER_LOCK:  # a Snowball stemmer keeps the word it works on in itself: one thread at a time
        stemmed = _stemmer().stemWord(word)
        if len(stemmed) >= 6 and stemmed.endswith(("eri", "ori")):
            stemmed = _stemmer().stemWord(stemmed[:-1])
        return stemmed


_STEMMER_LOCK = threading.Lock()


@lru_cache(maxsize=1)
def _stemmer():
    import snowballstemmer
    return snowballstemmer.stemmer("english")


def fold(word: str) -> str:
    """fold_plural, and -ing/-ed forms too ("steeping" meets "steep"): a cruder `stem` whose forms a pattern
    can be built from (definition_subject's "(?:e?s)?")."""
    if len(word) > 5 and word.endswith("ing"):
        return word[:-3]
    if len(word) > 4 and word.endswith("ed") and not word.endswith("eed"):
        return word[:-2]
    return fold_plural(word)


# ---------------------------------------------------------------- definitions ("what is X")

_DEFINITION_Q = re.compile(r"^\s*(?:what\s+(?:is|are|was|were)\s+(?:an?\s+)?|define\s+|what\s+does\s+)"
                           r"(?P<x>[^?]+?)(?:\s+mean)?\s*\??\s*$", re.IGNORECASE)
_DEFINES = re.compile(r"\b(?:is|are|was|were|refers?\s+to|means?|denotes?|is\s+defined\s+as|is\s+called)\b",
                      re.IGNORECASE)


def definition_subject(question: str) -> str:
    """X of "what is X?" when X is a short name (no "of", at most five words), else ''."""
    m = _DEFINITION_Q.match(question)
    if not m:
        return ""
    x = m.group("x").strip()
    return x if len(x.split()) <= 5 and not re.search(r"\b(?:of|in|for|by|to|that|which)\b", x, re.I) else ""


#: a defining verb that names what the subject is: "is a …", "are the …", "is one of …", "refers to …"
_NAMES_KIND = re.compile(r"\b(?:(?:is|are|was|were)\s+(?:a|an|the|one|any)\b|refers?\s+to|means?|denotes?|"
                         r"is\s+defined\s+as)", re.IGNORECASE)


def is_definition(subject: str, text: str, names_kind: bool = False) -> bool:
    """The text defines the subject: it opens with the subject (after an article, or a field such as "In
    mathematics,"), an optional aside in brackets or commas, then a defining verb ("is", "refers to" …); with
    names_kind, one that names what the subject is ("is a framework", not "is for everyone")."""
    words = [re.escape(fold(w)) + r"(?:e?s)?" for w in re.findall(r"\w+", subject.lower())]
    if not words:
        return False
    verb = _NAMES_KIND if names_kind else _DEFINES
    pattern = (r"^\W*(?:in\s+[^,]{1,40},\s*)?(?:(?:a|an|the)\s+)?" + r"\W+".join(words)
               + r"\W*(?:\([^)]{0,80}\)\s*)?(?:,[^,]{0,80},\s*)?" + verb.pattern)
    return bool(re.match(pattern, text, re.IGNORECASE))
