"""The scholarly search APIs, played on the test world in each service's own wire format: arXiv's Atom API,
NCBI E-utilities (esearch + efetch, XML; errors inside HTTP 200 bodies, 429 in JSON), Semantic Scholar's Graph
API paper search, OpenAlex works and Crossref works. Papers are generated from the query (TOTAL of them); a
query containing NOTHING_QUERY finds none. Keys are optional, as for the real services, but a wrong one is
refused with the service's own error (NCBI's echoes the key back, as NCBI does).

    apis = ScholarlyAPIs(world).install()
    settings = make_settings(apis.config())        # the five engines pointed at the world
    apis.rate_limited.add("pubmed")                # that service answers its rate-limit error from now on
    apis.requests_to("pubmed")                     # what it received (both E-utilities endpoints)
    ScholarlyAPIs(world, library=lambda q: [...])  # papers of our own (dicts as paper() makes; "pdf_url" optional)
"""
from __future__ import annotations

import json
import re
from typing import Callable
from xml.sax.saxutils import escape

from Tests.support.testworld import Request, Response, TestWorld

KEY = "sch-key-7d21e9b4"
TOTAL = 30
NOTHING_QUERY = "zzznothing"
PATHS = {"arxiv": "/arxiv/api/query", "pubmed": "/eutils", "semanticscholar": "/s2/graph/v1/paper/search",
         "openalex": "/openalex/works", "crossref": "/crossref/works"}
ENGINES = tuple(PATHS)


def paper(query: str, i: int) -> dict:
    """The i-th (0-based) paper every service knows for query."""
    slug = re.sub(r"[^a-z0-9]+", "-", query.lower()).strip("-")[:30] or "q"
    return {"title": f"On {query}: part {i + 1}", "doi": f"10.5555/{slug}.{i + 1}",
            "abstract": f"We study {query} in case {i + 1}. Results & methods < 5% error.",
            "authors": [("Ada", "Lovelace"), ("Alan", "Turing")][: 1 + i % 2], "year": 2020 + i % 5,
            "month": 1 + i % 12, "day": 1 + i % 28, "venue": f"Journal of {query.title()}", "id": 1000 + i,
            "open": i % 2 == 0}


def pdf_link(p: dict) -> str:
    """Where a paper's open-access PDF is: its own "pdf_url", else a made-up address."""
    return p.get("pdf_url") or f"https://oa.example/{p['id']}.pdf"


def papers(query: str) -> list[dict]:
    return [] if NOTHING_QUERY in query else [paper(query, i) for i in range(TOTAL)]


def words_of(search_query: str) -> str:
    """arXiv's `all:a AND all:b` back to the words a searcher typed."""
    return " ".join(re.findall(r"all:(\w+)", search_query or ""))


