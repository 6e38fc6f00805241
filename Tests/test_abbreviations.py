"""Questions asking what an abbreviation stands for (or for the abbreviation of a name) are answered by the text
that spells it out (Retrieval/abbreviations.py; on all four answer paths: Tests/test_answer_forms.py); a text that
only mentions the abbreviation does not answer them. The texts are this test's own."""
from __future__ import annotations

import time

import pytest

from App_Function_Libraries.Retrieval import abbreviations as ab
from App_Function_Libraries.Retrieval import cited_answer as core
from Tests.test_answer_forms import KNEE
from Tests.test_answer_paths import PATHS

def test_control_a_text_only_mentioning_the_abbreviation_gains_nothing(monkeypatch):
    """The rule lifts the text that spells ACL out and leaves the one that only mentions it where it was."""
    q = "What does ACL stand for?"
    texts = [text for _, text in KNEE]
    with_rule = core.relevance(q, texts, similarities=[0.5, 0.5])
    monkeypatch.setattr(core, "asks_either", lambda question: False)
    monkeypatch.setattr(core, "pinpoints", lambda question, text: False)
    without = core.relevance(q, texts, similarities=[0.5, 0.5])
    assert with_rule[1] > without[1] + core.PINPOINT_BONUS
    assert with_rule[0] <= without[0]


def test_control_without_the_spelled_out_text_the_question_is_not_answered(make_settings):
    out = PATHS[2]("What does ACL stand for?", KNEE[:1], make_settings)
    assert out.status == "not_answered", out.markdown


def test_the_questions_that_ask_for_a_long_or_a_short_form():
    for q, short in (("What does AFC stand for?", "AFC"), ("What is QED short for?", "QED"),
                     ("What did the acronym AAP stand for?", "AAP"), ('What does "TGIF" stand for?', "TGIF"),
                     ("What did the LMP acronym stand for in Block II?", "LMP"), ("what does vBNS stand for", "vBNS"),
                     ("What does NATO mean?", "NATO"), ("What is the full form of GDP?", "GDP"),
                     ("What does the acronym fob stand for?", "fob")):
        assert ab.asks_expansion(q) == short, q
    for q in ("What does Trump stand for?", "What does it mean?", "What does the party stand for?",
              "What is a short story?", "Where does the statue stand?"):
        assert ab.asks_expansion(q) == "" and not ab.asks_abbreviation(q), q
    assert ab.asks_abbreviation("What is Southern California often abbreviated as?")
    assert ab.asks_abbreviation("What is an abbreviation for the Church of Jesus Christ of Latter-day Saints?")


def test_a_pair_is_a_short_form_whose_letters_its_long_form_spells():
    assert ab.pairs("The Very high-speed Backbone Network Service (vBNS) came on line in 1995.") == [
        ("vBNS", "Very high-speed Backbone Network Service")]
    assert ab.pairs("The American Football Conference (AFC) champion beat the National Football Conference "
                    "(NFC) champion.") == [("AFC", "American Football Conference"),
                                           ("NFC", "National Football Conference")]
    assert ab.pairs("In The Church of Jesus Christ of Latter-day Saints (LDS Church), a teacher is an office.") == [
        ("LDS Church", "Latter-day Saints")]
    assert ab.pairs("the AFC (American Football Conference) won") == [("AFC", "American Football Conference")]
    for text in ("They met in Paris (France) in May (2001).", "It was built in 1998 (DATA) by them (see below).",
                 "The UMC stands in opposition to the plan.", "A new (NEW) rule."):
        assert ab.pairs(text) == [], text
    assert ab.expands("What does GDP stand for?", "GDP stands for gross domestic product.")
    assert not ab.expands("What does UMC stand for?", "The UMC stands in opposition to the plan.")
    assert ab.expands("What is chloroplast DNA abbreviated as?", "Their DNA is often abbreviated as ctDNA.")


def test_hostile_text_is_read_in_linear_time():
    q = "What does AB stand for?"
    for unit in ("Alpha Beta (AB) ", "(AB) ", "AB stands ", "(" * 3 + "AB" + ")" * 3 + " "):
        start = time.perf_counter()
        ab.expands(q, unit * 40_000)
        assert time.perf_counter() - start < 5, unit
