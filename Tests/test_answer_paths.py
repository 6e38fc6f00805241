"""Issue 22: every answer Quarry writes goes through one cited-answer core (Retrieval/cited_answer.py). The
same cases, one for each thing a reader saw go wrong, run through all four answer paths: the web report
(stages report + verify, as re-runs, follow-ups and dig-deeper rounds use them), Wikipedia answers, Documents
answers and "Ask about this report". Each path gives the one answer record (records.Answer). The texts are
this test's own."""
from __future__ import annotations

import re
import pytest

from App_Function_Libraries.Documents.answer import answer_from_hits
from App_Function_Libraries.Documents.doc_types import SearchHit
from App_Function_Libraries.Research.coverage import question_parts
from App_Function_Libraries.Research.params import ResearchParams
from App_Function_Libraries.Research.pipeline import Run, Services, stage_number, stage_report, stage_verify
from App_Function_Libraries.Research.report_chat import ChatServices, ask_report
from App_Function_Libraries.Retrieval import cited_answer as core
from App_Function_Libraries.Retrieval import verifier
from App_Function_Libraries.Retrieval.citations import CitableSource, cited_sentences
from App_Function_Libraries.Wikipedia import answer as wiki
from App_Function_Libraries.records import Answer, Citation, Passage, ResearchResult, Source

LORENZ = [("Edward Lorenz", "Edward Lorenz was an American mathematician and meteorologist. Lorenz founded modern "
           "chaos theory with his work on weather models in 1963. The Lorenz attractor is a set of chaotic "
           "solutions of a simplified model of convection."),
          ("Chaos theory", "Chaos theory studies deterministic systems that are highly sensitive to initial "
           "conditions. Lorenz called this sensitivity the butterfly effect in a talk given in 1972.")]
ACQUISITIONS = [("Acme history", "Acme Corporation bought the photo service Snapline in 2012 for one billion "
                 "dollars. The founder of Acme announced the purchase of the messaging app Chatterly in 2014."),
                ("Acme deals", "Acme Corporation paid two billion dollars for the headset maker Visorly in 2014. "
                 "Analysts said the Acme founder overpaid for Visorly.")]
HERMITIAN = [("Hermitian matrices", "Hermitian matrices appear throughout quantum mechanics and signal processing. "
              "A Hermitian matrix is a complex square matrix that is equal to its own conjugate transpose. "
              "Here, we offer another useful Hermitian matrix using an abstract example. "
              "It is also always diagonalizable by a unitary matrix."),
             ("Spectral theorem", "The method presented above is a very simple method for Hermitian matrices. "
              "The spectral theorem states that every Hermitian matrix has real eigenvalues.")]
MARKUP = [("Notes", "**Sourdough bread** rises thanks to a `starter` of wild yeasts and lactic acid bacteria.\n"
           "The bacteria give [sourdough](http://evil.test/x) bread its slightly sour taste.\n"
           "The rise of sourdough follows \\[ V(t) = V_0 e^{kt} \\] for a starter in bread dough.")]
CHANGELOG = [("Widgetcraft 1.8 changelog", "Widgetcraft 1.8 release notes\n+ Added the ocelot mob to jungle "
              "biomes\n+ Added granite, diorite and andesite blocks\n- Removed the old villager trading screen")]


# ---------------------------------------------------------------- the four paths, one record
# Each path returns the one answer record (records.Answer) as its front doors get it.

def web(question: str, docs: list[tuple[str, str]], make_settings) -> Answer:
    settings = make_settings({"research": {"use_embeddings": "false"}})
    sources = [Source(title, f"http://site{i}.test/page", passages=[Passage(text)], notes=text, fetched=True,
                      content_hash=f"h{i}") for i, (title, text) in enumerate(docs)]
    result = ResearchResult(question, sources=sources)
    params = ResearchParams.from_settings(settings, use_llm=False, use_cache=False)
    run = Run(result, Services(settings=settings), params, None, None)
    stage_number(run, run.result.sources)
    stage_report(run)
    stage_verify(run)
    return result.answer


def wikipedia(question: str, docs: list[tuple[str, str]], make_settings) -> Answer:
    sources = [CitableSource(i, f"https://en.wikipedia.org/wiki/{title.replace(' ', '_')}", title, [text])
               for i, (title, text) in enumerate(docs, start=1)]
    return wiki.write_answer(question, sources, None, None, [], question_parts(question) or None)


def documents(question: str, docs: list[tuple[str, str]], make_settings) -> Answer:
    hits = [SearchHit(node_id=i, doc_id=i, path=f"/docs/{i}.md", name=f"{title}.md", file_type="md", group="g",
                      index=0, text=text, context="", page=None) for i, (title, text) in enumerate(docs)]
    asked = answer_from_hits(question, hits, None, None, relevance_floor=0, parts=question_parts(question) or None)
    assert [f"{h.path}#{h.location}" for h in asked.hits] == [s.url for s in asked.answer.sources]
    return asked.answer


def chat(question: str, docs: list[tuple[str, str]], make_settings) -> Answer:
    sources = [Source(title, f"http://site{i}.test/page", passages=[Passage(text)], notes=text, n=i,
                      fetched=True) for i, (title, text) in enumerate(docs, start=1)]
    result = ResearchResult("An earlier question", sources=sources, report_markdown="Earlier report [1].")
    exchange = ask_report(result, question, ChatServices())
    assert exchange.question == question and exchange.report_id == result.id
    return exchange.answer


PATHS = [web, wikipedia, documents, chat]


def first_cited(markdown: str) -> str:
    return cited_sentences(markdown)[0][0]


# ---------------------------------------------------------------- the cases

@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("question,docs", [("What did Lorenz eat for breakfast?", LORENZ),
                                           ("How does Acme track people who are not Acme users?", ACQUISITIONS)])
def test_sources_that_do_not_answer_say_so_and_show_the_closest_passages_not_used(path, question, docs,
                                                                                  make_settings):
    out = path(question, docs, make_settings)
    assert out.status == "not_answered" and not out.citations
    assert "do not answer" in out.markdown or "no passage that answers" in out.markdown \
        or "Nothing in your documents answers" in out.markdown
    assert "not used" in out.markdown and not re.search(r"\[\d+\]", out.markdown)
    assert out.closest and all(c.text and c.where and c.score < 1 for c in out.closest)
    assert out.mode == "none"  # no one wrote an answer, in every path
    if path is not web:  # the report lists the sources it read, not cited
        assert not out.sources


def test_a_closest_passage_is_shown_whole_or_to_a_sentence_end_never_cut_just_before_its_end():
    from App_Function_Libraries.Retrieval.answer_markdown import not_answered_markdown
    stiff = ("A stiff starter with less water ferments more slowly and tastes milder; a liquid starter ferments "
             "faster and develops more acidity.")  # 23 words: "acidity" is what a reader looks for
    long = " ".join(["The starter was fed at dawn."] * 6 + ["It rose."])  # 38 words: shown whole
    longer = " ".join(["The starter was fed at dawn and again at dusk by the baker."] * 4)  # 52 words
    run_on = " ".join(["word"] * 60) + "."
    text = not_answered_markdown("Not answered.", [("A", 0.41, stiff), ("B", 0.3, long), ("C", 0.2, longer),
                                                    ("D", 0.1, run_on)])
    lines = text.splitlines()
    assert lines[-4].endswith("develops more acidity.") and lines[-3].endswith("It rose.")
    assert lines[-2].endswith("by the baker. …") and lines[-2].count("baker.") == 3  # 3 sentences = 39 words
    assert lines[-1].endswith(" ".join(["word"] * 25) + " …")


