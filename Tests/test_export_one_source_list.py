"""One list of a report's sources (issue 22 item 7): one saved run through every door that lists its sources —
the Web Search cards and details table, CLI `research --md` and `history show`, every export (Markdown, HTML,
PDF, Word, BibTeX, RIS, CSL-JSON, JSON, text) and the MCP/HTTP answer — each lists the same addresses in the
same order: the cited sources in number order, then those read but not cited. The run cites [4] before [2] and
leaves [1] and [3] uncited, so a door listing in number order, in citation order or only the cited ones differs."""
from __future__ import annotations

import io
import json
import re
import subprocess
import zipfile
from contextlib import redirect_stdout

import pytest

from App_Function_Libraries import quarry
from App_Function_Libraries.quarry import plain
from App_Function_Libraries.CLI.main import main
from App_Function_Libraries.CLI.research_command import format_markdown
from App_Function_Libraries.Gradio_UI import web_search_view as view
from App_Function_Libraries.records import Citation, Paper, ResearchResult, Source
from Tests.support.system_tools import require_tool

A, B, C, D = ("https://alpha.example/a", "https://beta.example/b", "https://gamma.example/paper",
              "https://delta.example/d")
EXPECTED = [B, D, A, C]  # cited [2], [4]; then read but not cited [1], [3]
QUOTE_B = "Beta pages say the hive votes with its feet."
QUOTE_D = "Delta measured the dance at forty runs a minute."


def saved_run() -> ResearchResult:
    def read(title, url, n, **kw):
        return Source(title, url, verdict="relevant", fetched=True, status=200, final_url=url, n=n, **kw)
    paper = Paper(authors=["Ada Lovelace"], year=2020, venue="Journal of Bees")
    sources = [read("Alpha", A, 1), read("Beta", B, 2),
               read("Gamma study", C, 3, kind="paper", paper=paper),
               read("Delta", D, 4),
               read("Epsilon (nothing on the question)", "https://epsilon.example/", None),
               Source("Zeta", "https://zeta.example/", verdict="relevant", failure="HTTP 500")]
    report = "Delta counted the runs [4]. The hive votes [2]."
    citations = [Citation(4, "Delta counted the runs [4].", D, QUOTE_D, verdict="supported",
                          passage=f"Field notes. {QUOTE_D} More text."),
                 Citation(2, "The hive votes [2].", B, QUOTE_B, verdict="supported", passage=QUOTE_B)]
    return ResearchResult(question="How do bees decide?", sources=sources, report_markdown=report,
                          citations=citations, mode="extractive", params={"citation_style": "numbered"})


def urls(text: str) -> list[str]:
    return re.findall(r"https?://[^\s)\]}\"<>,]+", text)


def between(text: str, start: str, end: str | None) -> str:
    part = text.split(start, 1)[1]
    return part.split(end, 1)[0] if end and end in part else part


def pdf_text(data: bytes, tmp_path) -> str:
    require_tool("pdftotext")
    path = tmp_path / "r.pdf"
    path.write_bytes(data)
    return subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True, check=True,
                          timeout=60).stdout


def docx_text(data: bytes) -> str:
    from docx import Document
    return "\n".join(p.text for p in Document(io.BytesIO(data)).paragraphs)


def every_door(result: ResearchResult, report_id: str, config: str, tmp_path) -> dict[str, list[str]]:
    """Each door's list of the run's sources, as the addresses it shows, in its order."""
    export = lambda fmt: quarry.history.export(report_id, fmt)  # noqa: E731
    shown = io.StringIO()
    with redirect_stdout(shown):
        assert main(["--config", config, "history", "show", report_id]) == 0
    rows = view.source_rows(result)
    html = export("html")
    bib = export("bib")
    return {
        "ui cards": re.findall(r'<div class="ws-card"[^>]*><div><b>\[\d+\]</b> <a href="([^"]+)"',
                               view.source_cards_html(result)),
        "ui details table": [row[3] for row in rows if row[1]],
        "cli research --md": urls(between(format_markdown(result), "## Sources", "Selected but not used")),
        "cli history show": urls(between(shown.getvalue(), "## Sources", "## Evidence")),
        "md": urls(between(export("md"), "## Sources", "## Evidence")),
        "txt": urls(between(export("txt"), "Sources:", "Evidence:")),
        "html": re.findall(r'<li id="source-\d+"[^>]*><a href="([^"]+)"', html),
        "pdf": urls(between(pdf_text(export("pdf"), tmp_path), "Sources", "Evidence")),
        "docx": urls(between(docx_text(export("docx")), "Sources", "Evidence")),
        "bib": [urls(entry)[0] for entry in bib.split("@")[1:]],
        "ris": re.findall(r"^UR  - (\S+)", export("ris"), re.MULTILINE),
        "csl": [item["URL"] for item in json.loads(export("csl"))],
        "json": [s["url"] for s in json.loads(export("json"))["listed_sources"]],
        "mcp/http": [s["url"] for s in plain.research_out(result, saved=True)["sources"]],
    }


