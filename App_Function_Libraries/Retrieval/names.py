"""The names a question states, and the texts that hold them: `question_names` (its runs of capitalised words
after the first), `holds_names` (a text holding every word of them: a search's similarity floor lets it through,
since an embedding model knows too little of a rare name), and `named_by_surname` (a text calling a person by
surname alone on a page that names them in full holds the full name).
"""
from __future__ import annotations

import re

from App_Function_Libraries.Retrieval.question_forms import AFTER_END, NAME_PARTICLES
from App_Function_Libraries.Retrieval.verifier import words_of


def question_names(question: str) -> list[frozenset[str]]:
    """The names a question states: its runs of capitalised words after its first word ("Carl Wilhelm Scheele",
    "Tesla's", "ABC"), each as its words' stems; a text holds a name when it holds one of its words."""
    words = question.split()
    names, run = [], []
    for word in words[1:] + [""]:
        if word[:1].isupper() and word != "I":
            run.append(word)
            continue
        if run:
            stems = frozenset(words_of(" ".join(run)))
            if stems:
                names.append(stems)
            run = []
    return names


def holds_names(question: str, text: str) -> bool:
    """The text holds every word of every name the question states (`question_names`: "Who is Ammar Askar?");
    False when it states none. An embedding model knows too little of a rare name to find the text that names it
    close to the question: a search's similarity floor lets such a text through, and the answer's floor judges it."""
    names = question_names(question)
    if not names:
        return False
    held = words_of(text)
    return all(name <= held for name in names)


#: a person's full name: two to four capitalised words, no figure ("Margaret Hamilton", "Luis de Miranda")
_FULL_NAME = re.compile(rf"[A-Z][a-z][\w'’-]*(?:\s+(?:(?:{NAME_PARTICLES})\s+)*"
                        r"[A-Z][a-z][\w'’-]*){1,3}")


#: first words of a place's name, whose last word alone names another place or none: "North America", "Great
#: Britain", "New York", "Mount Everest"
_PLACE_OPENS = frozenset("""north south east west northern southern eastern western central upper lower great greater
new old little united saint st san santa mount lake river cape port fort""".split())


def surnames(question: str, page: str) -> list[tuple[str, str]]:
    """(full name, its last word) of the question's full names (after its first word: "Margaret Hamilton") that
    the page writes in full and never writes that word of in lower case ("treaty" of "Lisbon Treaty" is no
    surname), and that name no place ("America" does not stand for "North America")."""
    found = []
    for m in _FULL_NAME.finditer(question, question.find(" ") + 1 if " " in question else len(question)):
        full, last = m.group(0), m.group(0).split()[-1]
        if (full.split()[0].lower() not in _PLACE_OPENS and full in page
                and not re.search(rf"\b{re.escape(last.lower())}\b", page)):
            found.append((full, last))
    return found


def named_by_surname(text: str, names: list[tuple[str, str]]) -> str:
    """The full names of `names` (`surnames` of the text's page) that the text calls by their last word alone
    ("Hamilton, who popularized …"; not "the Meta Quest Pro" for "Vision Pro", nor "the Treaty of Rome" for
    "Lisbon Treaty"): a page names a person in full once, then by surname. Joined by spaces; '' when none."""
    return " ".join(full for full, last in names if full not in text and any(
        _alone(text, w.start(), w.end()) for w in re.finditer(rf"\b{re.escape(last)}\b", text)))


def _alone(text: str, start: int, end: int) -> bool:
    """The word at text[start:end] stands alone, not within a longer name: no capitalised word or "of" right
    after it, nor a capitalised word right before it unless that word opens a sentence ("When Hamilton arrived")."""
    if re.match(r"\s+(?:[A-Z]|of\b)", text[end:end + 4]):  # "Hamilton Beach", "Treaty of Rome"
        return False
    head = text[max(0, start - 60):start]  # a word before it, bounded: no search runs back over a long text
    before = re.search(r"(\S+)\s+$", head)
    return (not before or not before.group(1)[0].isupper() or bool(AFTER_END.search(head[max(0, before.start(1) - 8):
                                                                                          before.start(1)]))
            or (before.start(1) == 0 and start <= 60))
