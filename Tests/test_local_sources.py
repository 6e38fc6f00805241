"""The local sources a research searches beside the web: the Wikipedia index and the document library."""
from __future__ import annotations

from pathlib import Path

import pytest

from App_Function_Libraries.Research.local_sources import search_local, split_engines
from App_Function_Libraries.Wikipedia.index import forget_wiki_index
from Tests.support.make_pdf import write_pdf

pytestmark = pytest.mark.slow


def library_files(folder: Path) -> Path:
    folder.mkdir()
    arctic = [f"Sea ice covers the Arctic Ocean in month {m} of the survey, as the buoys reported." for m in range(40)]
    write_pdf(folder / "ice.pdf", [arctic, ["Alpine glaciers lost a tenth of their volume between 2021 and 2023."]])
    (folder / "coffee.md").write_text("# Brewing\n\nA French press needs coarse grounds and four minutes of "
                                      "steeping.\n", encoding="utf-8")
    return folder


def test_engines_split_into_web_and_local():
    assert split_engines(["duckduckgo", "wikipedia", "brave", "documents"]) == (
        ["duckduckgo", "brave"], ["wikipedia", "documents"])


def test_missing_index_and_empty_library_are_noted_once_and_skipped(make_settings, tmp_path):
    settings = make_settings({"wikipedia": {"index_dir": str(tmp_path / "no-index")},
                              "documents": {"index_dir": str(tmp_path / "no-docs")}})
    forget_wiki_index()
    found = search_local(["wikipedia", "documents"], ["q one", "q two"], settings, 3)
    assert found.runs == []
    assert len(found.notes) == 2
    assert found.notes[0].startswith("wikipedia: no Wikipedia index") and "build --demo" in found.notes[0]
    assert found.notes[1].startswith("documents: the document library is empty") and "docs add" in found.notes[1]


def test_local_finds_carry_their_text_and_where_they_are(make_settings, tmp_path):
    from App_Function_Libraries.Documents.library import DocumentLibrary
    from App_Function_Libraries.Wikipedia.demo import build_demo_index
    settings = make_settings()
    forget_wiki_index()
    build_demo_index(progress=lambda done, total: None, settings=settings)
    DocumentLibrary(settings).add([library_files(tmp_path / "files")])
    found = search_local(["wikipedia", "documents"], ["Who first reached the summit of Mount Everest?",
                                                      "How much volume did alpine glaciers lose?"], settings, 3)
    assert found.notes == [] and [r.label.split("|")[0] for r in found.runs] == ["wikipedia", "documents"] * 2
    everest = found.runs[0].finds[0]
    assert everest.kind == "wikipedia" and everest.title == "Mount Everest" and "Tenzing" in everest.text
    assert everest.url == "demo-encyclopedia:Mount_Everest"  # the team wrote it: no link to Wikipedia
    glaciers = found.runs[3].finds[0]
    page = glaciers.title.rsplit(" ", 1)[-1]  # the page its best chunk starts on
    assert glaciers.kind == "document" and glaciers.title == f"ice.pdf, p. {page}" and page.isdigit()
    assert glaciers.url.startswith("file://") and glaciers.url.endswith(f"/files/ice.pdf#p{page}")
    assert "a tenth of their volume" in glaciers.text
    assert all(f.text.strip() and f.snippet for run in found.runs for f in run.finds)
    forget_wiki_index()