@pytest.mark.parametrize("path", PATHS)
def test_the_lead_is_the_definition_and_no_meta_or_dangling_sentence_is_quoted(path, make_settings):
    out = path("What is a Hermitian matrix?", HERMITIAN, make_settings)
    assert out.status == "answered"
    assert first_cited(out.markdown).startswith("A Hermitian matrix is a complex square matrix")
    assert "Here, we offer" not in out.markdown and "presented above" not in out.markdown
    assert not re.search(r"(^|[-\n]\s*)It is also", out.markdown)  # only ever with the sentence before it


QUARRYLITE = [("Quarrylite", "Quarrylite is for everyone who reads. Quarrylite is an open source research assistant "
               "that quotes the pages it read for every sentence of its answers.")]


@pytest.mark.parametrize("path", PATHS)
def test_the_lead_definition_names_what_the_subject_is(path, make_settings):
    """ "Haystack is for everyone looking to build natural language apps" led an answer to "What is Haystack?"
    ahead of "Haystack is the open source Python framework …": both open "X is", one names what X is."""
    out = path("What is Quarrylite?", QUARRYLITE, make_settings)
    assert first_cited(out.markdown).startswith("Quarrylite is an open source research assistant")
    assert core.is_definition("Quarrylite", "Quarrylite is for everyone who reads.")  # a definition, but weaker
    assert not core.is_definition("Quarrylite", "Quarrylite is for everyone who reads.", names_kind=True)


JOURNAL = [("Beekeeping Journal", "Honey bees dance to show their nest mates where the food is. We watched our honey "
             "bees dance to show where the food is, hour after hour, all through the summer.")]


@pytest.mark.parametrize("path", PATHS)
def test_a_quote_in_another_voice_keeps_its_citation(path, make_settings):
    """A first-person text is quoted with its source named, “…” (Beekeeping Journal) [1]; the name in brackets
    (in Documents "Beekeeping Journal.md (chunk-1)") must not be read as a sentence of its own that carries the
    citation, leaving the quote uncited and marked not supported."""
    out = path("How do honey bees show where the food is?", JOURNAL, make_settings)
    voiced = [s for s, _ in cited_sentences(out.markdown) if "We watched" in s]
    assert voiced and re.fullmatch(r"“We watched[^”]*” \(Beekeeping Journal(\.md \(chunk-1\))?\)", voiced[0])
    assert not [s for s, _ in cited_sentences(out.markdown) if s.startswith("(")]
    held = [c for c in out.citations if "We watched" in c.sentence]
    assert held and "We watched our honey bees dance" in held[0].quote


SPOKEN = [("Hive report", '"We lost half of our honey bee colonies to the mites this winter." A beekeeper said that. '
           '"I counted the honey bee colonies twice," the beekeeper Lena Morr wrote in her spring letter to the '
           'honey bee colonies association.')]


@pytest.mark.parametrize("path", PATHS)
def test_a_text_in_its_own_quotation_marks_gets_no_second_pair(path, make_settings):
    """A sentence that is a quotation already was shown as “"We lost …"”: it keeps its own marks, one pair, with
    its source named; reported speech ('"I counted …," Lena Morr wrote') is the writer's voice, not wrapped."""
    out = path("How many honey bee colonies did the beekeepers lose to the mites?", SPOKEN, make_settings)
    said = [s for s, _ in cited_sentences(out.markdown)]
    lost = [s for s in said if "We lost half" in s]
    assert lost and re.fullmatch(r'"We lost half[^"“”]*" \(Hive report(\.md \(chunk-1\))?\)', lost[0]), said
    assert not [s for s in said if "“\"" in s or "\"”" in s]
    assert all(not s.startswith("“") for s in said if "Lena Morr" in s)
    held = [c for c in out.citations if "We lost half" in c.sentence]
    assert held and held[0].verdict == "supported" and "We lost half of our honey bee colonies" in held[0].quote


DEAL = [("Acme deals", "Acme Corporation bought the messaging app Chatterly for two billion dollars. Analysts "
         "said that Acme Corporation overpaid for the messaging app Chatterly.")]


@pytest.mark.parametrize("path", PATHS)
def test_an_answer_without_the_kind_asked_for_says_so(path, make_settings):
    """"When did Facebook buy WhatsApp?" was answered with the price and no date, as if it answered the question;
    the answer stands (its text clears the floor) and says what it lacks. Control: asked for an amount, which
    the same text gives, it says nothing of the kind."""
    out = path("When did Acme buy Chatterly?", DEAL, make_settings)
    assert out.status == "answered" and "Chatterly" in first_cited(out.markdown)
    assert "*The question asks when; none of the quoted texts gives a year or a date.*" in out.markdown
    control = path("How much did Acme pay for Chatterly?", DEAL, make_settings)
    assert control.status == "answered" and "The question asks" not in control.markdown


@pytest.mark.parametrize("report_format", ["full", "short", "bullets", "table"])
def test_every_report_format_says_what_the_answer_lacks(report_format, make_settings):
    settings = make_settings({"research": {"use_embeddings": "false", "report_format": report_format}})
    sources = [Source("Acme deals", "http://site0.test/page", passages=[Passage(DEAL[0][1])], notes=DEAL[0][1],
                      fetched=True, content_hash="h0")]
    result = ResearchResult("When did Acme buy Chatterly?", sources=sources)
    run = Run(result, Services(settings=settings), ResearchParams.from_settings(settings, use_llm=False,
                                                                              use_cache=False), None, None)
    stage_number(run, run.result.sources)
    stage_report(run)
    assert result.report_markdown.rstrip().endswith(
        "*The question asks when; none of the quoted texts gives a year or a date.*")


CHATTERLY = "Chatterly runs on phones and tablets in forty countries. Chatterly sends messages that vanish."


@pytest.mark.parametrize("question, text, line", [
    ("Who founded Chatterly?", "Chatterly was founded in a dorm room in 2014.",
     "The question asks who; none of the quoted texts gives a name."),
    ("How often does Chatterly send messages?", CHATTERLY,
     "The question asks how often; none of the quoted texts says."),
    ("When did Chatterly start to send messages?", CHATTERLY,
     "The question asks when; none of the quoted texts gives a year or a date."),
    ("When did Acme buy Chatterly?", "Acme bought Chatterly for $19 billion, 40% more than it paid for Snapline.",
     "The question asks when; none of the quoted texts gives a year or a date."),  # money is no time

    ("When did Chatterly's founder retire?", "The 93-year-old founder of Chatterly, aged 93, still sends messages.",
     "The question asks when; none of the quoted texts gives a year or a date."),  # nor is an age
])
def test_what_an_answer_lacks_is_named_by_the_question_s_form(question, text, line):
    d = core.draft(question, [CitableSource(1, "http://a.test/", "Apps", [text])])
    assert d.lead is not None and d.missing == line
    assert core.missing_note(question, [core.Pick("Chatterly is an app that Ada Lovelace founded in 2014 and "
                                                  "that sends messages every day.", 1)]) == ""  # control


