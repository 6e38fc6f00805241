"""Exporting a research report or a note: Markdown, JSON, HTML, PDF, Word (.docx), BibTeX, RIS, CSL-JSON and
a plain text form for the clipboard.

Pure functions: they take a ResearchResult (or its dict) or a Note (or its dict) and return text (bytes for
PDF and Word), so the UI can offer them as downloads or copy them. API keys never appear in the output (see
redact.py): the run's dict is scrubbed, then read back as the ResearchResult every format reads (`as_result`;
a stored or imported run may hold anything). The list of sources under a report is its listed sources
(ResearchResult.listed_sources: cited, then "Read but not cited") in a citation style (citation_styles.py:
numbered, APA, Chicago), the same in every format; BibTeX, RIS and CSL-JSON are in reference_formats.py. Every
report format but JSON and the reference files shows each quote once, in an Evidence section after the sources
(export_print.evidence_items), numbered E1, E2, … in Markdown and text; every sources list points to it (HTML,
PDF, Word and Markdown with links to its items' anchors, text with "see Evidence E1").

    export_report(result, "md")                          # the report and its numbered sources with URLs
    export_report(result, "pdf", citation_style="apa")   # bytes: a PDF whose [n] link to their sources
    export_note(note, "html")                            # a self-contained page; every piece of text is escaped
"""
from __future__ import annotations

import dataclasses
import html
import json
import re
import time
from typing import Any, Iterable
from urllib.parse import urlsplit

from App_Function_Libraries.DB import citation_styles as styles
from App_Function_Libraries.DB import reference_formats as refs
from App_Function_Libraries.DB.citation_styles import Reference
from App_Function_Libraries.DB.connection import StoreError
from App_Function_Libraries.DB.export_print import (Evidence, Printable, evidence_html, evidence_id, evidence_items,
                                                    evidence_links, sources_html)
from App_Function_Libraries.DB.markdown_html import CITE_CSS, markdown_text, markdown_to_html, quote_span
from App_Function_Libraries.DB.note_format import note_to_markdown
from App_Function_Libraries.DB.redact import configured_secrets, scrub, scrub_result_dict
from App_Function_Libraries.options import REPORT_FORMAT_LABELS
from App_Function_Libraries.records import Citation, Paper, ResearchResult, Source

FORMATS = ("md", "json", "html", "bib", "txt", "ris", "csl")  # text
BINARY_FORMATS = ("pdf", "docx")  # bytes
ALL_FORMATS = ("md", "html", "pdf", "docx", "json", "bib", "ris", "csl", "txt")
MEDIA_TYPES = {"md": "text/markdown", "json": "application/json", "html": "text/html",
               "bib": "application/x-bibtex", "txt": "text/plain", "ris": "application/x-research-info-systems",
               "csl": "application/vnd.citationstyles.csl+json", "pdf": "application/pdf",
               "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document"}
SUFFIXES = {"csl": "csl.json"}  # a file name's ending where it is not the format's name


class ExportFormatError(StoreError, ValueError):
    """An export format that does not exist."""


def check_format(fmt: str) -> str:
    """The format's short name (md, pdf, csl, …; aliases such as "markdown" or "word" accepted);
    ExportFormatError for one that does not exist."""
    return _check_format(fmt)


def _check_format(fmt: str) -> str:
    fmt = (fmt or "").lower().lstrip(".")
    fmt = {"markdown": "md", "bibtex": "bib", "text": "txt", "htm": "html", "word": "docx", "csl-json": "csl",
           "csljson": "csl"}.get(fmt, fmt)
    if fmt not in ALL_FORMATS:
        raise ExportFormatError(f"unknown export format {fmt!r}; use one of {', '.join(ALL_FORMATS)}")
    return fmt


def citation_style(result: ResearchResult, style: str | None = None) -> str:
    """The style asked for; else the one the run was made with (its Report options); else the configured
    default ([research] citation_style); else numbered. CitationStyleError for an unknown name asked for."""
    if style:
        return styles.check_style(style)
    params = _params(result)
    saved = str(params.get("citation_style") or "").lower()
    if saved in styles.CITATION_STYLES:
        return saved
    try:
        from App_Function_Libraries.config import get_settings
        return styles.check_style(get_settings().research.citation_style)
    except (ValueError, AttributeError):  # a broken config is reported where it is loaded, not here
        return styles.DEFAULT_STYLE


