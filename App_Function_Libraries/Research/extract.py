"""The main text of a fetched page: HTML through trafilatura (with a BeautifulSoup fallback when it finds
nothing), PDF through pypdf, plain text as is. Binary bodies are refused with a clear reason.

HTML boilerplate that trafilatura lets through is cut by general rules in `boilerplate.py`: page chrome
pruned from the tree before extraction (newsletter/author/share/next-post boxes), furniture paragraphs
dropped after it (credits, copyright and "last modified" stamps, sign-up calls, label-only lines), and the
page's standfirst (its meta description, when shown in the body) put back when trafilatura left it out.

`extract_content(body, content_type, header_charset, url)` is the extraction itself; the research pipeline and
`python app.py extract` call it through `read_page_text`, which runs it in a parse worker that is killed at
[fetch] extract_timeout_seconds or when it needs more than extract_memory_mb (parse_sandbox.py), so hostile
bytes cost that page only. Paragraphs in the returned text are separated by blank lines.
"""
from __future__ import annotations

import io
import logging
import re
import threading
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

from App_Function_Libraries.config import FetchSettings
from App_Function_Libraries.parse_sandbox import ParseFailed, ParseLimits, failure_line, run_limited, warm
from App_Function_Libraries.Research.boilerplate import (drop_boilerplate_paragraphs, prune_page_chrome, standfirst,
                                                           with_standfirst)
from App_Function_Libraries.Research.fetch import decode_text
from App_Function_Libraries.errors import QuarryError

HTML_TYPES = ("text/html", "application/xhtml+xml")
TEXT_TYPES = ("text/plain", "text/markdown", "text/csv", "application/json", "text/xml", "application/xml")
FALLBACK_DROP_TAGS = ("script", "style", "noscript", "nav", "header", "footer", "aside", "form", "iframe",
                      "svg", "button", "template")
FALLBACK_BLOCK_TAGS = ("p", "li", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote", "td", "dd", "dt")
MIN_FALLBACK_WORDS = 3
PARSER_MODULES = ("trafilatura", "pypdf", "bs4", "lxml.html", "charset_normalizer")  # a parse worker's imports
# trafilatura's MIN_EXTRACTED_SIZE (default 250 characters): below it a short article is replaced by a
# whole-container dump (share bars, author boxes). 200 keeps short posts clean; lower also drops short
# dialogue paragraphs (measured on bench/extraction_eval.py and bench/readability_eval.py).
TRAFILATURA_MIN_EXTRACTED_SIZE = 200
RECOVER_STANDFIRST = True  # put back the page's shown meta description when trafilatura dropped it


class ExtractionFailed(QuarryError):
    """No text could be taken from the page; str() is the one-line reason."""


@dataclass
class ExtractedPage:
    title: str
    text: str
    kind: str  # html | pdf | text
    method: str  # trafilatura | fallback | pypdf | plain
    charset: str = ""
    lossy: bool = False  # some bytes were invalid in the page's charset and were replaced
    note: str = ""  # e.g. the declared charset was wrong and another was used


def sniff_kind(body: bytes, content_type: str = "", location: str = "") -> str:
    """'pdf', 'html', 'text' or 'binary', from the bytes first, then the declared type and the name."""
    head = body[:2048]
    if head.lstrip().startswith(b"%PDF"):
        return "pdf"
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):  # UTF-16 text has NULs but is text
        return "html" if b"<\x00h\x00t\x00m\x00l" in head.lower() or content_type in HTML_TYPES else "text"
    if b"\x00" in head or _control_ratio(head) > 0.1:
        return "binary"
    lowered = head.lower()
    if content_type in HTML_TYPES or b"<html" in lowered or b"<!doctype html" in lowered:
        return "html"
    if location.lower().endswith((".html", ".htm", ".xhtml")):
        return "html"
    if content_type.startswith("text/") or content_type in TEXT_TYPES or not content_type:
        return "text"
    if content_type == "application/pdf":
        return "pdf"
    return "binary"


def _control_ratio(data: bytes) -> float:
    if not data:
        return 0.0
    controls = sum(1 for b in data if b < 32 and b not in (9, 10, 12, 13))
    return controls / len(data)


def read_page_text(body: bytes, content_type: str, header_charset: str, url: str | None,
                   settings: FetchSettings, on_start: Callable[[], None] | None = None,
                   cancel: threading.Event | None = None) -> ExtractedPage:
    """extract_content in a parse worker under the [fetch] limits; every way it fails is an ExtractionFailed
    with one line (`on_start` is called when a worker takes the page)."""
    limits = ParseLimits(settings.extract_timeout_seconds, settings.extract_memory_mb)
    try:
        return run_limited(extract_content, body, content_type, header_charset, url, limits=limits,
                           on_start=on_start, cancel=cancel, preload=PARSER_MODULES)
    except ParseFailed as exc:
        raise ExtractionFailed(failure_line(exc, limits, "reading the page's text", "fetch",
                                            "extract_timeout_seconds", "extract_memory_mb")) from None


def warm_extractor() -> None:
    """Start a parse worker with the parsers imported, while pages are still downloading."""
    warm((__name__, *PARSER_MODULES))


def extract_content(body: bytes, content_type: str = "", header_charset: str = "",
                    url: str | None = None) -> ExtractedPage:
    """The page's title and main text. Raises ExtractionFailed when there is none."""
    if not body:
        raise ExtractionFailed("the page is empty")
    kind = sniff_kind(body, content_type, url or "")
    if kind == "binary":
        raise ExtractionFailed(f"not a text page ({content_type or 'binary content'})")
    if kind == "pdf":
        title, text = extract_pdf(body)
        return ExtractedPage(title, text, "pdf", "pypdf")
    decoded = decode_text(body, header_charset)
    if kind == "text":
        text = normalize_paragraphs(decoded.text)
        if not text:
            raise ExtractionFailed("the page has no text")
        return ExtractedPage(_first_line(text), text, "text", "plain", decoded.charset, decoded.lossy,
                             decoded.note)
    title, text, method = extract_html(decoded.text, url)
    return ExtractedPage(title, text, "html", method, decoded.charset, decoded.lossy, decoded.note)


