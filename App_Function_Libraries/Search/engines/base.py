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
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from App_Function_Libraries.records import Paper
from App_Function_Libraries.Search.errors import SearchError

#: the advanced options of perform_websearch, by their parameter names
OPTION_NAMES = ("content_country", "search_lang", "search_result_language", "date_range", "safesearch",
                "result_count", "site_blacklist", "include_sites", "exactTerms", "excludeTerms", "filter",
                "geolocation", "sort_results_by")
DATE_PRESETS = ("day", "week", "month", "year")
PRESET_DAYS = {"day": 1, "week": 7, "month": 31, "year": 365}
SAFESEARCH_LEVELS = ("off", "moderate", "strict")
SORT_ORDERS = ("relevance", "date")


@dataclass(frozen=True)
class DateRange:
    """Either a preset (day, week, month, year: the last one of those) or explicit start/end dates."""
    preset: str | None = None
    start: date | None = None
    end: date | None = None

    def bounds(self, today: date) -> tuple[date, date]:
        """The range as two dates (a preset counted back from today)."""
        if self.preset:
            return today - timedelta(days=PRESET_DAYS[self.preset]), today
        return self.start or date(1900, 1, 1), self.end or today

    def label(self) -> str:
        if self.preset:
            return self.preset
        return f"{self.start or ''}..{self.end or ''}"


@dataclass(frozen=True)
class SearchOptions:
    """One search, its options validated and normalized (see engines/options.py for how they are built).

    country: ISO 3166 alpha-2 upper case; languages: ISO 639-1 lower case; today: the date presets and
    relative dates count from (kept here so builders and parsers stay pure)."""
    query: str
    count: int = 10
    country: str | None = None
    search_lang: str | None = None
    result_lang: str | None = None
    date_range: DateRange | None = None
    safesearch: str | None = None
    site_blacklist: tuple[str, ...] = ()
    include_sites: tuple[str, ...] = ()  # keep results to these sites
    exact_terms: tuple[str, ...] = ()
    exclude_terms: tuple[str, ...] = ()
    dedupe_filter: bool | None = None  # the `filter` option: Google's duplicate-content filter
    geolocation: str | None = None
    sort: str | None = None
    today: date = field(default_factory=date.today, compare=False)
    #: option names (perform_websearch's) whose value is a [search] default, not the caller's choice
    defaulted: frozenset[str] = frozenset()

    def options_in_use(self) -> list[str]:
        """perform_websearch option names that carry a value for this search."""
        used = {
            "content_country": self.country, "search_lang": self.search_lang,
            "search_result_language": self.result_lang, "date_range": self.date_range,
            "safesearch": self.safesearch, "site_blacklist": self.site_blacklist,
            "include_sites": self.include_sites, "exactTerms": self.exact_terms, "excludeTerms": self.exclude_terms,
            "filter": self.dedupe_filter, "geolocation": self.geolocation,
            "sort_results_by": self.sort if self.sort != "relevance" else None,
        }
        return [name for name, value in used.items() if value not in (None, (), "")]

    def set_by_caller(self, name: str) -> bool:
        """Whether option `name` carries a value the caller chose (not a [search] default)."""
        return name not in self.defaulted and name in self.options_in_use()

    def options_to_note(self) -> list[str]:
        """Options in use whose loss an answer must mention: those the caller set to a value that asks for
        something, and a safesearch that filters even when it is only the configured default (a person may rely
        on it). Neutral values (safesearch off, sort by relevance) cost nothing when an engine ignores them, and a
        default country or language an engine cannot take is a preference, not a request."""
        if self.safesearch == "off":
            return [name for name in self.options_in_use() if name not in self.defaulted and name != "safesearch"]
        return [name for name in self.options_in_use() if name not in self.defaulted or name == "safesearch"]

    def cache_view(self) -> dict[str, Any]:
        """Everything that shapes the request, as plain data (no date, no key, no endpoint)."""
        return {"query": self.query, "count": self.count, "country": self.country,
                "search_lang": self.search_lang, "result_lang": self.result_lang,
                "date_range": self.date_range.label() if self.date_range else None,
                "safesearch": self.safesearch, "site_blacklist": list(self.site_blacklist),
                "include_sites": list(self.include_sites),
                "exact_terms": list(self.exact_terms), "exclude_terms": list(self.exclude_terms),
                "filter": self.dedupe_filter, "geolocation": self.geolocation, "sort": self.sort,
                "defaulted": sorted(self.defaulted)}  # they change the notes an answer carries


@dataclass(frozen=True)
class EngineSpec:
    """Declarative facts about one search service."""
    name: str
    label: str
    honours: dict[str, str]  # option name -> how the service receives it (shown in Docs/engines.md)
    auth: str  # how the key travels, e.g. "header X-Subscription-Token"
    needs_key: bool = True
    needs_url: bool = True
    page_size: int = 10  # most results one request returns
    max_results: int = 100  # most results the service gives for one query
    transport: str = "http"  # "http" (the runner sends build_request's requests) or "library"
    answer_format: str = "json"  # "json" or "xml" (Atom, E-utilities): what parse_response is given


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

    def to_result_dict(self) -> dict[str, Any]:
        """The result entry of web_search_results_dict."""
        return {"title": self.title, "url": self.url, "content": self.snippet,
                "metadata": {"date_published": self.date_published, "author": self.author,
                             "source": self.source, "language": self.language,
                             "relevance_score": self.score, "snippet": self.snippet,
                             **({"paper": dataclasses.asdict(self.paper)} if self.paper else {})}}


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


def unsupported_notes(spec: EngineSpec, opts: SearchOptions) -> list[str]:
    """One note naming the options in use that this engine cannot honour."""
    missing = [name for name in opts.options_to_note() if name not in spec.honours]
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
