"""One search on one engine: `search_engine(engine, options, settings) -> EngineAnswer`, and the engines'
health.

    search_engine(engine, options: SearchOptions, settings=None, *, use_cache=True, sleep=None, cancel=None)
        -> EngineAnswer
    search_with(engine, query, settings=None, *, use_cache=True, sleep=None, cancel=None, **values) -> EngineAnswer
        (values by option name, see Search/options.py; the options are built here, a bad one is the error)

[search] search_timeout_seconds bounds each request's whole exchange (wall clock); `cancel` (a
threading.Event) breaks the request under way off and sends no other: the answer's error is "cancelled".

EngineAnswer holds the engine, the options, `hits` (Hit each), `total` (the service's estimate, at least
len(hits)), `seconds`, `error` (None, or a message a person can act on), `notes` (None, or the options the
engine could not honour and other remarks), `cached` (the answer came from the search cache) and `cached_at`
(when it was stored, ISO 8601, or None), `error_kind` (the failure's SearchError.kind). Neither function raises. `answer.to_dict()` is the JSON of
`python app.py search --json` (web_search_results_dict): the engine, query and options as the caller gave them
(under their labels: content_country, result_count, exactTerms, …), `results` (each {title, url, content,
metadata: {date_published, author, source, language, relevance_score, snippet}}), `total_results_found`,
`search_time`, `error`, `processing_error`, `cached`, `cached_at`.

`engine` is a web or scholarly engine, or a local one (wikipedia: the local index; documents: the document
library), searched on this machine under the same deadline and cancel, never cached; a local answer's hits
carry the text found with them (`Hit.in_hand`). An option left None takes its default from [search] in
config.txt (country, languages, safesearch, blacklist, result count). `perform_websearch(...)` is the same
search under the design's name and argument list, answering the dict: the documented adapter kept for callers
of that name; Quarry itself (pipeline, CLI, UI) and its tests use the typed functions (Tests/test_engines_typed.py
checks the adapter). `engine_health_check(engine, settings)` makes one tiny real search for
`python app.py check`; `engine_health_snapshot(settings)` gives every engine's health record (kept in the
research database, shared by every Quarry process) to the UI and `check`.
"""
from __future__ import annotations

import dataclasses
import logging
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable

from App_Function_Libraries.config import EngineSettings, Settings, get_settings
from App_Function_Libraries.DB.redact import configured_secrets, content_secrets, scrub_message
from App_Function_Libraries.records import Paper
from App_Function_Libraries.Search.engines import (ALL_ENGINES, ENGINE_MODULES, connection_for, load_engine,
                                                       missing_setting_message)
from App_Function_Libraries.Search.engines.base import Hit, page_count_note, unsupported_notes
from App_Function_Libraries.Search.errors import (Cancelled, InvalidOption, NotConfigured, NotSetUp, SearchError,
                                                              Unreachable)
from App_Function_Libraries.Search.options import SearchOptions, parse_query
from App_Function_Libraries.Search.health import EngineHealth, health_board
from App_Function_Libraries.Search.runner import RunOutcome, RunPolicy, run_engine, run_local
from App_Function_Libraries.Search.cache import SearchCache, cache_key
from App_Function_Libraries.Search.urls import host_of, matches_site, result_key

log = logging.getLogger(__name__)
HEALTH_CHECK_QUERY = "open source"
HEALTH_CHECK_TIMEOUT = 10.0
#: the order web_search_results_dict echoes the options in (only an order: the names are SearchOptions');
#: output_lang is a retired option the JSON still carries (always null unless perform_websearch was given one)
ECHO_ORDER = ("country", "search_lang", "output_lang", "count", "date_range", "safesearch", "site_blacklist",
              "exact_terms", "exclude_terms", "dedupe_filter", "geolocation", "result_lang", "sort", "include_sites")
_CACHED_FIELDS = ("results", "total_results_found", "processing_error")


