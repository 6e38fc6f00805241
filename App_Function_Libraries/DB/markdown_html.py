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
  escaped `\\[1]` or a citation inside a link stays text. A linked group and the punctuation right after it
  (`[1, 2].`) are one `<span class="cite">`: the pages showing it keep it on one line, its links unpadded
  (CITE_CSS, which unpads the links of the sources lists and the evidence too).

    markdown_to_html("Bees dance [1].", cite=lambda n: ("#source-1", "Waggle dance") if n == 1 else None)
"""
from __future__ import annotations

import html
import re
from typing import Callable
from urllib.parse import quote as url_quote, urlsplit, urlunsplit

from App_Function_Libraries.Retrieval.citations import CITATION_GROUP_RE, parse_group
from App_Function_Libraries.Retrieval.quotable import LIST_MARK

# a source number -> (href, title) of its link, or None when the number names no source
Cite = Callable[[int], "tuple[str, str] | None"]
WEB_SCHEMES = ("http", "https")
EXTERNAL = ' target="_blank" rel="noopener noreferrer nofollow"'
# a linked citation group and the punctuation right after it, as one unit
CITE_CLASS = "cite"
_GROUP_AND_PUNCTUATION = re.compile(CITATION_GROUP_RE.pattern + r"([.,;:!?)]*)")
# how a page shows that unit: tight ("[1, 2]." with no gaps; Gradio pads every link of a gr.HTML) and never
# broken across lines; the links in the sources lists and the evidence (class "sources", "evidence": "Open [n]
# at this text") unpadded too; the UI and the HTML and PDF exports add it to their style sheets (!important:
# Gradio's own rule is more specific)
CITE_CSS = (f".{CITE_CLASS}{{white-space:nowrap}}"
            f".{CITE_CLASS} a,.sources a,.evidence a{{padding:0!important}}")


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
    md.add_render_rule("list_item_open", _render_list_item_open)
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


def _render_list_item_open(self, tokens, idx, options, env) -> str:
    """An ordered list's item keeps the number it was written with where it skips one (a list of sources
    "1. … 3. …" shows 1 and 3, as the report cites them), where CommonMark would count on."""
    token = tokens[idx]
    if token.info.isdigit() and int(token.info) != _expected_number(tokens, idx):
        token.attrSet("value", token.info)
    return self.renderToken(tokens, idx, options, env)


def _expected_number(tokens, idx: int) -> int:
    """The number CommonMark gives the list item at `idx`: the one after the item before it, or the list's
    start."""
    level = tokens[idx].level
    for before in reversed(tokens[:idx]):
        if before.type == "list_item_open" and before.level == level and before.info.isdigit():
            return int(before.info) + 1
        if before.type == "ordered_list_open" and before.level == level - 1:
            return int(before.attrGet("start") or 1)
    return 1


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
    `[n]` is one link reading `[n]`, a group `[1, 3]` one link per number; other numbers stay text. A linked
    group and the punctuation right after it are one `<span class="cite">` (CITE_CSS)."""
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
            group = f"{link_open_tag(href, title)}[{numbers[0]}]</a>"
        else:
            parts = [f"{link_open_tag(*found[n])}{n}</a>" if n in found else str(n) for n in numbers]
            group = "[" + ", ".join(parts) + "]"
        return f'<span class="{CITE_CLASS}">{group}{match.group(2)}</span>'
    return _GROUP_AND_PUNCTUATION.sub(link, escaped)


# CommonMark's backslash escape: a backslash before any ASCII punctuation mark
_ESCAPED_PUNCTUATION = re.compile(r"\\([!-/:-@\[-`{-~])")


def markdown_text(text: str) -> str:
    """Markdown to be read as it is (a terminal, a .txt file): each backslash escape resolved, so a quoted
    page's "[Tesla]" (escaped in the report so that it is not read as a link) shows as "[Tesla]", not
    "\\[Tesla\\]". Headings, emphasis and lists stay: they read well as they are."""
    return _ESCAPED_PUNCTUATION.sub(r"\1", str(text or ""))


def passage_lines(text: str) -> str:
    """The text with its spaces made single spaces and its line breaks kept (one between two lines, none at
    either end): a passage's heading stays on its own line (Retrieval/passages._join)."""
    lines = (" ".join(line.split()) for line in str(text or "").splitlines())
    return "\n".join(line for line in lines if line)


def quote_span(passage: str, quote: str) -> tuple[str, str, str]:
    """The passage (passage_lines: single spaces, line breaks kept) as (before, quoted words, after); the quote
    may run across a line break. ("", quote, "") when the passage lacks the quote, (passage, "", "") when
    there is no quote."""
    passage, words = passage_lines(passage), (quote or "").split()
    found = re.search("[ \n]".join(re.escape(w) for w in words), passage) if words else None
    if found is None:
        return ("", " ".join(words), "") if words else (passage, "", "")
    return passage[:found.start()], found.group(0), passage[found.end():]


def _escaped_lines(text: str) -> str:
    return "<br>".join(html.escape(line) for line in text.split("\n"))


def marked_passage(passage: str, quote: str) -> str:
    """A passage as escaped HTML with the quoted words in <mark> and its line breaks as <br>; the quote alone
    (marked) when the passage lacks it; nothing marked when `quote` is "". The evidence of a citation, shown
    the same in the UI and the exports."""
    before, quoted, after = quote_span(passage, quote)
    return _escaped_lines(before) + (f"<mark>{_escaped_lines(quoted)}</mark>" if quoted else "") + \
        _escaped_lines(after)


FRAGMENT_WORDS = 4  # words at each end of a quote in a #:~:text= link


def text_fragment_link(url: str, quote: str) -> str:
    """The source's address opening at the quoted text: a `#:~:text=start,end` fragment for a web page; the
    address itself for anything else (a PDF, a local file)."""
    if not _web_address(url) or url.lower().split("?")[0].endswith(".pdf"):
        return url
    words = LIST_MARK.sub("", quote).split()  # a page shows its list marks, they are not in its text
    if not words:
        return url
    enc = lambda t: url_quote(t, safe="")  # noqa: E731 - "-" and "," must be escaped inside a text directive
    if len(words) <= 2 * FRAGMENT_WORDS:
        directive = enc(" ".join(words))
    else:
        directive = enc(" ".join(words[:FRAGMENT_WORDS])) + "," + enc(" ".join(words[-FRAGMENT_WORDS:]))
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, parts.query, "")) + "#:~:text=" + directive


def _web_address(url: str) -> bool:
    try:
        return urlsplit(url or "").scheme.lower() in WEB_SCHEMES
    except ValueError:  # e.g. "http://[" (a broken IPv6 address)
        return False
