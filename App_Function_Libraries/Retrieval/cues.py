"""Words that state an answer the way two kinds of question ask for it: a cause or purpose for "why"
(`asks_reason`, `gives_reason`: "because …", "due to …") and an example for "what is an example of …"
(`asks_example`, `gives_example`: "such as …", "e.g. …"). The cited-answer core gives such a text the relevance
bonus (cited_answer.relevance, `states_as_asked`), not a place of its own in the lead choice, since a "because"
or a "such as" far down the ranking is most often about something else.
"""
from __future__ import annotations

import re

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
    """For "why", a text giving a cause or purpose; for "what is an example of", a text giving an example."""
    return (asks_reason(question) and gives_reason(text)) or (asks_example(question) and gives_example(text))
