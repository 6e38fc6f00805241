"""A question asking for a year, date, month or century wherever it says so ("In which year …?", "On what date
…?", "Tesla died in what year?") asks when (question_forms.asked_for): a text with a year, a date or a month
answers it before one without, on all four answer paths; a year may be written "c1750" or "ca. 1500". The texts
are this test's own."""
from __future__ import annotations

import pytest

from App_Function_Libraries.Retrieval.question_forms import asked_for, has_kind
from Tests.test_answer_paths import PATHS, _lead

BRIDGE = [("Acme bridge", "The Acme river bridge opened to traffic after many delays, and the Acme river bridge "
           "carries trains and cars."),
          ("City history", "The Acme river bridge opened to traffic in 1932 after a flood.")]


@pytest.mark.parametrize("path", PATHS)
def test_in_which_year_is_answered_by_a_text_with_a_year(path, make_settings):
    out = path("In which year did the Acme river bridge open to traffic?", BRIDGE, make_settings)
    assert "in 1932" in _lead(out), out.markdown


def test_control_a_question_asking_no_date_leads_with_the_text_holding_more_of_its_words(make_settings):
    out = PATHS[2]("What does the Acme river bridge carry after it opened to traffic?", BRIDGE, make_settings)
    assert "carries trains and cars" in _lead(out), out.markdown


@pytest.mark.parametrize("question", [
    "In which year did the war end?", "Which year did the war end?", "On what date did it open?",
    "In what month did it open?", "Which century was it built in?", "By what year will it finish?",
    "John Mayow died in what year?", "What day of the week is Media Day held?", "When did it end?"])
def test_a_question_for_a_year_date_or_month_asks_when(question):
    assert asked_for(question) == "when"


@pytest.mark.parametrize("question", ["How many years did it last?", "When a cell eats, what does it become?",
                                      "What is the yearly budget?"])
def test_control_not_every_word_of_time_asks_when(question):
    assert asked_for(question) != "when"


@pytest.mark.parametrize("text", ["The cabinet is dated c1750.", "It was carved ca. 1500 in Ghent.",
                                  "The forest could be gone by 2100.", "It opened in the 1990s."])
def test_a_year_may_be_written_circa_or_in_the_next_century(text):
    assert has_kind("When was it made?", text, "when")


def test_control_a_number_is_no_year():
    assert not has_kind("When was it made?", "It took 250 workers and 30 days.", "when")
