"""A question whose form asks for a kind of answer is led, on all four answer paths, by the text that gives it:
what an abbreviation stands for ("What does ACL stand for?", Retrieval/abbreviations.py), the abbreviation of a
name, a measure ("At what speed …?", a number) and a year ("In which year …?", wherever the words stand). Each
case's texts hold the question's words equally, so without the rule the other text leads; controls show the
texts holding more of a question's words lead when its form asks for no such kind. The texts are this test's
own."""
from __future__ import annotations

import pytest

from App_Function_Libraries.Retrieval import cited_answer as core
from App_Function_Libraries.Retrieval.question_forms import asked_for, has_kind
from Tests.test_answer_paths import PATHS, _lead

KNEE = [("Knee injuries", "Skiers tear the ACL more often than any other part of the knee. An ACL tear ends most "
         "seasons, and the ACL heals slowly after surgery on the knee."),
        ("Knee anatomy", "The anterior cruciate ligament (ACL) joins the thigh bone to the shin bone inside the knee.")]
LIGAMENTS = [("Ligaments", "The anterior cruciate ligament is the ligament athletes tear most, and an anterior "
               "cruciate ligament tear needs a surgeon.")] + KNEE
TRAIN = [("Acme trains", "The Acme express train runs fast between Denver and Austin, and the Acme express train "
          "is the fastest train in the state."),
         ("Rail news", "The Acme express train runs at 180 kilometres per hour on the Denver line.")]
BRIDGE = [("Acme bridge", "The Acme river bridge opened to traffic after many delays, and the Acme river bridge "
           "carries trains and cars."),
          ("City history", "The Acme river bridge opened to traffic in 1932 after a flood.")]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("question, docs, lead", [
    ("What does ACL stand for?", KNEE, "anterior cruciate ligament (ACL)"),
    ("What is an abbreviation for the anterior cruciate ligament?", LIGAMENTS, "anterior cruciate ligament (ACL)"),
    ("At what speed does the Acme express train run?", TRAIN, "180 kilometres per hour"),
    ("In which year did the Acme river bridge open to traffic?", BRIDGE, "in 1932")])
def test_the_text_giving_what_the_form_asks_for_leads(path, question, docs, lead, make_settings):
    out = path(question, docs, make_settings)
    assert out.status == "answered" and lead in _lead(out), out.markdown


@pytest.mark.parametrize("question, docs, lead", [
    ("Where does the Acme express train run fast?", TRAIN, "runs fast between Denver"),
    ("What does the Acme river bridge carry after it opened to traffic?", BRIDGE, "carries trains and cars")])
def test_control_a_question_asking_for_no_such_kind_is_led_by_the_text_holding_its_words(question, docs, lead,
                                                                                          make_settings):
    out = PATHS[2](question, docs, make_settings)
    assert lead in _lead(out), out.markdown


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
    d = core.draft("What is the population of Acmeville?", [core.CitableSource(1, "http://s.test/", "Acmeville", [
        "The population of Acmeville grew fast after the railway came to Acmeville."])], None)
    assert d.lead is not None and d.missing == core.MISSING["number"]


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


# ---------------------------------------------------------------- the asked phrase restated, a stated year, a term
TOWER = [("Acme cathedral", "The Acme cathedral tower holds the largest bell collection in the state, and "
          "the tower bell from Italy rings every hour."),
         ("Cathedral bells", "The largest bell from Italy is the Great Tom in the Acme cathedral tower.")]
REPORT = [("Acme climate", "A study compared the 2001 Acme projections with the sea level observed since, and the "
           "study was published widely."),
          ("Climate news", "On 1 February 2007 a study was published comparing the 2001 Acme projections.")]
PRIMES = [("Acme numbers", "Any Acme number larger than 2 is given a name in the Acme tables, since the even "
           "numbers are multiples of 2."),
          ("Acme terms", "Accordingly, the term odd Acme refers to any Acme number larger than 2.")]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("question, docs, lead, plain", [
    ("What is the largest bell from Italy that rings in the Acme cathedral tower?", TOWER,
     "is the Great Tom", ("The largest bell from Italy is", "The Great Tom, the largest bell from Italy, hangs")),
    ("When was a study published confirming the 2001 Acme projections?", REPORT, "1 February 2007",
     ("On 1 February 2007", "Later")),
    ("What name is given to any Acme number larger than 2?", PRIMES, "the term odd Acme",
     ("refers to", "and"))])