@pytest.mark.parametrize("question, text", [
    ("When was the first reference to immunity?", "Thucydides noted in Athens in 430 BC that survivors were immune."),
    ("When did the dynasty end?", "The dynasty ended within five years of the founder's death."),
    ("How many empires used it?", "Dozens of empires used it over the centuries."),
    ("What is Chatterly?", "Public-Private Chatterly (PPC) sends messages that vanish."),  # no line for "what is"
])
def test_no_line_says_an_answer_lacks_what_it_may_give_in_another_form(question, text):
    """The line is a claim about the answer: not made where a text may give the date or number in a form the
    shape rules do not read (on SQuAD questions asked of their pages, such forms drew the line on 24 of 325
    answered "when" questions)."""
    assert core.missing_note(question, [core.Pick(text, 1)]) == ""


@pytest.mark.parametrize("path", PATHS)
def test_markdown_code_and_tex_are_never_shown_raw_and_quotes_are_one_line(path, make_settings):
    out = path("How does sourdough bread rise?", MARKUP, make_settings)
    assert out.citations
    for raw in ("**", "`", "\\[", "](", "e^{"):
        assert raw not in out.markdown, raw
    assert "Sourdough bread rises thanks to a starter of wild yeasts" in out.markdown
    for c in out.citations:
        assert "\n" not in c.quote and "\n" not in c.sentence


@pytest.mark.parametrize("path", PATHS)
def test_list_items_are_quotable_as_what_they_are(path, make_settings):
    out = path("What was added in Widgetcraft 1.8?", CHANGELOG, make_settings)
    assert out.status == "answered"
    assert "Added the ocelot mob to jungle biomes" in out.markdown or "Added granite" in out.markdown
    assert "+ Added" not in out.markdown


KIT = [("Paper crane guide", "Paper cranes are folded from one square sheet of origami paper.\nWhat you need for a "
        "paper crane:\n- Origami paper\n- Bone folder\n- Ruler\n- Tweezers\nFold the origami paper in half along "
        "both diagonals first.")]


@pytest.mark.parametrize("path", PATHS)
def test_a_list_of_short_items_is_quoted_whole_under_its_lead_in(path, make_settings):
    """A "What you'll need:" list of one- and two-word items was never quoted (each item too short to quote
    alone); it is quoted as one text, its lead-in then its items, verified against the source."""
    out = path("What do you need for a paper crane?", KIT, make_settings)
    listed = "What you need for a paper crane: Origami paper; Bone folder; Ruler; Tweezers"
    assert listed in out.markdown, out.markdown
    held = [c for c in out.citations if listed in c.sentence]
    assert held and held[0].verdict == "supported" and "Bone folder" in held[0].quote


CRANE = [("Paper crane guide", "Paper cranes are folded from one square sheet of origami paper. A paper crane is "
          "a traditional symbol of peace and long life in Japan.\nWhat you'll need:\n- Origami paper\n- Bone "
          "folder\n- Ruler\n- Tweezers\nFold the origami paper in half along both diagonals first.")]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("question", ["What do you need to fold a paper crane?",
                                      "What materials are needed to fold a paper crane?"])
def test_a_list_of_what_is_needed_leads_an_answer_to_what_is_needed(path, question, make_settings):
    """"What do you need to make a cloche terrarium?" on a real how-to page led with a sentence about cloches and
    quoted the page's "What You'll Need:" list second. A list under a lead-in naming what is needed answers a
    question asking what is needed: it leads."""
    out = path(question, CRANE, make_settings)
    assert first_cited(out.markdown).startswith("What you'll need: Origami paper; Bone folder"), out.markdown


def test_control_a_list_of_what_is_needed_does_not_lead_an_answer_to_another_question(make_settings):
    out = web("What does a paper crane stand for in Japan?", CRANE, make_settings)
    assert first_cited(out.markdown).startswith("A paper crane is a traditional symbol of peace"), out.markdown


CACTUS = [("How to pot a cactus", "Potting a cactus takes ten minutes and a pair of thick leather gloves.\nStep 1\n"
           "Choose a clay pot with a drainage hole slightly wider than the cactus itself.\nStep 2\nFill the pot "
           "halfway with gritty cactus soil mixed with coarse sand.\nStep 3\nLower the cactus into the pot while "
           "wearing the gloves, then fill around it with more soil.\nStep 4\nWait a week before watering the "
           "cactus so that its roots can heal.")]


@pytest.mark.parametrize("path", PATHS)
def test_a_how_to_question_is_answered_by_its_steps_in_order(path, make_settings):
    """"How do you build a terrarium?" on a real how-to page quoted care tips, and its steps (each after a line
    "Step N") without their labels, in order of relevance. The steps come with their labels, in their order,
    the first one leading; verified against the source."""
    out = path("How do you pot a cactus?", CACTUS, make_settings)
    said = [s for s, _ in cited_sentences(out.markdown)]
    steps = [s for s in said if s.startswith("Step ")]
    assert said[0].startswith("Step 1: Choose a clay pot"), said
    assert [s.split(":")[0] for s in steps] == ["Step 1", "Step 2", "Step 3", "Step 4"]
    assert all(c.verdict == "supported" for c in out.citations if c.sentence.startswith("Step "))


GLOVES = [("How to pot a cactus", "Potting a cactus takes ten minutes.\nStep 1\nChoose a clay pot with a drainage "
           "hole.\nStep 2\nFill the pot halfway with gritty soil.\nStep 3\nLower the cactus into the cactus pot "
           "with gloves on. In this case, thick leather gloves keep the cactus spines out of your hands.\nStep 4\n"
           "Wait a week before watering so that its roots can heal.")]


@pytest.mark.parametrize("path", PATHS)
def test_a_step_quoted_with_its_next_sentence_stays_in_its_how_to(path, make_settings):
    """A step whose second sentence needs its first ("In this case, …") is quoted both alone and with it. Read
    as two steps 3, the longer one began a new sequence, and "How do you build a terrarium?" on a real page was
    answered by steps 7-9 of 9. It is one step: the answer is steps 1-4, in order."""
    out = path("How do you pot a cactus?", GLOVES, make_settings)
    lines = [line.removeprefix("- ") for line in out.markdown.splitlines()]
    assert [line.split(":")[0] for line in lines if line.startswith("Step ")] == ["Step 1", "Step 2", "Step 3",
                                                                                  "Step 4"], out.markdown
    assert any(line.startswith("Step 3: Lower the cactus") and "In this case" in line for line in lines)


