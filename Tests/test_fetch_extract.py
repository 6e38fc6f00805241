"""Main-text extraction: HTML (trafilatura and the fallback), PDF, plain text, charsets, binary bodies, and the
`extract` command that runs the same code path on files and URLs."""
from __future__ import annotations

import json
import re

import pytest

from App_Function_Libraries.CLI.main import main
from App_Function_Libraries.Research.extract import ExtractionFailed, extract_content, sniff_kind
from App_Function_Libraries.Retrieval.reading import decode_text
from Tests.support.make_pdf import pdf_bytes
from Tests.support.mini_web import HISTORY, HOSTILE, WAGGLE, article_html, hostile_pdf

EXTRACT_SETTINGS = {"fetch": {"read_timeout_seconds": 1, "total_timeout_seconds": 3}}


def test_article_main_text_without_boilerplate():
    page = extract_content(article_html(WAGGLE).encode(), "text/html", "utf-8")
    assert page.content_type == "text/html" and page.method == "trafilatura"
    assert "figure-eight" in page.text and "750 metres" in page.text
    for boilerplate in ("Sign in", "Cookie settings", "Our summer sale", "newsletter"):
        assert boilerplate not in page.text
    assert page.title.startswith("How the waggle dance points to food")
    assert "\n\n" in page.text  # paragraphs kept apart


def test_windows_1252_page_with_meta_charset_only():
    body = article_html(HISTORY, "windows-1252").encode("cp1252")
    page = extract_content(body, "text/html", "")
    assert page.charset == "cp1252" and not page.warning
    assert "observation hives — a method" in page.text


def test_latin1_label_read_as_windows_1252():
    assert decode_text("café “quoted”".encode("cp1252"), "iso-8859-1").text == "café “quoted”"


def test_wrong_declared_charset_is_detected_and_noted():
    body = "<html><body><main><p>Die Bienen tanzen auf der Wabe, um Blüten zu zeigen. Größere Entfernungen "
    body += "bedeuten längere Tänze.</p></main></body></html>"
    page = extract_content(body.encode("cp1252"), "text/html", "utf-8")
    assert "Blüten" in page.text and "Größere" in page.text
    assert "says it is utf-8" in page.warning


@pytest.mark.parametrize("label", ["hex", "base64", "rot13", "zlib", "utf-7", "undefined", "no-such-charset"])
def test_a_label_that_is_no_page_charset_falls_back_to_detection(label):
    body = "<p>Die Bienen tanzen auf der Wabe, um Blüten zu zeigen.</p>".encode("utf-8")
    for header, meta in ((label, b""), ("", f'<meta charset="{label}">'.encode())):
        decoded = decode_text(meta + body, header)
        assert "Blüten" in decoded.text and decoded.charset == "utf-8"
        assert f"declares '{label}'" in decoded.note


def test_a_bogus_header_charset_yields_to_the_meta_tag():
    body = article_html(HISTORY, "windows-1252").encode("cp1252")
    page = extract_content(body, "text/html", "base64")
    assert page.charset == "cp1252" and "observation hives — a method" in page.text and not page.warning


@pytest.mark.parametrize("kind,reason", [("pdf-unknown-filter", "does not support (Unsupported filter /FooDecode)"),
                                         ("pdf-encryption-v9", "encrypted PDF that cannot be read")])
def test_a_pdf_the_reader_cannot_handle_is_a_clean_failure(kind, reason):
    page = next(p for p in HOSTILE if p.kind == kind)
    with pytest.raises(ExtractionFailed, match=re.escape(reason)):
        extract_content(hostile_pdf(page), "application/pdf")


def test_pdf_text_and_title():
    body = pdf_bytes([["Bees dance to show the way to food.", "Distance is coded by duration."]], "Bee notes")
    page = extract_content(body, "application/pdf")
    assert page.content_type == "application/pdf" and page.title == "Bee notes"
    assert "Distance is coded by duration." in page.text


def test_broken_pdf_is_a_clean_failure():
    with pytest.raises(ExtractionFailed, match="PDF"):
        extract_content(b"%PDF-1.4\n this is not really a pdf", "application/pdf")


