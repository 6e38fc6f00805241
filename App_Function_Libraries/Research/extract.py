"""The main text of a fetched page (stage "extract"): HTML, PDF or plain text through Retrieval/reading.py, the
one reader the documents library uses too (so a PDF reads the same from the web and from disk). Binary bodies
are refused with a clear reason.

`extract_content(body, content_type, header_charset, url)` is the extraction itself; the research pipeline and
`python app.py extract` call it through `read_page_text`, which runs it in a parse worker that is killed at
[fetch] extract_timeout_seconds or when it needs more than extract_memory_mb (parse_sandbox.py), so hostile
bytes cost that page only. Paragraphs in the returned text are separated by blank lines.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Callable

from App_Function_Libraries.config import FetchSettings
from App_Function_Libraries.errors import QuarryError
from App_Function_Libraries.parse_sandbox import ParseFailed, ParseLimits, failure_line, run_limited, warm
from App_Function_Libraries.Retrieval.reading import (PARSER_MODULES, UnreadableText, decode_text, extract_html,
                                                      first_line, normalize_paragraphs, read_pdf, sniff_kind)

__all__ = ["ExtractedPage", "ExtractionFailed", "extract_content", "read_page_text", "sniff_kind",
           "warm_extractor"]


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
    try:
        if kind == "pdf":
            pdf = read_pdf(body)
            text = normalize_paragraphs("\n\n".join(pdf.pages))
            return ExtractedPage(pdf.title or first_line(text), text, "pdf", "pypdf")
        decoded = decode_text(body, header_charset)
        if kind == "text":
            text = normalize_paragraphs(decoded.text)
            if not text:
                raise ExtractionFailed("the page has no text")
            return ExtractedPage(first_line(text), text, "text", "plain", decoded.charset, decoded.lossy,
                                 decoded.note)
        title, text, method = extract_html(decoded.text, url)
    except UnreadableText as exc:
        raise ExtractionFailed(str(exc)) from None
    return ExtractedPage(title, text, "html", method, decoded.charset, decoded.lossy, decoded.note)
