"""Files → normalized plain text, one reader per type (.txt .md .rst .html .pdf .docx).

The bytes are read by Retrieval/reading.py, the reader web pages go through too (charset, HTML main text,
PDF), so a file reads the same from disk as from the web; this module adds the file types, the documents'
policy (binary or undecodable bytes are refused) and the line-preserving text the chunker wants.

A file that cannot be read raises UnreadableFile with a short reason (encrypted or image-only PDF,
binary content, empty file, ...); callers record the reason and go on with the next file.
`read_document_limited` reads it in a parse worker that is killed at [documents] parse_timeout_seconds or
when it needs more than parse_memory_mb (parse_sandbox.py): a hostile file costs that file only.
"""
from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path
from xml.etree import ElementTree

from App_Function_Libraries.config import DocumentSettings
from App_Function_Libraries.Documents.doc_types import ReadText, UnreadableFile
from App_Function_Libraries.parse_sandbox import ParseFailed, ParseLimits, failure_line, run_limited
from App_Function_Libraries.Retrieval.reading import (PARSER_MODULES, UnreadableText, decode_text, extract_html,
                                                      normalize_text, read_pdf, sniff_kind)

__all__ = ["SUPPORTED_SUFFIXES", "file_type_of", "normalize_text", "read_bytes", "read_document",
           "read_document_limited"]

PLAIN_TYPES = {".txt": "txt", ".text": "txt", ".md": "md", ".markdown": "md", ".rst": "rst"}
HTML_TYPES = {".html": "html", ".htm": "html", ".xhtml": "html"}
SUPPORTED_SUFFIXES = {**PLAIN_TYPES, **HTML_TYPES, ".pdf": "pdf", ".docx": "docx"}
MAX_FILE_BYTES = 200_000_000
MAX_DOCX_XML_BYTES = 100_000_000
_WORD_NS = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


#: what changed in a reader since it was first written: a document of that type indexed before is read again
#: on its next add (part of its index recipe, Documents/ingest.py), others are left alone
READER_CHANGES = {"html": "list items the extractor left bare marked as items; numbered items keep their numbers"}


def file_type_of(path: Path) -> str | None:
    """The reader type for a path (txt, md, rst, html, pdf, docx), or None when unsupported."""
    return SUPPORTED_SUFFIXES.get(path.suffix.lower())


def read_document(path: Path, data: bytes | None = None) -> ReadText:
    """The normalized text of one file. Raises UnreadableFile with the reason."""
    ftype = file_type_of(path)
    if ftype is None:
        raise UnreadableFile(f"unsupported file type {path.suffix or '(no extension)'}")
    if data is None:
        data = read_bytes(path)
    if not data.strip():
        raise UnreadableFile("empty file")
    if ftype == "pdf":
        result = _read_pdf(data)
    elif ftype == "docx":
        result = _read_docx(data)
    elif ftype == "html":
        result = _read_html(data)
    else:
        result = _read_plain(_text_of(data), ftype)
    if not result.text.strip():
        raise UnreadableFile("no text in the file")
    result.file_type = ftype
    return result


def read_document_limited(path: Path, data: bytes, settings: DocumentSettings) -> ReadText:
    """read_document in a parse worker under the [documents] limits; every way it fails is an
    UnreadableFile with one line."""
    limits = ParseLimits(settings.parse_timeout_seconds, settings.parse_memory_mb)
    try:
        return run_limited(read_document, path, data, limits=limits, preload=PARSER_MODULES)
    except ParseFailed as exc:
        raise UnreadableFile(failure_line(exc, limits, "reading the file", "documents", "parse_timeout_seconds",
                                          "parse_memory_mb")) from None


def read_bytes(path: Path) -> bytes:
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise UnreadableFile(f"file too large ({size // 1_000_000} MB; limit {MAX_FILE_BYTES // 1_000_000} MB)")
        return path.read_bytes()
    except OSError as exc:
        raise UnreadableFile(f"cannot read the file: {exc.strerror or exc}") from None


# ---------------------------------------------------------------- bytes -> text

