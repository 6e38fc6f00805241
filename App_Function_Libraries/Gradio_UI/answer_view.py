"""Showing a cited answer: `[n]` markers turned into links to their sources, and a sources list under it.

Shared by the Web Search, Wikipedia and Documents tabs (and the History and Notes previews). An answer may
quote page text verbatim, so it is shown as HTML made by the export's renderer (DB/markdown_html): raw HTML
in it is text, no image is loaded (quarry.render); the tabs show it in a gr.HTML. Links go to the source's web address when
it has one (http/https); a local file's citation links to its row in the sources list below the answer.
"""
from __future__ import annotations

import html
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from App_Function_Libraries.quarry.render import (CITATION_GROUP_RE, link_open_tag, markdown_to_html, marked_passage,
                                                  parse_group, text_fragment_link)

# a citation group as verification reads it ([1], [1, 3], [2-4]), unless escaped (\[1]): what the renderer links
CITATION = re.compile(r"(?<!\\)" + CITATION_GROUP_RE.pattern)


@dataclass
class SourceRef:
    n: int
    title: str
    url: str  # a web address, or a local file target (path#location)


def is_web_url(url: str) -> bool:
    try:
        return urlsplit(url or "").scheme.lower() in ("http", "https")
    except ValueError:  # e.g. "http://[" (a broken IPv6 address)
        return False


def md_text(text: str) -> str:
    """Plain text made safe inside Markdown (no accidental emphasis, links or HTML)."""
    return re.sub(r"([\\`*_\[\]<>#|])", r"\\\1", " ".join(str(text or "").split()))


def anchor(prefix: str, n: int) -> str:
    return f"{prefix}-source-{n}"


def citation_targets(sources: list[SourceRef], anchor_prefix: str = "src"):
    """For the renderer: a cited number's link (its source's web address, or its row in the sources list
    below the answer) and title; None for a number naming no listed source."""
    by_n = {s.n: s for s in sources}

    def target(n: int) -> tuple[str, str] | None:
        source = by_n.get(n)
        if source is None:
            return None
        href = source.url if is_web_url(source.url) else f"#{anchor(anchor_prefix, n)}"
        return href, " ".join(str(source.title or "").split())
    return target


def render(markdown: str, sources: list[SourceRef] | None = None, anchor_prefix: str = "src") -> str:
    """Markdown as safe HTML (DB/markdown_html: page text quoted in it shows as text, no image is loaded),
    with each `[n]` naming one of `sources` linked to it."""
    return markdown_to_html(markdown, citation_targets(sources, anchor_prefix) if sources else None)


def sources_html(sources: list[SourceRef], anchor_prefix: str = "src", heading: str = "Sources") -> str:
    """A numbered list of the sources: title linked to the web address, or the local path shown (its links
    unpadded: CITE_CSS)."""
    if not sources:
        return ""
    rows = [f"<h3>{html.escape(heading)}</h3>"]
    for s in sorted(sources, key=lambda s: s.n):
        title = html.escape(" ".join(str(s.title or s.url).split()))
        if is_web_url(s.url):
            title = f"{link_open_tag(s.url)}{title}</a>"
        rows.append(f'<p class="sources" id="{anchor(anchor_prefix, s.n)}"><strong>[{s.n}]</strong> {title}<br>'
                    f"<code>{html.escape(s.url or '')}</code></p>")
    return "\n".join(rows)


def cited_numbers(markdown: str) -> set[int]:
    """Every source number the answer cites, groups and ranges included."""
    return {n for m in CITATION.finditer(markdown or "") for n in parse_group(m.group(1))}


MODE_LABELS = {"llm": "LLM {noun}", "extractive": "Extractive {noun}", "none": "Not answered"}


def mode_label(mode: str, noun: str = "answer") -> str:
    """How an answer (or a web report: noun "report") was made, for the line under it ("none": not answered,
    nothing read was relevant enough to use; the answer itself says why)."""
    return MODE_LABELS.get(mode, MODE_LABELS["extractive"]).format(noun=noun)


# ---------------------------------------------------------------- the evidence behind each [n]

def evidence_id(prefix: str, i: int) -> str:
    return f"{prefix}-evidence-{i}"


def evidence_targets(citations: list, sources: list[SourceRef], anchor_prefix: str):
    """For the renderer: the k-th `[n]` of the answer links to the evidence of the k-th citation of source n
    (citations are in the order the answer cites them); a number with no evidence links to its source."""
    by_n: dict[int, list[int]] = {}
    for i, c in enumerate(citations):
        by_n.setdefault(c.n, []).append(i)
    seen: dict[int, int] = {}
    fallback = citation_targets(sources, anchor_prefix)
    titles = {s.n: " ".join(str(s.title or "").split()) for s in sources}

    def target(n: int) -> tuple[str, str] | None:
        uses = by_n.get(n, [])
        k = seen.get(n, 0)
        seen[n] = k + 1
        if k < len(uses):
            return f"#{evidence_id(anchor_prefix, uses[k])}", f"Evidence from [{n}] {titles.get(n, '')}".strip()
        return fallback(n)
    return target


def _evidence_text(c) -> str:
    """The passage with the quoted words marked and its line breaks kept (a heading on its own line); nothing
    marked when the source does not support the sentence."""
    passage = getattr(c, "passage", "") or c.quote
    return marked_passage(passage, "" if getattr(c, "verdict", "") == "not supported" else c.quote)


