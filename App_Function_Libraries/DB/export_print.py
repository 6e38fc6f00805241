"""A report laid out for print: the list of sources as HTML (the HTML export's too), the print page, and the PDF
made from it with WeasyPrint.

The page is made only of the safe HTML of markdown_html (no raw HTML, no images) and a stylesheet of our
own; WeasyPrint renders it with a URL fetcher that refuses everything, so nothing in a report can make it
read a file or fetch an address (a hostile page's text stays text, and nothing is loaded). Fonts are the
system's, through fontconfig: DejaVu for Latin, Greek and Cyrillic, WenQuanYi Zen Hei (Debian
fonts-wqy-zenhei) or Noto CJK for Chinese, Japanese and Korean.
"""
from __future__ import annotations

import html
from dataclasses import dataclass, field

from App_Function_Libraries.DB.citation_styles import Reference, Span, web_address
from App_Function_Libraries.DB.connection import StoreError
from App_Function_Libraries.DB.markdown_html import markdown_to_html, marked_passage
from App_Function_Libraries.records import Citation


@dataclass
class Printable:
    """What a printed (PDF or Word) report or note shows."""
    title: str
    fields: list[tuple[str, str]]  # the header: (label, value)
    body_markdown: str
    references: list[Reference] = field(default_factory=list)  # the sources list (empty: none printed)
    cite: dict[int, str] = field(default_factory=dict)  # where each [n] links: a web address or #source-n
    footer: str = ""
    citations: list[Citation] = field(default_factory=list)  # each with its quote, passage and verdict


# ---------------------------------------------------------------- the sources list as HTML

def span_html(span: Span) -> str:
    text = html.escape(span.text)
    text = f"<i>{text}</i>" if span.italic else text
    if span.link and web_address(span.link):
        return f'<a href="{html.escape(span.link)}" target="_blank" rel="noopener noreferrer nofollow">{text}</a>'
    return text


def sources_html(entries: list[Reference], citations: list[Citation] | None = None) -> str:
    """<h2>Sources</h2> and an ordered list keeping each entry's number (`id="source-n"`, so `[n]` can link to
    it), the address under an entry that does not show it, and the quotes the citation check found (with
    their verdict when it is not "supported")."""
    items = []
    for ref in entries:
        text = ref.text()
        url = "" if not ref.url or ref.url in text else f'<br><span class="url">{html.escape(ref.url)}</span>'
        quotes = [(str(c.quote), str(c.verdict or "")) for c in citations or [] if c.n == ref.n and c.quote]
        quote_html = "".join(f"<blockquote>{html.escape(q)}"
                             f"{f' <em>({html.escape(v)})</em>' if v and v != 'supported' else ''}</blockquote>"
                             for q, v in dict.fromkeys(quotes))
        items.append(f'<li id="source-{ref.n}" value="{ref.n}">{"".join(span_html(s) for s in ref.spans)}'
                     f"{url}{quote_html}</li>")
    return "<h2>Sources</h2>\n<ol>\n" + "\n".join(items) + "\n</ol>"


def evidence_html(citations: list[Citation] | None) -> str:
    """<h2>Evidence</h2>: each citation's cited sentence, then its passage with the quoted words in <mark> and
    its support verdict, as the UI's evidence folds show them; all escaped (page text stays text). A citation
    read from an imported run may hold anything: each value is shown as text."""
    items = []
    for c in citations or []:
        quote, passage = str(c.quote or ""), str(c.passage or "")
        if not quote and not passage:
            continue
        verdict = str(c.verdict or "")
        # a source that does not support its sentence has nothing marked as its support
        shown = html.escape(" ".join((passage or quote).split())) if verdict == "not supported" else \
            marked_passage(passage or quote, quote)
        sentence = " ".join(str(c.sentence or "").split())
        items.append(f'<li><strong>[{html.escape("" if c.n is None else str(c.n))}]</strong> {html.escape(sentence)}'
                     f"{f' <em>({html.escape(verdict)})</em>' if verdict else ''}"
                     f'<blockquote class="evidence">{shown}</blockquote></li>')
    return "<h2>Evidence</h2>\n<ol class=\"evidence\">\n" + "\n".join(items) + "\n</ol>" if items else ""


