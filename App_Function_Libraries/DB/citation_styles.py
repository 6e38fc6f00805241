"""Citation styles for a report's list of sources: one implementation, used by every export (Markdown, HTML,
PDF, Word, plain text) so the same style reads the same everywhere.

    numbered  the title linked to the page (a paper adds its authors, venue, year and DOI) — the default
    apa       APA 7 reference-list entries: "Family, G., & Family, G. (2020). Title. *Venue*. https://doi.org/…"
    chicago   Chicago author-date: "Family, Given, and Given Family. 2020. "Title." *Venue*. https://doi.org/…"

The report cites by number (`[n]`), so in every style the list stays numbered in report order; the style
decides what each entry says. A web page without an author or a date falls back gracefully: its site stands
in for the author, "n.d." for the date, and the day the report was made is given as the access date.

An entry is a `Reference`: its number and a tuple of `Span`s (text, italic or not, linked or not), so each
export renders it in its own markup without knowing the style.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from App_Function_Libraries.errors import QuarryError
from App_Function_Libraries.options import CITATION_STYLE_LABELS, CITATION_STYLES
from App_Function_Libraries.records import Source

STYLE_LABELS = CITATION_STYLE_LABELS  # what each style is called, in exports as on the forms (options.py)
DEFAULT_STYLE = "numbered"
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
_PARTICLES = {"van", "von", "de", "der", "den", "da", "del", "della", "di", "du", "la", "le", "dos", "das", "ter"}


class CitationStyleError(QuarryError, ValueError):
    """A citation style that does not exist; str() is the one-line message."""


def check_style(style: str | None) -> str:
    """The style's name (case-insensitive); CitationStyleError for an unknown one."""
    name = (style or DEFAULT_STYLE).strip().lower()
    if name not in CITATION_STYLES:
        raise CitationStyleError(f"unknown citation style {style!r}; use one of {', '.join(CITATION_STYLES)}")
    return name


@dataclass(frozen=True)
class Span:
    text: str
    italic: bool = False
    link: str = ""  # an http(s) address the text links to ("" = not a link)


@dataclass(frozen=True)
class Reference:
    n: int
    spans: tuple[Span, ...]
    url: str  # the source's address as stored (a web address, or a file path for a document)

    def text(self) -> str:
        return "".join(s.text for s in self.spans)


# ---------------------------------------------------------------- facts of a source

@dataclass(frozen=True)
class Facts:
    """What a reference can say about a source (a records.Source; an imported run's may hold anything)."""
    kind: str
    title: str
    url: str
    site: str  # the website (host) or "Wikipedia"; "" for a local document
    authors: tuple[str, ...]  # "Given Family" each
    year: int | None
    month: int | None
    day: int | None
    venue: str
    doi: str

    @property
    def doi_url(self) -> str:
        return f"https://doi.org/{self.doi}" if self.doi else ""

    @property
    def link(self) -> str:
        """The address an entry links to: the DOI's for a paper that has one, else the page's."""
        return self.doi_url or (self.url if web_address(self.url) else "")


def one_line(text: Any) -> str:
    return " ".join(str(text or "").split())


def web_address(url: str) -> bool:
    try:
        parts = urlsplit(url) if url else None
    except ValueError:  # e.g. "http://[" (a broken IPv6 address)
        return False
    return bool(parts and parts.scheme.lower() in ("http", "https") and parts.netloc)


def site_name(url: str) -> str:
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        return ""
    return host.removeprefix("www.") if web_address(url) else ""


def source_facts(source: Source) -> Facts:
    """What a reference says of a source; its values are read defensively (an imported run may hold anything,
    see export.as_result)."""
    url = one_line(source.url)
    paper = source.paper
    kind = str(source.kind or ("paper" if paper else "web"))
    authors = _authors(paper.authors) if paper else ()
    year, month, day = parse_date(source.date_published)
    paper_year = paper.year if paper else None
    if isinstance(paper_year, int) and 0 < paper_year < 10000:
        year, month, day = (paper_year, month, day) if year == paper_year else (paper_year, None, None)
    site = "Wikipedia" if kind == "wikipedia" else site_name(url)
    doi = one_line(paper.doi).removeprefix("https://doi.org/").lower() if paper else ""
    return Facts(kind=kind, title=one_line(source.title) or url or "Untitled", url=url, site=site,
                 authors=authors, year=year, month=month, day=day, venue=one_line(paper.venue if paper else ""),
                 doi=doi)


def _authors(value: Any) -> tuple[str, ...]:
    """A paper's authors, each on one line; none when an imported run holds something that is not a list."""
    try:
        return tuple(one_line(a) for a in value or [] if one_line(a))
    except TypeError:  # e.g. a number where the list of authors belongs
        return ()


def parse_date(value: Any) -> tuple[int | None, int | None, int | None]:
    """(year, month, day) of an ISO-like date ("2024", "2024-03", "2024-03-05T…"); a bare year found anywhere
    else; (None, None, None) when there is none."""
    text = one_line(value)
    iso = re.match(r"(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?", text)
    if iso and 1000 <= int(iso.group(1)) <= 2999:
        month = int(iso.group(2)) if iso.group(2) and 1 <= int(iso.group(2)) <= 12 else None
        day = int(iso.group(3)) if month and iso.group(3) and 1 <= int(iso.group(3)) <= 31 else None
        return int(iso.group(1)), month, day
    year = re.search(r"\b(1[5-9]\d\d|2\d\d\d)\b", text)
    return (int(year.group(1)), None, None) if year else (None, None, None)