def _secrets(secrets: Iterable[str] | None) -> tuple[str, ...]:
    return tuple(configured_secrets() if secrets is None else secrets)


# ---------------------------------------------------------------- the run as the exports read it

_SOURCE_FIELDS = [f.name for f in dataclasses.fields(Source) if f.name not in ("n", "passages", "paper")]
_KEPT_WHEN_MISSING = ("title", "url", "kind")  # None, not a default: a source without a kind but with a paper is one


def as_result(data: dict[str, Any]) -> ResearchResult:
    """A run's dict (stored or imported: it may hold anything) as the ResearchResult the exports read. Its
    sources and citations that are JSON objects become Sources and Citations, a source's paper its Paper; a
    source number that is not a whole number from 1 to 10^6 is none. Every other value is kept as it is (no
    default put in its place) and each format reads it defensively."""
    sources = [Source(**{name: s.get(name) for name in _SOURCE_FIELDS if name in s or name in _KEPT_WHEN_MISSING},
                      n=_source_number(s), paper=Paper.from_dict(s["paper"]) if isinstance(s.get("paper"), dict)
                      else None) for s in _objects(data.get("sources"))]
    citations = [Citation(n=c.get("n"), sentence=c.get("sentence"), url=c.get("url"), quote=c.get("quote"),
                          verdict=c.get("verdict"), passage=c.get("passage")) for c in _objects(data.get("citations"))]
    return ResearchResult(question=data.get("question"), params=data.get("params"), sources=sources,
                          report_markdown=data.get("report_markdown"), citations=citations,
                          llm_usage=data.get("llm_usage"), mode=data.get("mode"), created_at=data.get("created_at"))


def _params(result: ResearchResult) -> dict[str, Any]:
    return result.params if isinstance(result.params, dict) else {}


def _objects(value: Any) -> list[dict[str, Any]]:
    """The JSON objects in `value` when it is a list (a stored or imported run may hold anything)."""
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _source_number(source: dict[str, Any]) -> int | None:
    """A source's [n] when it is a whole number from 1 to 10^6 (an imported run may hold anything)."""
    n = source.get("n")
    if isinstance(n, float) and n.is_integer():
        n = int(n)
    return n if isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= 1_000_000 else None


def _one_line(text: Any) -> str:
    return " ".join(str(text or "").split())


def _md_escape(text: str) -> str:
    return re.sub(r"([\\`*_\[\]<>#|])", r"\\\1", _one_line(text))


def _md_url(url: str) -> str:
    return "".join({" ": "%20", "(": "%28", ")": "%29", "<": "%3C", ">": "%3E"}.get(c, c) for c in _one_line(url))


def _span_markdown(span: styles.Span) -> str:
    core = span.text.strip()
    lead, trail = span.text[:len(span.text) - len(span.text.lstrip())], span.text[len(span.text.rstrip()):]
    text = f"*{_md_escape(core)}*" if span.italic and core else _md_escape(core)
    text = f"[{text}]({_md_url(span.link)})" if span.link and _safe_href(span.link) else text
    return (" " if lead else "") + text + (" " if trail and core else "")


def reference_markdown(ref: Reference) -> str:
    """One entry of the sources list as Markdown (an ordered-list item keeping its number)."""
    return f"{ref.n}. " + "".join(_span_markdown(s) for s in ref.spans)


def report_references(result: ResearchResult, style: str | None = None) -> list[Reference]:
    """The listed sources of a run (ResearchResult.listed_sources) as entries in its citation style."""
    return styles.references(result.listed_sources(), citation_style(result, style), _iso_date(result.created_at))


