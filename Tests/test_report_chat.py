"""Ask about this report (issue 17 item 3): a question about a finished report is answered from that report's
own sources, each quote from that source's text; the answer numbers the sources it cites 1..k (issue 22:
no gaps in any answer), each keeping the report's number; the exchange is saved with the report (older
exchanges, which cited the report's numbers, still load); `python app.py history ask`. Reports are built by
the real pipeline on the test world (no LLM)."""
from __future__ import annotations

import json
import re

import pytest

from App_Function_Libraries.CLI.main import main
from App_Function_Libraries.DB.connection import NotFoundError
from App_Function_Libraries.DB.research_store import get_research_store
from App_Function_Libraries.records import Page
from App_Function_Libraries.Research.pipeline import process_question
from App_Function_Libraries.Research.report_chat import NOT_COVERED, ask_and_save, ask_report, services_for
from Tests.support.mini_web import ARTICLES, MiniWeb, research_config
from Tests.support import report_questions
from Tests.support.openai_server import ScriptedLLM
from Tests.support.report_questions import ONLY_ON, UNRELATED
from Tests.support.search_apis import clean_health  # noqa: F401 - autouse: no engine suspension leaks in

QUESTION = "How do honey bees communicate the location of food?"
PAGES = {page.path: " ".join(" ".join(page.paragraphs).split()) for page in ARTICLES}


def path_of(source) -> str:
    return report_questions.path_of(source.url)


@pytest.fixture
def report(world, make_settings):
    """A saved extractive report on the bee question, and the settings it was made with."""
    web = MiniWeb(world, include_faults=False).install()
    settings = make_settings(research_config(web))
    result = process_question(QUESTION)
    get_research_store(settings).save_research(result)
    assert len(result.cited_sources()) >= 2 and path_of(result.cited_sources()[1]) in ONLY_ON
    return result, settings


def ask_about_source(result, settings, n: int = 2):
    source = next(s for s in result.cited_sources() if s.n == n)
    question, fact = ONLY_ON[path_of(source)]
    return source, fact, ask_and_save(result, question, settings)


def test_answer_cites_source_2_as_its_own_1_keeping_the_reports_number_and_its_own_text(report):
    result, settings = report
    source, fact, exchange = ask_about_source(result, settings, 2)
    answer = exchange.answer
    assert answer.mode == "extractive" and fact in answer.markdown and exchange.report_id == result.id
    assert set(map(int, re.findall(r"\[(\d+)\]", answer.markdown))) == {1}
    assert answer.citations and {c.n for c in answer.citations} == {1}
    assert [(s.n, s.report_n, s.title, s.cited) for s in answer.sources] == [(1, 2, source.title, True)]
    assert exchange.in_report_numbers() == answer.markdown.replace("[1]", "[2]")
    page = PAGES[path_of(source)]
    for c in answer.citations:
        assert c.url == (source.final_url or source.url) and c.content_hash == source.content_hash
        assert c.sentence.rstrip(".") in " ".join(c.quote.split()) and c.sentence.rstrip(".") in page


def test_every_numbered_source_is_answered_under_its_own_number(report):
    result, settings = report
    for source in result.cited_sources():
        if path_of(source) not in ONLY_ON:
            continue
        question, fact = ONLY_ON[path_of(source)]
        answer = ask_report(result, question, services_for(result, settings)).answer
        assert {c.n for c in answer.citations} == {1}, (source.url, answer.markdown)
        assert [s.report_n for s in answer.sources] == [source.n] and fact in answer.markdown


def test_a_question_no_source_covers_says_so(report):
    result, settings = report
    exchange = ask_and_save(result, UNRELATED, settings)
    # issue 22: the statement, then any closest passages marked "not used" (here no sentence shares a word)
    answer = exchange.answer
    assert answer.mode == "none" and answer.status == "not_answered" and answer.markdown.startswith(NOT_COVERED)
    assert not answer.citations and not answer.sources and not re.search(r"\[\d+\]", answer.markdown)


def test_the_cached_page_answers_what_the_stored_passages_lack(report):
    result, settings = report
    source = result.cited_sources()[1]
    question, fact = ONLY_ON[path_of(source)]
    source.passages, source.snippet = [], ""  # only the page cache still has the page's text
    source.notes = "(notes)"
    answer = ask_report(result, question, services_for(result, settings)).answer
    assert [s.report_n for s in answer.sources] == [2] and fact in answer.markdown


