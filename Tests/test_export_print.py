"""PDF and Word exports read back by real readers: pdftotext/pdffonts (poppler-utils) and pypdf for the PDF's
text, fonts and link annotations; python-docx for the Word file's text, styles and hyperlinks."""
from __future__ import annotations

import io
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from App_Function_Libraries.DB.export import export_note, export_report
from App_Function_Libraries.DB.export_print import html_to_pdf
from App_Function_Libraries.records import ResearchResult, Source
from Tests.support.system_tools import require_cjk_font, require_pango, require_tool
from Tests.test_export_citations import CJK, CYRILLIC, GREEK, NO_SECRETS, mixed_result

WEB_SOURCES = {1: "https://bees.example/dance", 2: "https://ants.example/trails", 3: "https://papers.example/frisch",
               4: "https://en.wikipedia.org/wiki/Honey_bee"}


@pytest.fixture
def pdf_tools():
    """Pango renders the PDF, poppler's pdftotext reads it back: skipped without them (failed in CI)."""
    require_pango()
    require_tool("pdftotext")


def pdf_text(data: bytes, tmp_path) -> str:
    path = tmp_path / "out.pdf"
    path.write_bytes(data)
    return subprocess.run(["pdftotext", "-enc", "UTF-8", str(path), "-"], capture_output=True, text=True,
                          timeout=60, check=True).stdout


def pdf_links(data: bytes) -> list[tuple[str, str]]:
    """(kind, target) of each link annotation: ("uri", address) or ("internal", destination)."""
    from pypdf import PdfReader
    links = []
    for page in PdfReader(io.BytesIO(data)).pages:
        for annot in page.get("/Annots") or []:
            annot = annot.get_object()
            if annot.get("/Subtype") != "/Link":
                continue
            action = annot.get("/A")
            if action is not None and action.get("/URI") is not None:
                links.append(("uri", str(action["/URI"])))
            else:
                links.append(("internal", str(annot.get("/Dest") or (action or {}).get("/D"))))
    return links


def test_pdf_has_text_scripts_header_sources_and_clickable_citations(tmp_path, pdf_tools):
    require_tool("pdffonts")
    require_cjk_font()
    data = export_report(mixed_result(mode="llm"), "pdf", secrets=NO_SECRETS, citation_style="apa")
    assert data.startswith(b"%PDF")
    text = " ".join(pdf_text(data, tmp_path).split())
    for line in (GREEK, CYRILLIC, CJK, "Bees dance to point at food [1]; ants follow trails [2].",
                 "How do honey bees share where food is?", "Citation style APA", "Engines brave",
                 "full report, tone neutral, about 600 words", "von Frisch, K., Seeley, T. D., & Lovelace, A. (1967)",
                 "Sources"):
        assert line in text, line
    fonts = subprocess.run(["pdffonts", str(tmp_path / "out.pdf")], capture_output=True, text=True, timeout=60).stdout
    assert "DejaVu" in fonts and ("WenQuanYi" in fonts or "CJK" in fonts), fonts  # CJK from a real CJK font
    links = pdf_links(data)
    uris = [target for kind, target in links if kind == "uri"]
    # every [n] of the report: [1] x3 ([1], [1, 3], Greek line), [2] x2, [3] x3, [4] x1 — plus the list's links
    for n, count in ((1, 3), (2, 2), (3, 3), (4, 1)):
        assert uris.count(WEB_SOURCES[n]) >= count, (n, uris)
    assert "https://doi.org/10.1000/bees.42" in uris  # the paper's entry links its DOI
    assert any(kind == "internal" for kind, _ in links)  # [5], a local file, links to its entry in the list
    assert not any(u.startswith(("file:", "/home")) for u in uris)


def test_pdf_of_a_hostile_report_shows_its_markup_as_text(tmp_path, pdf_tools):
    result = ResearchResult(question="<b>Q</b>", report_markdown="Text <script>alert(1)</script> "
                            "[x](javascript:alert(2)) <a href='http://evil.example/'>evil</a> [1].",
                            sources=[Source(title="S", url="javascript:alert(3)", n=1)])
    data = export_report(result, "pdf", secrets=NO_SECRETS)
    text = pdf_text(data, tmp_path)
    assert "<script>alert(1)</script>" in text and "<b>Q</b>" in text
    assert not any(target.startswith(("javascript", "http://evil")) for _, target in pdf_links(data))


