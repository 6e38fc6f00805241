"""arXiv's API (GET <arxiv_api_url>?search_query=…&start=…&max_results=…): an Atom feed, one `entry` per paper.

No key. Errors come as an Atom feed too (HTTP 400, sometimes 200) holding one entry whose id is
https://arxiv.org/api/errors#…, the message in its `summary`.
"""
from __future__ import annotations

import re
from typing import Any
from xml.etree.ElementTree import Element

from App_Function_Libraries.Search.engines.base import (Connection, EngineSpec, HttpRequest, ParsedPage,
                                                        SearchOptions)
from App_Function_Libraries.Search.engines.scholarly import (NO_SAFESEARCH, bare_doi, date_bounds, one_line,
                                                             paper_hit, raw_abstract, year_of)
from App_Function_Libraries.Search.engines.textclean import as_int, as_url
from App_Function_Libraries.Search.errors import BadResponse, RateLimited, SearchError

SPEC = EngineSpec(
    name="arxiv", label="arXiv",
    honours={"date_range": "submittedDate:[… TO …]", "safesearch": NO_SAFESEARCH,
             "count": "max_results", "exact_terms": 'all:"phrase"', "exclude_terms": "ANDNOT all:term",
             "sort": "sortBy=submittedDate"},
    auth="none", needs_key=False, page_size=100, max_results=100, answer_format="xml",
    answer_items="{http://www.w3.org/2005/Atom}entry")

ATOM = "{http://www.w3.org/2005/Atom}"
OPENSEARCH = "{http://a9.com/-/spec/opensearch/1.1/}"
ARXIV = "{http://arxiv.org/schemas/atom}"
ERROR_ID = "arxiv.org/api/errors"
_WORD_JUNK = re.compile(r"[^\w.+\-']")


def build_request(opts: SearchOptions, conn: Connection, page: int) -> HttpRequest | None:
    if page > 0:
        return None
    params = {"search_query": search_query(opts), "start": "0", "max_results": str(min(opts.count, SPEC.max_results)),
              "sortBy": "submittedDate" if opts.sort == "date" else "relevance", "sortOrder": "descending"}
    return HttpRequest("GET", conn.url, params=params, headers={"Accept": "application/atom+xml"})


def search_query(opts: SearchOptions) -> str:
    """arXiv's query syntax: every word in all fields (AND), phrases quoted, ANDNOT for excluded terms. Characters
    that are arXiv's own syntax (quotes, brackets, colons) are left out of the words."""
    words = [w for w in (_WORD_JUNK.sub("", w) for w in opts.query.split()) if w]
    phrases = [" ".join(_WORD_JUNK.sub(" ", p).split()) for p in opts.exact_terms]
    parts = [f"all:{w}" for w in words or ["*"]] + [f'all:"{p}"' for p in phrases if p]
    query = " AND ".join(parts)
    for term in opts.exclude_terms:
        query += f' ANDNOT all:"{term}"' if " " in term else f" ANDNOT all:{term}"
    bounds = date_bounds(opts)
    if bounds:
        query += f" AND submittedDate:[{bounds[0]:%Y%m%d}0000 TO {bounds[1]:%Y%m%d}2359]"
    return query


def parse_response(data: Any, opts: SearchOptions) -> ParsedPage:
    if not isinstance(data, Element) or data.tag != ATOM + "feed":
        return ParsedPage(problem="expected an Atom feed")
    message = error_message(data)
    if message:
        return ParsedPage(error=BadResponse(f"arXiv refused the query: {message}"))
    hits = [_hit(entry, opts) for entry in data.findall(ATOM + "entry")[:opts.count]]
    hits = [h for h in hits if h.url]
    total = as_int(data.findtext(OPENSEARCH + "totalResults"))
    return ParsedPage(hits=hits, total=total, more=False)


def error_message(feed: Element) -> str:
    """The message of arXiv's error entry, or ''."""
    for entry in feed.findall(ATOM + "entry"):
        if ERROR_ID in (entry.findtext(ATOM + "id") or ""):
            return one_line(entry.findtext(ATOM + "summary")) or "an error without a message"
    return ""


def _hit(entry: Element, opts: SearchOptions):
    links = entry.findall(ATOM + "link")
    page = next((l.get("href") for l in links if l.get("rel") == "alternate"), None) or entry.findtext(ATOM + "id")
    pdf = next((l.get("href") for l in links if l.get("title") == "pdf"), "")
    doi = bare_doi(entry.findtext(ARXIV + "doi")) or bare_doi(
        next((l.get("href") for l in links if l.get("title") == "doi"), ""))
    published = (entry.findtext(ATOM + "published") or entry.findtext(ATOM + "updated") or "").strip()
    hit = paper_hit(title=entry.findtext(ATOM + "title"), landing=_https(page), doi="",
                    authors=[a.findtext(ATOM + "name") or "" for a in entry.findall(ATOM + "author")],
                    year=year_of(published[:4]), venue=one_line(entry.findtext(ARXIV + "journal_ref")) or "arXiv",
                    abstract=raw_abstract(entry.findtext(ATOM + "summary")), pdf_url=_https(pdf), published=published,
                    opts=opts, source="arXiv")
    hit.paper.doi = doi  # the journal version's DOI; the result stays the open arXiv page
    return hit


def _https(url: Any) -> str:
    text = as_url(url)
    return "https://" + text[len("http://"):] if text.startswith("http://arxiv.org/") else text


def explain_error(status: int, payload: Any, text: str) -> SearchError | None:
    if isinstance(payload, Element) and payload.tag == ATOM + "feed":
        message = error_message(payload)
        if message:
            return BadResponse(f"arXiv refused the query (HTTP {status}: {message})", status=status)
    if status == 503:
        return RateLimited("arXiv asks Quarry to slow down (HTTP 503); wait a few seconds between searches",
                           status=status)
    return None