def test_control_a_cached_page_that_changed_since_the_report_is_not_quoted(report):
    """The control: the same question cannot cite [2] once its page text is no longer the report's."""
    result, settings = report
    source = result.cited_sources()[1]
    question, fact = ONLY_ON[path_of(source)]
    source.passages, source.snippet, source.notes = [], "", "(notes)"
    store = get_research_store(settings)
    page = store.get_page(source.url, 10 ** 9)
    store.put_page(Page(**{**page.__dict__, "text": page.text + " Changed later.", "content_hash": "x"}))
    answer = ask_report(result, question, services_for(result, settings)).answer
    assert 2 not in {s.report_n for s in answer.sources} and fact not in answer.markdown


def test_the_exchange_is_saved_with_the_report_and_reloads(report):
    result, settings = report
    store = get_research_store(settings)
    _source, _fact, first = ask_about_source(result, settings, 2)
    ask_and_save(result, UNRELATED, settings)
    saved = store.list_exchanges(result.id)
    assert [e.question for e in saved] == [first.question, UNRELATED]
    assert saved[0].answer == first.answer and saved[0].report_id == result.id
    assert saved[1].answer.mode == "none" and saved[1].answer.closest == []
    store.save_research(store.load_report(result.id))  # a re-save (dig deeper keeps the id) keeps them
    assert [e.question for e in store.list_exchanges(result.id)] == [first.question, UNRELATED]
    store.delete_report(result.id)
    assert store.list_exchanges(result.id) == []
    with pytest.raises(NotFoundError):
        store.save_exchange(result.id, first)


def test_with_an_llm_numbers_naming_no_source_are_removed_and_pages_stay_data(world, report, make_settings):
    result, settings = report
    numbers = [s.n for s in result.cited_sources()]
    llm = ScriptedLLM(default=f"The dance shows where food is [{numbers[1]}]. Bees vote on it [99].").install(world)
    web = MiniWeb(world, include_faults=False)
    with_llm = make_settings(research_config(web, world.url("/v1")))  # the same database file
    exchange = ask_and_save(result, "What does the dance show?", with_llm)
    answer = exchange.answer
    assert answer.mode == "llm" and answer.invalid_citations_removed == 1
    assert "[99]" not in answer.markdown and {c.n for c in answer.citations} == {1}
    assert [s.report_n for s in answer.sources] == [numbers[1]]
    prompt = llm.prompts[-1]
    tag = re.search(r"<<<DATA-([0-9A-F]+)", prompt).group(1)
    page_text = PAGES[path_of(result.cited_sources()[1])]
    sentence = page_text.split(". ")[0]
    start = prompt.index(sentence)
    assert prompt.rfind(f"<<<DATA-{tag}", 0, start) > prompt.rfind(f"DATA-{tag}>>>", 0, start)
    assert f"[{numbers[1]}]" in prompt and "Question about the report: What does the dance show?" in prompt


