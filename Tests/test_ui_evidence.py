"""Issue 22 item 5: every answer shows its evidence where the reader is. Each [n] of a Wikipedia answer, a
Documents answer and an answer about a report opens the supporting quote in its passage with the cited words
in <mark>, its verdict and (for a web address) a link opening the source at that text; the HTML and PDF
exports carry the same evidence after the report. Page text stays text throughout."""
from __future__ import annotations

import re

from App_Function_Libraries.DB.export import export_report
from App_Function_Libraries.records import Answer, AnswerSource, Citation, ReportExchange, ResearchResult, Source
from Tests.test_export_print import pdf_text, pdf_tools  # noqa: F401 - pdf_tools is a fixture

QUOTE = "Honey bees dance to show where flowers are."
PASSAGE = "Scouts come back to the hive. " + QUOTE + " The <b>waggle</b> run points at the sun."
ARTICLE = "https://en.wikipedia.org/wiki/Waggle_dance"


def citation(url: str, verdict: str = "supported") -> Citation:
    return Citation(1, QUOTE + " [1]", url, QUOTE, verdict=verdict, passage=PASSAGE)


def assert_fold(page: str, prefix: str) -> None:
    """The [1] links to its evidence, a fold holding the passage with the cited words marked and the verdict;
    the passage's markup shows as text."""
    assert re.search(rf'<a href="#{prefix}-evidence-0"[^>]*>\[1\]</a>', page), page
    fold = re.search(r'<details class="evidence-item">.*?</details>', page, re.S)
    assert fold, page
    assert f"<mark>{QUOTE}</mark>" in fold.group(0)
    assert "Scouts come back to the hive." in fold.group(0) and "supported" in fold.group(0)
    assert "&lt;b&gt;waggle&lt;/b&gt;" in fold.group(0) and "<b>" not in page


def test_wikipedia_answer_opens_the_evidence_with_a_link_to_the_article_at_that_text():
    from App_Function_Libraries.Gradio_UI import wikipedia_tab
    from App_Function_Libraries.Wikipedia.answer import WikiAsked
    article = AnswerSource(1, "Waggle dance", ARTICLE, "wikipedia", cited=True)
    page = wikipedia_tab.answer_view(WikiAsked("How do bees tell where flowers are?",
                                               Answer(QUOTE + " [1]", sources=[article],
                                                      citations=[citation(ARTICLE)])))
    assert_fold(page, "wiki")
    assert re.search(r'<a href="https://en\.wikipedia\.org/wiki/Waggle_dance#:~:text=[^"]+"', page)


def test_each_fold_of_one_source_says_which_sentence_it_backs():
    """A Wikipedia answer citing one article four times showed four folds all titled "[1] Mount Everest ·
    supported": each title now adds the start of its sentence (shortened, escaped), or of its quote where two
    sentences start alike."""
    from App_Function_Libraries.Gradio_UI import wikipedia_tab
    from App_Function_Libraries.Wikipedia.answer import WikiAsked
    everest = "https://en.wikipedia.org/wiki/Mount_Everest"
    sentences = ["Mount Everest is Earth's highest mountain above sea level, in the Mahalangur Himal [1].",
                 "Its elevation is 8,849 m [1].",
                 "<b>The first</b> recorded ascent was by Tenzing Norgay and Edmund Hillary [1].",
                 "<b>The first</b> recorded ascent was by Tenzing Norgay and Edmund Hillary [1]."]
    quotes = ["Earth's highest mountain", "8,849 m", "Tenzing Norgay and Edmund Hillary", "on 29 May 1953"]
    cites = [Citation(1, s, everest, q, verdict="supported", passage=q) for s, q in zip(sentences, quotes)]
    page = wikipedia_tab.answer_view(WikiAsked("Who first climbed Mount Everest?", Answer(
        " ".join(sentences[:3]), sources=[AnswerSource(1, "Mount Everest", everest, "wikipedia", cited=True)],
        citations=cites)))
    titles = re.findall(r"<summary>(.*?)</summary>", page)
    assert len(titles) == 4 and len(set(titles)) == 4, titles
    assert titles[0].startswith("[1] Mount Everest · supported · <q>Mount Everest is Earth&#x27;s highest"), titles
    assert titles[0].endswith("…</q>") and len(titles[0]) < 120, titles
    assert "<q>Its elevation is 8,849 m.</q>" in titles[1]
    assert "&lt;b&gt;" in titles[2] and "<b>" not in page and "[1]" not in titles[2].split("<q>")[1]
    assert titles[3].endswith("<q>on 29 May 1953</q>"), titles  # the same sentence again: its quote