TEA = [("How to brew tea", "Brewing tea takes five minutes and a clean pot.\nLoose leaf tea\n"
        "1. Boil fresh water in a kettle until it bubbles hard.\n2. Warm the teapot by rinsing it with a little hot "
        "water.\n3. Add one spoon of loose leaves for each cup to the pot.\n4. Pour the water over the leaves and "
        "let them steep for four minutes.\nTea bags\n1. Heat the water in a kettle until it just boils.\n2. Put "
        "one tea bag in each cup you want to fill.\n3. Pour the water over the bag and let it steep for three "
        "minutes.")]


@pytest.mark.parametrize("path", PATHS)
def test_a_numbered_list_is_a_how_to_s_steps(path, make_settings):
    """A how-to's steps are most often a numbered list ("1. …", as the page reader gives an <ol>): its items keep
    their numbers and answer a how-to question in their order, the first one leading though it shares no word
    with the question ("Boil fresh water …"), and only the steps of its own list: not the tea-bag method's
    steps 1-3 that follow on the same page."""
    out = path("How do you brew loose leaf tea?", TEA, make_settings)
    said = [s for s, _ in cited_sentences(out.markdown)]
    assert said[0].startswith("Boil fresh water in a kettle"), said
    numbered = [line for line in out.markdown.splitlines() if line[:1].isdigit()]  # one numbered list, no bullets
    assert [line.split(".")[0] for line in numbered] == ["1", "2", "3", "4"], out.markdown
    assert numbered[0].startswith("1. Boil fresh water") and numbered[3].startswith("4. Pour the water over the leaves")
    assert not any("tea bag" in s or "Heat the water" in s for s in said), said
    assert all(c.verdict == "supported" for c in out.citations)


LONG_HOW_TO = [("How to repot an orchid", "Repotting an orchid every two years keeps its roots healthy.\n" + "\n".join(
    f"{i}. {step}" for i, step in enumerate([
        "Water the orchid a day before so the roots bend instead of snapping.",
        "Ease the plant out of its old pot by squeezing the sides gently.",
        "Shake off the old bark and rinse the roots in lukewarm water.",
        "Cut away any roots that are brown, hollow or mushy with clean scissors.",
        "Choose a pot only slightly larger than the healthy root mass.",
        "Pour a layer of fresh orchid bark into the bottom of the pot.",
        "Set the plant in the pot with the base of its leaves level with the rim.",
        "Fill around the roots with more bark and tap the pot to settle it.",
        "Wait a week before watering again so that cut roots can seal."], start=1)))]


@pytest.mark.parametrize("path", PATHS)
def test_a_how_to_answer_gives_every_step(path, make_settings):
    """A how-to's nine steps are its answer: all nine, not the first six an answer quotes otherwise."""
    out = path("How do you repot an orchid?", LONG_HOW_TO, make_settings)
    numbered = [line.split(".")[0] for line in out.markdown.splitlines() if line[:1].isdigit()]
    assert numbered == [str(i) for i in range(1, 10)], out.markdown


def test_control_a_question_that_is_no_how_to_keeps_the_order_of_relevance(make_settings):
    """Asked how long to wait, not how to pot it: the step that answers leads, not the first one."""
    out = web("How long should you wait before watering a potted cactus?", CACTUS, make_settings)
    assert first_cited(out.markdown).startswith("Step 4: Wait a week before watering")


UNITARY = [("Unitary matrix", "Unitary matrix\nIn linear algebra, a unitary matrix is a complex square matrix whose "
            "conjugate transpose is also its inverse, for every such matrix U: or in matrix form:\n- .\nUnitary "
            "matrices can be seen as the complex extension of real orthogonal matrices. The main properties of a "
            "unitary matrix are:\n- .\nUnitary matrices are named for the unitary group they form.")]


@pytest.mark.parametrize("path", PATHS)
def test_a_definition_whose_formula_was_lost_is_quoted_up_to_its_colon(path, make_settings):
    """"What is a Hermitian matrix?" on the real Wikipedia page missed its definition: the sentence ends "for all
    indices i and j: or in matrix form:" once its formulas are dropped, so it had no end and was never quoted.
    It is quoted up to its first colon, and leads. A lead-in that says nothing before its colon ("… are:") is
    still not quoted."""
    out = path("What is a unitary matrix?", UNITARY, make_settings)
    said = [s for s, _ in cited_sentences(out.markdown)]
    assert said[0] == ("In linear algebra, a unitary matrix is a complex square matrix whose conjugate transpose is "
                       "also its inverse, for every such matrix U:"), out.markdown
    assert not any(s.endswith("are:") or "matrix form" in s for s in said), said
    assert all(c.verdict == verifier.SUPPORTED for c in out.citations)


PARTY = [("Birthday party costs", "The average birthday party for a child cost parents about $400 in 2019, and "
           "most of that money went on food for the party. Instead of a catered dinner, serve simple finger food "
           "such as sandwiches and fruit. Guests tend to eat less at an afternoon party, which keeps the bill down.")]


@pytest.mark.parametrize("path", PATHS)
def test_a_how_to_question_without_steps_is_led_by_advice(path, make_settings):
    """"How can you save money on food for a graduation party?" on a real page of tips led with the average cost
    of a party, a fact that answers nothing asked. A how-to without numbered steps leads with a text telling the
    reader what to do."""
    out = path("How can you save money on food for a birthday party?", PARTY, make_settings)
    assert first_cited(out.markdown).startswith("Instead of a catered dinner, serve simple finger food"), out.markdown


def test_control_advice_is_what_opens_with_an_instruction_or_says_you_can():
    from App_Function_Libraries.Retrieval.advice import gives_advice
    assert gives_advice("Opt for easy food such as pizza.") and gives_advice("If you can, buy the flour in bulk.")
    assert gives_advice("You can save by buying in bulk.") and gives_advice("3. Add the flour and stir.")
    assert not gives_advice("Water is essential for plants.") and not gives_advice("Use of pesticides has grown.")
    assert not gives_advice(PARTY[0][1]) and not gives_advice("Guests tend to eat less at an afternoon party.")


@pytest.mark.parametrize("path", PATHS)
def test_every_quote_holds_its_cited_sentence_and_is_marked_supported(path, make_settings):
    out = path("What is a Hermitian matrix?", HERMITIAN, make_settings)
    assert out.citations
    for c in out.citations:
        assert re.sub(r"\W+", " ", c.sentence).strip().lower() in re.sub(r"\W+", " ", c.quote).lower()
        assert c.verdict == verifier.SUPPORTED and c.passage and c.sentence.rstrip(".") in c.passage


@pytest.mark.parametrize("path", PATHS)
def test_numbers_have_no_gaps_cited_first(path, make_settings):
    docs = [("Weather", "Rain fell on the coast for most of the week."), *HERMITIAN,
            ("Cooking", "Boil the pasta for ten minutes in salted water.")]
    out = path("What is a Hermitian matrix?", docs, make_settings)
    cited = sorted({c.n for c in out.citations})
    in_text = sorted({n for _s, ns in cited_sentences(out.markdown) for n in ns})
    assert cited == in_text == list(range(1, len(cited) + 1)) and cited
    assert [s.n for s in out.sources] == list(range(1, len(out.sources) + 1))  # the list has no gap either
    assert [s.n for s in out.sources if s.cited] == cited  # cited first
    titles = {s.n: s.title for s in out.sources}
    assert {titles[n].removesuffix(".md (chunk-1)") for n in cited} <= {"Hermitian matrices", "Spectral theorem"}
    for c in out.citations:  # each number still names the source that holds its quote
        assert c.url == next(s.url for s in out.sources if s.n == c.n)
    if path is chat:  # the answer's own short list: the cited sources, each keeping the report's number (2, 3)
        assert all(s.cited for s in out.sources) and {s.report_n for s in out.sources} <= {2, 3}
        assert all(s.title == docs[s.report_n - 1][0] for s in out.sources)


