"""What answers a how-to question ("How can you …?") when no steps are numbered: `gives_advice` (a text that tells
its reader what to do: an instruction, or "you can …") and, weaker, `names_a_way` ("… is an easy way to …"). The
cited-answer core leads a how-to's answer with them (cited_answer.choose_lead).
"""
from __future__ import annotations

import re

from App_Function_Libraries.Retrieval.quotable import LIST_NUMBER

_TOKEN = re.compile(r"[\w'-]+")
#: verbs an instruction opens with ("Opt for easy food …", "Host a lunch …", "Don't overwater …")
_ADVICE_VERBS = frozenset("""add adjust apply ask avoid bake be book boil borrow bring buy call change check choose
clean combine compare consider contact cook cover create cut decide delete disable do download drink eat enable
ensure fill find follow freeze get give go grab have hire hold host install invite keep leave let limit look make
measure mix move offer open opt order pack pay pick place plan plant pour prepare put read reduce remember remove
rent replace reuse run save schedule search see select sell send serve set share shop skip start stay stick stir
store swap switch take talk tell think try turn type use visit wait wash watch water wear write""".split())
#: a clause an instruction may open with before its verb: "Instead of a dinner party, host …", "If you can, buy …"
_ADVICE_LEAD_IN = re.compile(r"^(?:(?:instead|rather\s+than|if|when|to|for|before|after|once|while|unless)\b[^,]{0,80},"
                             r"|(?:first|next|then|finally|also|alternatively|otherwise|instead|again),?)\s*",
                             re.IGNORECASE)
_ADVICE_ADVERB = re.compile(r"^(?:please|just|simply|always|never|don['’]t|do\s+not|also|then)\s+", re.IGNORECASE)
#: "you can …", "you should …", "it's best to …": advice in a form other than an instruction
_ADVICE_MODAL = re.compile(r"^(?:you|one)\s+(?:can|could|should|may|might|must|need\s+to|have\s+to|will\s+want\s+to|"
                           r"may\s+want\s+to|might\s+want\s+to)\b|^it(?:'s|’s|\s+is)\s+(?:best|better|wise|"
                           r"a\s+good\s+idea)\s+to\b", re.IGNORECASE)
#: a way to do it, said as a statement: "… is an easy way to get started", "The best way to descale a kettle is
#: to …" (not "There is no way to know")
_WAY_TO = re.compile(r"\b(?:is|are|offers?|gives?|provides?)\s+(?:an?|the|one)\s+(?:(?:more|most)\s+)?(?:[\w-]+\s+)?"
                     r"(?:way|method|means|approach|technique)\s+to\b|"
                     r"^(?:the|an?|one)\s+(?:[\w-]+\s+)?(?:way|method)\s+to\b[^.;]{0,120}?\bis\s+(?:to|by)\b",
                     re.IGNORECASE)
#: a word after the opening one that makes it a subject, not an instruction: "Water is …", "Use of …"
_NOT_AFTER_VERB = frozenset("is are was were has have had can will would should may might must does did of".split())


def gives_advice(text: str) -> bool:
    """The text tells its reader what to do: it opens (after a list number, or a clause such as "Instead of a
    dinner party," or "If you can,") with an instruction ("Opt for easy food …", "Don't overwater …") or with
    advice ("You can …", "It's best to …"). What answers "How can you …?" when no steps are numbered."""
    text = LIST_NUMBER.sub("", text.lstrip(" \"'“‘"), count=1)
    text = _ADVICE_ADVERB.sub("", _ADVICE_LEAD_IN.sub("", text, count=1), count=1)
    if _ADVICE_MODAL.match(text):
        return True
    words = _TOKEN.findall(text[:80].lower().replace("’", "'"))
    return len(words) > 1 and words[0] in _ADVICE_VERBS and words[1] not in _NOT_AFTER_VERB


def names_a_way(text: str) -> bool:
    """The text names a way to do something: "… is an easy way to get started", "Node.js provides a way to
    collect …", "The best way to … is to …". Weaker than advice (a party "is a great way to commemorate" the
    years of study, which tells no one how to throw it): a how-to's lead when no text gives advice."""
    return bool(_WAY_TO.search(text))