# ---------------------------------------------------------------- the print page

FONTS = '"DejaVu Sans", "WenQuanYi Zen Hei", "Noto Sans CJK SC", "Noto Sans", sans-serif'
PRINT_STYLE = f"""@page {{ size: A4; margin: 2cm 2cm 2.2cm;
  @bottom-center {{ content: counter(page) " / " counter(pages); font: 8pt {FONTS}; color: #777; }} }}
body {{ font: 10.5pt/1.5 {FONTS}; color: #1d1d1f; }}
header {{ border-bottom: 1.5pt solid #2a5db0; margin-bottom: 1.2em; padding-bottom: .6em; }}
h1 {{ font-size: 18pt; margin: 0 0 .4em; color: #1a3f7a; }}
h2 {{ font-size: 13pt; margin: 1.2em 0 .4em; color: #1a3f7a; }} h3 {{ font-size: 11.5pt; }}
dl {{ display: grid; grid-template-columns: max-content auto; gap: .1em 1em; margin: 0; font-size: 9pt; }}
dt {{ color: #666; }} dd {{ margin: 0; }}
a {{ color: #2a5db0; text-decoration: none; }}
pre, code {{ font-family: "DejaVu Sans Mono", monospace; font-size: 9pt; background: #f4f4f4; }}
pre {{ padding: .5em; white-space: pre-wrap; }}
blockquote {{ border-left: 2pt solid #ccc; margin: .3em 0 .3em .5em; padding-left: .8em; color: #555; }}
table {{ border-collapse: collapse; }} td, th {{ border: .5pt solid #bbb; padding: .2em .4em; }}
.sources li {{ margin-bottom: .35em; }} .url {{ color: #666; font-size: 8.5pt; word-break: break-all; }}
footer {{ margin-top: 2em; color: #777; font-size: 8.5pt; }}
ol.evidence {{ list-style: none; padding-left: 0; }} mark {{ background: #fff3a8; }}"""


def print_html(doc: Printable) -> str:
    """The page WeasyPrint prints: the header, the report with each [n] linked, the sources list, a footer."""
    fields = "".join(f"<dt>{html.escape(label)}</dt><dd>{html.escape(value)}</dd>" for label, value in doc.fields)
    body = markdown_to_html(doc.body_markdown, lambda n: (doc.cite[n], "") if n in doc.cite else None)
    parts = ["<!DOCTYPE html>", '<html><head><meta charset="utf-8">', f"<title>{html.escape(doc.title)}</title>",
             f"<style>{PRINT_STYLE}</style></head><body>",
             f"<header><h1>{html.escape(doc.title)}</h1><dl>{fields}</dl></header>", f"<main>{body}</main>"]
    if doc.references:
        parts.append(f'<section class="sources">{sources_html(doc.references)}</section>')
    evidence = evidence_html(doc.citations)
    if evidence:
        parts.append(f'<section class="evidence">{evidence}</section>')
    if doc.footer:
        parts.append(f"<footer>{html.escape(doc.footer)}</footer>")
    return "\n".join(parts + ["</body></html>\n"])


class ExportRenderError(StoreError):
    """The PDF could not be made (WeasyPrint or its system libraries missing or failing)."""


def _refusing_fetcher():
    from weasyprint.urls import URLFetcher, URLFetchingError

    class Refuse(URLFetcher):
        """Fetches nothing: no file, no address (an export is made from what is already in hand)."""
        def fetch(self, url, headers=None):
            raise URLFetchingError(f"an export fetches nothing ({url[:80]})")
    return Refuse()


def html_to_pdf(page: str) -> bytes:
    """`page` as PDF bytes; links stay links (PDF link annotations). Nothing is fetched."""
    try:
        from weasyprint import HTML
    except (ImportError, OSError) as exc:  # OSError: Pango/HarfBuzz libraries missing
        raise ExportRenderError(f"PDF export needs WeasyPrint and Pango ({exc})") from None
    return HTML(string=page, base_url=None, url_fetcher=_refusing_fetcher()).write_pdf()
