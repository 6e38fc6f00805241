"""Reading every supported file type into normalized text, and refusing unreadable files with a reason."""
from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from App_Function_Libraries.Documents.doc_types import UnreadableFile
from App_Function_Libraries.Documents.readers import file_type_of, normalize_text, read_document
from Tests.support.make_pdf import write_encrypted_pdf, write_pdf

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def write_docx(path: Path, paragraphs: list[str]) -> Path:
    """A minimal .docx: a zip whose word/document.xml holds one <w:p> per paragraph."""
    body = "".join(f'<w:p><w:r><w:t xml:space="preserve">{p}</w:t></w:r></w:p>' for p in paragraphs)
    xml = f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="{W}"><w:body>{body}' \
          f"</w:body></w:document>"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("[Content_Types].xml", '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/'
                   'package/2006/content-types"/>')
        z.writestr("word/document.xml", xml)
    return path


def test_plain_text_is_normalized(tmp_path):
    p = tmp_path / "notes.txt"
    p.write_bytes("\ufeffFirst  line\twith   spaces\r\nsecond line\r\n\r\n\r\n\r\nNew\u00a0paragraph\x07.".encode())
    read = read_document(p)
    assert read.text == "First line with spaces\nsecond line\n\nNew paragraph."
    assert read.file_type == "txt" and read.page_starts == []


def test_legacy_encoding_is_detected(tmp_path):
    p = tmp_path / "old.txt"
    p.write_bytes("Café society in Zürich, façade of the théâtre, naïve résumé.".encode("latin-1"))
    assert "Zürich" in read_document(p).text


def test_markdown_and_rst_headings_become_sentences_and_titles(tmp_path):
    md = tmp_path / "paper.md"
    md.write_text("# Enzyme kinetics\n\nMichaelis constants vary.\n\n```\n# not a heading\n```\n", encoding="utf-8")
    read = read_document(md)
    assert read.title == "Enzyme kinetics"
    assert read.text.startswith("Enzyme kinetics.\n\nMichaelis constants vary.")
    assert "# not a heading" in read.text
    rst = tmp_path / "guide.rst"
    rst.write_text("Field guide\n===========\n\nBirds of the coast.\n", encoding="utf-8")
    read = read_document(rst)
    assert read.title == "Field guide" and read.text == "Field guide.\n\nBirds of the coast."


def test_html_main_text_and_title(tmp_path):
    p = tmp_path / "page.html"
    p.write_text("<html><head><title>Tide tables</title><script>var x = 1;</script></head><body>"
                 "<nav>Home | About</nav><article><h1>Tide tables</h1>"
                 "<p>High tide at the harbour comes about fifty minutes later each day, following the moon.</p>"
                 "<p>Spring tides happen near full and new moon, when sun and moon pull together.</p>"
                 "</article></body></html>", encoding="utf-8")
    read = read_document(p)
    assert read.title == "Tide tables"
    assert "fifty minutes later each day" in read.text and "Spring tides" in read.text
    assert "var x" not in read.text
    assert "\n\n" in read.text  # paragraphs stay apart for the chunker


def test_pdf_pages_title_and_dehyphenation(tmp_path):
    p = write_pdf(tmp_path / "paper.pdf", [["Glaciers retreat (measured by satellite).", "Ice loss is accel-",
                                            "erating in the Alps."], None, ["Page three discusses sea level."]],
                  title="Ice report")
    read = read_document(p)
    assert read.title == "Ice report"
    assert "accelerating in the Alps" in read.text
    assert "(measured by satellite)" in read.text
    words_page1 = len("Glaciers retreat (measured by satellite). Ice loss is accelerating in the Alps.".split())
    assert read.page_starts == [0, words_page1, words_page1]  # page 2 has no text


def test_docx_paragraphs(tmp_path):
    p = write_docx(tmp_path / "memo.docx", ["Budget memo", "Travel costs rose by a third.", "Approved &amp; filed."])
    read = read_document(p)
    assert read.text == "Budget memo\n\nTravel costs rose by a third.\n\nApproved & filed."


@pytest.mark.parametrize("maker, reason", [
    (lambda d: write_encrypted_pdf(d / "locked.pdf", [["secret plans"]]), "encrypted PDF"),
    (lambda d: write_pdf(d / "scan.pdf", [None, None]), "no extractable text in this PDF (2 page(s)"),
    (lambda d: _bytes(d / "garbage.pdf", b"%PDF-1.4 this is not really a pdf"), "not a readable PDF"),
    (lambda d: _bytes(d / "blob.txt", bytes(range(256)) * 8), "binary content"),
    (lambda d: _bytes(d / "empty.md", b""), "empty file"),
    (lambda d: _bytes(d / "blank.txt", b"   \n\n\t  \n"), "empty file"),
    (lambda d: _bytes(d / "broken.docx", b"PK\x03\x04 not a zip"), "not a readable .docx"),
    (lambda d: _bytes(d / "picture.png", b"\x89PNG\r\n"), "unsupported file type .png"),
    (lambda d: _bytes(d / "empty.html", b"<html><body><script>x()</script></body></html>"), "no text"),
])
def test_unreadable_files_raise_with_reason(tmp_path, maker, reason):
    path = maker(tmp_path)
    with pytest.raises(UnreadableFile) as err:
        read_document(path)
    assert reason in str(err.value)


def test_pdf_encrypted_with_empty_user_password_is_read(tmp_path):
    from pypdf import PdfReader, PdfWriter
    plain = write_pdf(tmp_path / "plain.pdf", [["Owner-protected but readable text."]])
    writer = PdfWriter(clone_from=PdfReader(plain))
    writer.encrypt(user_password="", owner_password="owner", algorithm="RC4-128")
    out = tmp_path / "owner_only.pdf"
    with open(out, "wb") as fh:
        writer.write(fh)
    assert "readable text" in read_document(out).text


def test_file_types_and_normalize_edge_cases():
    assert file_type_of(Path("a.PDF")) == "pdf" and file_type_of(Path("b.markdown")) == "md"
    assert file_type_of(Path("c.doc")) is None
    assert normalize_text("a\u200bb\u00adc\n\n\n\nd") == "abc\n\nd"


def _bytes(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path