def test_plain_text_page():
    page = extract_content(b"Bee facts\n\nBees dance.\nThey also buzz.", "text/plain", "utf-8")
    assert page.content_type == "text/plain" and page.title == "Bee facts" and page.text == "Bee facts\n\nBees dance. They also buzz."


@pytest.mark.parametrize("body,ctype", [(bytes(range(256)) * 8, "text/html"), (b"\x89PNG\r\n\x1a\n" + bytes(200), ""),
                                        (b"GIF89a" + bytes(range(40)) * 5, "image/gif")])
def test_binary_bodies_are_refused(body, ctype):
    assert sniff_kind(body, ctype) == "binary"
    with pytest.raises(ExtractionFailed, match="not a text page"):
        extract_content(body, ctype)


def test_fallback_when_trafilatura_finds_nothing():
    html = "<html><body><div id='comments'><p>Bees dance to point at food.</p></div></body></html>"
    page = extract_content(html.encode(), "text/html", "utf-8")
    assert page.method == "fallback"
    assert page.text == "Bees dance to point at food."


def test_empty_page_is_a_clean_failure():
    with pytest.raises(ExtractionFailed):
        extract_content(b"", "text/html")


def test_extract_command_json_on_files_and_urls(tmp_path, world, make_settings, capsys):
    from Tests.support.mini_web import MiniWeb
    web = MiniWeb(world).install()
    settings = make_settings(EXTRACT_SETTINGS)
    saved = tmp_path / "waggle.html"
    saved.write_text(article_html(WAGGLE), encoding="utf-8")
    missing = tmp_path / "missing.html"
    code = main(["--config", str(settings.path), "extract", str(saved), web.url("bees/field-notes.pdf"), web.url("faults/server-error"),
                 str(missing), "--json"])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 1
    assert [r["source"] for r in lines] == [str(saved), web.url("bees/field-notes.pdf"),
                                           web.url("faults/server-error"), str(missing)]
    assert "figure-eight" in lines[0]["text"] and lines[0]["title"].startswith("How the waggle")
    assert "700 metres" in lines[1]["text"]
    assert "HTTP 500" in lines[2]["error"] and lines[2]["text"] == ""
    assert "No such file" in lines[3]["error"]


def test_extract_command_reports_each_failing_input_on_stderr_and_goes_on(tmp_path, make_settings, capsys):
    settings = make_settings(EXTRACT_SETTINGS)
    hex_page = tmp_path / "hex.html"
    hex_page.write_bytes(article_html(WAGGLE, "hex").encode())
    pdf = tmp_path / "filter.pdf"
    pdf.write_bytes(hostile_pdf(next(p for p in HOSTILE if p.kind == "pdf-unknown-filter")))
    saved = tmp_path / "waggle.html"
    saved.write_text(article_html(WAGGLE), encoding="utf-8")
    inputs = [str(hex_page), str(pdf), str(tmp_path), "bad\x00name.html", str(saved)]
    for as_json in (True, False):
        code = main(["--config", str(settings.path), "extract", *inputs] + (["--json"] if as_json else []))
        out = capsys.readouterr()
        assert code == 1
        errors = out.err.splitlines()
        assert [line.split(": ", 1)[0] for line in errors] == inputs[1:4]
        assert "Unsupported filter /FooDecode" in errors[0] and "Is a directory" in errors[1]
        assert "unexpected ValueError: embedded null byte" in errors[2]
        if as_json:
            records = [json.loads(line) for line in out.out.splitlines()]
            assert [r["source"] for r in records] == inputs and [bool(r.get("error")) for r in records] == \
                [False, True, True, True, False]
            assert "figure-eight" in records[0]["text"] and "figure-eight" in records[4]["text"]
        else:
            assert out.out.count("figure-eight") == 2 and out.out.count("==> ") == 2


def test_extract_command_blocks_private_addresses_by_default(world, make_settings, capsys):
    settings = make_settings({"fetch": {"allow_private_addresses": "false"}})
    code = main(["--config", str(settings.path), "extract", world.url("/anything"), "--json"])
    record = json.loads(capsys.readouterr().out)
    assert code == 1 and "blocked" in record["error"] and not world.requests_to("/anything")
