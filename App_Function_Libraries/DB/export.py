"""Exporting a research report or a note: Markdown, JSON, HTML, BibTeX and a plain text form for the clipboard.

Pure functions: they take a ResearchResult (or its dict) or a Note (or its dict) and return text, so the UI
can offer them as downloads or copy them. API keys never appear in the output (see redact.py).

    export_report(result, "md")   # the report and its numbered sources with URLs
    export_note(note, "html")     # a self-contained page; every piece of text is escaped
"""
from __future__ import annotations

import html
import json
import re
import time
from typing import Any, Iterable
from urllib.parse import urlsplit

from App_Function_Libraries.DB.connection import StoreError
from App_Function_Libraries.DB.markdown_html import markdown_to_html
from App_Function_Libraries.DB.note_format import note_to_markdown
from App_Function_Libraries.DB.redact import configured_secrets, scrub, scrub_result_dict

FORMATS = ("md", "json", "html", "bib", "txt")
MEDIA_TYPES = {"md": "text/markdown", "json": "application/json", "html": "text/html",
               "bib": "application/x-bibtex", "txt": "text/plain"}


class ExportFormatError(StoreError, ValueError):
    """An export format that does not exist."""


def _check_format(fmt: str) -> str:
    fmt = (fmt or "").lower().lstrip(".")
    fmt = {"markdown": "md", "bibtex": "bib", "text": "txt", "htm": "html"}.get(fmt, fmt)
    if fmt not in FORMATS:
        raise ExportFormatError(f"unknown export format {fmt!r}; use one of {', '.join(FORMATS)}")
    return fmt


def _secrets(secrets: Iterable[str] | None) -> tuple[str, ...]:
    return tuple(configured_secrets() if secrets is None else secrets)


# ---------------------------------------------------------------- sources

