"""One reader for bytes (Retrieval/reading.py): the same PDF or saved page reads the same from the web (the
"extract" stage) and from disk (the documents library): same words, same title, same failure."""
from __future__ import annotations

from pathlib import Path

import pytest

from App_Function_Libraries.Documents.doc_types import UnreadableFile
from App_Function_Libraries.Documents.readers import read_document
from App_Function_Libraries.Research.extract import ExtractionFailed, extract_content
from Tests.support.make_pdf import pdf_bytes
from Tests.support.mini_web import HISTORY, HOSTILE, article_html, hostile_pdf

PAGES = [["Glaciers retreat (measured by satellite).", "Ice loss is accel-", "erating in the Alps."], None,
         ["Page three discusses sea level and the first survey."]]


def from_disk(tmp_path: Path, name: str, data: bytes):
    path = tmp_path / name
    path.write_bytes(data)
    return read_document(path)


def test_a_pdf_reads_the_same_from_the_web_and_from_disk(tmp_path):
    body = pdf_bytes(PAGES, "Ice report")
    web = extract_content(body, "application/pdf", "", "https://example.org/ice.pdf")
    disk = from_disk(tmp_path, "ice.pdf", body)
    assert web.text.split() == disk.text.split()  # web joins lines into paragraphs; the words are the same
    assert web.title == disk.title == "Ice report"
    assert "accelerating in the Alps" in web.text  # de-hyphenated on both paths (the web path did not before)


@pytest.mark.parametrize("kind", ["pdf-unknown-filter", "pdf-encryption-v9"])
def test_a_pdf_the_reader_cannot_handle_fails_alike_from_the_web_and_from_disk(tmp_path, kind):
    body = hostile_pdf(next(p for p in HOSTILE if p.kind == kind))
    with pytest.raises(ExtractionFailed) as web:
        extract_content(body, "application/pdf")
    with pytest.raises(UnreadableFile) as disk:  # before: the V 9 scheme raised NotImplementedError out of it
        from_disk(tmp_path, "hostile.pdf", body)
    assert str(web.value) == str(disk.value)


def test_a_saved_latin1_page_reads_like_the_fetched_one(tmp_path):
    body = article_html(HISTORY, "windows-1252").encode("cp1252")  # declares its charset in <meta> only
    web = extract_content(body, "text/html", "")
    disk = from_disk(tmp_path, "history.html", body)
    assert "observation hives — a method" in disk.text  # the <meta charset> is honoured from disk too
    assert web.text.split() == disk.text.split() and web.title == disk.title