def listed_plain(result: ResearchResult) -> list[dict[str, Any]]:
    """The listed sources (ResearchResult.listed_sources: cited, then read but not cited) as plain JSON: number,
    title, address (the source's own, as every list shows it) and the one it was read at after redirects,
    kind, whether cited. The JSON export's "listed_sources" and the MCP/HTTP research answer."""
    cited = len(result.cited_sources())
    return [{"n": n, "title": s.title, "url": s.url, "final_url": s.final_url or s.url, "kind": s.kind,
             "cited": i < cited} for i, (n, s) in enumerate(result.listed_sources())]


def report_evidence(result: ResearchResult) -> list[Evidence]:
    """The Evidence section of a report: each quote its citations found, once, with its source's title."""
    titles = {n: _one_line(s.title or s.url) for n, s in result.listed_sources()}
    return evidence_items(result.citations, titles)


def evidence_markdown(items: list[Evidence]) -> str:
    """The Evidence section in Markdown, as the HTML, PDF and Word exports show it: per quote (evidence_items),
    "E1. [n] title · verdict" after an anchor the sources list links to (`<a id="evidence-1"></a>`, raw HTML
    that common renderers keep), the cited sentence where it is not the quote, the passage as a blockquote
    with the quoted words in bold (none where the source supports nothing) and its line breaks kept, and a
    link opening the source at the quoted text; all page text escaped. "" when there is no quote."""
    return _evidence_text(items, "## Evidence", _md_escape, "*Cited for:* {}", "[{}]({})")


def evidence_label(i: int) -> str:
    """How the Markdown and text exports name the i-th Evidence item (1, 2, …)."""
    return f"E{i}"


def _evidence_text(items: list[Evidence], heading: str, escape, claim: str, link: str) -> str:
    """The Evidence section of the Markdown (or, with `escape` leaving text as it is, the plain text) export."""
    if not items:
        return ""
    parts = [heading]
    for i, item in enumerate(items, 1):
        n = "" if item.n is None else str(item.n)
        head = " · ".join(escape(p) for p in (item.title, item.verdict()) if _one_line(p))
        anchor = f'<a id="{evidence_id(i)}"></a>' if escape is _md_escape else ""
        parts.append(f"{anchor}{evidence_label(i)}. [{n}] {head}".rstrip())
        parts += [claim.format(escape(c)) for c in item.claims]
        lines = _passage_lines(item, escape)
        parts.append("\n".join("> " + line + ("\\" if i < len(lines) - 1 else "") for i, line in enumerate(lines))
                     if escape is _md_escape else "\n".join("> " + line for line in lines))
        if item.link():
            parts.append(link.format(escape(f"Open [{n}] at this text"),
                                     _md_url(item.link()) if escape is _md_escape else item.link()))
    return "\n\n".join(parts) + "\n"


def _passage_lines(item: Evidence, escape) -> list[str]:
    """The evidence's passage, line by line, the quoted words in **bold** (none where the source supports
    nothing)."""
    lines: list[list[str]] = [[]]
    for text, bold in zip(quote_span(item.passage or item.quote, item.quote if item.supported else ""),
                          (False, True, False)):
        for k, piece in enumerate(text.split("\n")):
            if k:
                lines.append([])
            core = escape(piece)
            if core:
                core = f"**{core}**" if bold else core
                lines[-1].append((" " if piece[:1] == " " else "") + core + (" " if piece[-1:] == " " else ""))
    return ["".join(line).strip() for line in lines if line]


def _sources_markdown(result: ResearchResult, style: str | None = None, items: list[Evidence] | None = None) -> str:
    """## Sources: cited, then read but not cited; with `items` (the Evidence section below it) each source
    links to its items there, as the HTML export does."""
    refs = report_references(result, style)
    if not refs:
        return ""
    links = evidence_links(items or [])
    entry = lambda r: reference_markdown(r) + _see_evidence(links.get(r.n, []), True)  # noqa: E731
    cited = len(result.cited_sources())
    text = "## Sources\n\n" + ("\n".join(entry(r) for r in refs[:cited]) if cited else "None cited.")
    if refs[cited:]:
        text += "\n\n### Read but not cited\n\n" + "\n".join(entry(r) for r in refs[cited:])
    return text + "\n"