def numbered_sources(data: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    """The sources to list under a report, with their numbers: those the report cites (by their [n]), or,
    when it cites none, the sources that were selected for reading, numbered in order."""
    sources = _objects(data.get("sources"))
    cited = sorted(((n, s) for s in sources if (n := _source_number(s)) is not None), key=lambda pair: pair[0])
    if cited:
        return cited
    chosen = [s for s in sources if _selected(s)]
    return list(enumerate(chosen, 1))


def _objects(value: Any) -> list[dict[str, Any]]:
    """The JSON objects in `value` when it is a list (a stored or imported run may hold anything)."""
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _source_number(source: dict[str, Any]) -> int | None:
    """A source's [n] when it is a whole number from 1 to 10^6 (an imported run may hold anything)."""
    n = source.get("n")
    if isinstance(n, float) and n.is_integer():
        n = int(n)
    return n if isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= 1_000_000 else None


def _selected(source: dict[str, Any]) -> bool:
    if source.get("user_override") is not None:
        return bool(source["user_override"])
    return source.get("verdict") != "irrelevant"


def _one_line(text: Any) -> str:
    return " ".join(str(text or "").split())


def _md_escape(text: str) -> str:
    return re.sub(r"([\\`*_\[\]<>#|])", r"\\\1", _one_line(text))


def _md_url(url: str) -> str:
    return "".join({" ": "%20", "(": "%28", ")": "%29", "<": "%3C", ">": "%3E"}.get(c, c) for c in _one_line(url))


def _source_line(n: int, source: dict[str, Any]) -> str:
    title, url = _md_escape(source.get("title") or source.get("url")), _one_line(source.get("url"))
    if _safe_href(url):
        return f"{n}. [{title}]({_md_url(url)})"
    return f"{n}. {title} — {_md_escape(url)}"  # not a web link: shown, never made clickable


def _sources_markdown(data: dict[str, Any]) -> str:
    lines = [_source_line(n, s) for n, s in numbered_sources(data)]
    return "## Sources\n\n" + "\n".join(lines) + "\n" if lines else ""


def report_body_markdown(data: dict[str, Any]) -> str:
    """The report followed by its numbered sources (no title heading): the content of a saved note."""
    body = str(data.get("report_markdown") or "").strip()
    sources = _sources_markdown(data)
    return body + "\n" + ("\n" + sources if sources else "")


# ---------------------------------------------------------------- reports

def export_report(result: Any, fmt: str, secrets: Iterable[str] | None = None) -> str:
    """A research run (ResearchResult or its dict) as md, json, html, bib or txt."""
    fmt = _check_format(fmt)
    data = result.to_dict() if hasattr(result, "to_dict") else dict(result)
    data = scrub_result_dict(data, _secrets(secrets))
    question = _one_line(data.get("question")) or "Research report"
    if fmt == "md":
        return f"# {_md_escape(question)}\n\n" + report_body_markdown(data)
    if fmt == "json":
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    if fmt == "html":
        return _html_page(question, str(data.get("report_markdown") or ""), data, _report_footer(data))
    if fmt == "bib":
        return bibtex(data)
    return _plain_text(question, str(data.get("report_markdown") or ""), data)


def _report_footer(data: dict[str, Any]) -> str:
    parts = [f"Saved by Quarry, {_iso_date(data.get('created_at'))}", f"mode: {data.get('mode') or 'unknown'}"]
    models = (data.get("llm_usage") or {}).get("models") if isinstance(data.get("llm_usage"), dict) else None
    if models:
        names = models.values() if isinstance(models, dict) else models
        parts.append("models: " + ", ".join(sorted({str(m) for m in names})))
    return " · ".join(parts)


def _plain_text(title: str, body: str, data: dict[str, Any]) -> str:
    lines = [title, "", body.strip(), ""]
    listed = numbered_sources(data)
    if listed:
        lines += ["Sources:"] + [f"[{n}] {_one_line(s.get('title')) or s.get('url')} - {_one_line(s.get('url'))}"
                                 for n, s in listed] + [""]
    return "\n".join(lines)


# ---------------------------------------------------------------- notes

def export_note(note: Any, fmt: str, secrets: Iterable[str] | None = None) -> str:
    """A note (Note or its dict) as md (front matter + content, importable), json, html, bib or txt."""
    fmt = _check_format(fmt)
    data = note.to_dict() if hasattr(note, "to_dict") else dict(note)
    secrets = _secrets(secrets)
    report = data.get("report")
    data = scrub({k: v for k, v in data.items() if k != "report"}, secrets)
    data["report"] = scrub_result_dict(report, secrets) if isinstance(report, dict) else None
    title = _one_line(data.get("title")) or "Note"
    if fmt == "md":
        return note_to_markdown(data)
    if fmt == "json":
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    if fmt == "html":
        keywords = ", ".join(data.get("keywords") or [])
        footer = f"Note, created {_iso_date(data.get('created_at'))}, updated {_iso_date(data.get('updated_at'))}"
        footer += f" · keywords: {keywords}" if keywords else ""
        return _html_page(title, str(data.get("content") or ""), data.get("report") or {}, footer,
                          list_sources=False)
    if fmt == "bib":
        return bibtex(data.get("report") or {})
    return f"{title}\n\n{str(data.get('content') or '').strip()}\n"


# ---------------------------------------------------------------- HTML

_STYLE = """body{font:16px/1.55 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#222}
a{color:#0645ad}pre,code{background:#f4f4f4;border-radius:3px}pre{padding:.6rem;overflow-x:auto}
blockquote{border-left:3px solid #ccc;margin-left:0;padding-left:1rem;color:#555}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3rem .5rem}
.url{color:#666;font-size:.85em;word-break:break-all}footer{margin-top:2rem;color:#777;font-size:.85em}"""
_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


def _html_page(title: str, markdown_text: str, data: dict[str, Any], footer: str, list_sources: bool = True) -> str:
    listed = numbered_sources(data)
    body = _report_html(markdown_text, {n for n, _ in listed} if list_sources else set())
    parts = ["<!DOCTYPE html>", '<html><head><meta charset="utf-8">',
             f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head>",
             f"<body><article><h1>{html.escape(title)}</h1>", body]
    if list_sources and listed:
        parts.append(_sources_html(listed, _objects(data.get("citations"))))
    parts.append(f"<footer>{html.escape(footer)}</footer></article></body></html>\n")
    return "\n".join(parts)


def _sources_html(listed: list[tuple[int, dict[str, Any]]], citations: list[dict[str, Any]]) -> str:
    items = []
    for n, source in listed:
        url = _one_line(source.get("url"))
        title = html.escape(_one_line(source.get("title")) or url)
        link = f'<a href="{html.escape(url)}">{title}</a>' if _safe_href(url) else title
        quotes = [c.get("quote") for c in _objects(citations) if c.get("n") == n and c.get("quote")]
        quote_html = "".join(f"<blockquote>{html.escape(str(q))}</blockquote>" for q in dict.fromkeys(quotes))
        items.append(f'<li id="source-{n}" value="{n}">{link}<br><span class="url">{html.escape(url)}</span>'
                     f"{quote_html}</li>")
    return "<h2>Sources</h2>\n<ol>\n" + "\n".join(items) + "\n</ol>"


def _safe_href(url: str) -> bool:
    try:
        return urlsplit(url).scheme.lower() in ("http", "https") if url else False
    except ValueError:  # e.g. "http://[" (a broken IPv6 address)
        return False


def _report_html(text: str, source_numbers: set[int]) -> str:
    """The report rendered as the UI shows it (markdown_html: no raw HTML, no images), each `[n]` naming a
    listed source linked to its row."""
    return markdown_to_html(text, lambda n: (f"#source-{n}", "") if n in source_numbers else None)


# ---------------------------------------------------------------- BibTeX

_BIB_SPECIAL = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "&": r"\&", "%": r"\%", "$": r"\$",
                "#": r"\#", "_": r"\_", "^": r"\textasciicircum{}", "~": r"\textasciitilde{}"}


