"""Issue 22: a text that states the answer the way the question asks for it (cited_answer.pinpoints) gains
PINPOINT_BONUS and leads before a merely relevant one: "500 points" for "how many points", "a story called
Salt and Iron" for "what was the name of the story". The texts are this test's own; the lead case's scores sit
more than 0.1 apart and well above the floor."""
from __future__ import annotations

import pytest

from App_Function_Libraries.Retrieval import cited_answer as core
from App_Function_Libraries.Retrieval.citations import CitableSource
from App_Function_Libraries.Retrieval.question_forms import counted_noun, counted_words, gives_name

STORY_QUESTION = "What was the name of the story in the third Tidewatch series?"
STORY = [CitableSource(1, "http://t.test/tidewatch", "Tidewatch", [
    "The third series of Tidewatch was its most watched series, and the story of the third series won two "
    "awards in 2010. Filming took place in Cardiff. Shown over five nights in July 2009, the third series was "
    "a single story called Salt and Iron."])]


@pytest.fixture(scope="module")
def embedder():
    from App_Function_Libraries.Retrieval.embeddings import get_embedder
    return get_embedder()


@pytest.mark.parametrize("question, noun", [
    ("How many points did the Harriers score?", "points"),
    ("how much money was raised?", "money"),
    ("How many first downs did the Harriers have?", "downs"),  # the phrase's last word, up to its verb
    ("How many species of comb jelly are known?", "species"),  # up to a preposition
    ("How many same-sex couples or partnerships were there?", "couples"),  # up to a conjunction
    ("How many tasks per second does the framework handle?", "tasks"),  # up to a rate's unit
    ("How many times a day do bees dance?", "times"),
    ("How much did the bridge cost?", ""),  # "did" counts nothing named
    ("When did the bridge open?", ""),
])
def test_the_counted_noun_of_a_question(question, noun):
    assert counted_noun(question) == noun


@pytest.mark.parametrize("question, text, expected", [
    ("How many points did the Harriers score?", "The offense led the league in scoring (512 points).", True),
    ("How many points did the Harriers score?", "The Harriers scored on a 9-play, 71-yard drive.", False),
    ("How many people lived there?", "About 2 million people lived there by 1900.", True),  # a number's words
    ("How many people lived there?", "It had 2 large harbours and many people.", False),  # control: too far
    ("How many tasks per second does the framework handle?", "It serves 9,000 async tasks per second.", True),
    ("How many tasks per second does the framework handle?", "It polls for ready tasks every two seconds.", False),
    (STORY_QUESTION, "It was a single story called Salt and Iron.", True),
    (STORY_QUESTION, 'It gave off a gas he named "dephlogisticated air".', True),
    (STORY_QUESTION, "Year twelve is known as lower sixth.", False),  # no name follows the naming word
    ("Who wrote the story?", "It was a single story called Salt and Iron.", False),  # not asked for a name
])
def test_what_pinpoints_an_answer(question, text, expected):
    assert core.pinpoints(question, text) is expected


def test_the_words_a_number_counts():
    assert {"points", "had", "five"} <= counted_words("It scored 512 points, had five players.")
    assert gives_name("a gas he named “vital air”") and not gives_name("what it was named for")


def test_a_pinpointing_text_gains_the_bonus_and_no_other(monkeypatch):
    texts = ["The offense led the league in scoring (512 points).", "The offense scored on a 71-yard drive."]
    question = "How many points did the offense score?"
    bonus, with_bonus = core.PINPOINT_BONUS, core.relevance(question, texts)
    monkeypatch.setattr(core, "PINPOINT_BONUS", 0.0)
    without = core.relevance(question, texts)
    assert bonus > 0 and with_bonus[0] - without[0] == pytest.approx(bonus)
    assert with_bonus[1] == pytest.approx(without[1])


def test_the_text_that_names_the_story_leads(embedder):
    """The sentence about the third series that names no story scores higher; the one that names it leads."""
    ranked = sorted(core.candidates(STORY_QUESTION, STORY, embedder), key=lambda p: -p.score)
    assert "most watched" in ranked[0].text and ranked[1].score >= core.RELEVANCE_FLOOR + 0.1
    d = core.draft(STORY_QUESTION, STORY, embedder)
    assert d.lead is not None and "Salt and Iron" in d.lead.text


def test_control_without_pinpointing_the_higher_text_leads(embedder, monkeypatch):
    monkeypatch.setattr(core, "pinpoints", lambda question, text: False)
    d = core.draft(STORY_QUESTION, STORY, embedder)
    assert d.lead is not None and "most watched" in d.lead.text


# ---------------------------------------------------------------- what someone said

SAID_QUESTION = "What did Okafor say about mergers?"
SAID = [CitableSource(1, "http://t.test/okafor", "Okafor on mergers at the hearing", [
    "Harbor Freight chief executive Amara Okafor knows a thing or two about closing mergers quickly. "
    "Mergers take years of courtship before anyone signs, Okafor said at the hearing. "
    "The hearing lasted three days."])]


