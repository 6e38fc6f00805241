"""Markdown that may hold untrusted text rendered to HTML that is safe to show: the one renderer of the HTML
export (export.py) and of the UI's reports, answers and previews.

A report quotes page text verbatim (the extractive brief does, an LLM may), so its markdown can hold whatever
a web page wrote. Rendered here:

- raw HTML is never HTML: `<img>`, `<form>`, `<a href>`, `<script>` show as the text they are;
- no image is loaded: `![alt](url)` becomes a link to the image, never an `<img>` (no remote beacons);
- a link is made only to an http(s) or mailto address, or to `#an-anchor` on the same page; any other target
  (javascript:, data:, file:, a relative path) leaves its text, unlinked;
- external links open in a new tab (the UI stays where it was) without a referrer;
- `[n]` citation groups (`[2]`, `[1, 3]`, `[2-4]`) link each number that `cite(n)` names a target for; an
  escaped `\\[1]` or a citation inside a link stays text.

    markdown_to_html("Bees dance [1].", cite=lambda n: ("#source-1", "Waggle dance") if n == 1 else None)
"""
from __future__ import annotations

import html
from typing import Callable
from urllib.parse import urlsplit

from App_Function_Libraries.Retrieval.citations import CITATION_GROUP_RE, parse_group

# a source number -> (href, title) of its link, or None when the number names no source
Cite = Callable[[int], "tuple[str, str] | None"]
WEB_SCHEMES = ("http", "https")
EXTERNAL = ' target="_blank" rel="noopener noreferrer nofollow"'


def safe_href(url: str, fragments: bool = True) -> bool:
    """A link target the renderer will make clickable: an http(s) or mailto address, or a `#fragment`."""
    url = (url or "").strip()
    if fragments and url.startswith("#") and len(url) > 1:
        return True
    try:
        parts = urlsplit(url)
    except ValueError:  # e.g. "http://[" (a broken IPv6 address)
        return False
    if parts.scheme.lower() in WEB_SCHEMES:
        return bool(parts.netloc)
    return parts.scheme.lower() == "mailto" and bool(parts.path)


def link_open_tag(href: str, title: str = "") -> str:
    title_attr = f' title="{html.escape(title)}"' if title else ""
    target = "" if href.startswith("#") else EXTERNAL
    return f'<a href="{html.escape(href)}"{title_attr}{target}>'


def markdown_to_html(text: str, cite: Cite | None = None) -> str:
    """Markdown rendered with raw HTML and images disabled and only safe links (see the module docstring)."""
    try:
        from markdown_it import MarkdownIt
    except ImportError:  # markdown-it-py comes with gradio; without it the text is shown as typed
        return f"<pre>{link_citations(html.escape(text or ''), cite)}</pre>"
    md = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
    md.core.ruler.disable("text_join")  # keeps escapes (`\[1]`) apart from the text citations are found in
    md.add_render_rule("text", _render_text)
    md.add_render_rule("text_special", _render_text_special)
    md.add_render_rule("link_open", _render_link_open)
    md.add_render_rule("link_close", _render_link_close)
    md.add_render_rule("image", _render_image)
    return md.render(text or "", {"cite": cite, "links": []})


def _in_link(env) -> bool:
    return any(env["links"])


def _render_text(self, tokens, idx, options, env) -> str:
    escaped = html.escape(tokens[idx].content, quote=False)
    return escaped if _in_link(env) else link_citations(escaped, env["cite"])


def _render_text_special(self, tokens, idx, options, env) -> str:
    return html.escape(tokens[idx].content, quote=False)


def _render_link_open(self, tokens, idx, options, env) -> str:
    href = tokens[idx].attrGet("href") or ""
    made = safe_href(str(href))
    env["links"].append(made)
    return link_open_tag(str(href), str(tokens[idx].attrGet("title") or "")) if made else ""


def _render_link_close(self, tokens, idx, options, env) -> str:
    made = env["links"].pop() if env["links"] else False
    return "</a>" if made else ""


def _render_image(self, tokens, idx, options, env) -> str:
    """An image as a link to it (its alt text), never loaded; without a web address, its alt text only."""
    token = tokens[idx]
    alt = self.renderInlineAsText(token.children, options, env) or "image"
    src = str(token.attrGet("src") or "")
    label = html.escape(f"[image: {alt}]", quote=False)
    if _in_link(env) or not safe_href(src, fragments=False):
        return label
    return link_open_tag(src, str(token.attrGet("title") or "")) + label + "</a>"


def link_citations(escaped: str, cite: Cite | None) -> str:
    """In HTML-escaped text, link each number of a citation group that `cite` names a target for: a single
    `[n]` is one link reading `[n]`, a group `[1, 3]` one link per number; other numbers stay text."""
    if cite is None:
        return escaped

    def targets(numbers: list[int]) -> dict[int, tuple[str, str]]:
        found = {}
        for n in numbers:
            target = cite(n)
            if target and safe_href(target[0]):
                found[n] = target
        return found

    def link(match) -> str:
        numbers = list(dict.fromkeys(parse_group(match.group(1))))
        found = targets(numbers)
        if not found:
            return match.group(0)
        if len(numbers) == 1:
            href, title = found[numbers[0]]
            return f"{link_open_tag(href, title)}[{numbers[0]}]</a>"
        parts = [f"{link_open_tag(*found[n])}{n}</a>" if n in found else str(n) for n in numbers]
        return "[" + ", ".join(parts) + "]"
    return CITATION_GROUP_RE.sub(link, escaped)


def marked_passage(passage: str, quote: str) -> str:
    """A passage as escaped HTML with the quoted words in <mark>; the quote alone (marked) when the passage
    lacks it. The evidence of a citation, shown the same in the UI and the exports."""
    passage, quote = " ".join((passage or "").split()), " ".join((quote or "").split())
    at = passage.find(quote) if quote else -1
    if at < 0:
        return f"<mark>{html.escape(quote)}</mark>" if quote else html.escape(passage)
    return (html.escape(passage[:at]) + f"<mark>{html.escape(quote)}</mark>"
            + html.escape(passage[at + len(quote):]))