class ScholarlyAPIs:
    def __init__(self, world: TestWorld, key: str = KEY, library: Callable[[str], list[dict]] = papers) -> None:
        """library: the papers every service knows for a query (default: generated ones)."""
        self.world = world
        self.key = key
        self.library = library
        self.rate_limited: set[str] = set()

    def install(self) -> "ScholarlyAPIs":
        self.world.route("GET", PATHS["arxiv"], self.arxiv)
        self.world.route("GET", PATHS["pubmed"] + "/esearch.fcgi", self.esearch)
        self.world.route("GET", PATHS["pubmed"] + "/efetch.fcgi", self.efetch)
        self.world.route("GET", PATHS["semanticscholar"], self.semanticscholar)
        self.world.route("GET", PATHS["openalex"], self.openalex)
        self.world.route("GET", PATHS["crossref"], self.crossref)
        return self

    def url(self, engine: str) -> str:
        return self.world.url(PATHS[engine])

    def config(self, key: bool = True, **search) -> dict:
        engines = {f"{e}_api_url": self.url(e) for e in ENGINES}
        engines.update({f"{e}_api_key": self.key for e in ENGINES if key and e != "arxiv"})
        engines["contact_email"] = "research@example.org"
        return {"engines": engines, "search": {"search_max_retries": 0, "search_cache_ttl_seconds": 0, **search}}

    def requests_to(self, engine: str) -> list[Request]:
        if engine == "pubmed":
            return [r for r in self.world.requests if r.path.startswith(PATHS["pubmed"] + "/")]
        return self.world.requests_to(PATHS[engine])

    # ------------------------------------------------------------ arXiv (Atom)
    def arxiv(self, req: Request) -> Response:
        start, count = int(req.arg("start", "0")), int(req.arg("max_results", "10"))
        if count > 2000 or "all:" not in (req.arg("search_query") or ""):
            return self._atom_error("malformed_query", "malformed query or max_results", status=400)
        if "arxiv" in self.rate_limited:
            return Response.text("Rate exceeded.", status=503)
        found = self.library(words_of(req.arg("search_query")))
        entries = "".join(self._atom_entry(p) for p in found[start:start + count])
        return Response(200, self._feed(len(found), start, count, entries), {"Content-Type": "application/atom+xml"})

    @staticmethod
    def _feed(total: int, start: int, per_page: int, entries: str) -> bytes:
        return (f"<?xml version='1.0' encoding='UTF-8'?>\n"
                f"<feed xmlns:opensearch=\"http://a9.com/-/spec/opensearch/1.1/\""
                f" xmlns:arxiv=\"http://arxiv.org/schemas/atom\" xmlns=\"http://www.w3.org/2005/Atom\">"
                f"<id>https://arxiv.org/api/t</id><title>arXiv Query</title><updated>2026-01-02T00:00:00Z</updated>"
                f"<opensearch:itemsPerPage>{per_page}</opensearch:itemsPerPage>"
                f"<opensearch:totalResults>{total}</opensearch:totalResults>"
                f"<opensearch:startIndex>{start}</opensearch:startIndex>{entries}</feed>").encode("utf-8")

    @staticmethod
    def _atom_entry(p: dict) -> str:
        aid = f"{p['year'] % 100:02d}{p['month']:02d}.{p['id']:05d}"
        authors = "".join(f"<author><name>{g} {f}</name></author>" for g, f in p["authors"])
        doi = f"<arxiv:doi>{p['doi']}</arxiv:doi>" if p["id"] % 3 != 2 else ""
        return (f"<entry><id>http://arxiv.org/abs/{aid}v1</id><title>{escape(p['title'])}\n  (preprint)</title>"
                f"<updated>{p['year']}-{p['month']:02d}-{p['day']:02d}T10:00:00Z</updated>"
                f"<published>{p['year']}-{p['month']:02d}-{p['day']:02d}T10:00:00Z</published>"
                f"<summary>  {escape(p['abstract'])}\n  Second line.</summary>{authors}{doi}"
                f"<link href=\"https://arxiv.org/abs/{aid}v1\" rel=\"alternate\" type=\"text/html\"/>"
                f"<link href=\"https://arxiv.org/pdf/{aid}v1\" rel=\"related\" type=\"application/pdf\" title=\"pdf\"/>"
                f"<arxiv:primary_category term=\"cs.CL\"/><category term=\"cs.CL\"/></entry>")

    def _atom_error(self, code: str, message: str, status: int) -> Response:
        entry = (f"<entry><id>https://arxiv.org/api/errors#{code}</id><title>Error</title>"
                 f"<summary>{escape(message)}</summary><author><name>arXiv api core</name></author></entry>")
        return Response(status, self._feed(1, 0, 1, entry), {"Content-Type": "application/atom+xml"})

    # ------------------------------------------------------------ NCBI E-utilities
    def _ncbi_refusal(self, req: Request) -> Response | None:
        key = req.arg("api_key")
        if key is not None and key != self.key:  # NCBI echoes the key it refused
            return Response.json({"error": "API key invalid", "api-key": key, "type": "invalid",
                                  "status": "unknown"}, status=400)
        if "pubmed" in self.rate_limited:
            return Response.json({"error": "API rate limit exceeded", "api-key": key or "203.0.113.9",
                                  "count": "11", "limit": "10"}, status=429, headers={"Retry-After": "1"})
        return None

    def esearch(self, req: Request) -> Response:
        refused = self._ncbi_refusal(req)
        if refused:
            return refused
        term, start, count = req.arg("term", ""), int(req.arg("retstart", "0")), int(req.arg("retmax", "20"))
        if not term.strip():
            return self._eutils("eSearchResult", "<ERROR>Empty term and query_key - nothing todo</ERROR>")
        found = self.library(term.split(" NOT ")[0].split(" AND ")[0])
        ids = "".join(f"<Id>{p['id']}</Id>" for p in found[start:start + count])
        return self._eutils("eSearchResult", f"<Count>{len(found)}</Count><RetMax>{min(count, len(found))}</RetMax>"
                            f"<RetStart>{start}</RetStart><IdList>{ids}</IdList><TranslationSet/>"
                            f"<QueryTranslation>{escape(term)}[All Fields]</QueryTranslation>")

    def efetch(self, req: Request) -> Response:
        refused = self._ncbi_refusal(req)
        if refused:
            return refused
        ids = [i for i in (req.arg("id") or "").split(",") if i.strip()]
        if not ids:
            return self._eutils("eFetchResult", "<ERROR>Empty id list - nothing todo</ERROR>")
        term = self._last_term()
        by_id = {str(p["id"]): p for p in self.library(term)}
        body = "".join(self._pubmed_article(by_id[i]) for i in ids if i in by_id)
        return self._eutils("PubmedArticleSet", body, doctype="PubmedArticleSet")

    def _last_term(self) -> str:
        searches = [r for r in self.world.requests if r.path.endswith("/esearch.fcgi")]
        term = searches[-1].arg("term", "") if searches else ""
        return term.split(" NOT ")[0].split(" AND ")[0]

    @staticmethod
    def _eutils(root: str, inner: str, doctype: str = "") -> Response:
        head = f'<!DOCTYPE {doctype} PUBLIC "-//NLM//DTD PubMedArticle//EN" "https://dtd.example/x.dtd">\n' \
            if doctype else ""
        body = f'<?xml version="1.0" encoding="UTF-8" ?>\n{head}<{root}>{inner}</{root}>'
        return Response(200, body.encode("utf-8"), {"Content-Type": "text/xml; charset=UTF-8"})

    @staticmethod
    def _pubmed_article(p: dict) -> str:
        authors = "".join(f"<Author ValidYN=\"Y\"><LastName>{f}</LastName><ForeName>{g}</ForeName></Author>"
                          for g, f in p["authors"])
        first, rest = p["abstract"].split(". ", 1)
        abstract = (f"<Abstract><AbstractText Label=\"BACKGROUND\">{escape(first)} with CO<sub>2</sub>."
                    f"</AbstractText><AbstractText Label=\"RESULTS\">{escape(rest)}</AbstractText></Abstract>")
        month = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")[p["month"] - 1]
        return (f"<PubmedArticle><MedlineCitation Status=\"MEDLINE\"><PMID Version=\"1\">{p['id']}</PMID>"
                f"<Article><Journal><JournalIssue><PubDate><Year>{p['year']}</Year><Month>{month}</Month>"
                f"<Day>{p['day']:02d}</Day></PubDate></JournalIssue><Title>{escape(p['venue'])}</Title></Journal>"
                f"<ArticleTitle>{escape(p['title'])}</ArticleTitle>{abstract}<AuthorList>{authors}</AuthorList>"
                f"</Article></MedlineCitation><PubmedData><ArticleIdList><ArticleId IdType=\"pubmed\">{p['id']}"
                f"</ArticleId><ArticleId IdType=\"doi\">{p['doi']}</ArticleId></ArticleIdList>"
                f"<ReferenceList><Reference><ArticleIdList><ArticleId IdType=\"doi\">10.9999/cited.1</ArticleId>"
                f"</ArticleIdList></Reference></ReferenceList></PubmedData></PubmedArticle>")

    # ------------------------------------------------------------ Semantic Scholar Graph API
    def semanticscholar(self, req: Request) -> Response:
        if req.header("x-api-key") is not None and req.header("x-api-key") != self.key:
            return Response.json({"message": "Forbidden"}, status=403)
        if "semanticscholar" in self.rate_limited:
            return Response.json({"message": "Too Many Requests. Please wait and try again or apply for a key.",
                                  "code": "429"}, status=429, headers={"x-amzn-ErrorType": "TooManyRequestsException"})
        limit, offset = int(req.arg("limit", "100")), int(req.arg("offset", "0"))
        if limit > 100:
            return Response.json({"error": "Response would exceed maximum size. Please reduce limit"}, status=400)
        found = self.library(req.arg("query", ""))
        if offset and offset >= len(found):
            return Response.json({"error": "Requested data for this limit and/or offset is not available"},
                                 status=400)
        data = [{"paperId": f"{p['id']:040x}", "url": f"https://www.semanticscholar.org/paper/{p['id']:040x}",
                 "title": p["title"], "abstract": p["abstract"] if p["id"] % 4 != 3 else None, "year": p["year"],
                 "venue": p["venue"], "journal": {"name": p["venue"], "pages": "1-9", "volume": "3"},
                 "externalIds": {"DOI": p["doi"], "CorpusId": p["id"]},
                 "openAccessPdf": {"url": pdf_link(p), "status": "GREEN", "license": "CCBY"}
                 if p["open"] else None, "publicationDate": f"{p['year']}-{p['month']:02d}-{p['day']:02d}",
                 "authors": [{"authorId": str(n), "name": f"{g} {f}"} for n, (g, f) in enumerate(p["authors"])]}
                for p in found[offset:offset + limit]]
        body = {"total": len(found), "offset": offset, "data": data}
        if offset + limit < len(found):
            body["next"] = offset + limit
        return Response.json(body)

    # ------------------------------------------------------------ OpenAlex works
    def openalex(self, req: Request) -> Response:
        if req.arg("api_key") is not None and req.arg("api_key") != self.key:
            return Response.json({"error": "Invalid API key", "message": "The api_key is not valid."}, status=401)
        if "openalex" in self.rate_limited:
            return Response.json({"error": "Rate limit exceeded", "message": "Too many requests"}, status=429)
        per_page, page = int(req.arg("per-page", "25")), int(req.arg("page", "1"))
        if per_page > 200:
            return Response.json({"error": "Invalid query parameters error.",
                                  "message": "per-page parameter must be between 1 and 200"}, status=400)
        found = self.library(req.arg("search", ""))
        results = [self._work(p) for p in found[(page - 1) * per_page:page * per_page]]
        return Response.json({"meta": {"count": len(found), "db_response_time_ms": 12, "page": page,
                                       "per_page": per_page, "groups_count": None}, "results": results,
                              "group_by": []})

    @staticmethod
    def _work(p: dict) -> dict:
        index: dict[str, list[int]] = {}
        for position, word in enumerate(p["abstract"].split()):
            index.setdefault(word, []).append(position)
        location = {"is_oa": p["open"], "landing_page_url": f"https://doi.org/{p['doi']}",
                    "pdf_url": pdf_link(p) if p["open"] else None,
                    "source": {"display_name": p["venue"], "type": "journal"}}
        return {"id": f"https://openalex.org/W{p['id']}", "doi": f"https://doi.org/{p['doi']}",
                "title": p["title"], "display_name": p["title"], "relevance_score": 100.0 - p["id"] % 100,
                "publication_year": p["year"], "publication_date": f"{p['year']}-{p['month']:02d}-{p['day']:02d}",
                "type": "article", "primary_location": location, "best_oa_location": location if p["open"] else None,
                "open_access": {"is_oa": p["open"]}, "abstract_inverted_index": index,
                "authorships": [{"author_position": "first", "author": {"display_name": f"{g} {f}"},
                                 "raw_author_name": f"{g} {f}"} for g, f in p["authors"]]}

    # ------------------------------------------------------------ Crossref works
    def crossref(self, req: Request) -> Response:
        if "crossref" in self.rate_limited:
            return Response.text("Too Many Requests", status=429)
        rows, offset = int(req.arg("rows", "20")), int(req.arg("offset", "0"))
        if rows > 1000:
            return Response.json({"status": "failed", "message-type": "validation-failure", "message": [
                {"type": "integer-not-valid", "value": str(rows), "message": "Integer specified as 1000 is not "
                 "less than 1000"}]}, status=400)
        query = req.arg("query", "")
        found = self.library(query)
        items = [self._crossref_item(p) for p in found[offset:offset + rows]]
        return Response(200, json.dumps({"status": "ok", "message-type": "work-list", "message-version": "1.0.0",
                                         "message": {"facets": {}, "total-results": 586628 if found else 0,
                                                     "items": items, "items-per-page": rows,
                                                     "query": {"start-index": offset, "search-terms": query}}}
                                        ).encode("utf-8"), {"Content-Type": "application/json"})

    @staticmethod
    def _crossref_item(p: dict) -> dict:
        item = {"DOI": p["doi"], "URL": f"https://doi.org/{p['doi']}", "title": [p["title"]],
                "container-title": [p["venue"]], "type": "journal-article", "score": 10.0 + p["id"] % 7,
                "abstract": f"<jats:title>Abstract</jats:title><jats:p>{escape(p['abstract'])}</jats:p>",
                "published": {"date-parts": [[p["year"], p["month"], p["day"]]]},
                "issued": {"date-parts": [[p["year"], p["month"]]]}}
        if p["id"] % 5 != 4:
            item["author"] = [{"given": g, "family": f, "sequence": "first"} for g, f in p["authors"]]
        if p["open"]:
            item["license"] = [{"URL": "https://creativecommons.org/licenses/by/4.0", "content-version": "vor"}]
            item["link"] = [{"URL": pdf_link(p), "content-type": "application/pdf"}]
        return item
