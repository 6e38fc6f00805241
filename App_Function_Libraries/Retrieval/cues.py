"""Words that state an answer the way two kinds of question ask for it: a cause or purpose for "why"
(`asks_reason`, `gives_reason`: "because …", "due to …") and an example for "what is an example of …"
(`asks_example`, `gives_example`: "such as …", "e.g. …"). The cited-answer core gives such a text the relevance
bonus (cited_answer.relevance, `states_as_asked`), not a place of its own in the lead choice, since a "because"
or a "such as" far down the ranking is most often about something else.

`restates` is narrower and does get a place in the lead choice: for "What is the largest item from Italy …?" a
text saying "The largest item from Italy is …" (or "… is the largest item from Italy") states the answer where
the question's own phrase meets "is". So do `speaker_asked`/`reports_speech_of` (question_forms.pinpoints): for
"What did X say about Y?" or "What did X find?", a text that reports X's words or findings.
"""
from __future__ import annotations

import re
from functools import lru_cache

from App_Function_Libraries.Retrieval.bm25 import STOPWORDS, tokenize
from App_Function_Libraries.Retrieval.quotable import stem

#: "Why …?", "How come …?", "For what reason …?", "What was the reason for …?"
_ASKS_REASON = re.compile(r"^\W*(?:why|how\s+come)\b|\bfor\s+what\s+reasons?\b|"
                          r"^\W*what\s+(?:is|was|are|were)\s+the\s+(?:main\s+)?reasons?\b", re.IGNORECASE)
#: a cause or purpose in so many words: "because …", "due to …", "in order to …", "as a way of …", "which is
#: why …", an institution "established to serve …", "tough enough to withstand …"; not "since", as often a time
#: ("since its introduction") as a cause, nor "designed to", as often the purpose of a part as of the whole
_GIVES_REASON = re.compile(
    r"\b(?:because|due\s+to|owing\s+to|thanks\s+to|on\s+account\s+of|for\s+fear\s+(?:of|that)|"
    r"as\s+a\s+(?:direct\s+)?(?:result|consequence)\s+of|in\s+response\s+to|in\s+order\s+(?:to|that)|so\s+as\s+to|"
    r"so\s+that|in\s+an?\s+(?:effort|attempt|bid)\s+to|as\s+a\s+(?:way|means)\s+(?:of|to)|caused\s+by|motivated\s+by|"
    r"(?:(?:this|that|which)\s+(?:is|was|explains|explained)|explains?|explained|reasons?)\s+why|"
    r"reasons?\s+(?:for|was|is|were|being)|"
    r"(?:established|created|founded|introduced|enacted|set\s+up)\s+(?:\w+ly\s+)?to\s+[a-z]|enough\s+to\s+[a-z])",
    re.IGNORECASE)


def asks_reason(question: str) -> bool:
    """The question asks why ("Why did oil start being priced in gold?", "For what reason …", "What was the reason
    for …")."""
    return bool(_ASKS_REASON.search(question))


def gives_reason(text: str) -> bool:
    """The text states a cause or a purpose in so many words ("Because oil was priced in dollars, …", "due to
    ongoing tectonic subsidence", "as a way of continuing their protest", "established to serve …"). Evidence, not
    proof: a reason may be given without such words, and such words may give the reason for something else."""
    return bool(_GIVES_REASON.search(text))


#: "What is an example of …?", "What are two examples of …?", "Give an example of …", "Name some examples …"; not
#: "X is an example of what?", which asks for the kind
_ASKS_EXAMPLE = re.compile(r"^\W*(?:what|which)\s+(?:is|are|was|were)\s+(?:an?|some|one|two|three|the)?\s*(?:\w+\s+)?"
                           r"examples?\s+(?:of|for)\b|\bgive\s+(?:an?|some|one|two|three)\s+examples?\b|"
                           r"^\W*name\s+(?:an?|some|one|two|three)\s+examples?\b", re.IGNORECASE)
#: an example given in so many words: "such as …", "e.g. …", "for example", "for instance", "including …",
#: "examples include …", "an example is …"
_GIVES_EXAMPLE = re.compile(r"\b(?:such\s+as|for\s+(?:example|instance)|including|examples?\s+(?:include|are|is)|"
                            r"an\s+example\s+(?:of\s+[^.;]{1,60}?\s+)?(?:is|was|being))\b|\be\.\s?g\.", re.IGNORECASE)


def asks_example(question: str) -> bool:
    """The question asks for an example ("What is an example of a controlled substance?")."""
    return bool(_ASKS_EXAMPLE.search(question))


def gives_example(text: str) -> bool:
    """The text gives an example in so many words ("… controlled substances (e.g., Vicodin …)", "drugs such as
    …"). Evidence, not proof: the example may be of something else."""
    return bool(_GIVES_EXAMPLE.search(text))


def states_as_asked(question: str, text: str) -> bool:
    """For "why", a text giving a cause or purpose; for "what is an example of", a text giving an example; for
    "what is <phrase>", a text restating the phrase with "is" (`restates`)."""
    return ((asks_reason(question) and gives_reason(text)) or (asks_example(question) and gives_example(text))
            or restates(question, text))


