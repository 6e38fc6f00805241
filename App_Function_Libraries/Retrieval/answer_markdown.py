"""How the cited-answer core (Retrieval/cited_answer.py) writes an answer in Markdown: a source's text as
quoted, the default layout (the lead, then the supporting texts as a list, a how-to's steps as one numbered
list), the notes under it, and the answer that says no source answers the question."""
from __future__ import annotations

import re

from App_Function_Libraries.Retrieval.citations import quote_text
from App_Function_Libraries.Retrieval.quotable import first_person, is_quotation, list_number

SENTENCE_END = re.compile(r"[.!?][\"'”’)\]]*$")


def quoted(text: str, n: int, title: str = "") -> str:
    """A source's text as the answer shows it, cited: in quotation marks, its source named, when it speaks
    as I/we (another voice than the answer's); its source named when it is a quotation already, in the
    source's own quotation marks (never a second pair around them)."""
    body = quote_text(text).rstrip()
    named = f" ({title})" if title else ""
    if first_person(text):
        return f"“{body}”{named} [{n}]"
    if is_quotation(body):
        return f"{body}{named} [{n}]"
    return f"{body} [{n}]"


CLOSEST_WORDS = 40  # a closest passage is shown whole up to this many words, else to its last sentence end in them
CLOSEST_CUT = 25  # …or, with no sentence end there, cut at this many words


def not_answered_markdown(statement: str, closest: list[tuple[str, float, str]]) -> str:
    """An answer saying plainly that no source answers the question, then the closest passages as
    (where, score, text), listed as not used: no [n], since nothing is cited."""
    lines = [statement]
    if closest:
        lines += ["", "Closest passages, not used:"]
    for where, score, text in closest:
        lines.append(f"- {where} (relevance {score:.2f}): {passage_shown(quote_text(text))}")
    return "\n".join(lines)


def passage_shown(text: str) -> str:
    """A passage as the reader is shown it to judge it: whole up to CLOSEST_WORDS words; a longer one to the end
    of its last sentence within them, else its first CLOSEST_CUT words and " …" (never cut a few words before
    its end: "… develops more …" hid "acidity", the very word the question was about)."""
    words = text.split()
    if len(words) <= CLOSEST_WORDS:
        return " ".join(words)
    ends = [i for i, w in enumerate(words[:CLOSEST_WORDS]) if SENTENCE_END.search(w)]
    return " ".join(words[:ends[-1] + 1]) + " …" if ends else " ".join(words[:CLOSEST_CUT]) + " …"


def unanswered_note(parts: list[str], missing: str = "") -> str:
    """The notes under an answer: the parts of the question not answered, what the answer lacks (Draft.missing)."""
    notes = ["*Not answered by the sources: " + "; ".join(f"“{p}”" for p in parts) + ".*"] if parts else []
    notes += [f"*{missing}*"] if missing else []
    return " ".join(notes)


def bullet(line: str) -> str:
    """A supporting text as a line of the answer's list: "- " before it, but an item of a numbered list (a
    step, "2. Warm the pot.") as the numbered item it is, so a how-to's steps read as one numbered list."""
    return line if list_number(line) is not None else f"- {line}"


def render_bullets(d, titles: dict[int, str] | None = None) -> str:
    """The default layout of a draft (cited_answer.Draft): the lead on its own line, then the supporting texts
    as a list (by sub-question when there are several), then the parts not answered."""
    titles = titles or {}
    lines = [quoted(d.lead.text, d.lead.n, titles.get(d.lead.n, ""))]
    headings = list(dict.fromkeys(p.heading for p in d.picks))
    for heading in headings:
        if heading:
            lines += ["", f"### {heading}"]
        elif d.picks:
            lines.append("")
        lines += [bullet(quoted(p.text, p.n, titles.get(p.n, ''))) for p in d.picks if p.heading == heading]
    if d.unanswered or d.missing:
        lines += ["", unanswered_note(d.unanswered, d.missing)]
    return "\n".join(lines)
