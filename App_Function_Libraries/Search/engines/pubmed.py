"""PubMed through NCBI's E-utilities, two requests per search: esearch.fcgi (the PMIDs matching the query, in
relevance order) then efetch.fcgi (those articles: title, abstract, authors, journal, DOI). Both answer XML.
<pubmed_api_url> is the E-utilities folder (https://eutils.ncbi.nlm.nih.gov/entrez/eutils).

Polite use as NCBI asks: `tool` and `email` ([engines] contact_email) on every request, `api_key` when set
(10 requests a second instead of 3). E-utilities reports errors inside HTTP 200 bodies (<ERROR>…</ERROR>) and a
rate limit as HTTP 429 with a JSON body ({"error": "API rate limit exceeded", …}).
"""
from __future__ import annotations

from typing import Any
from xml.etree.ElementTree import Element

from App_Function_Libraries.Search.engines.base import (Connection, EngineSpec, HttpRequest, ParsedPage,
                                                        SearchOptions)
from App_Function_Libraries.Search.engines.scholarly import (NO_SAFESEARCH, RAW_ABSTRACT_CHARS, TOOL_NAME, bare_doi,
                                                             contact_email, date_bounds, one_line, paper_hit,
                                                             raw_abstract, year_of)
from App_Function_Libraries.Search.engines.textclean import as_int, dig
from App_Function_Libraries.Search.errors import BadKey, BadResponse, RateLimited, SearchError

SPEC = EngineSpec(
    name="pubmed", label="PubMed",
    honours={"date_range": "mindate/maxdate (datetype=pdat)", "safesearch": NO_SAFESEARCH,
             "count": "retmax", "exact_terms": "quoted phrases", "exclude_terms": "NOT term",
             "sort": "sort=pub_date"},
    auth="api_key parameter (optional)", needs_key=False, page_size=100, max_results=100, answer_format="xml")

MONTHS = {m: i for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov",
                                      "dec"), start=1)}


def base_url(url: str) -> str:
    base = url.rstrip("/")
    for tail in ("/esearch.fcgi", "/efetch.fcgi", "/esummary.fcgi"):
        base = base.removesuffix(tail)
    return base


def polite_params(conn: Connection) -> dict[str, str]:
    params = {"tool": TOOL_NAME}
    if contact_email(conn):
        params["email"] = contact_email(conn)
    if conn.key:
        params["api_key"] = conn.key
    return params


def build_request(opts: SearchOptions, conn: Connection, page: int) -> HttpRequest | None:
    if page > 0:
        return None
    params = {"db": "pubmed", "term": term(opts), "retmax": str(min(opts.count, SPEC.max_results)),
              "retstart": "0", "sort": "pub_date" if opts.sort == "date" else "relevance"}
    bounds = date_bounds(opts)
    if bounds:
        params.update(datetype="pdat", mindate=f"{bounds[0]:%Y/%m/%d}", maxdate=f"{bounds[1]:%Y/%m/%d}")
    return HttpRequest("GET", base_url(conn.url) + "/esearch.fcgi", params={**params, **polite_params(conn)})


def term(opts: SearchOptions) -> str:
    parts = [opts.query] + [f'"{phrase}"' for phrase in opts.exact_terms]
    text = " AND ".join(parts) if len(parts) > 1 else parts[0]
    for word in opts.exclude_terms:
        text += f' NOT "{word}"' if " " in word else f" NOT {word}"
    return text


def build_follow_up(page: ParsedPage, opts: SearchOptions, conn: Connection) -> HttpRequest:
    params = {"db": "pubmed", "id": ",".join(page.follow_up), "retmode": "xml", **polite_params(conn)}
    return HttpRequest("GET", base_url(conn.url) + "/efetch.fcgi", params=params)


def parse_response(data: Any, opts: SearchOptions) -> ParsedPage:
    """An esearch answer (ids: a follow-up), an efetch answer (articles) or an esummary answer (summaries)."""
    if not isinstance(data, Element):
        return ParsedPage(problem="expected an E-utilities XML answer")
    error = one_line(data.findtext("ERROR"))
    if error:
        return ParsedPage(error=_error_in_answer(error))
    if data.tag == "eSearchResult":
        ids = tuple(i.strip() for i in (e.text or "" for e in data.findall("IdList/Id")) if i.strip())
        return ParsedPage(total=as_int(data.findtext("Count")), follow_up=ids or None)
    if data.tag == "PubmedArticleSet":
        return ParsedPage(hits=_with_url(_article(a, opts) for a in data.findall("PubmedArticle")))
    if data.tag == "eSummaryResult":
        return ParsedPage(hits=_with_url(_summary(d, opts) for d in data.findall("DocSum")))
    return ParsedPage(problem=f"an unexpected <{data.tag[:40]}> answer")


def _with_url(hits) -> list:
    return [hit for hit in hits if hit.url]


