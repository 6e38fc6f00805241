"""What the scholarly engines (arxiv, pubmed, semanticscholar, openalex, crossref) share: the options they all
honour alike, a paper hit (snippet = the abstract trimmed, url = the landing page, Hit.paper = the facts),
DOIs, and the polite-use parameters each service asks for ([engines] contact_email).

Abstracts are capped: every parser reads at most RAW_ABSTRACT_CHARS of what the service sent (`raw_abstract`,
before any markup is stripped), and a paper keeps at most records.MAX_ABSTRACT_CHARS of it."""
from __future__ import annotations

import re
from typing import Any, Iterable

from App_Function_Libraries.records import MAX_ABSTRACT_CHARS, Paper, cut_words
from App_Function_Libraries.Search.engines.base import Connection, Hit, SearchOptions
from App_Function_Libraries.Search.engines.textclean import as_text, as_url, iso_date

SNIPPET_CHARS = 500
RAW_ABSTRACT_CHARS = 4 * MAX_ABSTRACT_CHARS  # markup and spacing included: what is read of an abstract at most
TOOL_NAME = "quarry"  # NCBI's `tool`
#: safesearch means nothing for scholarly records: honoured by having nothing to filter (no note each search)
NO_SAFESEARCH = "nothing to filter (scholarly records)"
_DOI = re.compile(r"10\.\d{4,9}/[^\s\x00-\x1f\x7f]+", re.I)  # no control character in a DOI


def bare_doi(value: Any) -> str:
    """'https://doi.org/10.1/X', 'doi:10.1/X', '10.1/X' → '10.1/x' (lower case); '' when none."""
    text = value if isinstance(value, str) else ""
    match = _DOI.search(text.strip())
    return match.group(0).rstrip(".,;").lower() if match else ""


def doi_url(doi: str) -> str:
    return f"https://doi.org/{doi}" if doi else ""


def trim(text: str, limit: int = SNIPPET_CHARS) -> str:
    """text cut at a word boundary to about `limit` characters, with … when cut."""
    return cut_words(text, limit + 2)


def raw_abstract(value: Any) -> str:
    """The part of an abstract as sent that Quarry reads (markup not yet stripped): at most RAW_ABSTRACT_CHARS."""
    return value[:RAW_ABSTRACT_CHARS] if isinstance(value, str) else ""


#: publishers' own entities that no HTML parser knows (SAGE abstracts quote with &dquo;)
_PUBLISHER_ENTITIES = {"&dquo;": '"', "&squo;": "'"}


def one_line(value: Any) -> str:
    """Markup-free text with its whitespace collapsed (titles and abstracts are often hard-wrapped)."""
    text = as_text(value)
    for entity, char in _PUBLISHER_ENTITIES.items():
        text = text.replace(entity, char)
    return " ".join(text.split())


def year_of(value: Any) -> int | None:
    match = re.search(r"\b(1[5-9]\d\d|20\d\d|21\d\d)\b", str(value)) if value is not None else None
    return int(match.group(1)) if match else None


def paper_hit(*, title: Any, landing: str, doi: str = "", authors: Iterable[str] = (), year: int | None = None,
              venue: str = "", abstract: str = "", pdf_url: str = "", published: Any = None,
              opts: SearchOptions, score: float | None = None, source: str) -> Hit:
    """One paper as a Hit. The url is the DOI's page when the paper has a DOI (so the same paper from two
    services is one result), else `landing` (the service's own page for it)."""
    abstract = cut_words(one_line(raw_abstract(abstract)), MAX_ABSTRACT_CHARS)
    names = [name for name in (one_line(a) for a in authors) if name]
    pdf = as_url(pdf_url)
    paper = Paper(authors=names, year=year, venue=one_line(venue), doi=doi, abstract=abstract, pdf_url=pdf,
                  abstract_only=not pdf)
    date = iso_date(published, opts.today) if isinstance(published, str) else None
    return Hit(title=one_line(title), url=doi_url(doi) or as_url(landing), snippet=trim(abstract),
               date_published=date, author=", ".join(names[:3]) + (" et al." if len(names) > 3 else "") or None,
               source=source, score=score, paper=paper)


def day_from_parts(parts: Any) -> str | None:
    """Crossref's [[y, m, d]] (month and day optional) as an ISO date, only when the day is known."""
    if isinstance(parts, list) and parts and isinstance(parts[0], list) and len(parts[0]) == 3:
        y, m, d = parts[0]
        if all(isinstance(x, int) for x in (y, m, d)):
            return f"{y:04d}-{m:02d}-{d:02d}"
    return None


def contact_email(conn: Connection) -> str:
    return conn.extras.get("contact_email", "").strip()


def date_bounds(opts: SearchOptions):
    """(start, end) of opts.date_range, or None."""
    return opts.date_range.bounds(opts.today) if opts.date_range else None