def split_name(name: str) -> tuple[str, str]:
    """(given, family) of "Given Family" or "Family, Given"; a one-word name (an organisation) is all family."""
    if "," in name:
        family, given = (part.strip() for part in name.split(",", 1))
        return given, family
    words = name.split()
    if len(words) < 2:
        return "", name.strip()
    i = len(words) - 1
    while i > 1 and words[i - 1].lower() in _PARTICLES:
        i -= 1
    return " ".join(words[:i]), " ".join(words[i:])


def _initials(given: str) -> str:
    return " ".join(f"{part[0]}." for part in re.split(r"[\s.]+", given) if part and part[0].isalpha())


def _date_words(facts: Facts) -> str:
    """"2024, March 5" / "2024, March" / "2024" / "n.d." (APA's parenthesised date)."""
    if facts.year is None:
        return "n.d."
    if facts.month is None:
        return str(facts.year)
    return f"{facts.year}, {MONTHS[facts.month - 1]}" + (f" {facts.day}" if facts.day else "")


def _accessed_words(accessed: str) -> str:
    year, month, day = parse_date(accessed)
    if year and month and day:
        return f"{MONTHS[month - 1]} {day}, {year}"
    return accessed


def _end(text: str) -> str:
    """Text ending in a full stop (not doubled after ? or !)."""
    return text if text.endswith((".", "?", "!")) else text + "."


# ---------------------------------------------------------------- styles

def reference(n: int, source: Source, style: str, accessed: str) -> Reference:
    """Source `n` as an entry of the list in `style`; `accessed` is the report's date (YYYY-MM-DD)."""
    facts = source_facts(source)
    build = {"numbered": _numbered, "apa": _apa, "chicago": _chicago}[check_style(style)]
    spans = tuple(s for s in build(facts, accessed) if s.text)
    return Reference(n=n, spans=spans, url=facts.url)


def references(listed: list[tuple[int, Source]], style: str, accessed: str) -> list[Reference]:
    return [reference(n, source, style, accessed) for n, source in listed]


def _numbered(f: Facts, accessed: str) -> list[Span]:
    title = Span(f.title, link=f.url if web_address(f.url) else "")
    if f.kind != "paper":
        return [title] if title.link else [title, Span(f" — {f.url}")]
    parts = ([Span(", ".join(f.authors))] if f.authors else []) + ([Span(f.venue, italic=True)] if f.venue else [])
    parts += ([Span(str(f.year))] if f.year else []) + ([Span(f.doi_url, link=f.doi_url)] if f.doi else [])
    out = [title]
    for i, part in enumerate(parts):
        out += [Span(" — " if i == 0 else ", "), part]
    return out


def _apa_authors(authors: tuple[str, ...]) -> str:
    names = []
    for name in authors:
        given, family = split_name(name)
        names.append(f"{family}, {_initials(given)}" if _initials(given) else family)
    if len(names) > 20:
        names = names[:19] + ["… " + names[-1]]
        return ", ".join(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + ", & " + names[-1]


def _apa(f: Facts, accessed: str) -> list[Span]:
    date = _date_words(f) if f.kind != "paper" else (str(f.year) if f.year else "n.d.")
    if f.authors:
        lead = [Span(f"{_end(_apa_authors(f.authors))} ({date}). ")]
        title = [Span(_end(f.title) + " ", italic=f.kind != "paper")]
    else:  # no author: the title moves to the author's place (APA 9.12)
        lead, title = [Span(_end(f.title), italic=f.kind != "paper"), Span(f" ({date}). ")], []
    source = [Span(f.venue, italic=True), Span(". ")] if f.venue else ([Span(f"{f.site}. ")] if f.site else [])
    if f.kind == "paper" and f.doi:
        return lead + title + source + [Span(f.doi_url, link=f.doi_url)]
    where = [Span(f.url, link=f.url if web_address(f.url) else "")]
    retrieved = [Span(f"Retrieved {_accessed_words(accessed)}, from ")] if f.year is None else []
    return lead + title + source + retrieved + where


def _chicago_authors(authors: tuple[str, ...]) -> str:
    names = list(authors[:7] if len(authors) > 10 else authors)
    given, family = split_name(names[0])
    names[0] = f"{family}, {given}" if given else family
    if len(authors) > 10:
        return ", ".join(names) + ", et al"
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + (", and " if len(names) > 2 else " and ") + names[-1]


def _chicago(f: Facts, accessed: str) -> list[Span]:
    year = str(f.year) if f.year else "n.d."
    quoted = Span(f"“{_end(f.title)}” ")
    if f.authors:
        lead = [Span(f"{_end(_chicago_authors(f.authors))} {_end(year)} "), quoted]
    elif f.site and f.kind == "web":  # the site (its owner) stands in for the author
        lead = [Span(f"{_end(f.site)} {_end(year)} "), quoted]
    else:
        lead = [quoted, Span(f"{_end(year)} ")]
    if f.kind == "paper":
        venue = [Span(f.venue, italic=True), Span(". ")] if f.venue else []
        link = f.doi_url or (f.url if web_address(f.url) else "")
        return lead + venue + [Span(_end(link) if link else f.url, link=link)]
    site = [Span(f.site, italic=f.kind == "wikipedia"), Span(". ")] if f.site and (f.authors or f.kind != "web") else []
    accessed_text = [Span(f"Accessed {_accessed_words(accessed)}. ")]
    return lead + site + accessed_text + [Span(_end(f.url), link=f.url if web_address(f.url) else "")]