def differing(doors: dict[str, list[str]], expected: list[str]) -> list[str]:
    return [name for name, listed in doors.items() if listed != expected]


@pytest.fixture
def doors(make_settings, tmp_path):
    settings = make_settings()
    result = saved_run()
    saved = quarry.history.save(result, settings)
    assert saved.ok, saved.message
    stored = quarry.history.get(saved.id, settings)
    return every_door(stored, saved.id, str(settings.path), tmp_path), stored


def test_every_door_lists_the_same_sources_in_the_same_order(doors):
    listed, result = doors
    assert differing(listed, EXPECTED) == [], {k: v for k, v in listed.items() if v != EXPECTED}
    assert len(listed) == 14
    assert [n for n, _ in result.listed_sources()] == [2, 4, 1, 3] and len(result.cited_sources()) == 2
    # "N cited" counts the cited sources only, in the UI and the CLI alike
    assert "2 cited of 6 results" in view.report_html(result)


def test_a_count_of_one_is_said_in_the_singular():
    one = Source(title="Keeping a starter", url="https://bread.example/starter", n=1, fetched=True)
    result = ResearchResult(question="How often?", report_markdown="Feed it daily. [1]", sources=[one],
                            citations=[Citation(n=1, url=one.url, sentence="Feed it daily.", quote="Feed it daily.")],
                            llm_usage={"calls": 1})
    footer = view.report_html(result)
    assert "1 cited of 1 result ·" in footer and "· 1 LLM call*" in footer.replace("</em>", "*")


def test_control_a_door_listing_in_number_order_or_only_the_cited_is_caught(doors):
    """Control: the lists as this repository's doors made them before issue 22 (exports in number order, the
    CLI's cited list alone) are told apart from the rest."""
    listed, _ = doors
    listed = dict(listed, html=[A, B, C, D], **{"cli research --md": [B, D]})
    assert differing(listed, EXPECTED) == ["cli research --md", "html"]


def test_each_quote_is_shown_once_in_the_exports_in_evidence(make_settings, tmp_path):
    """Item 3: a quote is not shown under its source and again under Evidence; the sources list links to it.
    The report body quotes nothing here, so each quote appears exactly once in the whole PDF, HTML and Word."""
    result = saved_run()
    result.report_markdown = "The runs were counted [4]. The hive decides [2]."
    pdf = pdf_text(quarry.history.export_result(result, "pdf"), tmp_path)
    html = quarry.history.export_result(result, "html")
    word = docx_text(quarry.history.export_result(result, "docx"))
    for quote in (QUOTE_B, QUOTE_D):
        assert " ".join(pdf.split()).count(quote) == 1, pdf
        assert html.count(quote) == 1 and word.count(quote) == 1
    assert html.index('<li id="source-2"') < html.index('href="#evidence-2"') < html.index('id="evidence-1"')
    assert "Open [4] at this text" in word and "Read but not cited" in word
    with zipfile.ZipFile(io.BytesIO(quarry.history.export_result(result, "docx"))) as z:
        xml = z.read("word/document.xml").decode()
    assert '<w:highlight w:val="yellow"/>' in xml and 'w:anchor="evidence-1"' in xml  # marked, and linked to


def test_the_markdown_and_text_exports_show_each_quote_once_in_evidence():
    """Issue 22 item 5: the Markdown and plain-text exports had no Evidence section, so no quote at all. They
    show the evidence the HTML, PDF and Word exports show (export_print.evidence_items): per quote "[n] title ·
    verdict", the passage quoted with the cited words in bold, and the link opening the source at that text."""
    result = saved_run()
    result.report_markdown = "The runs were counted [4]. The hive decides [2]."
    md = quarry.history.export_result(result, "md")
    txt = quarry.history.export_result(result, "txt")
    for text in (md, txt):
        for quote in (QUOTE_B, QUOTE_D):
            assert text.count(quote) == 1, text
            assert text.count(f"**{quote}**") == 1
        assert text.index("Sources") < text.index("Evidence") < text.index("[4] Delta · supported")
        assert text.index("[4] Delta · supported") < text.index("[2] Beta · supported")
    assert f"> Field notes. **{QUOTE_D}** More text." in md
    assert "[Open \\[4\\] at this text](https://delta.example/d#:~:text=Delta%20measured%20the%20dance," in md
    assert "Open [2] at this text: https://beta.example/b#:~:text=" in txt