# ---------------------------------------------------------------- HTML

def extract_html(html: str, url: str | None = None) -> tuple[str, str, str]:
    """(title, main text, method). trafilatura first; the BeautifulSoup fallback when it finds nothing."""
    text = _trafilatura_text(html, url)
    method = "trafilatura"
    if not text:
        text, method = _fallback_text(html), "fallback"
    if not text:
        raise ExtractionFailed("no main text found in the HTML")
    return html_title(html), text, method


def _trafilatura_text(html: str, url: str | None) -> str:
    import trafilatura
    from trafilatura.utils import load_html
    try:
        tree = load_html(html)
        if tree is None:
            return ""
        lead = standfirst(tree) if RECOVER_STANDFIRST else ("", "")
        prune_page_chrome(tree)
        out = trafilatura.extract(tree, url=url, include_comments=False, include_tables=True,
                                  output_format="txt", deduplicate=False, config=_trafilatura_config())
    except Exception:  # noqa: BLE001 - a parser crash on hostile HTML falls back, never stops the run
        return ""
    text = normalize_paragraphs(out or "", lines_are_paragraphs=True)
    if not text:
        return ""
    return "\n\n".join(with_standfirst(drop_boilerplate_paragraphs(text.split("\n\n")), lead))


@lru_cache(maxsize=1)
def _trafilatura_config():
    from trafilatura.settings import use_config
    config = use_config()
    config.set("DEFAULT", "MIN_EXTRACTED_SIZE", str(TRAFILATURA_MIN_EXTRACTED_SIZE))
    return config


def _soup(html: str):
    import warnings

    from bs4 import BeautifulSoup, XMLParsedAsHTMLWarning
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)
        return BeautifulSoup(html, "lxml")


def _fallback_text(html: str) -> str:
    soup = _soup(html)
    for tag in soup(list(FALLBACK_DROP_TAGS)):
        tag.decompose()
    root = soup.find("main") or soup.find("article") or soup.body or soup
    blocks = [" ".join(el.get_text(" ").split()) for el in root.find_all(list(FALLBACK_BLOCK_TAGS))
              if not el.find(list(FALLBACK_BLOCK_TAGS))]
    blocks = [b for b in blocks if len(b.split()) >= MIN_FALLBACK_WORDS]
    if not blocks:
        blocks = [" ".join(root.get_text(" ").split())]
    return normalize_paragraphs("\n\n".join(blocks))


def html_title(html: str) -> str:
    """The page's title: og:title, else <title>, else the first <h1>."""
    soup = _soup(html[:200_000])
    og = soup.find("meta", attrs={"property": "og:title"})
    if og and og.get("content", "").strip():
        return " ".join(og["content"].split())
    for tag in ("title", "h1"):
        el = soup.find(tag)
        if el and el.get_text(strip=True):
            return " ".join(el.get_text(" ").split())
    return ""


# ---------------------------------------------------------------- PDF

def extract_pdf(body: bytes) -> tuple[str, str]:
    """(title, text) of a PDF, pages separated by blank lines. Any failure of the PDF reader on these bytes
    (malformed, encrypted, an unsupported filter or encryption scheme) is an ExtractionFailed."""
    try:
        title, pages = _read_pdf(body)
    except Exception as exc:  # noqa: BLE001 - hostile bytes can break pypdf anywhere; each way is this page's failure
        raise ExtractionFailed(_pdf_failure(exc)) from None
    text = normalize_paragraphs("\n\n".join(pages))
    if not text:
        raise ExtractionFailed("the PDF has no extractable text (scanned pages?)")
    return title or _first_line(text), text


def _read_pdf(body: bytes) -> tuple[str, list[str]]:
    from pypdf import PdfReader
    logging.getLogger("pypdf").setLevel(logging.ERROR)  # its notes on repaired files are noise; failures raise
    reader = PdfReader(io.BytesIO(body))  # tries the empty user password of an encrypted PDF itself
    pages = [page.extract_text() or "" for page in reader.pages]
    meta = reader.metadata
    title = str(meta.title).strip() if meta is not None and meta.title else ""
    return title, pages


def _pdf_failure(exc: Exception) -> str:
    """One line saying why the PDF could not be read."""
    from pypdf.errors import FileNotDecryptedError
    detail = " ".join(str(exc).split())[:150] or type(exc).__name__
    if isinstance(exc, FileNotDecryptedError) or "encrypt" in detail.lower():
        return f"encrypted PDF that cannot be read ({detail})"
    if isinstance(exc, NotImplementedError):
        return f"PDF uses a feature the PDF reader does not support ({detail})"
    return f"unreadable PDF ({detail})"


# ---------------------------------------------------------------- text clean-up

def normalize_paragraphs(text: str, lines_are_paragraphs: bool = False) -> str:
    """Collapse white space inside paragraphs; paragraphs separated by one blank line."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    parts = text.split("\n") if lines_are_paragraphs else re.split(r"\n\s*\n", text)
    paras = [" ".join(p.split()) for p in parts]
    return "\n\n".join(p for p in paras if p)


def _first_line(text: str, limit: int = 120) -> str:
    line = text.split("\n", 1)[0].strip()
    return line if len(line) <= limit else line[:limit].rsplit(" ", 1)[0] + " …"