#: "What is the largest item from Italy that …?", "Who was the first president of Kenya?", "Which was the
#: capital …": the phrase asked about (group "np"), up to a relative word, a comma or the end
_ASKS_WHAT_IS = re.compile(r"^\W*(?:what|which|who)\s+(?P<be>is|was|are|were)\s+(?P<np>[^?,]+?)"
                           r"(?:\s+(?:that|which|who|whom|whose|where|when)\b[^?]*)?\s*\??\s*$", re.IGNORECASE)
_BE = frozenset("is was are were".split())
_ARTICLES = frozenset("the a an".split())
RESTATED_WORDS = 2  # content words the asked phrase must have ("the capital of France"; not "it", "the name")
_TOKEN = re.compile(r"[\w'-]+")


def word_tokens(text: str) -> list[str]:
    """The text's words in order, lower case, a curly apostrophe made straight (for comparing word by word)."""
    return _TOKEN.findall(text.lower().replace("’", "'"))


@lru_cache(maxsize=256)  # asked once for every text a question is compared with
def asked_phrase(question: str) -> tuple[str, ...]:
    """The stems of the definite phrase a "what is the …" question asks about, without its article ("largest item
    from Italy" of "What is the largest item from Italy that is part of the collection?"); () when it has fewer
    than RESTATED_WORDS content words or no "the" ("What are private schools that …?" asks what they are)."""
    m = _ASKS_WHAT_IS.match(question)
    words = word_tokens(m.group("np")) if m else []
    if words[:1] != ["the"] or sum(w not in STOPWORDS for w in words[1:]) < RESTATED_WORDS:
        return ()
    return tuple(stem(w) for w in words[1:])


def restates(question: str, text: str) -> bool:
    """The text states what a "what is the <phrase>?" question asks: it opens with the phrase (after an article)
    and a form of "to be" ("The largest item from Italy is the Chancel Chapel"), or the phrase comes right after
    one ("Nairobi is the capital of Kenya"). Not a phrase inside another ("Funding for private schools is …").
    Compared word by word, by stem: a pattern over untrusted text could backtrack."""
    phrase = asked_phrase(question)
    if not phrase:
        return False
    said = word_tokens(text)
    stems = tuple(stem(w) for w in said)
    n = len(phrase)
    for i in range(len(stems) - n + 1):
        if stems[i:i + n] != phrase:
            continue
        opens = all(w in _ARTICLES for w in said[:i]) and i + n < len(said) and said[i + n] in _BE
        before = [w for w in said[max(0, i - 2):i] if w not in _ARTICLES][-1:]
        if opens or (before and before[0] in _BE):
            return True
    return False


#: words that cannot be the one who does what a question says ("This was the first …", "… who was the first …"),
#: nor name whose words it asks for
NO_DOER = STOPWORDS | frozenset("""i he she it we you they this these those there who whom whose which also then
not never only all both each some many most any one other such""".split())


# ---------------------------------------------------------------- what someone said ("What did X say about Y?")

_SPEECH = (r"(?:say|says|said|saying|tell|tells|told|think|thinks|thought|believe|believes|believed|claim|claims|"
           r"claimed|argue|argues|argued|write|writes|wrote|written|state|states|stated|suggest|suggests|suggested|"
           r"warn|warns|warned|explain|explains|explained|add|adds|added|note|notes|noted|announce|announces|"
           r"announced|insist|insists|insisted|admit|admits|admitted|recall|recalls|recalled|"
           # what a study or a search reports: "What did the survey find?", "What does the map show?"
           r"find|finds|found|show|shows|showed|shown|reveal|reveals|revealed|conclude|concludes|concluded|"
           r"report|reports|reported)")
#: "What did X say …", "What does X think of …", "What has X said about …", "What did X find?": X is whose words
#: (or findings) are asked for
_ASKS_SAID = re.compile(rf"^\W*what\s+(?:did|does|do|has|have|had)\s+(?P<who>.+?)\s+{_SPEECH}\b", re.IGNORECASE)
#: a text that reports what someone said: a speaking verb ("Zuckerberg said at the trial"), "according to", or
#: a quotation in its own marks
_REPORTS_SPEECH = re.compile(rf"\b{_SPEECH}\b|\baccording\s+to\b|\"[^\"]{{12,}}\"|“[^”“]{{12,}}”",
                             re.IGNORECASE)


def speaker_asked(question: str) -> str:
    """Whose words the question asks for ("What did Mark Zuckerberg say about WhatsApp?" -> "Mark Zuckerberg"), or
    '' when it does not ask what someone said."""
    m = _ASKS_SAID.match(question)
    return m.group("who").strip() if m else ""


def reports_speech_of(speaker: str, text: str) -> bool:
    """The text reports what the speaker said, thought, wrote or found: it names them (a word of their name, "the
    court" for "the Court of Justice") and says that they spoke (a speaking or reporting verb, "found",
    "suggests", "according to", a quotation)."""
    named = set(tokenize(speaker)) - NO_DOER
    return bool(named & set(tokenize(text))) and bool(_REPORTS_SPEECH.search(text))