@dataclass
class EngineAnswer:
    """One engine's answer to one search. Never raised: a failure is `error`."""
    engine: str
    options: SearchOptions | None = None  # None when the options were refused (error says why)
    hits: list[Hit] = field(default_factory=list)
    total: int = 0
    seconds: float = 0.0
    error: str | None = None
    notes: str | None = None
    cached: bool = False
    cached_at: str | None = None
    #: the caller's values by option name, and "query", as given: what to_dict echoes
    asked: dict[str, Any] = field(default_factory=dict)
    #: the failure's kind (SearchError.kind: "unreachable", "not_configured", ...), None without an error
    error_kind: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """web_search_results_dict: the JSON of `python app.py search --json`."""
        answer = {"search_engine": self.engine, "search_query": self.asked.get("query")}
        answer.update({_echo_label(name): self.asked.get(name) for name in ECHO_ORDER})
        answer.update(results=[hit.to_result_dict() for hit in self.hits], total_results_found=self.total,
                      search_time=self.seconds, error=self.error, processing_error=self.notes,
                      cached=self.cached, cached_at=self.cached_at)
        return answer

    @classmethod
    def from_dict(cls, data: dict[str, Any], engine: str = "", query: str = "") -> "EngineAnswer":
        """An answer from web_search_results_dict (or the part of it a test or a cache row gives)."""
        asked = {name: data[_echo_label(name)] for name in ECHO_ORDER if _echo_label(name) in data}
        return cls(data.get("search_engine") or engine, None,
                   [Hit.from_result_dict(r) for r in data.get("results") or []],
                   data.get("total_results_found") or 0, data.get("search_time") or 0.0, data.get("error"),
                   data.get("processing_error"), bool(data.get("cached")), data.get("cached_at"),
                   {"query": data.get("search_query") or query, **asked})


def _echo_label(name: str) -> str:
    return "output_lang" if name == "output_lang" else SearchOptions.label(name)


def search_engine(engine: str, options: SearchOptions, settings: Settings | None = None, *,
                  use_cache: bool = True, sleep: Callable[[float], None] | None = None,
                  cancel: threading.Event | None = None) -> EngineAnswer:
    """Search one engine with validated options. `sleep` replaces time.sleep between retries (tests);
    use_cache=False neither reads nor writes the search cache."""
    answer = EngineAnswer(engine, options, asked=_asked(options))
    return _answered(answer, settings, lambda s: _search_into(answer, s, use_cache, sleep, cancel))


def search_with(engine: str, query: str, settings: Settings | None = None, *, use_cache: bool = True,
                sleep: Callable[[float], None] | None = None, cancel: threading.Event | None = None,
                **values: Any) -> EngineAnswer:
    """Search one engine, the options built from `values` (by option name; None: the [search] default). A
    value that cannot be used is the answer's error; an unknown option name is a TypeError."""
    SearchOptions.check_names(values)
    answer = EngineAnswer(engine, asked={"query": query, **values})

    def work(settings: Settings) -> None:
        _known_engine(engine)
        answer.options = SearchOptions.build(query, settings, **values)
        _search_into(answer, settings, use_cache, sleep, cancel)
    return _answered(answer, settings, work)


def perform_websearch(search_engine, search_query, content_country, search_lang, output_lang, result_count,
                      date_range=None, safesearch=None, site_blacklist=None, exactTerms=None, excludeTerms=None,
                      filter=None, geolocation=None, search_result_language=None, sort_results_by=None,  # noqa: A002
                      include_sites=None, *, settings: Settings | None = None, use_cache: bool = True,
                      sleep: Callable[[float], None] | None = None) -> dict[str, Any]:
    """The design's entry point, kept as a thin adapter: search_with() under the option labels as argument
    names, answering web_search_results_dict (EngineAnswer.to_dict). output_lang is only echoed. Quarry's own
    callers use search_engine / search_with / search_many."""
    given = locals()
    values = {name: given[SearchOptions.label(name)] for name in SearchOptions.names()}
    answer = search_with(search_engine, search_query, settings, use_cache=use_cache, sleep=sleep, **values)
    answer.asked["output_lang"] = output_lang
    return answer.to_dict()


