"""The questions asked about a report (Ask about this report) in its exports: a "Questions about this report"
section after the report and before its sources in Markdown, HTML, PDF and Word, "exchanges" in the JSON;
`python app.py history export` and the History tab's download load them from the store."""
from __future__ import annotations

import json
import re
import subprocess

import pytest

from App_Function_Libraries.DB.export import export_report
from App_Function_Libraries.records import Answer, AnswerSource, Citation, ReportExchange
from Tests.support.system_tools import require_pango, require_tool
from Tests.test_db_cli import cli  # noqa: F401 - the fixture: run `python app.py ...` on a fresh config
from Tests.test_export_citations import _docx_text, mixed_result

HEADING = "Questions about this report"
QUESTION = "Which insect follows <trails>?"
ANSWER = "Ants follow scent trails [2]; bees dance instead [1]."


def exchanges() -> list[ReportExchange]:
    """Answers in their own numbers (1..k), each source keeping the report's: exports show them in the
    report's numbers (ANSWER), under the report whose sources list names them."""
    cited = Citation(1, "Ants follow scent trails [1].", "https://ants.example/trails", "Ants lay scent trails.")
    ants = AnswerSource(1, "Ants", "https://ants.example/trails", cited=True, report_n=2)
    bees = AnswerSource(2, "Bees", "https://bees.example/dance", cited=True, report_n=1)
    paper = AnswerSource(1, "Paper", "https://doi.org/10.1/x", "paper", cited=True, report_n=3)
    return [ReportExchange(QUESTION, Answer("Ants follow scent trails [1]; bees dance instead [2].",
                                            sources=[ants, bees], citations=[cited])),
            ReportExchange("And the paper?", Answer("It measured the dance [1].", sources=[paper]))]


def pdf_text(data: bytes, tmp_path) -> str:
    require_tool("pdftotext")
    path = tmp_path / "r.pdf"
    path.write_bytes(data)
    return subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True,
                          check=True, timeout=60).stdout


def test_markdown_puts_the_questions_after_the_report_and_before_the_sources():
    text = export_report(mixed_result(), "md", secrets=[], exchanges=exchanges())
    assert text.index("Both [1, 3].") < text.index(f"## {HEADING}") < text.index("## Sources")
    assert "### Which insect follows \\<trails\\>?\n\n" + ANSWER in text  # the question is text, not markup
    assert text.index(ANSWER) < text.index("### And the paper?") < text.index("It measured the dance [3].")
    assert HEADING not in export_report(mixed_result(), "md", secrets=[])  # none asked: no section
    assert HEADING not in export_report(mixed_result(), "md", secrets=[], exchanges=[])


def test_html_links_an_answers_numbers_as_the_report_does():
    page = export_report(mixed_result(), "html", secrets=[], exchanges=exchanges())
    assert page.index("</h2>", page.index(HEADING)) < page.index("Ants follow scent trails")
    assert "Which insect follows &lt;trails&gt;?" in page and "<trails>" not in page
    answer = page[page.index("Ants follow scent trails"):]
    assert re.search(r'<a [^>]*href="#source-2"[^>]*>\[?2', answer), answer[:400]
    assert page.index(HEADING) < page.index('id="source-1"')
    assert HEADING not in export_report(mixed_result(), "html", secrets=[])


def test_json_keeps_the_exchanges_and_a_dict_can_carry_them():
    data = json.loads(export_report(mixed_result(), "json", secrets=[], exchanges=exchanges()))
    assert [e["question"] for e in data["exchanges"]] == [QUESTION, "And the paper?"]
    assert data["exchanges"][0]["answer_markdown"] == ANSWER  # the flat form: in the report's numbers
    answer = data["exchanges"][0]["answer"]  # the answer record: its own numbers, each keeping the report's
    assert answer["citations"][0]["n"] == 1 and [s["report_n"] for s in answer["sources"]] == [2, 1]
    assert "exchanges" not in json.loads(export_report(mixed_result(), "json", secrets=[]))
    carried = {**mixed_result().to_dict(), "exchanges": [e.to_dict() for e in exchanges()]}
    assert f"## {HEADING}" in export_report(carried, "md", secrets=[])  # the result dict carrying them


def test_a_key_in_an_exchange_never_reaches_an_export():
    key = "sk-live-9f8e7d6c5b4a39281706"
    chat = [ReportExchange(f"is {key} mine?", Answer(f"The page shows {key} [1]."))]
    for fmt in ("md", "json", "html"):
        text = export_report(mixed_result(), fmt, secrets=[key], exchanges=chat)
        assert key not in text and "The page shows" in text, fmt


def test_pdf_and_word_show_the_questions(tmp_path):
    require_pango()
    pdf = pdf_text(export_report(mixed_result(), "pdf", secrets=[], exchanges=exchanges()), tmp_path)
    flat = " ".join(pdf.split())
    assert HEADING in flat and QUESTION in flat and "Ants follow scent trails" in flat
    assert flat.index(HEADING) < flat.rindex("Ant trails")  # the sources list comes after
    assert HEADING not in pdf_text(export_report(mixed_result(), "pdf", secrets=[]), tmp_path)
    word = _docx_text(export_report(mixed_result(), "docx", secrets=[], exchanges=exchanges()))
    assert HEADING in word and QUESTION in word and ANSWER.split("[")[0] in word
    assert HEADING not in _docx_text(export_report(mixed_result(), "docx", secrets=[]))


def test_history_export_and_the_history_download_load_the_saved_exchanges(cli, tmp_path, monkeypatch):
    from App_Function_Libraries.DB.research_store import get_research_store
    from App_Function_Libraries.Gradio_UI import history_tab
    store = get_research_store(cli.settings)
    asked, plain = mixed_result(), mixed_result(question="A report nobody asked about")
    store.save_research(asked)
    store.save_research(plain)
    for chat in exchanges():
        store.save_exchange(asked.id, chat)
    assert cli("history", "export", asked.id[:8], "-o", str(tmp_path / "r.md"))[0] == 0
    text = (tmp_path / "r.md").read_text(encoding="utf-8")
    assert f"## {HEADING}" in text and ANSWER in text and text.index(ANSWER) < text.index("## Sources")
    assert cli("history", "export", plain.id[:8], "-o", str(tmp_path / "p.md"))[0] == 0
    assert HEADING not in (tmp_path / "p.md").read_text(encoding="utf-8")

    button = history_tab.download_report(asked.id, "json")
    path = button.value if isinstance(button.value, str) else button.value["path"]
    saved = json.loads(open(path, encoding="utf-8").read())
    assert [e["question"] for e in saved["exchanges"]] == [QUESTION, "And the paper?"]