def test_documents_answer_opens_the_evidence_in_its_file_without_a_link_the_page_cannot_open():
    from App_Function_Libraries.Gradio_UI import documents_tab
    from App_Function_Libraries.Documents.doc_types import DocsAsked
    chunk = AnswerSource(1, "bees.pdf (p3)", "/docs/bees.pdf#p3", "document", cited=True)
    page = documents_tab.answer_view(DocsAsked("q", Answer(QUOTE + " [1]", sources=[chunk],
                                                           citations=[citation("/docs/bees.pdf#p3")])))
    assert_fold(page, "doc")
    assert "<code>/docs/bees.pdf#p3</code>" in page and 'href="/docs' not in page


def test_an_answer_about_a_report_opens_its_evidence_in_each_exchange():
    from App_Function_Libraries.Gradio_UI import report_chat_view
    dance = AnswerSource(1, "Bee dance", "https://bees.example/dance", cited=True, report_n=4)
    exchanges = [ReportExchange(q, Answer(QUOTE + " [1]", sources=[dance],
                                          citations=[citation("https://bees.example/dance")]))
                 for q in ("Where are the flowers?", "And again?")]
    log = report_chat_view.exchanges_html(exchanges)
    assert_fold(log, "chat1")
    assert re.search(r'<a href="#chat2-evidence-0"', log)  # each exchange's folds have their own ids
    assert 'href="https://bees.example/dance#:~:text=' in log
    assert "Bee dance (the report&#x27;s [4])" in log  # its own list names the report's number


def test_a_source_that_does_not_support_its_sentence_has_nothing_marked():
    from App_Function_Libraries.Gradio_UI import wikipedia_tab
    from App_Function_Libraries.Wikipedia.answer import WikiAsked
    page = wikipedia_tab.answer_view(WikiAsked("q", Answer(QUOTE + " [1]", sources=[
        AnswerSource(1, "Waggle", ARTICLE, "wikipedia", cited=True)], citations=[citation(ARTICLE, "not supported")])))
    assert "<mark>" not in page and "not supported by this source" in page  # control: a fold without a mark


def evidence_result() -> ResearchResult:
    return ResearchResult(question="How do bees tell where flowers are?", report_markdown=QUOTE + " [1]",
                          sources=[Source(n=1, url="https://bees.example/dance", title="Bee dance")],
                          citations=[citation("https://bees.example/dance")])


def test_html_export_carries_each_citations_evidence_after_the_report():
    page = export_report(evidence_result(), "html")
    evidence = page[page.index("<h2>Evidence</h2>"):]
    assert page.index("<h2>Sources</h2>") < page.index("<h2>Evidence</h2>")
    assert f"<mark>{QUOTE}</mark>" in evidence and "Scouts come back to the hive." in evidence
    assert "Bee dance · supported" in evidence and "&lt;b&gt;waggle&lt;/b&gt;" in evidence and "<b>" not in page


def test_pdf_export_carries_the_evidence(tmp_path, pdf_tools):  # noqa: F811 - the fixture
    text = " ".join(pdf_text(export_report(evidence_result(), "pdf"), tmp_path).split())
    assert "Evidence" in text and "Scouts come back to the hive. " + QUOTE in text


def test_the_fold_keeps_a_passage_heading_on_its_own_line_and_its_links_unpadded():
    """A passage whose first line is a page's heading (Retrieval/passages._join ends it with a line break) shows
    the heading on its own line, not glued to the quote ("…points to food Honey bees dance…"), marked or not;
    the fold's "Open [n] at this text" and the sources list sit in the classes CITE_CSS unpads."""
    from App_Function_Libraries.DB.markdown_html import CITE_CSS
    from App_Function_Libraries.Gradio_UI.answer_view import SourceRef, answer_html
    headed = "How the <waggle> dance points to food\n" + QUOTE + " More."
    for verdict, quoted in (("supported", f"<mark>{QUOTE}</mark>"), ("not supported", QUOTE)):
        cite = Citation(1, QUOTE + " [1]", ARTICLE, QUOTE, verdict=verdict, passage=headed)
        page = answer_html(QUOTE + " [1]", [SourceRef(1, "Waggle dance", ARTICLE)], "wiki", [cite])
        fold = re.search(r'<details class="evidence-item">.*?</details>', page, re.S).group(0)
        assert f"How the &lt;waggle&gt; dance points to food<br>{quoted} More." in fold, fold
        assert "food " + QUOTE not in fold
    assert '<div class="evidence">' in page and re.search(r'<p class="sources" id="wiki-source-1">.*?<a href', page)
    assert ".sources a" in CITE_CSS and ".evidence a" in CITE_CSS


def test_a_quoted_list_opens_the_page_at_its_words_without_its_list_marks():
    """A list quoted whole has its page's "- " marks in its quote; a browser's page text has no such marks (they
    are drawn), so a #:~:text= fragment holding them would find nothing."""
    from App_Function_Libraries.DB.markdown_html import text_fragment_link
    link = text_fragment_link("https://howto.example/terrarium", "What You'll Need:\n- Cloche\n- Ruler\n1. Moss")
    assert link == "https://howto.example/terrarium#:~:text=What%20You%27ll%20Need%3A%20Cloche%20Ruler%20Moss"