def _asked(options: SearchOptions) -> dict[str, Any]:
    """What a caller with typed options asked for, as plain values (defaults left out, as None)."""
    def plain(value: Any) -> Any:
        if isinstance(value, tuple):
            return list(value) or None
        return value.label() if hasattr(value, "label") else value
    return {"query": options.query, **{name: plain(getattr(options, name)) for name in SearchOptions.names()
                                       if name not in options.defaulted}}


def _answered(answer: EngineAnswer, settings: Settings | None,
              work: Callable[[Settings], None]) -> EngineAnswer:
    """Run `work` (which fills the answer); a failure becomes the answer's error, every key is redacted."""
    started = time.monotonic()
    secrets: list[str] = []
    try:
        settings = settings or get_settings()
        secrets = _secrets(settings)
        work(settings)
    except SearchError as exc:
        answer.error, answer.error_kind = str(exc), exc.kind
    except Exception as exc:  # noqa: BLE001 - a search never raises to its caller
        log.exception("search on %s failed unexpectedly", answer.engine)
        answer.error = f"{answer.engine}: unexpected failure ({type(exc).__name__}: {exc})"
        answer.error_kind = "error"
    answer.seconds = round(time.monotonic() - started, 3)
    return redact_answer(answer, secrets)


def _known_engine(engine: str) -> None:
    if engine not in ALL_ENGINES:
        raise InvalidOption(f"unknown search engine {engine!r}; engines are {', '.join(ALL_ENGINES)}")


def _search_into(answer: EngineAnswer, settings: Settings, use_cache: bool,
                 sleep: Callable[[float], None] | None, cancel: threading.Event | None = None) -> None:
    engine, opts = answer.engine, answer.options
    _known_engine(engine)
    parse_query(opts.query)  # typed options built without a query (a template) are refused here
    missing = missing_setting_message(engine, settings)
    if missing:
        raise NotConfigured(missing)
    module, conn = load_engine(engine), connection_for(engine, settings)
    if module.SPEC.transport == "local":  # on this machine: no cache, no health record
        _fill(answer, module, opts, run_local(module, opts, settings, policy_for(settings, sleep, cancel=cancel)))
        return
    cache = _cache_for(settings) if use_cache else None
    key = cache_key(engine, conn.url, opts.cache_view(), conn.extras)
    if cache and _answer_from_cache(answer, cache, key, settings.search.search_cache_ttl_seconds):
        return
    try:
        outcome = _live_search(engine, module, opts, conn, settings, sleep, policy_for(settings, sleep, cancel=cancel))
    except SearchError as exc:
        if cache and not isinstance(exc, (InvalidOption, NotConfigured, NotSetUp, Cancelled)) \
                and _answer_from_cache(answer, cache, key, None, because=str(exc)):
            return
        raise
    _fill(answer, module, opts, outcome)
    if cache and answer.error is None:
        _store(cache, key, engine, opts, redact_answer(answer, _secrets(settings)))


def _live_search(engine: str, module, opts: SearchOptions, conn, settings: Settings,
                 sleep: Callable[[float], None] | None, policy: RunPolicy | None = None) -> RunOutcome:
    """run_engine, unless the engine is suspended; the outcome goes into the shared health record."""
    board = health_board(settings)
    suspended = board.suspension_message(engine)
    if suspended:
        raise Unreachable(suspended)
    try:
        outcome = run_engine(module, opts, conn, policy or policy_for(settings, sleep))
    except Cancelled:
        raise  # the caller's doing: no failure of the engine's
    except SearchError as exc:
        refine = getattr(module, "refine_error", None)
        error = refine(exc, conn) if refine else exc
        board.record_failure(engine, error, settings.search.search_suspend_after_failures,
                             message=redact(str(error), _secrets(settings)))
        if error is exc:
            raise
        raise error from None
    board.record_success(engine)
    return outcome


