"""The one way Quarry reads bytes into text, for a web page and for a file alike.

* `decode_text(body, header_charset)`: bytes -> str by the browsers' rules (byte-order mark, the HTTP header,
  then `<meta charset>`; latin-1 labels mean windows-1252; a label that is no text charset counts as none),
  else UTF-8, else charset_normalizer's guess, else lossy with a note. Never raises.
* `sniff_kind(body, content_type, location)`: 'pdf', 'html', 'text' or 'binary', from the bytes first.
* `extract_html(html, url)`: the main text of an HTML page (trafilatura with the rules of boilerplate.py, a
  BeautifulSoup fallback when it finds nothing) and its title.
* `read_pdf(data)`: a PDF's title and per-page text (empty user password tried, one bad page does not lose
  the rest, words hyphenated across lines joined).

The web path (Research/extract.py) and the documents library (Documents/readers.py) both call these, so the
same PDF or saved page reads the same from the web and from disk; each only adds its own wrapping (paragraph
text for web passages; line-preserving text and page starts for documents). Failures are UnreadableText with
a one-line reason. The parsers are imported lazily; PARSER_MODULES is what a parse worker preloads.
"""
from __future__ import annotations

import io
import logging
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from App_Function_Libraries.errors import QuarryError
from App_Function_Libraries.valid_unicode import valid_unicode
from App_Function_Libraries.Retrieval.boilerplate import (drop_boilerplate_paragraphs, prune_page_chrome,
                                                          standfirst, unwrap_layout_tables, with_standfirst)
from App_Function_Libraries.Retrieval.quotable import LIST_MARK

PARSER_MODULES = ("trafilatura", "pypdf", "bs4", "lxml.html", "charset_normalizer")  # a parse worker's imports
HTML_TYPES = ("text/html", "application/xhtml+xml")
TEXT_TYPES = ("text/plain", "text/markdown", "text/csv", "application/json", "text/xml", "application/xml")
FALLBACK_DROP_TAGS = ("script", "style", "noscript", "nav", "header", "footer", "aside", "form", "iframe",
                      "svg", "button", "template")