def _text_of(data: bytes) -> str:
    """The text of a text file (reading.decode_text); binary or undecodable bytes raise UnreadableFile."""
    if sniff_kind(data) == "binary":
        raise UnreadableFile("binary content, not text")
    decoded = decode_text(data)
    if decoded.lossy:
        raise UnreadableFile("binary content or unknown text encoding")
    return decoded.text


# ---------------------------------------------------------------- plain text, Markdown, reStructuredText

_MD_HEADING_RE = re.compile(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_RST_UNDERLINE_RE = re.compile(r"^([=\-~^\"'`#*+:.])\1{2,}\s*$")


def _read_plain(text: str, ftype: str) -> ReadText:
    """Plain text as is; Markdown and reST headings become sentences of their own (the first is the title)."""
    if ftype not in ("md", "rst"):
        return ReadText(normalize_text(text), ftype)
    lines, title, in_code = [], "", False
    for line in normalize_text(text).split("\n"):
        if ftype == "md" and line.startswith(("```", "~~~")):
            in_code = not in_code
        heading = _MD_HEADING_RE.match(line) if ftype == "md" and not in_code else None
        if ftype == "rst" and _RST_UNDERLINE_RE.match(line):
            if lines and lines[-1].strip():
                title = title or lines[-1].strip()
                lines[-1] = _as_sentence(lines[-1])
                lines.append("")
            continue
        if heading:
            title = title or heading.group(1)
            lines += ["", _as_sentence(heading.group(1)), ""]
            continue
        lines.append(line)
    return ReadText(normalize_text("\n".join(lines)), ftype, title)


def _as_sentence(heading: str) -> str:
    heading = heading.strip()
    return heading if not heading or heading[-1] in ".!?:;" else heading + "."


# ---------------------------------------------------------------- PDF

def _read_pdf(data: bytes) -> ReadText:
    try:
        pdf = read_pdf(data)
    except UnreadableText as exc:
        raise UnreadableFile(str(exc)) from None
    page_starts, words = [], 0
    for page in pdf.pages:
        page_starts.append(words)
        words += len(page.split())
    return ReadText("\n\n".join(p for p in pdf.pages if p), "pdf", pdf.title, page_starts)


# ---------------------------------------------------------------- DOCX

def _read_docx(data: bytes) -> ReadText:
    """Paragraph text of word/document.xml (the runs' <w:t>, with tabs and breaks)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            info = archive.getinfo("word/document.xml")
            if info.file_size > MAX_DOCX_XML_BYTES:
                raise UnreadableFile("the .docx text part is too large")
            xml = archive.read(info)
    except (zipfile.BadZipFile, KeyError, OSError):
        raise UnreadableFile("not a readable .docx (corrupt, or encrypted)") from None
    if b"<!DOCTYPE" in xml[:4096] or b"<!ENTITY" in xml:
        raise UnreadableFile("the .docx declares XML entities (refused as unsafe)")
    try:
        root = ElementTree.fromstring(xml)
    except ElementTree.ParseError as exc:
        raise UnreadableFile(f"the .docx text is not valid XML ({exc})") from None
    paragraphs = [_docx_paragraph(p) for p in root.iter(f"{_WORD_NS}p")]
    return ReadText(normalize_text("\n\n".join(p for p in paragraphs if p.strip())), "docx")


def _docx_paragraph(paragraph) -> str:
    out = []
    for el in paragraph.iter():
        if el.tag == f"{_WORD_NS}t" and el.text:
            out.append(el.text)
        elif el.tag == f"{_WORD_NS}tab":
            out.append(" ")
        elif el.tag in (f"{_WORD_NS}br", f"{_WORD_NS}cr"):
            out.append("\n")
    return "".join(out)


# ---------------------------------------------------------------- HTML

def _read_html(data: bytes) -> ReadText:
    """The main text of a saved web page, by the rules of a fetched one (reading.extract_html)."""
    try:
        title, text, _method = extract_html(_text_of(data))
    except UnreadableText:
        return ReadText("", "html")  # read_document says "no text in the file"
    return ReadText(normalize_text(text), "html", title)
