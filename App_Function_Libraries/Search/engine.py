"""perform_websearch: the one entry point ("sink") for a search on any engine, and the engines' health.

    perform_websearch(search_engine, search_query, content_country, search_lang, output_lang, result_count,
                      date_range=None, safesearch=None, site_blacklist=None, exactTerms=None,
                      excludeTerms=None, filter=None, geolocation=None, search_result_language=None,
                      sort_results_by=None) -> web_search_results_dict

The dict echoes the engine, query and options, and holds `results` (each {title, url, content,
metadata: {date_published, author, source, language, relevance_score, snippet}}), `total_results_found`,
`search_time` (seconds), `error` (None, or a message a person can act on) and `processing_error` (None, or
the options the engine could not honour and other remarks), plus `cached` (the answer came from the search
cache) and `cached_at` (when it was stored, ISO 8601, or None). It never raises.

An option left None takes its default from [search] in config.txt (country, languages, safesearch,
blacklist, result count). `engine_health_check(engine, settings)` makes one tiny real search for
`python app.py check`; `engine_health_snapshot(settings)` gives every engine's health record (kept in the
research database, shared by every Quarry process) to the UI and `check`.
"""
from __future__ import annotations

import dataclasses
import logging
import time
from datetime import datetime, timezone
from typing import Any, Callable

from App_Function_Libraries.config import EngineSettings, Settings, get_settings
from App_Function_Libraries.DB.redact import configured_secrets, content_secrets, scrub_message
from App_Function_Libraries.Search.engines import (ENGINE_MODULES, connection_for, load_engine,
                                                       missing_setting_message)
from App_Function_Libraries.Search.engines.base import (Hit, SearchOptions, page_count_note,
                                                            unsupported_notes)
from App_Function_Libraries.Search.errors import (InvalidOption, NotConfigured, SearchError,
                                                              Unreachable)
from App_Function_Libraries.Search.options import build_options
from App_Function_Libraries.Search.health import EngineHealth, health_board
from App_Function_Libraries.Search.runner import RunOutcome, RunPolicy, run_engine
from App_Function_Libraries.Search.cache import SearchCache, cache_key
from App_Function_Libraries.Search.urls import host_of, matches_site, normalize_url

log = logging.getLogger(__name__)
HEALTH_CHECK_QUERY = "open source"
HEALTH_CHECK_TIMEOUT = 10.0


def perform_websearch(search_engine, search_query, content_country, search_lang, output_lang, result_count,
                      date_range=None, safesearch=None, site_blacklist=None, exactTerms=None, excludeTerms=None,
                      filter=None, geolocation=None, search_result_language=None, sort_results_by=None,  # noqa: A002
                      include_sites=None, *, settings: Settings | None = None, use_cache: bool = True,
                      sleep: Callable[[float], None] | None = None) -> dict[str, Any]:
    """Search one engine; see the module docstring for the answer. `sleep` replaces time.sleep between
    retries (tests); use_cache=False neither reads nor writes the search cache."""
    started = time.monotonic()
    answer = _empty_answer(locals())
    secrets: list[str] = []
    try:
        settings = settings or get_settings()
        secrets = _secrets(settings)
        _search_into(answer, settings, use_cache, sleep)
    except SearchError as exc:
        answer["error"] = str(exc)
    except Exception as exc:  # noqa: BLE001 - the sink never raises to its caller
        log.exception("search on %s failed unexpectedly", search_engine)
        answer["error"] = f"{search_engine}: unexpected failure ({type(exc).__name__}: {exc})"
    answer["search_time"] = round(time.monotonic() - started, 3)
    redact_answer(answer, secrets)
    return answer


ECHOED = ("search_engine", "search_query", "content_country", "search_lang", "output_lang", "result_count",
          "date_range", "safesearch", "site_blacklist", "exactTerms", "excludeTerms", "filter", "geolocation",
          "search_result_language", "sort_results_by", "include_sites")


def _empty_answer(args: dict[str, Any]) -> dict[str, Any]:
    answer = {name: args.get(name) for name in ECHOED}
    answer.update(results=[], total_results_found=0, search_time=0.0, error=None, processing_error=None,
                  cached=False, cached_at=None)
    return answer