FALLBACK_BLOCK_TAGS = ("p", "li", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote", "td", "dd", "dt")
MIN_FALLBACK_WORDS = 3
# trafilatura's MIN_EXTRACTED_SIZE (default 250 characters): below it a short article is replaced by a
# whole-container dump (share bars, author boxes). 200 keeps short posts clean; lower also drops short
# dialogue paragraphs (measured on bench/extraction_eval.py and bench/readability_eval.py).
TRAFILATURA_MIN_EXTRACTED_SIZE = 200
RECOVER_STANDFIRST = True  # put back the page's shown meta description when trafilatura dropped it


class UnreadableText(QuarryError, ValueError):
    """No text could be read from these bytes; str() is the one-line reason."""


# ---------------------------------------------------------------- charset

_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)""", re.IGNORECASE)
# What browsers do (WHATWG encoding standard): these labels mean windows-1252.
_WINDOWS_1252_LABELS = {"iso-8859-1", "iso8859-1", "latin-1", "latin1", "us-ascii", "ascii", "l1"}
_BOMS = ((b"\xef\xbb\xbf", "utf-8"), (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be"))
# Python codecs that are not web page charsets: bytes-to-bytes codecs (hex, base64, zlib, …) are caught by
# `_is_text_encoding`; these text codecs exist for other jobs (or, UTF-7, are refused by browsers).
_NOT_PAGE_CHARSETS = {"idna", "punycode", "undefined", "unicode-escape", "raw-unicode-escape", "utf-7"}


@dataclass
class DecodedText:
    text: str
    charset: str
    lossy: bool = False  # some bytes were not valid in the charset and were replaced
    note: str = ""  # set when the declared charset was wrong (said to the user with the source)


def _usable(label: str) -> str | None:
    """The codec name for a declared charset label, or None when it is unknown or not a page charset (the
    page's charset is then detected)."""
    import codecs
    label = label.strip().lower()
    if label in _WINDOWS_1252_LABELS:
        return "cp1252"
    try:
        info = codecs.lookup(label)
    except LookupError:
        return None
    if not getattr(info, "_is_text_encoding", True) or info.name in _NOT_PAGE_CHARSETS:
        return None
    return info.name


def declared_charset(body: bytes, header_charset: str = "") -> str | None:
    """The charset the bytes say they are in: a byte-order mark, the HTTP header, then a <meta> tag."""
    return _declared(body, header_charset)[0]


def _declared(body: bytes, header_charset: str) -> tuple[str | None, str]:
    """(codec of the first usable declaration or None, the first label declared: '' when there is none)."""
    for bom, name in _BOMS:
        if body.startswith(bom):
            return name, name
    m = _META_CHARSET.search(body[:4096])
    labels = [label for label in (header_charset, m.group(1).decode("ascii", "ignore") if m else "") if label]
    usable = next((_usable(label) for label in labels if _usable(label)), None)
    return usable, (labels[0] if labels else "")


def decode_text(body: bytes, header_charset: str = "") -> DecodedText:
    """Bytes to text: the declared charset when the bytes are valid in it, else charset_normalizer's guess,
    else the declared (or UTF-8) charset with invalid bytes replaced. A label that is no text charset
    ("hex", "base64", a typo) counts as no declaration, and the note says so."""
    declared, label = _declared(body, header_charset)
    if declared:
        try:
            return DecodedText(body.decode(declared).lstrip("\ufeff"), declared)
        except (UnicodeError, LookupError):
            pass
    wrong = _wrong_declaration(declared, label)
    try:
        return DecodedText(body.decode("utf-8"), "utf-8", note=f"{wrong}read as utf-8" if wrong else "")
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes
    best = from_bytes(body[:200_000]).best()
    if best is not None and best.encoding:
        try:
            return DecodedText(body.decode(best.encoding), best.encoding,
                               note=f"{wrong}read as {best.encoding} (detected)")
        except (UnicodeError, LookupError):
            pass
    fallback = declared or "utf-8"
    return DecodedText(body.decode(fallback, errors="replace"), fallback, lossy=True,
                       note=f"{wrong}undecodable bytes replaced")


def _wrong_declaration(declared: str | None, label: str) -> str:
    if declared:
        return f"the page says it is {declared} but is not; "
    return f"the page declares {label[:40]!r}, which is no charset for web pages; " if label else ""


# ---------------------------------------------------------------- what the bytes are

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


# ---------------------------------------------------------------- HTML

def extract_html(html: str, url: str | None = None) -> tuple[str, str, str]:
    """(title, main text, method). trafilatura first; the BeautifulSoup fallback when it finds nothing."""
    text = _trafilatura_text(html, url)
    method = "trafilatura"
    if not text:
        text, method = _fallback_text(html), "fallback"
    if not text:
        raise UnreadableText("no main text found in the HTML")
    return html_title(html), text, method


def _trafilatura_text(html: str, url: str | None) -> str:
    import trafilatura
    from trafilatura.utils import load_html
    try:
        tree = load_html(html)
        if tree is None:
            return ""
        lead = standfirst(tree) if RECOVER_STANDFIRST else ("", "")
        unwrap_layout_tables(tree)
        prune_page_chrome(tree)
        items, numbered = list_items(tree), numbered_items(tree)
        out = trafilatura.extract(tree, url=url, include_comments=False, include_tables=True,
                                  output_format="txt", deduplicate=False, config=_trafilatura_config())
    except Exception:  # noqa: BLE001 - a parser crash on hostile HTML falls back, never stops the run
        return ""
    text = normalize_paragraphs(out or "", lines_are_paragraphs=True)
    if not text:
        return ""
    paragraphs = with_standfirst(drop_boilerplate_paragraphs(text.split("\n\n")), lead)
    return "\n\n".join(mark_list_items(paragraphs, items, numbered))


_INNER_END = re.compile(r"[.!?][\"'”’)\]]*\s+\S")


def list_items(tree) -> frozenset[str]:
    """The text of each list item of the page (white space collapsed) that holds no list of its own and at
    most one sentence: the items `mark_list_items` may mark."""
    found = set()
    for li in tree.iter("li"):
        text = " ".join(li.text_content().split())
        if text and not li.xpath(".//ul|.//ol") and not _INNER_END.search(text):
            found.add(text)
    return frozenset(found)


def numbered_items(tree) -> dict[str, int]:
    """The text of each item of the page's numbered lists (<ol>) that holds no list of its own (white space
    collapsed) -> its number as the page shows it: from the list's `start`, or an item's own `value`."""
    found: dict[str, int] = {}
    for ol in tree.iter("ol"):
        number = _number(ol.get("start"), 1)
        for li in ol.iterchildren("li"):
            number = _number(li.get("value"), number)
            text = " ".join(li.text_content().split())
            if text and not li.xpath(".//ul|.//ol"):
                found.setdefault(text, number)
            number += 1
    return found


def _number(value: str | None, default: int) -> int:
    """A list's `start` or an item's `value` as a number (up to three ASCII digits), else `default`: a page's
    attribute is untrusted ("²", "-1", "1e9" are not numbers a list shows)."""
    value = (value or "").strip()
    return int(value) if re.fullmatch(r"[0-9]{1,3}", value) else default


def mark_list_items(paragraphs: list[str], items: frozenset[str],
                    numbered: dict[str, int] | None = None) -> list[str]:
    """Each paragraph that is a list item of the page marked as one ("- Cloche"), where the extractor gave it
    as a paragraph of its own without its mark (some pages' lists come out so): a list stays a list, and its
    short items can be quoted together under their lead-in (Retrieval/citations.quote_candidates). An item of a
    numbered list keeps its number ("3. Add the tea."), which a text extractor gives as "- ": a step of a how-to
    is read as the step it is (quotable rule 11)."""
    numbered = numbered or {}
    out = []
    for p in paragraphs:
        mark = LIST_MARK.match(p)
        body = p[mark.end():] if mark else p
        if body in numbered and (mark or p in items or body.endswith((".", "!", "?"))):
            out.append(f"{numbered[body]}. {body}")
        else:
            out.append(f"- {p}" if p in items and not mark else p)
    return out


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
    found = [el for el in root.find_all(list(FALLBACK_BLOCK_TAGS)) if not el.find(list(FALLBACK_BLOCK_TAGS))]
    blocks = [_list_mark(el) + " ".join(el.get_text(" ").split()) for el in found
              if len(el.get_text(" ").split()) >= MIN_FALLBACK_WORDS]
    if not blocks:
        blocks = [" ".join(root.get_text(" ").split())]
    return normalize_paragraphs("\n\n".join(blocks))


def _list_mark(el) -> str:
    """How a block of the fallback reader is marked: "- " for a list item, "3. " for an item numbered 3 (as
    `numbered_items` counts), '' for any other block."""
    if el.name != "li":
        return ""
    if el.parent is None or el.parent.name != "ol":
        return "- "
    number = _number(el.parent.get("start"), 1)
    for li in el.parent.find_all("li", recursive=False):
        number = _number(li.get("value"), number)
        if li is el:
            return f"{number}. "
        number += 1
    return "- "


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

@dataclass
class PdfText:
    title: str  # from the PDF's metadata ('' when it has none)
    pages: list[str]  # one normalized text per page (lines kept; '' for a page without text)


def read_pdf(data: bytes) -> PdfText:
    """A PDF's title and page texts. Any way the PDF reader fails on these bytes (malformed, encrypted, an
    unsupported filter or encryption scheme) is an UnreadableText with one line; so is a PDF without text."""
    from pypdf import PdfReader
    logging.getLogger("pypdf").setLevel(logging.ERROR)  # its notes on repaired files are noise; failures raise
    page_failure: Exception | None = None
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            _decrypt_without_password(reader)
        pages = []
        for page in reader.pages:
            try:
                raw = page.extract_text() or ""
            except Exception as exc:  # noqa: BLE001 - one damaged page must not lose the rest
                page_failure, raw = page_failure or exc, ""
            text = normalize_text(re.sub(r"(\w)-\n(?=[a-z])", r"\1", raw))  # words hyphenated at line ends
            pages.append(valid_unicode(text))  # a text map may name a lone surrogate
        title = valid_unicode(_pdf_title(reader))
    except UnreadableText:
        raise
    except Exception as exc:  # noqa: BLE001 - hostile bytes can break pypdf anywhere; each way is this file's failure
        raise UnreadableText(_pdf_failure(exc)) from None
    if not any(pages):
        if page_failure is not None:
            raise UnreadableText(_pdf_failure(page_failure))
        raise UnreadableText(f"no extractable text in this PDF ({len(pages)} page(s): scanned or image-only)")
    return PdfText(title, pages)


def _decrypt_without_password(reader) -> None:
    """Open a PDF encrypted with an empty user password (owner-only protection), or say why it cannot be."""
    try:
        opened = reader.decrypt("")
    except Exception as exc:  # noqa: BLE001 - pypdf raises DependencyError/NotImplementedError for some schemes
        raise UnreadableText(f"encrypted PDF that cannot be read ({_detail(exc)})") from None
    if not opened:
        raise UnreadableText("encrypted PDF that cannot be read (a password is needed to read it)")


def _pdf_title(reader) -> str:
    try:
        meta = reader.metadata
        return str(meta.title).strip() if meta and meta.title else ""
    except Exception:  # noqa: BLE001 - a broken info dictionary only costs the title
        return ""


def _pdf_failure(exc: Exception) -> str:
    """One line saying why the PDF could not be read."""
    from pypdf.errors import FileNotDecryptedError
    detail = _detail(exc)
    if isinstance(exc, FileNotDecryptedError) or "encrypt" in detail.lower():
        return f"encrypted PDF that cannot be read ({detail})"
    if isinstance(exc, NotImplementedError):
        return f"PDF uses a feature the PDF reader does not support ({detail})"
    return f"not a readable PDF ({type(exc).__name__}: {detail})"


def _detail(exc: Exception) -> str:
    return " ".join(str(exc).split())[:150] or type(exc).__name__


# ---------------------------------------------------------------- text clean-up

_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u200b\ufeff\u00ad]")


def normalize_text(text: str) -> str:
    """Lines kept (for headings and page text): NFC, Unix line ends, no control characters, single spaces
    inside lines, at most one blank line."""
    text = unicodedata.normalize("NFC", text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _CONTROL_RE.sub("", text).replace("\t", " ").replace("\u00a0", " ")
    lines = [" ".join(line.split()) for line in text.split("\n")]
    text = "\n".join(lines)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def normalize_paragraphs(text: str, lines_are_paragraphs: bool = False) -> str:
    """Paragraph text (for passages): white space collapsed inside paragraphs; one blank line between them."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    parts = text.split("\n") if lines_are_paragraphs else re.split(r"\n\s*\n", text)
    paras = [" ".join(p.split()) for p in parts]
    return "\n\n".join(p for p in paras if p)


def first_line(text: str, limit: int = 120) -> str:
    line = text.split("\n", 1)[0].strip()
    return line if len(line) <= limit else line[:limit].rsplit(" ", 1)[0] + " …"