def _error_in_answer(message: str) -> SearchError:
    if "rate limit" in message.lower():
        return RateLimited(f"PubMed is rate-limiting Quarry ({message}); set pubmed_api_key for a higher limit "
                           "or search fewer sub-queries at once")
    if "api key" in message.lower() or "api_key" in message.lower():
        return BadKey(f"PubMed rejected the API key ({message}); check pubmed_api_key")
    return BadResponse(f"PubMed refused the request: {message}")


def _article(article: Element, opts: SearchOptions):
    cite = article.find("MedlineCitation")
    art = cite.find("Article") if cite is not None else None
    if art is None:
        return paper_hit(title="", landing="", opts=opts, source="PubMed")
    pmid = (cite.findtext("PMID") or "").strip()
    ids = {a.get("IdType"): (a.text or "") for a in article.findall("PubmedData/ArticleIdList/ArticleId")}
    doi = bare_doi(ids.get("doi")) or next((bare_doi(e.text) for e in art.findall("ELocationID")
                                            if e.get("EIdType") == "doi"), "")
    abstract = _abstract(art.findall("Abstract/AbstractText"))
    date = art.find("Journal/JournalIssue/PubDate")
    return paper_hit(title="".join(art.find("ArticleTitle").itertext()) if art.find("ArticleTitle") is not None
                     else "", landing=_pubmed_page(pmid), doi=doi, authors=_authors(art), year=_year(date),
                     venue=art.findtext("Journal/Title") or "", abstract=abstract, published=_day(date),
                     opts=opts, source="PubMed")


def _abstract(sections: list[Element]) -> str:
    """The AbstractText sections, read until RAW_ABSTRACT_CHARS are gathered (the rest is not read)."""
    parts, size = [], 0
    for section in sections:
        if size >= RAW_ABSTRACT_CHARS:
            break
        parts.append(_section(section, RAW_ABSTRACT_CHARS - size))
        size += len(parts[-1]) + 1
    return " ".join(parts)


def _section(text: Element, most: int) -> str:
    """One AbstractText (at most `most` characters of it), its inline markup (<sub>, <i>) read through, its
    label in front."""
    raw, size = [], 0
    for piece in text.itertext():
        raw.append(piece[:most - size])
        size += len(raw[-1])
        if size >= most:
            break
    body = one_line("".join(raw))
    label = one_line(raw_abstract(text.get("Label")))[:200]
    return f"{label}: {body}" if label and body else body


def _authors(art: Element) -> list[str]:
    names = []
    for author in art.findall("AuthorList/Author"):
        name = author.findtext("CollectiveName") or " ".join(
            p for p in (author.findtext("ForeName"), author.findtext("LastName")) if p)
        names.append(name)
    return names


def _year(date: Element | None) -> int | None:
    if date is None:
        return None
    return year_of(date.findtext("Year")) or year_of(date.findtext("MedlineDate"))


def _day(date: Element | None) -> str | None:
    """YYYY-MM-DD when the issue date names its day, else None (a season or a month is not a day)."""
    if date is None:
        return None
    year, month = year_of(date.findtext("Year")), (date.findtext("Month") or "").lower()[:3]
    number, day = MONTHS.get(month) or as_int(month), (date.findtext("Day") or "").strip()
    day = int(day) if day.isdecimal() and len(day) <= 2 else None
    if year and number and day and 1 <= number <= 12 and 1 <= day <= 31:
        return f"{year:04d}-{number:02d}-{day:02d}"
    return None


def _summary(doc: Element, opts: SearchOptions):
    """An esummary DocSum (v1: <Item Name=… Type=…>)."""
    items = {i.get("Name"): i for i in doc.findall("Item")}
    text = {name: (item.text or "").strip() for name, item in items.items()}
    authors = [a.text or "" for a in items["AuthorList"].findall("Item")] if "AuthorList" in items else []
    ids = {i.get("Name"): (i.text or "") for i in items["ArticleIds"].findall("Item")} if "ArticleIds" in items else {}
    pmid = (doc.findtext("Id") or "").strip()
    return paper_hit(title=text.get("Title"), landing=_pubmed_page(pmid), doi=bare_doi(ids.get("doi") or
                     text.get("DOI")), authors=authors, year=year_of(text.get("PubDate")),
                     venue=text.get("FullJournalName") or text.get("Source") or "", opts=opts, source="PubMed")


def _pubmed_page(pmid: str) -> str:
    return f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/" if pmid.isdigit() else ""


def explain_error(status: int, payload: Any, text: str) -> SearchError | None:
    message = one_line(dig(payload, "error")) if isinstance(payload, dict) else ""
    if isinstance(payload, Element):
        message = one_line(payload.findtext("ERROR"))
    if status == 429 or "rate limit" in message.lower():
        return RateLimited(f"PubMed is rate-limiting Quarry (HTTP {status}: {message or 'too many requests'}); "
                           "set pubmed_api_key for a higher limit or search fewer sub-queries at once", status=status)
    if status in (400, 401, 403) and "key" in message.lower():
        return BadKey(f"PubMed rejected the API key (HTTP {status}: {message}); check pubmed_api_key", status=status)
    if message and status < 500:
        return BadResponse(f"PubMed refused the request (HTTP {status}: {message})", status=status)
    return None
