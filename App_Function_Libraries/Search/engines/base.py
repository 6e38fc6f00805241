"""The shapes every engine module shares.

An engine module is declarative facts plus two pure functions:

    SPEC = EngineSpec(...)                                   # what it honours, auth, limits
    def build_request(opts, conn, page) -> HttpRequest|None  # page 0, 1, … ; None: no further page
    def parse_response(data, opts) -> ParsedPage             # decoded JSON (or XML root) in; never raises
    def build_follow_up(page, opts, conn) -> HttpRequest     # optional: the second request a page needs
                                                             # (PubMed: esearch names ids, efetch gives them)
    def explain_error(status, payload, text) -> SearchError|None   # optional: service-specific errors
    def refine_error(error, conn) -> SearchError                   # optional: an error made precise with what
                                                                   # only the connection knows (a key was sent)

The runner (Search/runner.py) does the HTTP, paging, retries and error typing. An engine reached through
a library instead of HTTP (duckduckgo) sets `transport="library"` and provides `search_library(...)`.
A local engine (wikipedia: the local index; documents: the document library) sets `transport="local"`: no
HTTP, no key, no cache, no health record. It provides

    def open_searcher(settings) -> Callable[[str, int], list]   # its feature's search entry point; raises
                                                                 # NotSetUp when there is nothing to search
    def parse_found(found, opts) -> ParsedPage                   # pure: what the entry point found, as Hits

and its hits carry the text found with them (`Hit.in_hand`): it is read, never fetched.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from App_Function_Libraries.records import Paper
from App_Function_Libraries.Search.errors import SearchError
from App_Function_Libraries.Search.options import SearchOptions


@dataclass(frozen=True)
class EngineSpec:
    """Declarative facts about one search service."""
    name: str
    label: str
    honours: dict[str, str]  # option name (a SearchOptions field) -> how the service receives it (Docs/engines.md)
    auth: str  # how the key travels, e.g. "header X-Subscription-Token"
    needs_key: bool = True
    needs_url: bool = True
    page_size: int = 10  # most results one request returns
    max_results: int = 100  # most results the service gives for one query
    transport: str = "http"  # "http" (the runner sends build_request's requests), "library" or "local"
    answer_format: str = "json"  # "json" or "xml" (Atom, E-utilities): what parse_response is given
    #: an XML answer's repeated element (arXiv: the Atom entry): only the first `count` of them are parsed
    answer_items: str = ""


@dataclass(frozen=True)
class Connection:
    """Where and how to reach an engine: endpoint, key and engine-specific extras (google's cx)."""
    url: str
    key: str = ""
    extras: dict[str, str] = field(default_factory=dict)


@dataclass
class HttpRequest:
    method: str
    url: str
    params: dict[str, str] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    json_body: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)  # options honoured only in part, said to the user


@dataclass
class Hit:
    """One search result as parsed from a service (text already free of markup)."""
    title: str
    url: str
    snippet: str = ""
    date_published: str | None = None
    author: str | None = None
    source: str | None = None
    language: str | None = None
    score: float | None = None
    paper: Paper | None = None  # a scholarly engine's bibliographic facts
    #: the text found with it, read instead of fetching the page: a local engine's passages ("" for the web)
    in_hand: str = ""
    kind: str = ""  # what it is (records.SOURCE_KINDS) when the engine knows: a local engine's "wikipedia"…

    def to_result_dict(self) -> dict[str, Any]:
        """The result entry of web_search_results_dict."""
        return {"title": self.title, "url": self.url, "content": self.snippet,
                "metadata": {"date_published": self.date_published, "author": self.author,
                             "source": self.source, "language": self.language,
                             "relevance_score": self.score, "snippet": self.snippet,
                             **({"paper": dataclasses.asdict(self.paper)} if self.paper else {}),
                             **({"in_hand": self.in_hand} if self.in_hand else {}),
                             **({"kind": self.kind} if self.kind else {})}}

    @classmethod
    def from_result_dict(cls, data: dict[str, Any]) -> "Hit":
        """A hit from a result entry of web_search_results_dict (a search cache row, an answer written by hand)."""
        meta = data.get("metadata") or {}
        return cls(data.get("title") or "", data.get("url") or "", data.get("content") or meta.get("snippet") or "",
                   meta.get("date_published"), meta.get("author"), meta.get("source"), meta.get("language"),
                   meta.get("relevance_score"), Paper.from_dict(meta.get("paper")), meta.get("in_hand") or "",
                   meta.get("kind") or "")


@dataclass
class ParsedPage:
    """What one response held."""
    hits: list[Hit] = field(default_factory=list)
    total: int | None = None  # the service's estimate of all matches
    more: bool = False  # the service says a further page exists
    notes: list[str] = field(default_factory=list)
    problem: str | None = None  # the answer is not in this service's format (becomes a BadResponse)
    unresponsive: list[str] = field(default_factory=list)  # searxng: upstream engines that failed
    error: SearchError | None = None  # a service error inside a successful (HTTP 200) answer
    follow_up: Any = None  # what build_follow_up needs for this page's second request (None: no second)


def local_spec(name: str, label: str, honours: dict[str, str]) -> EngineSpec:
    """The facts of a local engine: searched on this machine (transport "local"), no key, no URL."""
    return EngineSpec(name=name, label=label, honours=honours, auth="none", needs_key=False, needs_url=False,
                      page_size=100, max_results=100, transport="local")


def unsupported_notes(spec: EngineSpec, opts: SearchOptions) -> list[str]:
    """One note naming the options in use that this engine cannot honour. A local engine searches the user's
    own index and files: there is nothing for safesearch to filter, so it is not noted as ignored."""
    moot = {"safesearch"} if spec.transport == "local" else set()
    missing = [SearchOptions.label(name) for name in opts.options_to_note()
               if name not in spec.honours and name not in moot]
    return [f"{spec.name}: {', '.join(missing)} not supported, ignored"] if missing else []


def query_with_operators(opts: SearchOptions, *, exact: bool = True, exclude: bool = True,
                         sites: bool = True, include: bool = True) -> str:
    """The query with exact phrases in quotes, excluded terms as -term, blacklisted sites as -site: and the
    sites to keep as site: (several joined by OR, in parentheses)."""
    parts = [opts.query.strip()]
    if exact:
        parts += [f'"{phrase}"' for phrase in opts.exact_terms]
    if exclude:
        parts += [f"-{term}" if " " not in term else f'-"{term}"' for term in opts.exclude_terms]
    if sites:
        parts += [f"-site:{site}" for site in opts.site_blacklist]
    if include and opts.include_sites:
        keep = " OR ".join(f"site:{site}" for site in opts.include_sites)
        parts.append(f"({keep})" if len(opts.include_sites) > 1 else keep)
    return " ".join(p for p in parts if p)


def date_range_value(opts: SearchOptions, presets: dict[str, str], explicit: str) -> str:
    """The service's value for opts.date_range: presets[preset] when the service has that preset, else
    `explicit` formatted with the range's `start` and `end` dates (e.g. "{start:%Y-%m-%d}..{end:%Y-%m-%d}")."""
    rng = opts.date_range
    if rng.preset in presets:
        return presets[rng.preset]
    start, end = rng.bounds(opts.today)
    return explicit.format(start=start, end=end)


def page_count_note(spec: EngineSpec, opts: SearchOptions) -> list[str]:
    """A note when more results were asked for than the service ever gives."""
    if opts.count > spec.max_results:
        return [f"{spec.name}: result_count {opts.count} is more than the {spec.max_results} it returns, "
                f"asked for {spec.max_results}"]
    return []