def _bib_escape(text: Any) -> str:
    return "".join(_BIB_SPECIAL.get(c, c) for c in _one_line(text))


def _bib_url(url: Any) -> str:
    return "".join({"{": "%7B", "}": "%7D", "\\": "%5C", " ": "%20"}.get(c, c) for c in _one_line(url))


def bibtex(data: dict[str, Any]) -> str:
    """BibTeX @misc entries for the sources of a research run (the numbered ones, as in the report)."""
    listed = numbered_sources(data)
    if not listed:
        return "% No sources.\n"
    accessed = _iso_date(data.get("created_at"))
    question = _bib_escape(data.get("question"))
    keys: set[str] = set()
    entries = []
    for n, source in listed:
        key = _bib_key(source, n, keys)
        fields = [("title", "{" + _bib_escape(source.get("title") or source.get("url")) + "}"),
                  ("howpublished", r"\url{" + _bib_url(source.get("url")) + "}"),
                  ("url", _bib_url(source.get("url")))]
        year = re.search(r"\b(1[89]\d\d|2\d\d\d)\b", str(source.get("date_published") or ""))
        if year:
            fields.append(("year", year.group(1)))
        fields.append(("urldate", accessed))
        if question:
            fields.append(("note", f"Source [{n}] for: {question}"))
        body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
        entries.append(f"@misc{{{key},\n{body}\n}}")
    return "\n\n".join(entries) + "\n"


def _bib_key(source: dict[str, Any], n: int, taken: set[str]) -> str:
    try:
        host = urlsplit(_one_line(source.get("url"))).hostname or "source"
    except ValueError:
        host = "source"
    base = re.sub(r"[^A-Za-z0-9]+", "_", host.removeprefix("www.")).strip("_") or "source"
    key, i = f"{base}_{n}", 2
    while key in taken:
        key, i = f"{base}_{n}_{i}", i + 1
    taken.add(key)
    return key


# ---------------------------------------------------------------- helpers

def _iso_date(epoch: Any) -> str:
    try:
        return time.strftime("%Y-%m-%d", time.gmtime(float(epoch)))
    except (TypeError, ValueError, OverflowError, OSError):
        return time.strftime("%Y-%m-%d", time.gmtime())


def export_filename(title: str, fmt: str) -> str:
    """A safe file name for a download: the title's words, shortened, and the format's suffix."""
    stem = re.sub(r"[^\w-]+", "-", _one_line(title), flags=re.UNICODE).strip("-_")[:60] or "quarry"
    return f"{stem}.{_check_format(fmt)}"
