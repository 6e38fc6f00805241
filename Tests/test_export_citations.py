"""Citation styles (numbered, APA, Chicago) in every export, and the reference-manager exports (BibTeX, RIS,
CSL-JSON) read back with real parsers (citeproc-py, rispy); `python app.py history export`."""
from __future__ import annotations

import calendar
import dataclasses
import io
import json

import pytest

from App_Function_Libraries.DB.citation_styles import reference, split_name
from App_Function_Libraries.DB.export import ExportFormatError, export_report
from App_Function_Libraries.records import Paper, ResearchResult, Source
from Tests.support.system_tools import require_pango
from Tests.test_db_cli import cli  # noqa: F401 - the fixture: run `python app.py ...` on a fresh config

NO_SECRETS: list[str] = []
MADE = calendar.timegm((2026, 11, 23, 12, 0, 0))
PAPER = Paper(authors=["Karl von Frisch", "Thomas D. Seeley", "Ada Lovelace"], year=1967,
              venue="Journal of Bee Studies", doi="10.1000/bees.42")
GREEK, CYRILLIC, CJK = "Οι μέλισσες χορεύουν για την τροφή", "Пчёлы танцуют, указывая путь", "蜜蜂用舞蹈传递食物的位置"


def mixed_result(**overrides) -> ResearchResult:
    """A report citing a dated web page, an undated one, a paper, a Wikipedia article and a local document."""
    sources = [
        Source(title="Waggle dance", url="https://bees.example/dance", date_published="2021-05-04", n=1),
        Source(title="Ant trails", url="https://ants.example/trails", n=2),
        Source(title="The dance language of bees", url="https://papers.example/frisch", kind="paper", paper=PAPER,
               n=3),
        Source(title="Honey bee", url="https://en.wikipedia.org/wiki/Honey_bee", kind="wikipedia", n=4),
        Source(title="hive-notes.pdf", url="/home/me/hive-notes.pdf#p3", kind="document", n=5),
    ]
    data = dict(question="How do honey bees share where food is?", sources=sources, created_at=MADE,
                params={"engines": ["brave"], "tone": "neutral", "report_format": "full", "length_words": 600},
                report_markdown=("## Findings\n\nBees **dance** to point at food [1]; ants follow trails [2]. "
                                 "The paper measured it [3], the encyclopedia agrees [4] and my notes too [5]. "
                                 f"Both [1, 3].\n\n- {GREEK} [1]\n- {CYRILLIC} [2]\n- {CJK} [3]\n"))
    data.update(overrides)
    return ResearchResult(**data)


# what each style writes for the paper, the undated web page and the document, in every format
EXPECTED = {
    "numbered": ["Karl von Frisch, Thomas D. Seeley, Ada Lovelace", "Ant trails"],
    "apa": ["von Frisch, K., Seeley, T. D., & Lovelace, A. (1967).", "Retrieved November 23, 2026, from",
            "(n.d.). ants.example."],
    "chicago": ["von Frisch, Karl, Thomas D. Seeley, and Ada Lovelace. 1967.", "ants.example. n.d.",
                "Accessed November 23, 2026."],
}


def _flat(text: str) -> str:
    return " ".join(text.replace("*", "").replace("\\", "").split())


def _docx_text(data: bytes) -> str:
    import docx
    return "\n".join(p.text for p in docx.Document(io.BytesIO(data)).paragraphs)


def as_text(result, fmt: str, style: str) -> str:
    data = export_report(result, fmt, secrets=NO_SECRETS, citation_style=style)
    if fmt == "docx":
        return _docx_text(data)
    if fmt == "html":
        import re
        return re.sub(r"<[^>]+>", "", data).replace("&amp;", "&")
    return data