def _see_evidence(numbers: list[int], markdown: bool) -> str:
    """After a source in the sources list: its Evidence items, linked in Markdown, named in text."""
    if not numbers:
        return ""
    if markdown:
        return " (evidence " + ", ".join(f"[{evidence_label(i)}](#{evidence_id(i)})" for i in numbers) + ")"
    return " (see Evidence " + ", ".join(evidence_label(i) for i in numbers) + ")"


def report_body_markdown(result: ResearchResult | dict[str, Any], style: str | None = None,
                         body: str | None = None, evidence: list[Evidence] | None = None) -> str:
    """The report (or `body` in its place) followed by its listed sources (no title heading): the content of a
    saved note; with `evidence` (the Evidence section that follows it) the sources link to its items."""
    result = result if isinstance(result, ResearchResult) else as_result(result)
    body = str((result.report_markdown if body is None else body) or "").strip()
    sources = _sources_markdown(result, style, evidence)
    return body + "\n" + ("\n" + sources if sources else "")


# ---------------------------------------------------------------- reports

def export_report(result: Any, fmt: str, secrets: Iterable[str] | None = None,
                  citation_style: str | None = None, exchanges: Iterable[Any] | None = None) -> str | bytes:
    """A research run (ResearchResult or its dict) in one of ALL_FORMATS: text, or bytes for pdf and docx.
    `citation_style` (numbered, apa, chicago) shapes the sources list; None: the run's own or the default.
    `exchanges` (ReportExchanges or their dicts; else the dict's own "exchanges"): the questions asked about
    the report, shown after it under "Questions about this report" and kept in the JSON under "exchanges"."""
    fmt = _check_format(fmt)
    data = result.to_dict() if hasattr(result, "to_dict") else dict(result)
    data = scrub_result_dict(data, _secrets(secrets))
    chats = _exchange_dicts(data.pop("exchanges", None) if exchanges is None else exchanges, _secrets(secrets))
    if chats:
        data["exchanges"] = chats
    run = as_result(data)
    if fmt == "json":  # the run's own JSON form, and the sources listed under it (read back: ignored)
        return json.dumps({**data, "listed_sources": listed_plain(run)}, indent=2, ensure_ascii=False) + "\n"
    style = _style_of(run, citation_style)
    question = _one_line(run.question) or "Research report"
    body = str(run.report_markdown or "") + exchanges_markdown(chats)
    if fmt == "md":
        items = report_evidence(run)
        evidence = evidence_markdown(items)
        return f"# {_md_escape(question)}\n\n" + report_body_markdown(run, style, body, items) + \
            (f"\n{evidence}" if evidence else "")
    if fmt == "html":
        return _html_page(question, body, run, _report_footer(run), style=style)
    if fmt in ("pdf", "docx"):
        printable = Printable(title=question, fields=report_fields(run, style), body_markdown=body,
                              references=report_references(run, style), cite=_cite_targets(run),
                              footer=_report_footer(run), evidence=report_evidence(run),
                              cited=len(run.cited_sources()))
        return _binary(printable, fmt)
    if fmt in ("bib", "ris", "csl"):
        return _reference_file(run, fmt)
    return _plain_text(question, body, run, style)


def _exchange_dicts(exchanges: Any, secrets: tuple[str, ...]) -> list[dict[str, Any]]:
    chats = [e.to_dict() if hasattr(e, "to_dict") else e for e in exchanges or []]
    return scrub([c for c in chats if isinstance(c, dict) and _one_line(c.get("question"))], secrets)


def exchanges_markdown(exchanges: list[dict[str, Any]]) -> str:
    """The questions asked about a report, each followed by its answer (whose [n] are the report's sources),
    as a section to follow the report; "" when none were asked."""
    if not exchanges:
        return ""
    parts = ["", "", "## Questions about this report"]
    for chat in exchanges:
        answer = str(chat.get("answer_markdown") or "").strip() or "(no answer)"
        parts += ["", f"### {_md_escape(_one_line(chat.get('question')))}", "", answer]
    return "\n".join(parts) + "\n"


def _style_of(result: ResearchResult, style: str | None) -> str:
    try:
        return citation_style(result, style)
    except styles.CitationStyleError as exc:
        raise ExportFormatError(str(exc)) from None