def test_the_text_stating_the_answer_as_asked_leads(path, question, docs, lead, plain, make_settings):
    """"What is the largest bell from Italy …?" is led by "The largest bell from Italy is …" (cues.restates); "When
    was … the 2001 projections?" by the text with a date other than the question's 2001 (has_kind); "What name is
    given to …?" by "the term odd Acme refers to …" (gives_name). Control: with those words said otherwise, the
    first text, holding the question's words as well, leads."""
    out = path(question, docs, make_settings)
    assert lead in _lead(out), out.markdown
    old, new = plain
    reworded = [(title, text.replace(old, new)) for title, text in docs]
    out = path(question, reworded, make_settings)
    assert docs[0][1][:30] in _lead(out), out.markdown


def test_a_restated_phrase_meets_a_form_of_to_be():
    from App_Function_Libraries.Retrieval.cues import asked_phrase, restates
    q = "What is the capital of Acmeland?"
    assert restates(q, "Acme City is the capital of Acmeland.") and restates(q, "The capital of Acmeland was Oldtown.")
    assert not restates(q, "The capital of Acmeland grew fast.")  # control: no "is" where the phrase is
    assert not restates(q, "Funding for the capital of Acmeland is low.")  # the phrase inside another
    assert asked_phrase("What are private schools that charge no tuition called?") == ()  # no "the": not restated
    assert asked_phrase("What is it?") == () and asked_phrase("What was the name?") == ()  # too few words
    assert has_kind("When was the 2001 report out?", "The 2001 report came out in March.", "when")
    assert not has_kind("When was the 2001 report out?", "The 2001 report came out.", "when")


# ---------------------------------------------------------------- words a question's terms meet in other forms
QUILL = [("Quill's travels", "Ada Quill got her first US passport in 1950 for her trip to Lisbon."),
         ("Quill's papers", "Ada Quill became a citizen of the United States in 1961, her papers show.")]


@pytest.mark.parametrize("path", PATHS)
def test_citizenship_in_the_us_is_met_by_a_citizen_of_the_united_states(path, make_settings):
    """"When did Ada Quill get her US citizenship?": "citizenship" meets "citizen" and "US" meets "the United
    States", so the text saying when she became a citizen leads."""
    out = path("When did Ada Quill get her US citizenship?", QUILL, make_settings)
    assert "became a citizen" in _lead(out), out.markdown


def test_control_without_the_other_forms_the_passport_text_leads(make_settings, monkeypatch):
    from App_Function_Libraries.Retrieval import quotable
    monkeypatch.setattr(core, "other_forms", lambda text: "")
    monkeypatch.setattr(quotable, "_SHIP_ROOT", 99)
    quotable._stem.cache_clear()
    try:
        out = PATHS[2]("When did Ada Quill get her US citizenship?", QUILL, make_settings)
    finally:
        quotable._stem.cache_clear()
    assert "passport" in _lead(out), out.markdown


def test_short_and_long_forms_of_well_known_names():
    from App_Function_Libraries.Retrieval.abbreviations import other_forms
    from App_Function_Libraries.Retrieval.quotable import stem
    assert "US" in other_forms("a citizen of the United States") and "United States" in other_forms("the U.S. Army")
    assert "Soviet Union" in other_forms("the U.S.S.R. fell") and "United States" not in other_forms("the U.S.S.R.")
    assert other_forms("let us go by bus") == ""  # control: "us" and "bus" are no short form
    assert stem("citizenship") == stem("citizen") and stem("leadership") == stem("leader")
    for noun, root in [("hardship", "hard"), ("championship", "champion"), ("battleship", "battle")]:
        assert stem(noun) != stem(root), noun  # a root that names no person: another thing


PRESIDENTS = [("Acme history", "The Acme president had to take office in 1950 after the war, the Acme board says."),
              ("Acme presidents", "In 1929 the fifth Acme president took office.")]


@pytest.mark.parametrize("path", PATHS)
def test_an_ordinal_in_figures_meets_it_in_words(path, make_settings):
    """"the 5th Acme president" is "the fifth Acme president": the text naming him leads, and the other, stating
    no fifth, is most likely about another one. Control: with "fifth" said otherwise, the first text leads."""
    question = "In what year did the 5th Acme president take office?"
    assert "fifth Acme president" in _lead(path(question, PRESIDENTS, make_settings))
    reworded = [(title, text.replace("fifth", "new")) for title, text in PRESIDENTS]
    assert "after the war" in _lead(path(question, reworded, make_settings))
    assert core.stated_numbers("the 5th and the twentieth, the 1st") == {"fifth", "twentieth"}
