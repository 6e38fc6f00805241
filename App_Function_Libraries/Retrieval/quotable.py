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
     closing quote or bracket), as with headings, menu lines and cut text. A sentence ending with a colon
     whose formula or list was lost ("… for all indices i and j: or in matrix form:") is quoted up to its
     first colon when what stands before it is a statement of COLON_WORDS words or more that does not end on
     a word introducing what follows ("… are:", "… include:", "… as follows:"): `up_to_colon`.
A sentence that only repeats its source's title (a PDF's or a page's heading kept as a line of its text, "Field
notes: calibrating the bee dance.") reads as a sentence but says nothing the title does not: `repeats_title`.

What a question asks for, and whether a text gives it, is question_forms.py.
"""
from __future__ import annotations

import re
import threading
import unicodedata
from functools import lru_cache

from App_Function_Libraries.Retrieval.bm25 import tokenize

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
    if s.endswith(":") and s.count(":") == 1:  # a statement whose formula or list was lost (rule 6)
        return up_to_colon(s) is not None
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


COLON_WORDS = 8
#: a word that only introduces what follows a colon: "The signals are:", "Features include:", "as follows:",
#: "it satisfies:", "is given by:", and a speaking verb before the words it reports ("… President Obama also
#: said:", "… she told reporters:")
_INTRODUCES = frozenset("""is are was were be been include includes included including follows following
follow as like namely these those this below such example examples e.g. i.e. of to by with for from
and or the a an satisfy satisfies satisfying give gives given write writes written define defines defined
denote denotes denoted express expresses expressed hold holds read reads become becomes equal equals yield
yields get gets obtain obtains have has had say says said tell tells told reporters explain explains explained
add adds added wrote note notes noted state states stated announce announces announced declare declares declared
reply replies replied answer answers answered ask asks asked comment comments commented remark remarks
remarked continue continues continued warn warns warned put""".split())


def up_to_colon(sentence: str) -> str | None:
    """A sentence ending with a colon (its formula or list lost on the way from the page) as it may be quoted:
    up to its first colon, when that reads as a statement (rule 6); else None."""
    if not sentence.rstrip().endswith(":"):
        return None
    head = sentence[:sentence.index(":")].rstrip()
    words = head.split()
    if len(words) < COLON_WORDS or words[-1].lower() in _INTRODUCES or not reads_as_sentence(f"{head}."):
        return None
    return f"{head}:"


# ---------------------------------------------------------------- what a quote may be
#
# Beyond reading as a sentence, an extractive answer quotes a source's text as a finding only when it stands
# on its own as one:
#  7. not a meta-sentence: one about the page itself rather than its subject ("The method presented above …",
#     "In this article we …", "Here, we offer another …", "we won't discuss …", "Here's a look at …", "Read the
#     full report …", "see below", "the following example"), nor a pointer to another page ("For details of individual
#     countries see …", "For a list of films … see …", "See also …", "Main article: …"), nor an entry of a
#     reference list (it holds an ISBN, ISSN or DOI, "Retrieved 3 May 2015" or "Archived from the original", or
#     opens with a wiki's back-link caret, "^ Aguilar, Carlos …"), nor a table's header row (the row above its
#     rule line, "| Film | Year | Description |"); nor a question ("Are there general rules for finding such
#     situations?"): it asks, it does not state;
#  8. not opening with a pronoun or link phrase whose referent is in a sentence the reader does not see ("It …",
#     "This implies …", "These are …", "He was …", "A decent one costs …", "In so doing, …", "For this reason
#     …", "At that time …"): such a sentence is quoted only with the sentence before it, or with the question
#     asked just before it, in the text or by a heading ("What's a Superbug? It's a term …"); an "it" that stands
#     for nothing, the one that opens a statement of what is expected, said or known ("It is expected that …",
#     "It was reported that …", "It is not clear whether …"), needs no sentence before, nor does a "this" that
#     counts time from now ("This year's survey …", "This week, …");
#  9. no Markdown, code or TeX shown raw: emphasis marks and link syntax become their text, inline code its
#     text; a sentence holding TeX (`\[`, `\(`, `$$`) or a code fence is left out;
# 10. a list item ("+ Added …", "- …", "1. …") or a table row ("| a | b |") is quoted as what it is: the item's
#     text, or the row's cells joined by " — ", even without a full stop (`quotable_line`);
# 11. a step of a how-to, the sentence after a line that is only its label ("Step 3"), is quoted with its label:
#     "Step 3: Insert your plant into the hole." (`step_label`, `step_number`); an item of a numbered list keeps
#     its number, "3. Add one teaspoon of tea per cup." (`list_number`), and is a step too.
# 12. a quotation that runs over several sentences is quoted whole: a sentence that opens a quotation it does not
#     close goes with the sentences after it, up to the one that closes it (QUOTATION_SENTENCES in all at most), so
#     no quotation mark is left open and the words show whose they are ('"If you look at … it's less than 100. If
#     you look at … it's in the tens of thousands," Mr Obama said.'); a sentence inside the quotation is not quoted
#     alone, in the report's voice (`with_quotations`);
# 13. a sentence too short to quote alone (under four words) is quoted with the sentence before it, which it
#     finishes ("Every year, about 2 million people get sick from a superbug. About 23,000 die.").

_META = re.compile(
    r"\b(?:this|the present|the following|the next|the previous|the above|the below)\s+(?:article|section|page|"
    r"chapter|paper|post|tutorial|guide|lesson|example|figure|table|list|video|blog|entry|answer)\b|"
    r"\b(?:presented|shown|described|discussed|mentioned|given|listed|explained)\s+(?:above|below|earlier|here)\b|"
    r"\b(?:see|shown|as)\s+(?:above|below)\b|"
    r"^\W*(?:for\s+(?:(?:a|an)\s+)?(?:(?:more|further|full|fuller|complete|detailed|general)\s+)?(?:details|"
    r"information|list|overview|discussion|description|account|history|summary|comparison)\b[^.]{0,100}?,?\s+"
    r"see\b|for\s+more\s*,\s*see\b|"
    r"see\s+also\b|"
    r"main\s+articles?\s*:)|"
    r"\b(?-i:ISBN|ISSN)(?:-1[03])?:?\s*[\dX]|\bdoi\s*:\s*10\.\d|\bdoi\.org/10\.|"
    r"(?:^|[.,]\s+)(?-i:Retrieved)\s+(?:on\s+)?(?:\d{1,2}\s+(?-i:[A-Z])|(?-i:[A-Z])[a-z]+\.?\s+\d|\d{4}-\d\d-\d\d)|"
    r"\b(?-i:Archived from the original)\b|^\s*\^\s|"
    r"^\W*(?:here|in this \w+|below|above)\s*,?\s+(?:we|i|you)\b|^\W*here(?:'s|’s|\s+is|\s+are)\s|"
    r"^\W*(?:read|download|see|check\s+out|get)\s+(?:the|our)\s+(?:full|complete|whole|entire)\b|"
    r"\b(?:we|i)\s+(?:will|shall|won['’]t|will\s+not|now|offer|present|show|discuss|describe|consider|look|"
    r"introduce|explain|review|begin|start|turn|focus|give|provide)\b|\blet(?:'s|\s+us)\b",
    re.IGNORECASE)
#: a link phrase that stands for what the sentence before said: "In so doing, …", "By doing so …", "For this
#: reason …", "Because of this …", "At that time …" (not a connective such as "As a result," or "In addition,":
#: the fact after it stands alone, and quoted with the sentence before it, fewer answers led on the bench)
_BACK_REFERENCE = (r"(?:in|by)\s+(?:so\s+doing|doing\s+(?:so|this|that))\b|doing\s+so\b|to\s+do\s+(?:so|this|that)\b|"
                   r"(?:because\s+of|due\s+to|despite|after|before|besides|apart\s+from|as\s+a\s+result\s+of)\s+"
                   r"(?:this|that|these|those|it|them)\b|for\s+(?:this|that|these|those)\s+reasons?\b|"
                   r"(?:in|at|by|during|from|since|until|under)\s+(?:this|that|these|those)\s+(?:way|case|sense|"
                   r"respect|period|time|year|years|point|moment|stage|role|context|process|manner)\b")
_PRONOUN_OPENER = re.compile(r"^\W*(?:(?:it|this|these|that|those|they|he|she|such|them|its|their|his|her|"
                             r"thus|hence|therefore|however|also|moreover|furthermore)\b|"
                             r"(?:a|an|the|another)\s+(?-i:(?:[a-z]+\s+)?ones?\s+(?!of\b)[a-z])|"
                             + _BACK_REFERENCE + ")", re.IGNORECASE)
#: "It is expected that …": an "it" standing for the clause after it, not for something said before
_EMPTY_IT = re.compile(r"^\W*it\s+(?:is|was|has\s+been|had\s+been|will\s+be|would\s+be|may\s+be|might\s+be|"
                       r"seems|seemed|appears|appeared|remains|remained)\s+(?:not\s+)?(?:\w+ly\s+)?(?:\w+\s+)?"
                       r"(?:that|whether|if)\b", re.IGNORECASE)
#: "This year's survey …", "This week, …": a time counted from now, not a pointer to the sentence before
_NOW = re.compile(r"^\W*this\s+(?:year|week|month|morning|afternoon|evening|weekend|summer|winter|spring|autumn|"
                  r"fall|season)\b", re.IGNORECASE)
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
    an "it" that stands for the clause after it ("It is expected that …"), nor "this" counting time from now
    ("This year's survey of 5,000 professionals …")."""
    return bool(_PRONOUN_OPENER.match(sentence)) and not _EMPTY_IT.match(sentence) and not _NOW.match(sentence)