def _reference_file(report: ResearchResult, fmt: str) -> str:
    write = {"bib": refs.bibtex, "ris": refs.ris, "csl": refs.csl_json}[fmt]
    return write(report.listed_sources(), _iso_date(report.created_at), _one_line(report.question))


def _binary(printable: Printable, fmt: str) -> bytes:
    from App_Function_Libraries.DB.export_render import render_limited
    return render_limited(printable, fmt)


def _cite_targets(result: ResearchResult) -> dict[int, str]:
    """Where each listed [n] links in a PDF or Word file: its web address, else its entry in the list."""
    return {n: url if _safe_href(url := _one_line(s.url)) else f"#source-{n}" for n, s in result.listed_sources()}


def report_fields(result: ResearchResult, style: str) -> list[tuple[str, str]]:
    """The header of a printed report: question, date, and the options it was made with."""
    params = _params(result)
    fields = [("Question", _one_line(result.question)), ("Date", _iso_time(result.created_at))]
    fmt = _one_line(params.get("report_format"))
    llm = result.mode == "llm"  # an extractive brief follows only the format and the length budget
    options = [REPORT_FORMAT_LABELS.get(fmt, f"{fmt} report") if fmt else "",
               f"tone {_one_line(params.get('tone'))}" if llm and params.get("tone") else "",
               f"about {params['length_words']} words" if isinstance(params.get("length_words"), int) else "",
               f"language {_one_line(params.get('report_language'))}" if llm and params.get("report_language")
               else "",
               f"preset {_one_line(params.get('preset'))}" if llm and params.get("preset") else ""]
    if any(options):
        fields.append(("Report options", ", ".join(o for o in options if o)))
    engines = params.get("engines")
    if isinstance(engines, list) and engines:
        fields.append(("Engines", ", ".join(_one_line(e) for e in engines)))
    fields += [("Mode", _one_line(result.mode) or "unknown"), ("Citation style", styles.STYLE_LABELS[style])]
    models = _models(result)
    if models:
        fields.append(("Models", models))
    return [(label, value) for label, value in fields if value]


def _models(result: ResearchResult) -> str:
    models = result.llm_usage.get("models") if isinstance(result.llm_usage, dict) else None
    if not models:
        return ""
    names = models.values() if isinstance(models, dict) else models
    return ", ".join(sorted({str(m) for m in names}))


def _report_footer(result: ResearchResult) -> str:
    parts = [f"Saved by Quarry, {_iso_date(result.created_at)}", f"mode: {result.mode or 'unknown'}"]
    if _models(result):
        parts.append("models: " + _models(result))
    return " · ".join(parts)


def _plain_text(title: str, body: str, result: ResearchResult, style: str) -> str:
    lines = [title, "", markdown_text(body).strip(), ""]
    entries = report_references(result, style)
    cited = len(result.cited_sources())
    items = report_evidence(result)
    links = evidence_links(items)
    if entries:
        lines += ["Sources:"] + ([_plain_entry(r, links) for r in entries[:cited]] or ["None cited."]) + [""]
    if entries[cited:]:
        lines += ["Read but not cited:"] + [_plain_entry(r, links) for r in entries[cited:]] + [""]
    evidence = _evidence_text(items, "Evidence:", _one_line, "Cited for: {}", "{}: {}")
    return "\n".join(lines) + ("\n" + evidence if evidence else "")


def _plain_entry(ref: Reference, links: dict[int, list[int]] | None = None) -> str:
    return (f"[{ref.n}] {ref.text()}" + (f" - {ref.url}" if ref.url and ref.url not in ref.text() else "")
            + _see_evidence((links or {}).get(ref.n, []), False))


# ---------------------------------------------------------------- notes