@pytest.mark.parametrize("fmt", ["md", "html", "txt", "docx"])
def test_the_chosen_style_changes_the_sources_list_in_every_format(fmt):
    result = mixed_result()
    texts = {style: _flat(as_text(result, fmt, style)) for style in EXPECTED}
    for style, expected in EXPECTED.items():
        for phrase in expected:
            assert phrase in texts[style], (fmt, style, phrase)
        others = [s for s in EXPECTED if s != style]
        assert all(EXPECTED[style][0] not in texts[o] for o in others), (fmt, style)
    assert "The paper measured it [3]" in texts["apa"]  # the report keeps its numbers in every style


def test_style_comes_from_the_call_then_the_report_then_the_default():
    result = mixed_result(params={"citation_style": "chicago"})
    assert EXPECTED["chicago"][0] in _flat(export_report(result, "md", secrets=NO_SECRETS))
    assert EXPECTED["apa"][0] in _flat(export_report(result, "md", secrets=NO_SECRETS, citation_style="APA"))
    plain = mixed_result(params={})
    assert EXPECTED["numbered"][0] in _flat(export_report(plain, "md", secrets=NO_SECRETS))
    with pytest.raises(ExportFormatError, match="unknown citation style 'mla'; use one of numbered, apa, chicago"):
        export_report(result, "md", secrets=NO_SECRETS, citation_style="mla")


def test_web_pages_without_authors_or_dates_fall_back_gracefully():
    page = Source("Ant trails", "https://www.ants.example/trails")
    assert reference(2, page, "apa", "2026-11-23").text() == (
        "Ant trails. (n.d.). ants.example. Retrieved November 23, 2026, from https://www.ants.example/trails")
    assert reference(2, page, "chicago", "2026-11-23").text() == (
        "ants.example. n.d. “Ant trails.” Accessed November 23, 2026. https://www.ants.example/trails.")
    dated = dataclasses.replace(page, date_published="2024-03-05T10:00:00Z")
    assert "(2024, March 5). ants.example. https://www.ants.example/trails" in reference(1, dated, "apa", "x").text()
    document = Source("hive.pdf", "/home/me/hive.pdf#p3", kind="document")
    ref = reference(5, document, "apa", "2026-11-23")
    assert "/home/me/hive.pdf#p3" in ref.text() and not any(s.link for s in ref.spans)  # a path is never a link
    assert split_name("Ludwig van Beethoven") == ("Ludwig", "van Beethoven")
    assert split_name("Curie, Marie") == ("Marie", "Curie") and split_name("WHO") == ("", "WHO")


# ---------------------------------------------------------------- reference managers

@pytest.mark.filterwarnings("ignore:Unsupported BibTeX field")
def test_bibtex_cites_papers_as_articles_and_parses():
    from citeproc.source.bibtex import BibTeX
    bib = export_report(mixed_result(), "bib", secrets=NO_SECRETS)
    assert bib.count("@article{") == 1 and bib.count("@misc{") == 4
    entries = BibTeX(io.StringIO(bib))
    article = next(e for e in entries.values() if e["type"] == "article-journal")
    assert [a["family"] for a in article["author"]][1:] == ["Seeley", "Lovelace"]
    assert str(article["DOI"]) == "10.1000/bees.42" and article["issued"]["year"] == 1967
    assert str(article["container_title"]) == "Journal of Bee Studies"
    assert "doi = {10.1000/bees.42}" in bib and "year = {2021}" in bib


def test_ris_parses_with_rispy_and_round_trips_a_paper():
    import rispy
    records = rispy.loads(export_report(mixed_result(), "ris", secrets=NO_SECRETS))
    assert [r["type_of_reference"] for r in records] == ["ELEC", "ELEC", "JOUR", "ENCYC", "GEN"]
    paper = records[2]
    assert paper["authors"] == ["von Frisch, Karl", "Seeley, Thomas D.", "Lovelace, Ada"]
    assert paper["doi"] == "10.1000/bees.42" and paper["year"] == "1967"
    assert paper["journal_name"] == "Journal of Bee Studies" and paper["title"] == "The dance language of bees"
    assert records[0]["urls"] == ["https://bees.example/dance"] and records[0]["access_date"] == "2026/11/23"