VERDICT_NOTES = {"supported": "supported", "partly supported": "partly supported",
                 "not supported": "not supported by this source"}


FOLD_SNIPPET_CHARS = 60  # the most of a cited sentence (or quote) a fold's title shows


def shortened(text: str, limit: int = FOLD_SNIPPET_CHARS) -> str:
    """The text on one line, cut at a word before `limit` characters with "…"."""
    text = " ".join(str(text or "").split())
    if len(text) <= limit:
        return text
    cut = text[:limit - 1]
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut).rstrip(" ,;:") + "…"


def fold_snippets(citations: list) -> list[str]:
    """What tells each citation's fold apart from the others: the start of the sentence it supports (its [n]
    groups left out), or of its quote where another fold of the same source starts alike."""
    seen: set[tuple] = set()
    out = []
    for c in citations:
        sentence = " ".join(CITATION.sub("", str(getattr(c, "sentence", "") or "")).split()).replace(" .", ".")
        snippet = shortened(sentence)
        if not snippet or (c.n, snippet) in seen:
            snippet = shortened(str(c.quote or "")) or snippet
        seen.add((c.n, snippet))
        out.append(snippet)
    return out


def evidence_html(citations: list, sources: list[SourceRef], anchor_prefix: str = "src") -> str:
    """One fold per citation, opened by its [n]: the cited sentence's supporting quote in its passage, the
    quoted words highlighted, the verdict, and a link opening the source at that text. A fold's title names
    the source, the verdict and the start of the sentence it supports (fold_snippets)."""
    if not citations:
        return ""
    titles = {s.n: " ".join(str(s.title or s.url).split()) for s in sources}
    rows = ['<div class="evidence"><h3>Evidence</h3>']
    for i, (c, snippet) in enumerate(zip(citations, fold_snippets(citations))):
        verdict = VERDICT_NOTES.get(getattr(c, "verdict", ""), "")
        link = text_fragment_link(c.url, c.quote)
        opener = link_open_tag(link, titles.get(c.n, "")) if is_web_url(link) else ""
        source = (f"{opener}Open [{c.n}] at this text</a>" if opener else
                  f"<code>{html.escape(c.url or '')}</code>")
        # the id is inside the fold: following the [n] link reveals (opens) the fold around its target
        rows.append(f'<details class="evidence-item">'
                    f"<summary>[{c.n}] {html.escape(titles.get(c.n, ''))}"
                    f"{' · ' + html.escape(verdict) if verdict else ''}"
                    f"{' · <q>' + html.escape(snippet) + '</q>' if snippet else ''}</summary>"
                    f'<blockquote class="evidence-quote" id="{evidence_id(anchor_prefix, i)}">{_evidence_text(c)}'
                    f"</blockquote><p>{source}</p></details>")
    rows.append("</div>")
    return "\n".join(rows)


def answer_body(markdown: str, sources: list[SourceRef], anchor_prefix: str = "src",
                citations: list | None = None) -> str:
    """The answer (safe HTML) with linked citations; with its citations, each [n] opens the evidence of that
    citation (evidence_html, shown under the answer) instead of the source's page."""
    if not citations:
        return render(markdown, sources, anchor_prefix)
    return (markdown_to_html(markdown, evidence_targets(citations, sources, anchor_prefix))
            + "\n" + evidence_html(citations, sources, anchor_prefix))


def answer_html(markdown: str, sources: list[SourceRef], anchor_prefix: str = "src",
                citations: list | None = None) -> str:
    """The answer (answer_body) followed by the sources it cites, then those read but not cited (the order of
    every list of a report's sources)."""
    body = answer_body(markdown, sources, anchor_prefix, citations)
    cited = cited_numbers(markdown)
    listed = sources_html([s for s in sources if s.n in cited], anchor_prefix)
    rest = sources_html([s for s in sources if s.n not in cited], anchor_prefix,
                        "Read but not cited" if cited else "Sources")
    shown = "\n".join(p for p in (listed, rest) if p)
    return body + ("\n<hr>\n" + shown if shown else "")


def answer_refs(answer) -> list[SourceRef]:
    """An answer record's own numbered sources; one about a report names the report's number for each source
    the report numbers differently."""
    return [SourceRef(s.n, (s.title or s.url) + (f" (the report's [{s.report_n}])"
                                                 if s.report_n not in (None, s.n) else ""), s.url)
            for s in answer.sources]


def answer_record_html(answer, anchor_prefix: str, footer: str = "", count_removed: bool = True) -> str:
    """One answer record (records.Answer: the web report's, a Wikipedia or Documents answer, an answer about a
    report) as safe HTML: the answer with each [n] opening its evidence, its sources (cited, then read but not
    cited), the notes on what went wrong, and `footer` (how it was made)."""
    notes = problems_markdown(answer.errors, answer.invalid_citations_removed if count_removed else 0)
    return (answer_html(answer.markdown, answer_refs(answer), anchor_prefix, answer.citations) + "\n"
            + render("\n\n".join(p for p in (notes, footer) if p)))


def problems_markdown(errors: list[str], removed: int = 0) -> str:
    """Notes for the reader about what went wrong or was dropped (empty when nothing did)."""
    lines = [f"- {md_text(e)}" for e in errors]
    if removed:
        lines.append(f"- {removed} citation(s) that did not match their source were removed")
    return ("**Notes:**\n" + "\n".join(lines)) if lines else ""