QUOTATION_SENTENCES = 4
_OPENING_AFTER = "([{—–-/"


def opens_quotation(text: str) -> bool:
    """The text opens a quotation it does not close: more “ than ”, or (with straight marks) an odd number of
    them, the last one an opening mark (at the start or after a space or bracket, with a word after it)."""
    curly = text.count("“") - text.count("”")
    if curly:
        return curly > 0
    marks = [i for i, ch in enumerate(text) if ch == '"']
    if len(marks) % 2 == 0:
        return False
    i = marks[-1]
    return (i == 0 or text[i - 1].isspace() or text[i - 1] in _OPENING_AFTER) and text[i + 1:i + 2].strip() != ""


def with_quotations(sentences: list[str]) -> list[str]:
    """The sentences of a paragraph with each quotation that runs over several of them as one text (rule 12)."""
    out: list[str] = []
    i = 0
    while i < len(sentences):
        text, end = sentences[i], i
        if opens_quotation(text):
            for j in range(i + 1, min(i + QUOTATION_SENTENCES, len(sentences))):
                if not opens_quotation(" ".join(sentences[i:j + 1])):
                    text, end = " ".join(sentences[i:j + 1]), j
                    break
        out.append(text)
        i = end + 1
    return out


def plain_text(text: str) -> str | None:
    """The text without Markdown or code syntax, whitespace collapsed; None when it holds TeX or a code fence
    that cannot be shown as text (rule 9)."""
    if _RAW_MARKUP.search(text):
        return None
    text = _MD_LINK.sub(r"\1", text)
    text = _MD_CODE.sub(r"\1", text)
    text = _MD_EMPHASIS.sub("", text)
    return " ".join(text.split())


