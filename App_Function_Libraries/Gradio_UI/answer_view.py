"""Showing a cited answer: `[n]` markers turned into links to their sources, and a sources list under it.

Shared by the Web Search, Wikipedia and Documents tabs. Links go to the source's web address when it has
one (http/https); a local file's citation links to its row in the sources list below the answer.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from App_Function_Libraries.Retrieval.citations import CITATION_GROUP_RE, parse_group

# a citation group as verification reads it ([1], [1, 3], [2-4]), unless escaped (\[1]) or glued to a word (a[1])
CITATION = re.compile(r"(?<![\\\w])" + CITATION_GROUP_RE.pattern)


@dataclass
class SourceRef:
    n: int
    title: str
    url: str  # a web address, or a local file target (path#location)


def is_web_url(url: str) -> bool:
    return urlsplit(url or "").scheme.lower() in ("http", "https")


def md_text(text: str) -> str:
    """Plain text made safe inside Markdown (no accidental emphasis, links or HTML)."""
    return re.sub(r"([\\`*_\[\]<>#|])", r"\\\1", " ".join(str(text or "").split()))


def md_link_target(url: str) -> str:
    return "".join({" ": "%20", "(": "%28", ")": "%29", "<": "%3C", ">": "%3E"}.get(c, c) for c in url)


def code(text: str) -> str:
    return "`" + " ".join(str(text or "").split()).replace("`", "'") + "`"


def anchor(prefix: str, n: int) -> str:
    return f"{prefix}-source-{n}"


def _source_link(source: SourceRef, text: str, anchor_prefix: str) -> str:
    target = md_link_target(source.url) if is_web_url(source.url) else f"#{anchor(anchor_prefix, source.n)}"
    title = md_text(source.title).replace('"', "'")
    return f'[{text}]({target} "{title}")'


def link_citations(markdown: str, sources: list[SourceRef], anchor_prefix: str = "src") -> str:
    """Each citation naming listed sources becomes links to them (their URL, or their row below): `[n]` one
    link, a group like `[1, 3]` or `[1-3]` one link per number; numbers naming no listed source stay text."""
    by_n = {s.n: s for s in sources}

    def link(match: re.Match) -> str:
        numbers = list(dict.fromkeys(parse_group(match.group(1))))
        if not any(n in by_n for n in numbers):
            return match.group(0)
        if len(numbers) == 1:
            return _source_link(by_n[numbers[0]], f"\\[{numbers[0]}\\]", anchor_prefix)
        parts = [_source_link(by_n[n], str(n), anchor_prefix) if n in by_n else str(n) for n in numbers]
        return "\\[" + ", ".join(parts) + "\\]"
    return CITATION.sub(link, markdown or "")


def sources_markdown(sources: list[SourceRef], anchor_prefix: str = "src", heading: str = "Sources") -> str:
    """A numbered list of the sources: title linked to the web address, or the local path shown."""
    if not sources:
        return ""
    lines = [f"### {heading}", ""]
    for s in sorted(sources, key=lambda s: s.n):
        title = md_text(s.title or s.url)
        spot = f'<span id="{anchor(anchor_prefix, s.n)}"></span>'
        if is_web_url(s.url):
            lines.append(f"{spot}**[{s.n}]** [{title}]({md_link_target(s.url)})  \n{code(s.url)}")
        else:
            lines.append(f"{spot}**[{s.n}]** {title}  \n{code(s.url)}")
        lines.append("")
    return "\n".join(lines)


def cited_numbers(markdown: str) -> set[int]:
    """Every source number the answer cites, groups and ranges included."""
    return {n for m in CITATION.finditer(markdown or "") for n in parse_group(m.group(1))}


MODE_LABELS = {"llm": "LLM answer", "extractive": "Extractive answer",
               "none": "No answer: no passage reached the relevance floor"}


def mode_label(mode: str) -> str:
    """How an answer was made, for the line under it ("none": nothing was relevant enough to use)."""
    return MODE_LABELS.get(mode, "Extractive answer")


def answer_markdown(markdown: str, sources: list[SourceRef], anchor_prefix: str = "src") -> str:
    """The answer with linked citations followed by the sources it cites (all of them when it cites none;
    the tab's table lists the rest)."""
    body = link_citations(markdown, sources, anchor_prefix)
    cited = cited_numbers(markdown)
    listed = sources_markdown([s for s in sources if s.n in cited] or sources, anchor_prefix)
    return body + ("\n\n---\n\n" + listed if listed else "")


def problems_markdown(errors: list[str], removed: int = 0) -> str:
    """Notes for the reader about what went wrong or was dropped (empty when nothing did)."""
    lines = [f"- {md_text(e)}" for e in errors]
    if removed:
        lines.append(f"- {removed} citation(s) that did not match their source were removed")
    return ("**Notes:**\n" + "\n".join(lines)) if lines else ""
