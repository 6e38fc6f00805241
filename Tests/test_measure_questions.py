"""A question asking for a measure ("At what speed …?", "What is the population of …?", "How heavy …?") asks for a
number (question_forms.asked_for): a text with a number answers it before one without, on all four answer paths,
and a text without one lacks what it asks for. The texts are this test's own."""
from __future__ import annotations

import pytest

from App_Function_Libraries.Retrieval import cited_answer as core
from App_Function_Libraries.Retrieval.question_forms import asked_for
from Tests.test_answer_paths import PATHS, _lead

TRAIN = [("Acme trains", "The Acme express train runs fast between Denver and Austin, and the Acme express train "
          "is the fastest train in the state."),
         ("Rail news", "The Acme express train runs at 180 kilometres per hour on the Denver line.")]


@pytest.mark.parametrize("path", PATHS)
def test_a_measure_is_answered_by_a_text_with_a_number(path, make_settings):
    out = path("At what speed does the Acme express train run?", TRAIN, make_settings)
    assert "180 kilometres per hour" in _lead(out), out.markdown


def test_control_a_question_asking_for_no_measure_leads_with_the_text_holding_its_words(make_settings):
    out = PATHS[2]("Where does the Acme express train run fast?", TRAIN, make_settings)
    assert "runs fast between Denver" in _lead(out), out.markdown


@pytest.mark.parametrize("question", [
    "At what speed did the turbine operate?", "What is the speed of light?", "At what temperature does water boil?",
    "What is the population of Warsaw?", "Milutin Tesla died at what age?", "What was the final score of the game?",
    "What is the land area of Jacksonville?", "How heavy is an elephant?", "How wide is the Rhine?",
    "What age does school start?", "Up to what age do pupils attend?", "What is the mortality rate of the plague?"])
def test_a_measure_asks_for_a_number(question):
    assert asked_for(question) == "number"


@pytest.mark.parametrize("question", [
    "What area did the broadcast cover?", "What is the time rate of change of electric charge?",
    "What is the size of the Raspberry Pi?", "What is the duration of the academic year?", "What speed?",
    "What is the white population of the city?"])
def test_control_a_word_of_measure_is_not_always_a_question_for_a_number(question):
    assert asked_for(question) != "number"


def test_an_answer_without_a_number_says_so():
    q = "What is the population of Acmeville?"
    d = core.draft(q, [core.CitableSource(1, "http://s.test/", "Acmeville", [
        "The population of Acmeville grew fast after the railway came to Acmeville."])], None)
    assert d.lead is not None and d.missing == core.MISSING["number"]