def is_table_rule(line: str) -> bool:
    """True for a Markdown table's rule line ("|---|:--:|"), which closes its header row above it."""
    return bool(_TABLE_ROW.match(line)) and bool(_TABLE_RULE.match(line.replace("|", "", 1)))


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
LIST_NUMBER = re.compile(r"^\s*(\d{1,2})[.)]\s+(?=\S)")
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
    m = LIST_NUMBER.match(line)
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


def repeats_title(sentence: str, title: str) -> bool:
    """Every word of the sentence (stop words aside) is in the title: a heading kept as text, not a finding."""
    words = set(tokenize(sentence))
    return bool(words) and words <= set(tokenize(title))


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
    "Temujin" and "Gospić" meets "Gospic". A noun in -ship whose root names a person is that person's state or role,
    and meets the root: "citizenship" meets "citizen", "leadership" meets "leader" (not "championship",
    "battleship", "hardship": another thing). An ordinal in figures meets it in words: "5th" meets "fifth"."""
    if word.isalpha():
        return _stem(word)
    if word.lower() in _ORDINALS:  # "5th" meets "fifth"
        return _stem(_ORDINALS[word.lower()])
    return word[:-1] if word.endswith("s") and word[:-1].isdigit() else word


def _unaccented(text: str) -> str:
    """The text without accents and other combining marks ("São Paulo" gives "Sao Paulo")."""
    if text.isascii():
        return text
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    word = _unaccented(word)
    root = re.sub(r"(?i)ships?$", "", word)
    if len(root) >= _SHIP_ROOT and root != word and _PERSON_ROOT.search(root):
        word = root
    with _STEMMER_LOCK:  # a Snowball stemmer keeps the word it works on in itself: one thread at a time
        stemmed = _stemmer().stemWord(word)
        if len(stemmed) >= 6 and stemmed.endswith(("eri", "ori")):
            stemmed = _stemmer().stemWord(stemmed[:-1])
        return stemmed


_STEMMER_LOCK = threading.Lock()
_ORDINALS = {f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}": word
             for n, word in enumerate("""first second third fourth fifth sixth seventh eighth ninth tenth eleventh
             twelfth thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth""".split(),
                                      start=1)}
_SHIP_ROOT = 5  # letters a root must keep when its -ship is taken off
_PERSON_ROOT = re.compile(r"(?i)(?:er|or|ist|ian|man|ant|ent|en|ee)$")  # citizen, member, author, guardian, trustee


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