def test_csl_json_renders_with_citeproc_and_round_trips_a_paper():
    from citeproc import Citation, CitationItem, CitationStylesBibliography, CitationStylesStyle, formatter
    from citeproc.source.json import CiteProcJSON
    items = json.loads(export_report(mixed_result(), "csl", secrets=NO_SECRETS))
    assert [i["type"] for i in items] == ["webpage", "webpage", "article-journal", "entry-encyclopedia", "document"]
    paper = items[2]
    assert paper["author"][0] == {"family": "von Frisch", "given": "Karl"}
    assert paper["DOI"] == "10.1000/bees.42" and paper["issued"] == {"date-parts": [[1967]]}
    source = CiteProcJSON(items)
    style = CitationStylesStyle("harvard-cite-them-right", validate=False)
    bibliography = CitationStylesBibliography(style, source, formatter.plain)
    bibliography.register(Citation([CitationItem(i["id"]) for i in items]))
    rendered = "\n".join(str(entry) for entry in bibliography.bibliography())
    assert "Seeley" in rendered and "1967" in rendered and "Journal of Bee Studies" in rendered
    assert "Waggle dance" in rendered


def test_reports_without_sources_export_empty_reference_files():
    empty = ResearchResult(question="q")
    assert export_report(empty, "ris", secrets=NO_SECRETS) == ""
    assert json.loads(export_report(empty, "csl", secrets=NO_SECRETS)) == []


# ---------------------------------------------------------------- CLI

def test_history_export_writes_each_format_and_says_what_is_wrong_in_one_line(cli, tmp_path):
    require_pango()
    from App_Function_Libraries.DB.research_store import get_research_store
    result = mixed_result()
    get_research_store(cli.settings).save_research(result)
    rid = result.id[:8]
    code, out, err = cli("history", "export", rid, "--format", "pdf", "-o", str(tmp_path / "r.pdf"))
    assert code == 0 and err == "" and (tmp_path / "r.pdf").read_bytes().startswith(b"%PDF")
    assert cli("history", "export", rid, "-o", str(tmp_path / "r.docx"))[0] == 0  # the format from the ending
    assert (tmp_path / "r.docx").read_bytes()[:2] == b"PK"
    code, _, _ = cli("history", "export", rid, "-o", str(tmp_path / "r.md"), "--citation-style", "apa")
    assert code == 0 and EXPECTED["apa"][0] in _flat((tmp_path / "r.md").read_text(encoding="utf-8"))
    assert cli("history", "export", rid, "-o", str(tmp_path / "r.csl.json"))[0] == 0
    assert json.loads((tmp_path / "r.csl.json").read_text(encoding="utf-8"))[2]["DOI"] == "10.1000/bees.42"

    failures = {
        "unknown id": (["history", "export", "ffffffff", "-f", "pdf", "-o", str(tmp_path / "x.pdf")], "ffffffff"),
        "unknown format": (["history", "export", rid, "-f", "odt", "-o", str(tmp_path / "x.odt")],
                           "unknown export format 'odt'"),
        "unknown style": (["history", "export", rid, "-o", str(tmp_path / "x.md"), "--citation-style", "mla"],
                          "unknown citation style 'mla'"),
        "unwritable": (["history", "export", rid, "-o", str(tmp_path / "no" / "such" / "x.pdf")],
                       f"cannot write {tmp_path / 'no' / 'such' / 'x.pdf'}: No such file or directory"),
    }
    for what, (args, message) in failures.items():
        code, out, err = cli(*args)
        assert code == 1 and message in err and err.count("\n") == 1 and err.startswith("error: "), (what, err)
    assert not (tmp_path / "x.pdf").exists() and not (tmp_path / "x.odt").exists()
    assert not (tmp_path / "x.md").exists()
