"""Showing a cited answer: `[n]` markers turned into links to their sources, and a sources list under it.

Shared by the Web Search, Wikipedia and Documents tabs (and the History and Notes previews). An answer may
quote page text verbatim, so it is shown as HTML made by the export's renderer (DB/markdown_html): raw HTML
in it is text, no image is loaded; the tabs show it in a gr.HTML. Links go to the source's web address when
it has one (http/https); a local file's citation links to its row in the sources list below the answer.
"""
from __future__ import annotations

import html
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from App_Function_Libraries.DB.markdown_html import link_open_tag, markdown_to_html
from App_Function_Libraries.Retrieval.citations import CITATION_GROUP_RE, parse_group

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
    """A numbered list of the sources: title linked to the web address, or the local path shown."""
    if not sources:
        return ""
    rows = [f"<h3>{html.escape(heading)}</h3>"]
    for s in sorted(sources, key=lambda s: s.n):
        title = html.escape(" ".join(str(s.title or s.url).split()))
        if is_web_url(s.url):
            title = f"{link_open_tag(s.url)}{title}</a>"
        rows.append(f'<p id="{anchor(anchor_prefix, s.n)}"><strong>[{s.n}]</strong> {title}<br>'
                    f"<code>{html.escape(s.url or '')}</code></p>")
    return "\n".join(rows)


def cited_numbers(markdown: str) -> set[int]:
    """Every source number the answer cites, groups and ranges included."""
    return {n for m in CITATION.finditer(markdown or "") for n in parse_group(m.group(1))}


MODE_LABELS = {"llm": "LLM answer", "extractive": "Extractive answer",
               "none": "No answer: no passage reached the relevance floor"}


def mode_label(mode: str) -> str:
    """How an answer was made, for the line under it ("none": nothing was relevant enough to use)."""
    return MODE_LABELS.get(mode, "Extractive answer")


def answer_html(markdown: str, sources: list[SourceRef], anchor_prefix: str = "src") -> str:
    """The answer (safe HTML) with linked citations, followed by the sources it cites (all of them when it
    cites none; the tab's table lists the rest)."""
    body = render(markdown, sources, anchor_prefix)
    cited = cited_numbers(markdown)
    listed = sources_html([s for s in sources if s.n in cited] or sources, anchor_prefix)
    return body + ("\n<hr>\n" + listed if listed else "")


def problems_markdown(errors: list[str], removed: int = 0) -> str:
    """Notes for the reader about what went wrong or was dropped (empty when nothing did)."""
    lines = [f"- {md_text(e)}" for e in errors]
    if removed:
        lines.append(f"- {removed} citation(s) that did not match their source were removed")
    return ("**Notes:**\n" + "\n".join(lines)) if lines else ""