@pytest.mark.parametrize("question, speaker", [
    ("What did Okafor say about mergers?", "Okafor"),
    ("What does Ben Treynor think of monitoring?", "Ben Treynor"),
    ("What has the Court of Justice said about free movement?", "the Court of Justice"),
    ("What did Dalton think the atomic ratios were?", "Dalton"),
    ("What is said to be the largest funfair in Europe?", ""),  # no one's words asked for
    ("What did Edward Lorenz discover?", ""),
    ("What did the 2024 hive survey find?", "the 2024 hive survey"),  # findings, as a study reports them
    ("What does the swarm map show?", "the swarm map"),
    ("Who said that mergers take years?", ""),  # asks for a name
])
def test_whose_words_a_question_asks_for(question, speaker):
    from App_Function_Libraries.Retrieval.question_forms import speaker_asked
    assert speaker_asked(question) == speaker


@pytest.mark.parametrize("text, expected", [
    ("Mergers take years of courtship before anyone signs, Okafor said at the hearing.", True),
    ("According to Okafor, mergers take years.", True),
    ('Okafor put it bluntly: "nobody signs a merger in a week."', True),  # a quotation
    ("Harbor Freight chief executive Amara Okafor knows a thing or two about closing mergers.", False),
    ("Mergers take years of courtship before anyone signs, the analyst said.", False),  # someone else's words
])
def test_a_text_that_reports_the_speakers_words_pinpoints(text, expected):
    assert core.pinpoints(SAID_QUESTION, text) is expected


@pytest.mark.parametrize("text, expected", [
    ("This year's hive survey of 5,000 keepers suggests that colonies lost to mites have halved.", True),
    ("The survey found that colonies lost to mites have halved since 2020.", True),
    ("This year we looked at mites in hives, and the survey's results were somewhat surprising.", False),
])
def test_a_text_that_reports_a_study_s_findings_pinpoints(text, expected):
    """"What did the survey find?": a text naming the survey and what it found, suggests or shows, not one
    announcing that its results surprise."""
    assert core.pinpoints("What did the 2024 hive survey find?", text) is expected


def test_what_the_speaker_said_leads(embedder):
    """The sentence naming Okafor as a merger expert scores higher; the one reporting Okafor's words leads."""
    ranked = sorted(core.candidates(SAID_QUESTION, SAID, embedder), key=lambda p: -p.score)
    assert "knows a thing or two" in ranked[0].text, [(p.score, p.text) for p in ranked]
    d = core.draft(SAID_QUESTION, SAID, embedder)
    assert d.lead is not None and "Okafor said at the hearing" in d.lead.text


def test_control_without_the_speech_rule_the_higher_text_leads(embedder, monkeypatch):
    from App_Function_Libraries.Retrieval import question_forms
    monkeypatch.setattr(question_forms, "speaker_asked", lambda question: "")
    d = core.draft(SAID_QUESTION, SAID, embedder)
    assert d.lead is not None and "knows a thing or two" in d.lead.text


# ---------------------------------------------------------------- what something is used for

USE_QUESTION = "What is beeswax used for?"
USE = [CitableSource(1, "http://t.test/wax", "Beeswax", [
    "Beeswax is a natural wax that worker bees make in their hives. "
    "In the 1700s, beeswax started being used for church candles in Paris."])]


@pytest.mark.parametrize("question, text, expected", [
    (USE_QUESTION, "Beeswax is used for candles and cosmetics.", True),
    (USE_QUESTION, "Beeswax is used to waterproof leather.", True),
    ("What are the uses of beeswax?", "Its uses include candles and polish.", True),
    (USE_QUESTION, "Beeswax is made by young worker bees.", False),
    (USE_QUESTION, "Beeswax is used mainly in cosmetics.", True),
    (USE_QUESTION, "Beekeepers use it.", False),
    (USE_QUESTION, "A hive needs to use wax to store honey.", False),  # not said of what the question asks about
    ("Who used beeswax first?", "Beeswax is used for candles.", False),  # not asked what it serves for
])
def test_a_text_saying_what_something_is_used_for_pinpoints(question, text, expected):
    assert core.pinpoints(question, text) is expected


def test_what_it_is_used_for_leads(embedder):
    """"What is beeswax used for?": the sentence saying what beeswax is scores higher; the one saying what it
    is used for leads."""
    d = core.draft(USE_QUESTION, USE, embedder)
    assert d.lead is not None and "used for church candles" in d.lead.text, d.lead


def test_control_without_the_use_rule_the_higher_text_leads(embedder, monkeypatch):
    from App_Function_Libraries.Retrieval import question_forms
    monkeypatch.setattr(question_forms, "asks_use", lambda question: False)
    d = core.draft(USE_QUESTION, USE, embedder)
    ranked = sorted(core.candidates(USE_QUESTION, USE, embedder), key=lambda p: -p.score)
    assert d.lead is not None and d.lead.text == ranked[0].text and "natural wax" in d.lead.text, ranked