@pytest.mark.parametrize("path", PATHS)
def test_a_question_answered_in_part_says_which_part_is_not(path, make_settings):
    out = path("What was added in Widgetcraft 1.8 and who designed the Widgetcraft logo?", CHANGELOG,
               make_settings)
    assert out.status == "partly" and out.citations
    assert any("logo" in part for part in out.unanswered)
    assert "Not answered by the sources" in out.markdown
    assert "logo" in out.markdown.split("Not answered by the sources")[1]


def test_control_a_question_answered_in_full_is_not_partly(make_settings):
    for path in PATHS:
        out = path("What was added in Widgetcraft 1.8?", CHANGELOG, make_settings)
        assert out.status == "answered" and not out.unanswered, path.__name__


# ---------------------------------------------------------------- the verifier on its own

def test_a_sentence_its_cited_source_does_not_support_is_marked_and_counted():
    sources = [CitableSource(1, "http://a.test", "A", ["Honey bees dance to show the direction of food."]),
               CitableSource(2, "http://b.test", "B", ["Ants lay pheromone trails that lead to food."])]
    md = "Honey bees dance to show the direction of food [2]. Ants follow pheromone trails to food [2]."
    answer = core.finish(md, sources, None, "llm")
    verdicts = [(c.sentence, c.verdict) for c in answer.citations]
    assert verdicts[0][1] == verifier.NOT_SUPPORTED and verdicts[1][1] in (verifier.SUPPORTED, verifier.PARTLY)
    assert answer.unsupported_citations == 1
    assert answer.markdown.count(verifier.UNSUPPORTED_MARK) == 1
    assert answer.markdown.index(verifier.UNSUPPORTED_MARK) < answer.markdown.index("Ants")
    again = verifier.verify(answer.markdown, sources)  # verifying twice marks once
    assert again.markdown.count(verifier.UNSUPPORTED_MARK) == 1


def test_control_a_source_that_says_it_is_supported():
    sources = [CitableSource(1, "http://a.test", "A", ["Honey bees dance to show the direction of food."])]
    answer = core.finish("Bees dance to show the direction of food [1].", sources, None, "llm")
    assert answer.citations[0].verdict == verifier.SUPPORTED and answer.unsupported_citations == 0


def test_a_sentence_without_the_accents_of_its_source_is_supported():
    """An LLM writes "Sao Paulo" and "Temujin" where the page says "São Paulo" and "Temüjin": the same words."""
    page = "Temüjin's envoys reached São Paulo's distant coast in winter."
    sources = [CitableSource(1, "http://a.test", "A", [page])]
    answer = core.finish("Temujin's envoys reached the distant coast of Sao Paulo in winter [1].", sources, None, "llm")
    assert answer.citations[0].verdict == verifier.SUPPORTED


def test_a_number_the_source_does_not_state_is_not_fully_supported():
    sources = [CitableSource(1, "http://a.test", "A", ["The bridge opened to traffic in 1937 after four years."])]
    c = verifier.verify("The bridge opened to traffic in 1941 after four years [1].", sources).citations[0]
    assert c.verdict != verifier.SUPPORTED


def test_a_part_of_the_question_no_source_answers_is_named(make_settings):
    docs = CHANGELOG + [("Server crash exploit", "Attackers can crash Widgetcraft servers by sending oversized "
                         "book packets. The malformed packet makes the server parse nested data until it "
                         "runs out of memory.")]
    question = "What was added in Widgetcraft 1.8 and how can attackers crash Widgetcraft servers?"
    out = web(question, docs, make_settings)
    sections = dict(re.findall(r"### (.+)\n((?:- .+\n?)+)", out.markdown))
    added = next(v for k, v in sections.items() if "added" in k.lower())
    crash = next((v for k, v in sections.items() if "crash" in k.lower()), "")
    assert "Added" in added and "packet" not in added
    assert "ocelot" not in crash and "Added" not in crash
    assert "packet" in crash or "packet" in first_cited(out.markdown)  # the lead may be its answer
    assert out.status == "answered" and "Not answered" not in out.markdown
    partial = web("What was added in Widgetcraft 1.8 and who designed the Widgetcraft logo?", CHANGELOG,
                  make_settings)
    assert partial.status == "partly" and "Not answered by the sources" in partial.markdown
    assert "logo" in partial.markdown.split("Not answered by the sources")[1]


def test_exports_carry_each_quote_and_say_when_its_source_does_not_support_it():
    from App_Function_Libraries.DB.citation_styles import Reference, Span
    from App_Function_Libraries.DB.export_print import evidence_html, evidence_items, sources_html
    refs = [Reference(1, (Span("Bees"),), "http://a.test")]
    cites = [Citation(1, "Bees dance [1].", "http://a.test", "Honey bees dance.", verdict="supported"),
             Citation(1, "Ants follow [1].", "http://a.test", "Ants lay trails.", verdict="not supported")]
    items = evidence_items(cites, {1: "Bees"})
    page = sources_html(refs, 1, items) + evidence_html(items)
    # each quote once, in Evidence, the source's entry linking to both (issue 22 item 3)
    assert page.count("Honey bees dance.") == 1 and page.count("Ants lay trails.") == 1
    assert 'href="#evidence-1"' in page and 'href="#evidence-2"' in page
    assert "<mark>Honey bees dance.</mark>" in page
    assert "not supported by this source" in page and "<mark>Ants lay trails.</mark>" not in page


def test_the_json_view_of_an_answer_lists_its_own_numbered_sources_with_their_kind(make_settings):
    """MCP tools and the HTTP API answer the record as it is (quarry.plain.answer_out)."""
    from App_Function_Libraries.quarry.plain import answer_out
    from App_Function_Libraries.Documents.doc_types import DocsAsked
    from App_Function_Libraries.Wikipedia.answer import WikiAsked
    docs = [("Weather", "Rain fell on the coast for most of the week."), *HERMITIAN]
    question = "What is a Hermitian matrix?"
    for asked, kind in ((DocsAsked(question, documents(question, docs, make_settings)), "document"),
                        (WikiAsked(question, wikipedia(question, docs, make_settings)), "wikipedia")):
        out = answer_out(asked)
        assert out["question"] == question and out["answer_status"] == "answered" and out["citations"]
        assert [s["n"] for s in out["sources"]] == list(range(1, len(out["sources"]) + 1))
        assert {s["kind"] for s in out["sources"]} == {kind}
        assert {c["n"] for c in out["citations"]} <= {s["n"] for s in out["sources"]}