def options_from_answer(answer: dict[str, Any], settings: Settings) -> SearchOptions:
    """The validated options of a search, config defaults filling what the caller left None."""
    s = settings.search
    defaults = {"result_count": s.search_result_max_per_query, "content_country": s.search_content_country,
                "search_lang": s.search_language_query, "search_result_language": s.search_language_results,
                "safesearch": s.search_safesearch, "site_blacklist": s.search_result_blacklist,
                "include_sites": s.search_include_sites}
    given = {name: answer[name] if answer[name] is not None else default for name, default in defaults.items()}
    return build_options(
        answer["search_query"], count=given["result_count"], country=given["content_country"],
        search_lang=given["search_lang"], result_lang=given["search_result_language"],
        date_range=answer["date_range"], safesearch=given["safesearch"], site_blacklist=given["site_blacklist"],
        exact_terms=answer["exactTerms"], exclude_terms=answer["excludeTerms"], dedupe_filter=answer["filter"],
        geolocation=answer["geolocation"], sort=answer["sort_results_by"], include_sites=given["include_sites"],
        defaulted=frozenset(name for name in defaults if answer[name] is None))


def _search_into(answer: dict[str, Any], settings: Settings, use_cache: bool,
                 sleep: Callable[[float], None] | None) -> None:
    engine = answer["search_engine"]
    if engine not in ENGINE_MODULES:
        raise InvalidOption(f"unknown search engine {engine!r}; engines are {', '.join(ENGINE_MODULES)}")
    opts = options_from_answer(answer, settings)
    missing = missing_setting_message(engine, settings)
    if missing:
        raise NotConfigured(missing)
    module, conn = load_engine(engine), connection_for(engine, settings)
    cache = _cache_for(settings) if use_cache else None
    key = cache_key(engine, conn.url, opts.cache_view(), conn.extras)
    if cache and _answer_from_cache(answer, cache, key, settings.search.search_cache_ttl_seconds):
        return
    try:
        outcome = _live_search(engine, module, opts, conn, settings, sleep)
    except SearchError as exc:
        if cache and not isinstance(exc, (InvalidOption, NotConfigured)) \
                and _answer_from_cache(answer, cache, key, None, because=str(exc)):
            return
        raise
    _fill(answer, module, opts, outcome)
    if cache and answer["error"] is None:
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


def _fill(answer: dict[str, Any], module, opts: SearchOptions, outcome: RunOutcome) -> None:
    hits = finish_hits(outcome.hits, opts, "include_sites" in module.SPEC.honours)
    notes = unsupported_notes(module.SPEC, opts) + page_count_note(module.SPEC, opts) + outcome.notes
    if outcome.unresponsive:
        if not hits:
            raise SearchError(module.empty_answer_message(outcome.unresponsive))
        notes.append(f"{module.SPEC.name}: upstream engines that did not answer: {', '.join(outcome.unresponsive)}")
    answer["results"] = [hit.to_result_dict() for hit in hits]
    answer["total_results_found"] = max(outcome.total or 0, len(hits))
    answer["processing_error"] = "; ".join(dict.fromkeys(notes)) or None


def finish_hits(hits: list[Hit], opts: SearchOptions, keep_to_sites: bool = False) -> list[Hit]:
    """Results with a URL, not on a blacklisted site (and, with keep_to_sites, on one of opts.include_sites),
    each page once, at most opts.count."""
    kept, seen = [], set()
    for hit in hits:
        key = normalize_url(hit.url)
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


def _answer_from_cache(answer: dict[str, Any], cache: SearchCache, key: str, ttl: int | None,
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
    for field in ("results", "total_results_found", "processing_error"):
        answer[field] = hit.answer.get(field, answer[field])
    answer.update(cached=True, cached_at=stored_at)
    if because:
        note = f"{answer['search_engine']} failed ({because}); these results come from the cache of {stored_at}"
        answer["processing_error"] = "; ".join(filter(None, [answer["processing_error"], note]))
    return True


def _store(cache: SearchCache, key: str, engine: str, opts: SearchOptions, answer: dict[str, Any]) -> None:
    stored = {k: answer[k] for k in ("results", "total_results_found", "processing_error")}
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


def redact_answer(answer: dict[str, Any], secrets: list[str]) -> dict[str, Any]:
    """The answer, in place, with no key left in its messages or credential in its results (also what the
    cache stores). Results lose only credential-looking values: a placeholder key such as `ollama` is no
    secret, and replacing it would break every result URL that names the product."""
    for key in ("error", "processing_error"):
        if answer[key]:
            answer[key] = redact(answer[key], secrets)
    answer["results"] = _without_secrets(answer["results"], content_secrets(secrets))
    return answer


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
    opts = options_from_answer(_empty_answer({"search_query": HEALTH_CHECK_QUERY, "result_count": 1}), settings)
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