def export_note(note: Any, fmt: str, secrets: Iterable[str] | None = None) -> str | bytes:
    """A note (Note or its dict) as md (front matter + content, importable), json, html, pdf, docx, the
    sources of its report as bib, ris or csl, or txt."""
    fmt = _check_format(fmt)
    data = note.to_dict() if hasattr(note, "to_dict") else dict(note)
    secrets = _secrets(secrets)
    report = data.get("report")
    data = scrub({k: v for k, v in data.items() if k != "report"}, secrets)
    data["report"] = scrub_result_dict(report, secrets) if isinstance(report, dict) else None
    run = as_result(data["report"] or {})  # the run the note was saved from (none: no sources)
    title = _one_line(data.get("title")) or "Note"
    if fmt == "md":
        return note_to_markdown(data)
    if fmt == "json":
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    keywords = ", ".join(str(k) for k in data.get("keywords") or [])
    footer = f"Note, created {_iso_date(data.get('created_at'))}, updated {_iso_date(data.get('updated_at'))}"
    if fmt == "html":
        footer += f" · keywords: {keywords}" if keywords else ""
        return _html_page(title, str(data.get("content") or ""), None, footer)
    if fmt in ("pdf", "docx"):  # the content already lists the sources of a report it came from
        fields = [("Question", _one_line(run.question)), ("Updated", _iso_time(data.get("updated_at"))),
                  ("Keywords", keywords)]
        return _binary(Printable(title=title, fields=[f for f in fields if f[1]],
                                 body_markdown=str(data.get("content") or ""), references=[],
                                 cite=_cite_targets(run), footer=footer), fmt)
    if fmt in ("bib", "ris", "csl"):
        return _reference_file(run, fmt)
    return f"{title}\n\n{str(data.get('content') or '').strip()}\n"


# ---------------------------------------------------------------- HTML

_STYLE = """body{font:16px/1.55 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#222}
a{color:#0645ad}pre,code{background:#f4f4f4;border-radius:3px}pre{padding:.6rem;overflow-x:auto}
blockquote{border-left:3px solid #ccc;margin-left:0;padding-left:1rem;color:#555}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3rem .5rem}
.url{color:#666;font-size:.85em;word-break:break-all}footer{margin-top:2rem;color:#777;font-size:.85em}""" + CITE_CSS
_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


def _html_page(title: str, markdown_text: str, result: ResearchResult | None, footer: str,
               style: str = styles.DEFAULT_STYLE) -> str:
    """A self-contained page; with a run, its sources listed and each citation's evidence after the text."""
    entries = report_references(result, style) if result is not None else []
    body = _report_html(markdown_text, {r.n for r in entries})
    parts = ["<!DOCTYPE html>", '<html><head><meta charset="utf-8">',
             f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head>",
             f"<body><article><h1>{html.escape(title)}</h1>", body]
    if entries:
        evidence = report_evidence(result)
        parts.append(sources_html(entries, len(result.cited_sources()), evidence))
        parts.append(evidence_html(evidence))
    parts.append(f"<footer>{html.escape(footer)}</footer></article></body></html>\n")
    return "\n".join(parts)


def _safe_href(url: str) -> bool:
    try:
        return urlsplit(url).scheme.lower() in ("http", "https") if url else False
    except ValueError:  # e.g. "http://[" (a broken IPv6 address)
        return False


def _report_html(text: str, source_numbers: set[int]) -> str:
    """The report rendered as the UI shows it (markdown_html: no raw HTML, no images), each `[n]` naming a
    listed source linked to its row."""
    return markdown_to_html(text, lambda n: (f"#source-{n}", "") if n in source_numbers else None)


# ---------------------------------------------------------------- helpers

def _iso_time(epoch: Any) -> str:
    try:
        return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(float(epoch)))
    except (TypeError, ValueError, OverflowError, OSError):
        return ""


def _iso_date(epoch: Any) -> str:
    try:
        return time.strftime("%Y-%m-%d", time.gmtime(float(epoch)))
    except (TypeError, ValueError, OverflowError, OSError):
        return time.strftime("%Y-%m-%d", time.gmtime())


def export_filename(title: str, fmt: str) -> str:
    """A safe file name for a download: the title's words, shortened, and the format's suffix."""
    stem = re.sub(r"[^\w-]+", "-", _one_line(title), flags=re.UNICODE).strip("-_")[:60] or "quarry"
    fmt = _check_format(fmt)
    return f"{stem}.{SUFFIXES.get(fmt, fmt)}"
