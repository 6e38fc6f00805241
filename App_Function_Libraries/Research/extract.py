"""The main text of a fetched page (stage "extract"): HTML, PDF or plain text through Retrieval/reading.py, the
one reader the documents library uses too (so a PDF reads the same from the web and from disk). Binary bodies
are refused with a clear reason.

`extract_content(body, content_type, header_charset, url) -> records.Page` (its title, text, what it was read as and
how, a wrong declared charset as its warning) is the extraction itself; the research pipeline and
`python app.py extract` call it through `read_page_text`, which runs it in a parse worker that is killed at
[fetch] extract_timeout_seconds or when it needs more than extract_memory_mb (parse_sandbox.py), so hostile
bytes cost that page only. Paragraphs in the returned text are separated by blank lines.
"""
from __future__ import annotations

import threading
from typing import Callable

from App_Function_Libraries.config import FetchSettings
from App_Function_Libraries.errors import QuarryError
from App_Function_Libraries.parse_sandbox import ParseFailed, ParseLimits, failure_line, run_limited, warm
from App_Function_Libraries.records import Page
from App_Function_Libraries.Retrieval.reading import (PARSER_MODULES, UnreadableText, decode_text, extract_html,
                                                      first_line, normalize_paragraphs, read_pdf, sniff_kind)

__all__ = ["ExtractionFailed", "extract_content", "read_page_text", "sniff_kind", "warm_extractor"]

READ_AS = {"html": "text/html", "pdf": "application/pdf", "text": "text/plain"}  # sniff_kind -> content_type


class ExtractionFailed(QuarryError):
    """No text could be taken from the page; str() is the one-line reason."""


def read_page_text(body: bytes, content_type: str, header_charset: str, url: str | None,
                   settings: FetchSettings, on_start: Callable[[], None] | None = None,
                   cancel: threading.Event | None = None) -> Page:
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
                    url: str | None = None) -> Page:
    """The page's title and main text, what it was read as and how. Raises ExtractionFailed when there is none."""
    if not body:
        raise ExtractionFailed("the page is empty")
    kind = sniff_kind(body, content_type, url or "")
    if kind == "binary":
        raise ExtractionFailed(f"not a text page ({content_type or 'binary content'})")
    try:
        if kind == "pdf":
            pdf = read_pdf(body)
            text = normalize_paragraphs("\n\n".join(pdf.pages))
            return _page(url, pdf.title or first_line(text), text, "pdf", "pypdf")
        decoded = decode_text(body, header_charset)
        if kind == "text":
            text = normalize_paragraphs(decoded.text)
            if not text:
                raise ExtractionFailed("the page has no text")
            return _page(url, first_line(text), text, "text", "plain", decoded)
        title, text, method = extract_html(decoded.text, url)
    except UnreadableText as exc:
        raise ExtractionFailed(str(exc)) from None
    return _page(url, title, text, "html", method, decoded)


def _page(url: str | None, title: str, text: str, kind: str, method: str, decoded=None) -> Page:
    return Page(url=url or "", title=title, text=text, content_type=READ_AS[kind], method=method,
                charset=decoded.charset if decoded else "", lossy=bool(decoded and decoded.lossy),
                warning=decoded.note if decoded else "")
