"""Page text quoted into a report shows as text wherever the UI shows a report (issue 13, item 5): the Web Search
answer (finished and while it streams), the History and Notes previews, the Wikipedia and Documents answers.
Each view is called as the UI calls it; its HTML must hold no element that loads, submits or covers anything."""
from __future__ import annotations

import re

import pytest

from App_Function_Libraries.records import Answer, AnswerSource, ResearchResult, Source
from Tests.test_db_markdown_html import HOSTILE, assert_inert

SOURCE = "https://bees.example/dance"
PIXEL = "http://127.0.0.1:9/pixel.png"  # the markdown image in HOSTILE: a link to it, never loaded


class Select:
    def __init__(self, row):
        self.index = [row, 0]


def hostile_result() -> ResearchResult:
    return ResearchResult(question="Is <img src=http://127.0.0.1:9/q.gif> safe?", mode="extractive",
                          sources=[Source("Bee <b>dance</b>", SOURCE, n=1, fetched=True, verdict="relevant")],
                          report_markdown=HOSTILE, errors=["page said <img src=http://127.0.0.1:9/e.gif>"])


def test_web_search_answer_shows_page_html_as_text(make_settings):
    from App_Function_Libraries.Gradio_UI.web_search_tab import result_values
    make_settings({})
    report = result_values(hostile_result())[0]
    assert_inert(report, {SOURCE, PIXEL})
    assert '&lt;form action="http://evil.example/steal"' in report and "Re-enter your API key" in report
    assert '<a href="https://bees.example/dance" title="Bee &lt;b&gt;dance&lt;/b&gt;"' in report  # the real [1]


def test_web_search_answer_streamed_so_far_shows_page_html_as_text(make_settings):
    from App_Function_Libraries.Gradio_UI.web_search_tab import stream_outputs
    settings = make_settings({})

    def work(on_progress, cancel, on_delta):
        on_delta(HOSTILE)
        cancel.wait(1)  # long enough for the stream to show the part written so far
        return hostile_result()
    shown = [update[2] for update in stream_outputs(work, settings) if isinstance(update[2], str)]
    assert any("Re-enter your API key" in html for html in shown[:-1]), shown
    for html in shown:
        assert_inert(html, {SOURCE, PIXEL})


def test_history_preview_shows_page_html_as_text(make_settings):
    from App_Function_Libraries.DB.research_store import get_research_store
    from App_Function_Libraries.Gradio_UI import history_tab
    settings = make_settings({})
    report_id = get_research_store(settings).save_research(hostile_result())
    _, preview, *_ = history_tab.select_report([report_id], Select(0))
    assert_inert(preview, {SOURCE, PIXEL})
    assert "&lt;img src=http://127.0.0.1:9/q.gif&gt;" in preview and "Re-enter your API key" in preview


def test_questions_asked_about_a_report_show_page_html_as_text(make_settings):
    from App_Function_Libraries.DB.research_store import get_research_store
    from App_Function_Libraries.Gradio_UI import history_tab
    from App_Function_Libraries.records import Answer, AnswerSource, ReportExchange
    settings = make_settings({})
    result = hostile_result()
    store = get_research_store(settings)
    store.save_research(result)
    source = AnswerSource(1, "Bee", SOURCE, cited=True, report_n=1)
    store.save_exchange(result.id, ReportExchange("Is <img src=http://127.0.0.1:9/a.gif> there?",
                                                  Answer(HOSTILE, sources=[source])))
    _, _, log, _ = history_tab.select_report([result.id], Select(0))
    assert_inert(log, {SOURCE, PIXEL})
    assert "Re-enter your API key" in log and "&lt;img src=http://127.0.0.1:9/a.gif&gt;" in log
    assert '<a href="https://bees.example/dance"' in log  # its [1] links to its source (the report's 1)


