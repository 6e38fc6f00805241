"""How the front doors show what the facade returns, one way for all: Markdown as safe HTML (no raw HTML, no
remote image) with [n] linked, Markdown as text to read (escapes resolved), citation groups, a note search's
snippet (on a terminal, as Markdown, as text with the matches' spans), stored times, a download's file name, a
dig-deeper round or a plan in a line or a list, and whether an error is about a database file. Each imports its
module when first called (or, for the constants CITATION_GROUP_RE, CITE_CSS, START and END, when first
read)."""
from __future__ import annotations

from typing import Any


def __getattr__(name: str):
    if name == "CITATION_GROUP_RE":  # a citation group as verification reads it: [1], [1, 3], [2-4]
        from App_Function_Libraries.Retrieval.citations import CITATION_GROUP_RE
        return CITATION_GROUP_RE
    if name == "CITE_CSS":  # how a page shows a linked [n] group with its punctuation: tight, on one line
        from App_Function_Libraries.DB.markdown_html import CITE_CSS
        return CITE_CSS
    if name in ("START", "END"):  # the marks around a match in a note search's snippet
        from App_Function_Libraries.DB import snippets
        return getattr(snippets, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def markdown_to_html(text: str, cite=None) -> str:
    """Markdown as safe HTML (the exports' renderer); `cite(numbers)` links each [n] group."""
    from App_Function_Libraries.DB.markdown_html import markdown_to_html as render
    return render(text, cite)


def markdown_text(text: str) -> str:
    """Markdown to be read as it is, on a terminal or in a .txt file: its backslash escapes resolved."""
    from App_Function_Libraries.DB.markdown_html import markdown_text as as_text
    return as_text(text)


def link_open_tag(href: str, title: str = "") -> str:
    from App_Function_Libraries.DB.markdown_html import link_open_tag as tag
    return tag(href, title)


def safe_href(url: str, fragments: bool = True) -> bool:
    """Whether `url` may be a link's target (http, https; a #fragment when `fragments`)."""
    from App_Function_Libraries.DB.markdown_html import safe_href as safe
    return safe(url, fragments)


def marked_passage(passage: str, quote: str) -> str:
    """The passage as safe HTML with the quoted words marked."""
    from App_Function_Libraries.DB.markdown_html import marked_passage as marked
    return marked(passage, quote)


def text_fragment_link(url: str, quote: str) -> str:
    """The source's address opening at the quoted text (a `#:~:text=` fragment for a web page)."""
    from App_Function_Libraries.DB.markdown_html import text_fragment_link as link
    return link(url, quote)


def parse_group(inner: str) -> list[int]:
    """The numbers of a citation group's inside ("1, 3", "2-4")."""
    from App_Function_Libraries.Retrieval.citations import parse_group as parse
    return parse(inner)


def snippet_plain(snippet: str, limit: int | None = None) -> tuple[str, list[tuple[int, int]]]:
    """A note search's snippet as text, with the (start, end) of each match."""
    from App_Function_Libraries.DB.snippets import plain
    return plain(snippet, limit)


def snippet_markdown(snippet: str, limit: int | None = None) -> str:
    """A note's text or search snippet as Markdown: as typed (its markdown escaped), the matches in bold."""
    from App_Function_Libraries.DB.snippets import as_markdown
    return as_markdown(snippet, limit)


def snippet_terminal(snippet: str, bold: bool) -> str:
    """A note search's snippet for a terminal: the matches in bold when `bold`."""
    from App_Function_Libraries.DB.snippets import for_terminal
    return for_terminal(snippet, bold)


def format_epoch(value: Any, fmt: str = "%Y-%m-%d %H:%M", utc: bool = False, invalid: str = "-") -> str:
    """A stored time as local (or UTC) text; `invalid` for one that is not a valid time."""
    from App_Function_Libraries.DB.timestamps import format_epoch as formatted
    return formatted(value, fmt, utc, invalid)


def export_filename(title: str, fmt: str) -> str:
    """A safe file name for a download: the title's words, shortened, and the format's suffix."""
    from App_Function_Libraries.DB.export import export_filename as filename
    return filename(title, fmt)


def round_summary(record) -> str:
    """A dig-deeper round (records.Round) in one line: what it searched, added, changed, why it stopped."""
    from App_Function_Libraries.Research.dig_deeper import round_summary as summary
    return summary(record)


def plan_markdown(plan: dict[str, Any]) -> str:
    """A saved plan (its dict) as Markdown: the queries and their engines, sites, dates, budget ("" if none)."""
    from App_Function_Libraries.Research.plan import plan_markdown as markdown
    return markdown(plan)


def database_file_error(exc: BaseException) -> bool:
    """Whether `exc` says a database file itself cannot be used (not SQLite, damaged, read-only, disk full)."""
    from App_Function_Libraries.DB.file_errors import file_error_code
    return file_error_code(exc) is not None
