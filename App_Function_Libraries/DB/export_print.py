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
import re
from dataclasses import dataclass, field

from App_Function_Libraries.DB.citation_styles import Reference, Span, web_address
from App_Function_Libraries.DB.connection import StoreError
from App_Function_Libraries.DB.markdown_html import (CITE_CSS, markdown_to_html, marked_passage, passage_lines,
                                                     text_fragment_link)
from App_Function_Libraries.Retrieval.citations import CITATION_GROUP_RE
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
    evidence: list["Evidence"] = field(default_factory=list)  # each quote once (evidence_items)
    cited: int = 0  # the first `cited` references are the sources the report cites, the rest read but not cited


@dataclass
class Evidence:
    """One quote shown in the Evidence section: a source's passage with the quoted words, the verdicts of the
    citations it supports, and the cited sentences that are not the quote itself (an LLM's own words)."""
    n: int | None
    url: str
    quote: str
    passage: str
    title: str = ""  # its source's title
    verdicts: list[str] = field(default_factory=list)
    claims: list[str] = field(default_factory=list)

    @property
    def supported(self) -> bool:
        """Whether any citation it backs is supported by it (a source that supports nothing has nothing marked)."""
        return any(v != "not supported" for v in self.verdicts) or not self.verdicts

    def verdict(self) -> str:
        return ", ".join(VERDICT_NOTES.get(v, v) for v in self.verdicts)

    def link(self) -> str:
        """The source's address opening at the quoted text ("" when it has no web address)."""
        target = text_fragment_link(self.url, self.quote)
        return target if web_address(target) else ""


VERDICT_NOTES = {"not supported": "not supported by this source"}  # as the UI's evidence says it


def evidence_items(citations: list[Citation] | None, titles: dict[int, str] | None = None) -> list[Evidence]:
    """The report's evidence, each quote once (citations of one source with the same quote share it), in the
    order the report first cites them; `titles`: source number -> its title. A citation read from an imported
    run may hold anything: each value is read as text."""
    items: dict[tuple, Evidence] = {}
    for c in citations or []:
        quote, passage = " ".join(str(c.quote or "").split()), passage_lines(str(c.passage or ""))
        if not quote and not passage:
            continue
        n = c.n if isinstance(c.n, int) else None
        item = items.setdefault((n, quote, passage), Evidence(n, str(c.url or ""), quote, passage,
                                                              (titles or {}).get(n, "") if n is not None else ""))
        verdict = str(c.verdict or "")
        sentence = " ".join(CITATION_GROUP_RE.sub("", str(c.sentence or "")).split()).replace(" .", ".")
        if verdict and verdict not in item.verdicts:
            item.verdicts.append(verdict)
        if sentence and _words(sentence) not in _words(passage or quote) and sentence not in item.claims:
            item.claims.append(sentence)
    return list(items.values())


def _words(text: str) -> str:
    """The text's words, lower case, one space apart and around: "X." and "x" read alike, "bee" is not in "bees"."""
    return " " + " ".join(re.findall(r"\w+", text.lower())) + " "


def evidence_id(i: int) -> str:
    return f"evidence-{i}"


def evidence_links(items: list[Evidence]) -> dict[int, list[int]]:
    """Source number -> the numbers (1, 2, …) of its evidence items."""
    links: dict[int, list[int]] = {}
    for i, item in enumerate(items, 1):
        if item.n is not None:
            links.setdefault(item.n, []).append(i)
    return links


# ---------------------------------------------------------------- the sources list and the evidence as HTML

def span_html(span: Span) -> str:
    text = html.escape(span.text)
    text = f"<i>{text}</i>" if span.italic else text
    if span.link and web_address(span.link):
        return f'<a href="{html.escape(span.link)}" target="_blank" rel="noopener noreferrer nofollow">{text}</a>'
    return text