def policy_for(settings: Settings, sleep: Callable[[float], None] | None = None, **overrides) -> RunPolicy:
    timeout = settings.search.search_timeout_seconds
    policy = RunPolicy(timeout=timeout, connect_timeout=min(timeout, settings.fetch.connect_timeout_seconds),
                       max_retries=settings.search.search_max_retries, user_agent=settings.fetch.user_agent)
    if sleep is not None:
        policy.sleep = sleep
    return dataclasses.replace(policy, **overrides)


def _fill(answer: EngineAnswer, module, opts: SearchOptions, outcome: RunOutcome) -> None:
    hits = finish_hits(outcome.hits, opts, "include_sites" in module.SPEC.honours)
    notes = unsupported_notes(module.SPEC, opts) + page_count_note(module.SPEC, opts) + outcome.notes
    if outcome.unresponsive:
        if not hits:
            raise SearchError(module.empty_answer_message(outcome.unresponsive))
        notes.append(f"{module.SPEC.name}: upstream engines that did not answer: {', '.join(outcome.unresponsive)}")
    answer.hits = hits
    answer.total = max(outcome.total or 0, len(hits))
    answer.notes = "; ".join(dict.fromkeys(notes)) or None


def finish_hits(hits: list[Hit], opts: SearchOptions, keep_to_sites: bool = False) -> list[Hit]:
    """Results with a URL, not on a blacklisted site (and, with keep_to_sites, on one of opts.include_sites),
    each page once, at most opts.count."""
    kept, seen = [], set()
    for hit in hits:
        key = result_key(hit.url)
        if not key or key in seen or any(matches_site(hit.url, site) for site in opts.site_blacklist):
            continue
        if keep_to_sites and opts.include_sites and not any(matches_site(hit.url, s) for s in opts.include_sites):
            continue
        seen.add(key)
        hit.title = hit.title or host_of(hit.url)
        hit.source = hit.source or host_of(hit.url)
        kept.append(hit)
    return kept[: opts.count]


# ---------------------------------------------------------------- cache

def _cache_for(settings: Settings) -> SearchCache | None:
    if settings.search.search_cache_ttl_seconds <= 0:
        return None
    return SearchCache(settings.resolve_path(settings.databases.research_db))


def _answer_from_cache(answer: EngineAnswer, cache: SearchCache, key: str, ttl: int | None,
                       because: str = "") -> bool:
    """Fill answer from the cache when an entry is fresh (ttl given) or exists at all (ttl None: the live
    search failed for `because`)."""
    try:
        hit = cache.get(key)
    except Exception as exc:  # noqa: BLE001 - a broken cache must not break searching
        log.warning("search cache unreadable: %s", exc)
        return False
    if hit is None or (ttl is not None and hit.age_seconds > ttl):
        return False
    stored_at = datetime.fromtimestamp(hit.created_at, timezone.utc).replace(microsecond=0).isoformat()
    stored = hit.answer
    answer.hits = [Hit.from_result_dict(result) for result in stored.get("results") or []]
    answer.total, answer.notes = stored.get("total_results_found") or 0, stored.get("processing_error")
    answer.cached, answer.cached_at = True, stored_at
    if because:
        note = f"{answer.engine} failed ({because}); these results come from the cache of {stored_at}"
        answer.notes = "; ".join(filter(None, [answer.notes, note]))
    return True


def _store(cache: SearchCache, key: str, engine: str, opts: SearchOptions, answer: EngineAnswer) -> None:
    """The answer's part that the cache keeps, in web_search_results_dict's form (old rows still read)."""
    stored = {k: v for k, v in answer.to_dict().items() if k in _CACHED_FIELDS}
    try:
        cache.put(key, engine, opts.query, opts.cache_view(), stored)
    except Exception as exc:  # noqa: BLE001
        log.warning("search cache not written: %s", exc)


# ---------------------------------------------------------------- keys and health