def test_history_ask_round_trip(report, capsys):
    result, settings = report
    source = result.cited_sources()[1]
    question, fact = ONLY_ON[path_of(source)]
    code = main(["--config", str(settings.path), "history", "ask", result.id[:8], question])
    out = capsys.readouterr().out
    assert code == 0 and fact in out
    assert f"[1] {source.title}: {source.final_url or source.url} (the report's [2])" in out
    assert "[2] " not in out.split("Sources")[1]  # only what the answer cites is listed
    saved = get_research_store(settings).list_exchanges(result.id)
    assert [e.question for e in saved] == [question]

    code = main(["--config", str(settings.path), "history", "ask", result.id[:8], UNRELATED, "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["answer"]["mode"] == "none" and data["answer"]["citations"] == []
    assert main(["--config", str(settings.path), "history", "ask", result.id[:8], "  "]) == 1
    assert "type a question" in capsys.readouterr().err
    assert main(["--config", str(settings.path), "history", "ask", "nosuchid", question]) == 1
    assert "no saved report" in capsys.readouterr().err


def test_a_database_made_before_report_chats_is_upgraded(tmp_path):
    from App_Function_Libraries.DB import research_store
    from App_Function_Libraries.DB.connection import forget_schema_checks, migrate, open_database
    from App_Function_Libraries.records import Answer, AnswerSource, ReportExchange, ResearchResult, Source
    path = tmp_path / "old.db"
    migrate(open_database(path), "research", research_store.MIGRATIONS[:research_store.MIGRATIONS.index(
        research_store.REPORT_CHATS_MIGRATION)])
    forget_schema_checks()
    store = research_store.ResearchStore(path, secrets=[])
    result = ResearchResult(question="Why do bees dance?", sources=[Source("Dance", "http://x.test/a", n=1)])
    store.save_research(result)
    source = AnswerSource(1, "Dance", "http://x.test/a", cited=True, report_n=1)
    assert store.save_exchange(result.id, ReportExchange("Where?", Answer("Here [1].", sources=[source]))) == 0
    assert store.list_exchanges(result.id)[0].answer.markdown == "Here [1]."


def test_a_configured_key_in_an_exchange_is_never_stored(tmp_path):
    from App_Function_Libraries.DB.research_store import ResearchStore
    from App_Function_Libraries.records import Answer, ReportExchange, ResearchResult, Source
    key = "sk-live-9f8e7d6c5b4a39281706"
    store = ResearchStore(tmp_path / "q.db", secrets=[key])
    result = ResearchResult(question="Why do bees dance?", sources=[Source("Dance", "http://x.test/a", n=1)])
    store.save_research(result)
    store.save_exchange(result.id, ReportExchange(f"is {key} mine?", Answer(f"The page shows {key} [1].",
                                                                          errors=[f"LLM said: bad key {key}"])))
    stored = b"".join(p.read_bytes() for p in tmp_path.glob("q.db*"))  # the file and its write-ahead log
    assert b"The page shows" in stored and key.encode() not in stored
    assert key not in store.list_exchanges(result.id)[0].answer.markdown


def test_an_exchange_saved_by_an_older_quarry_loads_in_its_own_numbers(tmp_path):
    """A report_chats row of schema 5 (the flat form, [n] the report's numbers) loads as the one answer record:
    the report's sources it cites, numbered 1..k in the answer, each keeping the report's number."""
    from App_Function_Libraries.DB import research_store
    from App_Function_Libraries.DB.connection import forget_schema_checks, migrate, open_database
    from App_Function_Libraries.records import Citation, ResearchResult, Source
    path = tmp_path / "old.db"
    migrate(open_database(path), "research", research_store.MIGRATIONS[:research_store.MIGRATIONS.index(
        research_store.EXCHANGE_ANSWER_MIGRATION)])
    forget_schema_checks()
    old = research_store.ResearchStore(path, secrets=[])
    sources = [Source(f"Page {n}", f"http://x.test/{n}", n=n, kind="paper" if n == 5 else "web") for n in range(1, 6)]
    result = ResearchResult(question="Why do bees dance?", sources=sources)
    old.save_research(result)
    citations = [Citation(5, "Bees vote.", "http://x.test/5", "Bees vote.", verdict="supported"),
                 Citation(2, "Bees dance.", "http://x.test/2", "Bees dance.")]
    db = old._db()
    db["report_chats"].insert({"report_id": result.id, "position": 0, "question": "Why?",
                               "answer": "Bees vote [5]. Bees dance [2].", "mode": "extractive",
                               "citations": json.dumps([c.__dict__ for c in citations]), "errors": "[]",
                               "invalid_citations_removed": 0, "asked_at": 1.0})
    db.conn.commit()
    forget_schema_checks()
    store = research_store.ResearchStore(path, secrets=[])  # schema 6 on opening
    exchange, = store.list_exchanges(result.id)
    answer = exchange.answer
    assert exchange.question == "Why?" and exchange.asked_at == 1.0 and answer.status == "answered"
    assert answer.markdown == "Bees vote [1]. Bees dance [2]."
    assert [(s.n, s.report_n, s.title, s.kind) for s in answer.sources] == [(1, 5, "Page 5", "paper"),
                                                                              (2, 2, "Page 2", "web")]
    assert [c.n for c in answer.citations] == [1, 2] and answer.citations[0].verdict == "supported"
    assert exchange.in_report_numbers() == "Bees vote [5]. Bees dance [2]."  # as exports show it
    store.save_exchange(result.id, exchange)  # saved again in the new form: the same answer
    assert store.list_exchanges(result.id)[1].answer == answer