def test_the_json_view_of_an_answer_that_does_not_answer_carries_its_closest_passages(make_settings):
    """Wikipedia and Documents answers on MCP and the HTTP API say which passages came closest (not used), as a
    research does (research_out's `closest`), and every citation carries its verdict and passage."""
    from App_Function_Libraries.quarry.plain import answer_out
    from App_Function_Libraries.Documents.doc_types import DocsAsked
    from App_Function_Libraries.Wikipedia.answer import WikiAsked
    question = "What did Lorenz eat for breakfast?"
    for asked in (DocsAsked(question, documents(question, LORENZ, make_settings)),
                  WikiAsked(question, wikipedia(question, LORENZ, make_settings))):
        out = answer_out(asked)
        assert out["answer_status"] == "not_answered" and not out["citations"]
        assert out["closest"] and all({"where", "score", "text"} <= set(c) for c in out["closest"])
    answered = answer_out(WikiAsked("What is a Hermitian matrix?",
                                    wikipedia("What is a Hermitian matrix?", HERMITIAN, make_settings)))
    assert answered["closest"] == [] and all({"verdict", "passage"} <= set(c) for c in answered["citations"])


def test_only_the_how_to_s_own_steps_lengthen_an_answer():
    """Every step of the answering how-to is shown, however many; the steps of another page that follow them are
    supporting texts like any other, within the answer's usual six texts (not counted as the how-to's steps)."""
    other = [("Cactus care calendar", "Cactus care changes with the seasons.\n" + "\n".join(
        f"Step {i}\n{text}" for i, text in enumerate([
            "Water a potted cactus every two weeks in summer.", "Water a potted cactus once a month in autumn.",
            "Keep a potted cactus dry and cool in winter.", "Move a potted cactus to a sunny window in spring.",
            "Feed a potted cactus with weak fertiliser in early summer.",
            "Check a potted cactus for pests after watering."], start=1)))]
    sources = [CitableSource(i, f"http://site{i}.test/page", title, [text])
               for i, (title, text) in enumerate(CACTUS + other, start=1)]
    d = core.draft("How do you pot a cactus?", sources, None)
    assert [p.text.split(":")[0] for p in [d.lead, *d.picks]][:4] == ["Step 1", "Step 2", "Step 3", "Step 4"]
    assert all(p.n == 1 for p in [d.lead, *d.picks][:4]) and len([d.lead, *d.picks]) <= 6


HIVES = [("Hive losses", "Beekeepers met in the spring to compare their winter losses. \"Count the hives lost to mites "
          "since 2010 and it is under a thousand. Count the hives lost to pesticides and it is in the tens of "
          "thousands,\" the beekeeper Ana Ruiz said. The survey ran for a year.")]
MITES = [("Varroa mites", "But First: What's a Varroa mite?\n\nIt's a parasite that feeds on honey bees and spreads "
          "viruses between colonies.\n\nAny colony in Europe can carry the mites, keepers say.")]


@pytest.mark.parametrize("path", PATHS)
def test_a_quotation_over_sentences_and_a_question_s_pronoun_answer_lead_whole(path, make_settings):
    """A quotation that runs over two sentences leads whole, closed and with its speaker (it led with its first
    sentence, a mark left open); "It's a parasite …" under the heading "What's a Varroa mite?" is the
    definition, quoted with its question. Each citation's quote holds its sentence on every path."""
    def lead(answer: Answer) -> str:  # the first cited line (the web report opens with a line on its mode)
        return next(line for line in answer.markdown.splitlines() if "[1]" in line)
    out = path("How many hives are lost to pesticides?", HIVES, make_settings)
    assert lead(out).startswith(
        "\"Count the hives lost to mites since 2010 and it is under a thousand. Count the hives lost to pesticides "
        "and it is in the tens of thousands,\" the beekeeper Ana Ruiz said. [1]"), out.markdown
    out2 = path("What are Varroa mites?", MITES, make_settings)
    assert lead(out2).startswith(
        "What's a Varroa mite? It's a parasite that feeds on honey bees and spreads viruses between colonies."), \
        out2.markdown
    for answer in (out, out2):
        assert answer.citations and all(c.verdict == verifier.SUPPORTED for c in answer.citations), answer.citations


QUILL = [("Ada Quill", "Ada Quill met the editor Brian Fogg of Redwood Press at a fair in 2019. Ada Quill is a "
          "software engineer who designs accessible readers for blind students.")]


def _lead(answer: Answer) -> str:
    return next(line for line in answer.markdown.splitlines() if "[1]" in line)


@pytest.mark.parametrize("path", PATHS)
def test_who_is_x_leads_with_what_x_is(path, make_settings):
    """"Who is Ada Quill?" asks what she is, not for a name other than hers: the sentence that says it leads,
    not the one naming someone she met."""
    out = path("Who is Ada Quill?", QUILL, make_settings)
    assert "Ada Quill is a software engineer" in _lead(out), out.markdown


def test_control_read_as_asking_for_a_name_the_other_name_leads(make_settings, monkeypatch):
    """Without the "who is X" form, the question asks for a name and the sentence naming Brian Fogg leads."""
    from App_Function_Libraries.Retrieval import question_forms
    monkeypatch.setattr(question_forms, "_WHO_IS", re.compile(r"(?!x)x"))
    out = documents("Who is Ada Quill?", QUILL, make_settings)
    assert "Brian Fogg" in _lead(out), out.markdown


COCOA = [("Cocoa", "Chocolate makers come and go, and because of Ruiz and his shop in town, cocoa beans came cheap. "
          "The first cocoa beans were grown in the upper Amazon basin, long before chocolate reached Europe.")]


@pytest.mark.parametrize("path", PATHS)
def test_where_is_answered_by_a_place_not_by_any_name(path, make_settings):
    """"Where did cocoa beans come from?" asks for a place: a name after a word of place ("in the upper Amazon
    basin") gives one; "because of Ruiz" names a man, which answers no "where"."""
    out = path("Where did cocoa beans come from?", COCOA, make_settings)
    assert "upper Amazon basin" in _lead(out), out.markdown


def test_a_name_is_a_place_after_a_word_of_place():
    from App_Function_Libraries.Retrieval.question_forms import has_kind, may_give
    q = "Where did cocoa beans come from?"
    assert has_kind(q, "They were grown in the upper Amazon basin.", "where")
    assert has_kind(q, "The beans came from Ecuador.", "where")
    assert not has_kind(q, "Because of Ruiz and his shop, the beans came cheap.", "where")
    assert may_give(q, "Because of Ruiz and his shop, the beans came cheap.", "where")  # leniently, any name


NEON = [("Glow tubes", "Glow tubes were invented in Europe, and they seemed dazzlingly futuristic to the crowds. "
         "The engineer Georges Claude held the patent on glow tubes and sold them to sign makers.")]


def test_who_is_not_answered_by_a_place():
    """"Who invented glow tubes?": "debuted in Europe" names a place, not who; the inventor's sentence has the
    shape asked for."""
    from App_Function_Libraries.Retrieval.question_forms import has_kind
    q = "Who invented glow tubes?"
    assert not has_kind(q, "When glow tubes debuted in Europe, they seemed dazzlingly futuristic.", "who")
    assert has_kind(q, "In Paris, the engineer Georges Claude showed the first tube.", "who")  # the man, not Paris
    assert has_kind(q, "The idea first appears in Einstein's notes on light.", "who")  # a person's work, in it