def _secrets(settings: Settings) -> list[str]:
    """Every key to keep out of answers, messages and the cache: the engines' (even short ones) and every
    other configured key (LLM roles, QUARRY_*_KEY variables)."""
    keys = {settings.engines.key(e) for e in ENGINE_MODULES if len(settings.engines.key(e) or "") >= 4}
    return sorted(keys | configured_secrets(settings), key=len, reverse=True)


def redact(text: str, secrets: list[str]) -> str:
    """A message with every key replaced by ***, and key-like URL parameters and bearer tokens removed."""
    return scrub_message(_without_secrets(text, secrets), ())


def redact_answer(answer: EngineAnswer, secrets: list[str]) -> EngineAnswer:
    """The answer, in place, with no key left in its messages or credential in its hits (also what the
    cache stores). Hits lose only credential-looking values: a placeholder key such as `ollama` is no
    secret, and replacing it would break every result URL that names the product."""
    answer.error = answer.error and redact(answer.error, secrets)
    answer.notes = answer.notes and redact(answer.notes, secrets)
    in_content = content_secrets(secrets)
    if in_content:
        answer.hits = [_hit_without_secrets(hit, in_content) for hit in answer.hits]
    return answer


def _hit_without_secrets(hit: Hit, secrets: list[str]) -> Hit:
    values = _without_secrets(dataclasses.asdict(hit), secrets)
    return Hit(**{**values, "paper": Paper.from_dict(values["paper"])})


def _without_secrets(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, str):
        for secret in secrets:
            value = value.replace(secret, "***")
        return value
    if isinstance(value, dict):
        return {k: _without_secrets(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_secrets(v, secrets) for v in value]
    return value


def engine_health_snapshot(settings: Settings | None = None) -> dict[str, EngineHealth]:
    """Every engine's health record, as every Quarry process using this research database sees it (engines
    never searched are absent)."""
    return health_board(settings or get_settings()).snapshot()


def lift_engine_suspensions(settings: Settings | None = None) -> None:
    """Forget every engine's health record: the next search to each is tried again."""
    health_board(settings or get_settings()).reset()


def engine_health_check(engine: str, settings: Settings) -> tuple[bool | None, str]:
    """(ok, message) from one tiny real search with the [search] defaults, recorded in the engine's health
    like any search. ok None: not configured. Never raises, never shows a key."""
    try:
        return _health_check(engine, settings)
    except Exception as exc:  # noqa: BLE001
        return False, redact(f"check failed: {type(exc).__name__}: {exc}", _secrets(settings))


def _health_check(engine: str, settings: Settings) -> tuple[bool | None, str]:
    if engine not in ENGINE_MODULES:
        return False, f"unknown engine {engine!r}"
    missing = missing_setting_message(engine, settings)
    if missing:
        return None, missing
    board = health_board(settings)
    suspended = board.suspension_message(engine)
    if suspended:
        return False, suspended
    module, conn = load_engine(engine), connection_for(engine, settings)
    opts = SearchOptions.build(HEALTH_CHECK_QUERY, settings, count=1)
    policy = policy_for(settings, max_retries=0,
                        timeout=min(settings.search.search_timeout_seconds, HEALTH_CHECK_TIMEOUT))
    before = board.describe(engine)
    started = time.monotonic()
    try:
        outcome = _live_search(engine, module, opts, conn, settings, None, policy)
    except SearchError as exc:
        if engine == "searxng" and isinstance(exc, Unreachable) and conn.url == _default_url("searxng"):
            return None, (f"no SearXNG instance answers at {conn.url} (the default address); start one or set "
                          "searxng_api_url")
        return False, redact(str(exc), _secrets(settings))
    where = f" at {conn.url}" if conn.url else ""
    earlier = f" (before this check: {before})" if "failure" in before else ""
    return True, (f"{module.SPEC.label} answers{where}: {len(finish_hits(outcome.hits, opts))} result(s) for "
                  f"{opts.count} asked in {time.monotonic() - started:.1f} s; health: {board.describe(engine)}"
                  f"{earlier}")


def _default_url(engine: str) -> str:
    return next(f.default for f in dataclasses.fields(EngineSettings) if f.name == f"{engine}_api_url")