class _Counting(BaseHTTPRequestHandler):
    hits: list[str] = []

    def do_GET(self):  # noqa: N802 - the http.server name
        _Counting.hits.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.end_headers()

    def log_message(self, *args):
        pass


def test_pdf_rendering_fetches_nothing(tmp_path):
    """Even HTML that names remote and local files (the exports never make such HTML; this is the second wall)
    makes WeasyPrint fetch nothing."""
    require_pango()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Counting)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    secret = tmp_path / "secret.css"
    secret.write_text("body { background: red }", encoding="utf-8")
    base = f"http://127.0.0.1:{server.server_port}"
    try:
        page = (f'<html><head><link rel="stylesheet" href="{base}/style.css">'
                f'<link rel="stylesheet" href="file://{secret}"><style>@import url("{base}/imported.css");'
                f'body {{ background: url("{base}/bg.png") }}</style></head>'
                f'<body><img src="{base}/pixel.png"><img src="file:///etc/passwd">text</body></html>')
        assert html_to_pdf(page).startswith(b"%PDF")
    finally:
        server.shutdown()
        server.server_close()
    assert _Counting.hits == []


def test_docx_has_header_structure_hyperlinked_citations_and_styled_sources():
    import docx
    from docx.oxml.ns import qn
    data = export_report(mixed_result(), "docx", secrets=NO_SECRETS, citation_style="chicago")
    document = docx.Document(io.BytesIO(data))
    paragraphs = document.paragraphs
    text = "\n".join(p.text for p in paragraphs)
    assert paragraphs[0].style.name == "Title" and paragraphs[0].text == "How do honey bees share where food is?"
    assert "Citation style: Chicago author-date" in text and "Engines: brave" in text
    # an extractive brief's options: only those it follows (no tone, language or prompt: those are an LLM's)
    assert "Report options: full report, about 600 words\n" in text + "\n" and "tone" not in text
    assert any(p.style.name == "Heading 2" and p.text == "Findings" for p in paragraphs)
    bullets = [p.text for p in paragraphs if p.style.name == "List Bullet"]
    assert bullets == [f"{GREEK} [1]", f"{CYRILLIC} [2]", f"{CJK} [3]"]
    assert any(r.bold and r.text == "dance" for p in paragraphs for r in p.runs)
    links = []
    for p in paragraphs:
        for link in p._p.findall(qn("w:hyperlink")):
            rid = link.get(qn("r:id"))
            target = p.part.rels[rid].target_ref if rid else "#" + link.get(qn("w:anchor"))
            links.append(("".join(t.text for t in link.iter(qn("w:t"))), target))
    for n, url in WEB_SOURCES.items():
        assert (f"[{n}]", url) in links, n
    assert ("1", WEB_SOURCES[1]) in links and ("3", WEB_SOURCES[3]) in links  # the group [1, 3]
    assert ("[5]", "#source-5") in links  # a local file: to its entry, which carries the bookmark
    assert ("https://doi.org/10.1000/bees.42.", "https://doi.org/10.1000/bees.42") in links
    assert "von Frisch, Karl, Thomas D. Seeley, and Ada Lovelace. 1967." in text
    assert any(b.get(qn("w:name")) == "source-5" for b in document.element.body.iter(qn("w:bookmarkStart")))


def test_note_exports_to_pdf_and_docx_link_its_report_sources(tmp_path, pdf_tools):
    from App_Function_Libraries.DB.notes_store import Note
    result = mixed_result()
    note = Note(id="n1", title="My bee note", content="Bees dance [1], see also [3].", keywords=["bees"],
                created_at=result.created_at, updated_at=result.created_at, version=1, report=result.to_dict())
    data = export_note(note, "pdf", secrets=NO_SECRETS)
    assert "Bees dance [1], see also [3]." in pdf_text(data, tmp_path)
    uris = [t for kind, t in pdf_links(data) if kind == "uri"]
    assert uris == [WEB_SOURCES[1], WEB_SOURCES[3]]
    import docx
    document = docx.Document(io.BytesIO(export_note(note, "docx", secrets=NO_SECRETS)))
    assert document.paragraphs[0].text == "My bee note" and "Keywords: bees" in [p.text for p in document.paragraphs]