@pytest.mark.parametrize("path", PATHS)
def test_who_leads_with_the_person_not_the_place(path, make_settings):
    """The sentence placing the invention in Europe is the more relevant; the one naming the man leads."""
    out = path("Who invented glow tubes?", NEON, make_settings)
    assert "Georges Claude" in _lead(out), out.markdown


OUTLIERS = [("Sales outliers", "I wanted to find anomalies in our sales data before customers did, so every night I "
             "looked for anomalies in the sales data. A z-score is an easy way to get started with anomaly "
             "detection, without any machine learning.")]


@pytest.mark.parametrize("path", PATHS)
def test_a_how_to_without_advice_is_led_by_a_way_to_do_it(path, make_settings):
    """"How do you find anomalies in sales data?" on a page with no instruction: the text naming a way to do it
    leads, not the writer's story of looking, the more relevant (the SQL anomalies page led with such a story)."""
    out = path("How do you find anomalies in sales data?", OUTLIERS, make_settings)
    assert "A z-score is an easy way" in _lead(out), out.markdown


def test_control_without_the_way_the_writer_s_story_leads(make_settings, monkeypatch):
    monkeypatch.setattr(core, "names_a_way", lambda text: False)
    out = documents("How do you find anomalies in sales data?", OUTLIERS, make_settings)
    assert "every night I looked" in _lead(out), out.markdown


def test_a_way_to_do_it_is_named_and_is_weaker_than_advice():
    from App_Function_Libraries.Retrieval.advice import gives_advice, names_a_way
    assert names_a_way("A z-score is an easy way to find anomalies.")
    assert names_a_way("The best way to descale a kettle is to boil vinegar in it.")
    assert names_a_way("Node.js provides a way to collect data about CPU use.")
    assert not names_a_way("There is no way to know.") and not names_a_way("I started looking for ways to help.")
    assert not gives_advice("A z-score is an easy way to find anomalies.")  # a statement, not an instruction
    out = core.draft("How can you save money on food for a birthday party?",
                     [CitableSource(1, "http://t.test/p", "Party", [PARTY[0][1] + " Parties are a great way to "
                                                                     "celebrate a birthday with friends."])])
    assert out.lead is not None and out.lead.text.startswith("Instead of a catered dinner"), out.lead


REFERENCED = [("Keeper's claims", "The inspector was hired in May. According to the inspector, the keeper remarked, "
               "\"There's a thousand hives in it for you if you can count them.\":54–57 :64 This has been noted as an "
               "odd claim from a keeper who owned few hives.")]


@pytest.mark.parametrize("path", PATHS)
def test_the_quote_writes_the_sentence_as_the_answer_does(path, make_settings):
    """An editor's page reference left out (":54–57") leaves the page's '." :64 This'. The answer's sentence keeps
    that space, as the page and the stored quote write it, so the quote holds the sentence character for
    character (with the space taken out, '.":64', the SQuAD bench counted the quote as not holding it)."""
    out = path("What did the keeper remark about a thousand hives?", REFERENCED, make_settings)
    assert out.citations
    for c in out.citations:
        assert c.sentence.rstrip(".") in c.quote, (c.sentence, c.quote)


SNAPLINE = [("Acme and Snapline", "Acme Corporation is just one owner of photo apps: Acme owns Snapline, Chatterly and "
             "dozens of other apps."),
            ("Acme deals", "The founder brokered the $1 billion purchase of Snapline himself, years ago.")]


@pytest.mark.parametrize("path", PATHS)
def test_how_much_was_paid_is_answered_by_an_amount_of_money(path, make_settings):
    """"How much did Acme pay for Snapline?" asks for money: "just one owner" and "dozens of apps" are numbers,
    but no price. The sentence with the price, less relevant by its words, leads."""
    out = path("How much did Acme pay for Snapline?", SNAPLINE, make_settings)
    assert "$1 billion" in _lead(out), out.markdown


def test_money_is_asked_by_the_question_s_verb_and_given_by_a_currency():
    from App_Function_Libraries.Retrieval.question_forms import asked_for, has_kind, may_give
    for q in ("How much did Acme pay for Snapline?", "How much does the headset cost?", "How expensive is it?",
              "How much money did the film make?", "What is the price of the headset?", "How much is it worth?"):
        assert asked_for(q) == "money", q
    for q in ("How much time did they spend on it?", "How much water does a cactus need?",
              "How much of the budget was spent?"):  # control: what is measured is named, and it is no money
        assert asked_for(q) == "number", q
    q = "How much does the headset cost?"
    for text in ("It costs $3,499.", "It sells for US$35 in shops.", "It costs 10 euros.", "It costs €3.5m.",
                 "They paid two million dollars for it."):
        assert has_kind(q, text, "money"), text
    assert not has_kind(q, "It is just one of dozens of headsets.", "money")
    assert may_give(q, "It sells for 35 at launch.", "money")  # leniently, a bare figure may be a price
    assert may_give(q, "The app is free to download.", "money")
    assert not may_give(q, "It doubles in volume within four to eight hours of feeding.", "money")  # no price
    q = "How much did Acme pay for Chatterly?"
    d = core.draft(q, [CitableSource(1, "http://a.test/", "Apps", ["Acme bought Chatterly after long talks with its "
                                                                   "founders."])])
    assert d.lead is not None and d.missing == ("The question asks for an amount of money; none of the quoted "
                                                "texts gives one.")
    assert core.missing_note(q, [core.Pick("Acme bought Chatterly for $2 billion.", 1)]) == ""  # control


PLANT = [("Acme plants", "Acme runs plants in Denver, Austin and Reno. Acme closed its big tractor plant in downtown "
          "Denver in May 2020, and its workers moved to the plant in Austin."),
         ("Denver news", "Acme made tractor parts in Denver for sixty years. The company closed the big tractor plant "
          "in downtown Denver because its machines were too old to repair.")]


@pytest.mark.parametrize("path", PATHS)
def test_why_is_answered_by_the_text_that_gives_the_reason(path, make_settings):
    """"Why did Acme close …?": the sentence that says "because …" leads the one that only says the plant closed,
    which holds one more of the question's words ("Acme")."""
    out = path("Why did Acme close its big tractor plant in downtown Denver?", PLANT, make_settings)
    assert "because its machines were too old" in _lead(out), out.markdown


def test_control_without_its_reason_the_text_holding_more_of_the_question_leads(make_settings):
    plant = [(title, text.replace("because", "and")) for title, text in PLANT]
    out = documents("Why did Acme close its big tractor plant in downtown Denver?", plant, make_settings)
    assert "in May 2020" in _lead(out), out.markdown