def sources_html(entries: list[Reference], cited: int = 0, items: list[Evidence] | None = None) -> str:
    """<h2>Sources</h2>: the sources the report cites (the first `cited` entries), each linking to its quotes
    in the Evidence section, then "Read but not cited"; ordered lists keeping each entry's number
    (`id="source-n"`, so `[n]` can link to it), the address under an entry that does not show it."""
    links = evidence_links(items or [])
    parts = ["<h2>Sources</h2>"]
    parts.append(_entries_html(entries[:cited], links) if cited else "<p>None cited.</p>")
    if entries[cited:]:
        parts += ["<h3>Read but not cited</h3>", _entries_html(entries[cited:], links)]
    return "\n".join(parts)


def _entries_html(entries: list[Reference], links: dict[int, list[int]]) -> str:
    items = []
    for ref in entries:
        text = ref.text()
        url = "" if not ref.url or ref.url in text else f'<br><span class="url">{html.escape(ref.url)}</span>'
        quotes = ", ".join(f'<a href="#{evidence_id(i)}">{i}</a>' for i in links.get(ref.n, []))
        quotes = f' <span class="quotes">(evidence {quotes})</span>' if quotes else ""
        # value: a browser's number; counter-set: WeasyPrint's (it reads no value), the list-item counter then
        # counting on to n
        spans = "".join(span_html(s) for s in ref.spans)
        items.append(f'<li id="source-{ref.n}" value="{ref.n}" style="counter-set: list-item {ref.n - 1}">{spans}'
                     f"{quotes}{url}</li>")
    return "<ol>\n" + "\n".join(items) + "\n</ol>"


def evidence_html(items: list[Evidence]) -> str:
    """<h2>Evidence</h2>: each quote once (evidence_items), numbered as the sources list links to it: its
    source's number and title, the verdict, the passage with the quoted words in <mark> and its line breaks as
    <br> (nothing marked where the source supports nothing), the cited sentence where it is not the quote
    itself, and a link opening the source at the quoted text; all escaped (page text stays text)."""
    rows = []
    for i, item in enumerate(items, 1):
        n = "" if item.n is None else str(item.n)
        head = " · ".join(p for p in (html.escape(item.title), html.escape(item.verdict())) if p)
        shown = marked_passage(item.passage or item.quote, item.quote if item.supported else "")
        claims = "".join(f'<p class="claim">Cited for: {html.escape(c)}</p>' for c in item.claims)
        link = (f'<p><a href="{html.escape(item.link())}" target="_blank" rel="noopener noreferrer nofollow">'
                f"Open [{html.escape(n)}] at this text</a></p>" if item.link() else "")
        rows.append(f'<li id="{evidence_id(i)}" value="{i}"><strong>[{html.escape(n)}]</strong> {head}{claims}'
                    f'<blockquote class="evidence">{shown}</blockquote>{link}</li>')
    return "<h2>Evidence</h2>\n<ol class=\"evidence\">\n" + "\n".join(rows) + "\n</ol>" if rows else ""


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
ol.evidence li {{ margin-bottom: .6em; }} mark {{ background: #fff3a8; }}
{CITE_CSS}"""


def print_html(doc: Printable) -> str:
    """The page WeasyPrint prints: the header, the report with each [n] linked, the sources list, a footer."""
    fields = "".join(f"<dt>{html.escape(label)}</dt><dd>{html.escape(value)}</dd>" for label, value in doc.fields)
    body = markdown_to_html(doc.body_markdown, lambda n: (doc.cite[n], "") if n in doc.cite else None)
    parts = ["<!DOCTYPE html>", '<html><head><meta charset="utf-8">', f"<title>{html.escape(doc.title)}</title>",
             f"<style>{PRINT_STYLE}</style></head><body>",
             f"<header><h1>{html.escape(doc.title)}</h1><dl>{fields}</dl></header>", f"<main>{body}</main>"]
    if doc.references:
        parts.append(f'<section class="sources">{sources_html(doc.references, doc.cited, doc.evidence)}</section>')
    evidence = evidence_html(doc.evidence)
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