def test_the_markdown_and_text_sources_lists_point_to_their_evidence():
    """The HTML sources list links each cited source to its Evidence items; the Markdown one did not, and the
    text one did not name them. Markdown: each item has an anchor a CommonMark renderer keeps and each source
    links to its items; text: each source names its items (E1, …) as the Evidence section labels them."""
    from markdown_it import MarkdownIt
    result = saved_run()
    md = quarry.history.export_result(result, "md")
    sources, evidence = md.split("## Evidence")
    assert "4. [Delta](https://delta.example/d) (evidence [E1](#evidence-1))" in sources, sources
    assert "2. [Beta](https://beta.example/b) (evidence [E2](#evidence-2))" in sources
    assert "#evidence" not in sources.split("### Read but not cited")[1]  # nothing quoted, nothing to link to
    assert '<a id="evidence-1"></a>E1. [4] Delta · supported' in evidence
    assert evidence.index('id="evidence-1"') < evidence.index("Delta measured") < evidence.index('id="evidence-2"')
    page = MarkdownIt("commonmark").render(md)
    for i, title in ((1, "Delta"), (2, "Beta")):
        assert re.search(rf'>{title}</a> \(evidence <a href="#evidence-{i}">E{i}</a>\)', page), page
        assert page.count(f'<a id="evidence-{i}"></a>') == 1
    txt = quarry.history.export_result(result, "txt")
    assert "[4] Delta - https://delta.example/d (see Evidence E1)" in txt, txt
    assert "[2] Beta - https://beta.example/b (see Evidence E2)" in txt
    assert "\nE1. [4] Delta · supported" in txt and "\nE2. [2] Beta · supported" in txt
    assert "<a id=" not in txt
    # control: the sources list of a saved note, which has no Evidence section, links to nothing
    from App_Function_Libraries.DB.export import report_body_markdown
    assert "#evidence" not in report_body_markdown(result) and "(evidence" not in report_body_markdown(result)

HEADED = "How the waggle dance points to <food>\nA forager honey bee dances. It points the way."


def headed_run() -> ResearchResult:
    result = saved_run()
    result.report_markdown = "Bees dance [4]."
    result.citations = [Citation(4, "Bees dance [4].", D, "A forager honey bee dances.", verdict="supported",
                                 passage=HEADED)]
    return result


def test_an_evidence_passage_keeps_its_heading_on_its_own_line(tmp_path):
    """Issue 22 item 5: a passage's heading line (Retrieval/passages._join) was shown glued to its first
    sentence ("…points to food A forager…"). HTML and PDF keep it as <br>, Word as a line break, Markdown as a
    hard line break, text as its own line; the heading's text stays text."""
    result = headed_run()
    html = quarry.history.export_result(result, "html")
    assert ("How the waggle dance points to &lt;food&gt;<br><mark>A forager honey bee dances.</mark> It points"
            in html), html
    pdf = pdf_text(quarry.history.export_result(result, "pdf"), tmp_path)
    assert re.search(r"points to <food>\s*\n\s*A forager", pdf), pdf
    with zipfile.ZipFile(io.BytesIO(quarry.history.export_result(result, "docx"))) as z:
        xml = z.read("word/document.xml").decode()
    assert re.search(r"points to &lt;food&gt;</w:t></w:r><w:r><w:br/></w:r><w:r>(<w:rPr>.*?</w:rPr>)?"
                     r"<w:t>A forager honey bee dances.", xml), xml
    md = quarry.history.export_result(result, "md")
    assert "> How the waggle dance points to \\<food\\>\\\n> **A forager honey bee dances.** It points" in md, md
    txt = quarry.history.export_result(result, "txt")
    assert "> How the waggle dance points to <food>\n> **A forager honey bee dances.** It points" in txt, txt
    for text in (html, pdf, xml, md, txt):
        assert "food> A forager" not in text and "food&gt; A forager" not in text