def test_a_reason_is_given_in_so_many_words():
    from App_Function_Libraries.Retrieval.cues import asks_reason, gives_reason
    for q in ("Why did oil prices rise?", "For what reason was the plant closed?", "How come it rains?",
              "What was the main reason for the strike?"):
        assert asks_reason(q), q
    for q in ("What is a tractor?", "Who knows why it rains?", "When did the plant close?"):
        assert not asks_reason(q), q
    for text in ("Because oil was priced in dollars, income fell.", "The sea is rising due to subsidence.",
                 "They went to jail as a way of continuing their protest.", "It closed in order to save money.",
                 "Colleges are established to serve the public.", "They must be tough enough to withstand waves.",
                 "That is why the plant closed.", "The reason for the strike was pay."):
        assert gives_reason(text), text
    for text in ("The plant has run since 1990.", "We might ask why disobedience must be public.",
                 "Since its introduction, ATF has become a building block.", "A web bug designed to identify me.",
                 "Old oil was withdrawn from the market, creating scarcity.", "It has been open since the war."):
        assert not gives_reason(text), text


@pytest.mark.parametrize("question, docs, cue, plain, first", [
    ("What is an example of a big tractor part made in downtown Denver by Acme?",
     [("Acme parts", "Acme runs plants in Denver, Austin and Reno. Acme made big tractor parts in downtown Denver for "
       "sixty years, and sold them across the state."),
      ("Denver news", "Acme made tractor engines in Denver for sixty years. The company made big tractor parts in "
       "downtown Denver, such as gearboxes and axles.")], "such as gearboxes", "and gearboxes", "across the state")])
def test_an_example_stated_as_asked_leads_an_equally_relevant_text(question, docs, cue, plain, first):
    """"What is an example of …" is answered by "such as …"; control: with those words said otherwise, the first
    of two texts as relevant leads."""
    from App_Function_Libraries.Retrieval.cues import asks_example, gives_example
    sources = [CitableSource(i, f"http://s{i}.test/", t, [x]) for i, (t, x) in enumerate(docs, start=1)]
    assert cue in core.draft(question, sources, None).lead.text
    plain_sources = [CitableSource(s.n, s.url, s.title, [p.replace(cue, plain) for p in s.passages]) for s in sources]
    assert first in core.draft(question, plain_sources, None).lead.text
    assert asks_example("What are two examples of jawless fish?") and not asks_example("X is an example of what?")
    assert gives_example("Drugs (e.g., Vicodin) are sold.") and not gives_example("It sold well in shops.")


def test_a_weekday_says_when():
    from App_Function_Libraries.Retrieval.question_forms import has_kind
    q = "When was the coup in Zimbabwe?"
    assert has_kind(q, "Tuesday night's coup ended his 37-year rule.", "when")
    assert has_kind(q, "The army took over on Wednesday.", "when")
    assert not has_kind(q, "The coup ended his long rule.", "when")  # control


QUILL_LAB = [("Lab history", "When Ada Quill arrived at the lab in the summer of 1959, she had a fresh math degree. "
              "The lab's computer filled a whole room and needed constant care. The weather models ran for days on "
              "it. Quill, who popularized the term flight software, later led the team that wrote the code for the "
              "Skylark station.")]


@pytest.mark.parametrize("path", PATHS)
def test_a_person_called_by_surname_on_a_page_naming_them_in_full_is_named(path, make_settings):
    """The page names Ada Quill in full once, then calls her Quill: "Quill, who popularized …, later led the team
    …" answers "Which team did Ada Quill lead?" as if it said her full name."""
    out = path("Which team did Ada Quill lead?", QUILL_LAB, make_settings)
    assert "later led the team" in _lead(out), out.markdown


def test_a_surname_stands_for_a_full_name_only_alone_and_where_the_page_has_it():
    from App_Function_Libraries.Retrieval.names import named_by_surname, surnames

    def called(question: str, text: str, page: str) -> str:
        return named_by_surname(text, surnames(question, page))

    page = " ".join(text for _t, text in QUILL_LAB) + " The Vision Pro is new. Luis de Miranda wrote on neon."
    q = "Which team did Ada Quill lead?"
    assert called(q, "Quill, who popularized the term, later led the team.", page) == "Ada Quill"
    assert called(q, "When Quill arrived, she met the team.", page) == "Ada Quill"
    assert called("Who is Luis de Miranda?", "De Miranda notes that neon glows.", page) == "Luis de Miranda"
    assert called(q, "Ada Quill arrived.", page) == ""  # named in full already
    assert called(q, "The Quill Pen Company sold pens.", page) == ""  # within another name
    assert called(q, "Quill left.", "Quill left.") == ""  # the page never names her in full
    assert called("How much does the Vision Pro cost?", "The Meta Quest Pro costs $1,000.", page) == ""
    america = "Britain lost its colonies in North America. Settlers in America farmed tobacco."  # a place
    assert called("When did Britain lose North America?", "Settlers in America farmed tobacco.", america) == ""
    treaties = "The Lisbon Treaty was signed in 2007. The Treaty of Rome came first."  # another name, "of" after
    assert called("When was the Lisbon Treaty signed?", "The Treaty of Rome came first.", treaties) == ""
    treaty = "The Lisbon Treaty was signed in 2007. The treaty reformed the union. Treaty changes came later."
    assert called("When was the Lisbon Treaty signed?", "Treaty changes came later.", treaty) == ""


QUILL_ROLE = [("Fair notes", "Ada Quill met the editor Brian Fogg of Redwood Press at a fair in 2019, and Ada Quill "
               "kept in touch with Brian Fogg. The novelist Ada Quill wrote her third book in a borrowed cabin.")]


@pytest.mark.parametrize("path", PATHS)
def test_who_is_x_without_a_definition_leads_with_x_s_role(path, make_settings):
    """No text says "Ada Quill is …": the one calling her "The novelist Ada Quill" says what she is, and leads
    before the one naming someone else she met."""
    out = path("Who is Ada Quill?", QUILL_ROLE, make_settings)
    assert "The novelist Ada Quill" in _lead(out), out.markdown


def test_a_role_before_a_name_or_an_aside_after_it_describes_the_person():
    from App_Function_Libraries.Retrieval.question_forms import describes
    for text in ("Facebook CEO Ada Quill knows a thing or two.", "In 2012 the philosopher Ada Quill wrote a book.",
                 "Pakistan-based developer Ada Quill wrote a post.", "President Ada Quill apologized.",
                 "Ada Quill, a recent graduate of Mount Holyoke, came.", "It came from a meteorologist named Ada Quill.",
                 "The bigamy of Ada Quill, Duchess of Hesse, shocked him.", "In 1540 Duchess Ada Quill married."):
        assert describes("Ada Quill", text), text
    for text in ("Then he met Ada Quill at a fair.", "Two years after Ada Quill left, he came.", "When Ada Quill came.",
                 "Ada Quill met the editor.", "Thank you, said Ada Quill.", "Ada Quill's book, a novel, sold well.",
                 "Ada Quill, Countless times, came."):
        assert not describes("Ada Quill", text), text
    # "who is X" asks what X is, not for another name: no line says the answer lacks one (control: "who wrote")
    assert core.missing_note("Who is Ada Quill?", [core.Pick("The novelist Ada Quill wrote a book.", 1)]) == ""
    assert core.missing_note("Who wrote the book?", [core.Pick("The novelist wrote a book in a cabin.", 1)]) != ""