@pytest.mark.parametrize("content", [HOSTILE, "# Saved report\n\n" + HOSTILE + "\n\n## Sources\n\n1. [Bee](" + SOURCE + ")"])
def test_notes_preview_shows_page_html_as_text(make_settings, content):
    from App_Function_Libraries.DB.notes_store import get_notes_store
    from App_Function_Libraries.Gradio_UI import notes_tab
    make_settings({})
    note = get_notes_store().add_note("From the web", content, "web")
    opened = notes_tab.open_note([note.id], "md", Select(0))
    assert opened[2] == content  # the editor holds the markdown as written
    assert_inert(opened[3], {SOURCE, PIXEL})
    assert_inert(notes_tab.preview_html(content), {SOURCE, PIXEL})  # the Preview tab, after an edit
    assert "Re-enter your API key" in opened[3]


def test_wikipedia_and_documents_answers_show_quoted_html_as_text():
    from App_Function_Libraries.Gradio_UI import documents_tab, wikipedia_tab
    from App_Function_Libraries.Documents.doc_types import DocsAsked
    from App_Function_Libraries.Wikipedia.answer import WikiAsked
    bee = AnswerSource(1, "Honey <i>bee</i>", SOURCE, "wikipedia")
    wiki = wikipedia_tab.answer_view(WikiAsked("q", Answer(HOSTILE, sources=[bee],
                                                           errors=["<img src=http://127.0.0.1:9/w.gif>"])))
    assert_inert(wiki, {SOURCE, PIXEL})
    chunk = AnswerSource(1, "<img src=x>.md (p1)", "/docs/x.md#p1", "document")
    docs = documents_tab.answer_view(DocsAsked("q", Answer(HOSTILE, sources=[chunk])))
    assert_inert(docs, {"#doc-source-1", PIXEL})
    assert 'id="doc-source-1"' in docs and "&lt;img src=x&gt;.md" in docs
    broken = wikipedia_tab.answer_view(WikiAsked("q", Answer("Fact [1].", sources=[
        AnswerSource(1, "Broken", "http://[", "wikipedia")])))
    assert "Broken" in broken and 'href="http://[' not in broken  # a broken address is shown, not linked


def test_an_error_quoting_a_server_shows_as_text_in_the_toast():
    """gr.Warning renders its message as HTML; an error can quote what a server or a page sent."""
    from App_Function_Libraries.Gradio_UI.ui_common import user_errors

    @user_errors
    def callback():
        raise ConnectionError('the LLM server said: <img src="http://127.0.0.1:9/toast.gif"><form action=x>')
    with pytest.warns(UserWarning) as warned:
        callback()
    message = str(warned[0].message)
    assert "<img" not in message and "<form" not in message
    assert '&lt;img src="http://127.0.0.1:9/toast.gif"&gt;&lt;form action=x&gt;' in message


def test_a_server_check_quoting_html_shows_as_text_in_settings():
    from App_Function_Libraries.Gradio_UI.settings_tab import verdict_markdown
    from App_Function_Libraries.status import Verdict
    text = verdict_markdown([Verdict("llm report", False, 'http://x/v1 is up but has no model \'m\' (it has: '
                                                          '<img src="http://127.0.0.1:9/model.gif">, m_2)')])
    assert not re.search(r"(?<!\\)[<>]", text), text  # every < and > escaped for markdown
    assert '\\<img src="http://127.0.0.1:9/model.gif"\\>' in text
    assert "m\\_2" in text  # markdown escaped, so it shows as the server wrote it


def test_a_note_title_written_from_page_text_shows_as_text(make_settings, capsys):
    """A follow-up question (LLM-written from pages) becomes a report's question, then a note's title."""
    from App_Function_Libraries.Gradio_UI import web_search_tab
    make_settings({})
    result = hostile_result()
    saved = web_search_tab.save_note(result.to_dict(), result.question, "web")
    told = capsys.readouterr().out  # gr.Info outside a request prints its message
    assert "<img" not in told and "&lt;img src=http://127.0.0.1:9/q.gif&gt;" in told
    assert not re.search(r"(?<!\\)[<>]", saved), saved
