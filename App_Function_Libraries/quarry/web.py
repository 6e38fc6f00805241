"""Web search: one or more engines, results merged by reciprocal rank fusion (Search/many.py), or one engine's
own answer. The options are those of App_Function_Libraries/options.py (group search), by name or old name."""
from __future__ import annotations

from App_Function_Libraries.options import SEARCH, canonical, names_list
from App_Function_Libraries.quarry._common import settings_or_current, text_argument
from App_Function_Libraries.quarry.errors import BadArgument


def search(query: str, engines=None, *, use_cache: bool = True, settings=None, cancel=None, **options):
    """Search the web; a MultiSearch (results merged across engines, each engine's error by name). Each request
    ends within [search] search_timeout_seconds; `cancel` (a threading.Event) set breaks the search off.
    `engines`: a list or comma-separated names (default: [search] search_provider_default). `options` by their
    names (count, country, search_lang, result_lang, date_range, safesearch, site_blacklist, exact_terms,
    exclude_terms, sort, ...) or old names; one left None takes its [search] default. A value no engine can
    use: BadArgument("options", the search's message)."""
    from App_Function_Libraries.Search.errors import InvalidOption
    from App_Function_Libraries.Search.many import search_many
    from App_Function_Libraries.Search.options import SearchOptions
    settings = settings_or_current(settings)
    query = text_argument("query", query)
    chosen = _engines(engines, settings)
    try:
        built = SearchOptions.build(None, settings, **canonical(options, SEARCH))
    except InvalidOption as exc:
        raise BadArgument("options", str(exc)) from exc
    return search_many(chosen, query, built, settings=settings, use_cache=use_cache, cancel=cancel)


def search_engine(engine: str, query: str, *, use_cache: bool = True, settings=None, **options):
    """One engine's own answer (an EngineAnswer: its hits, or its error, an unknown engine's too, and what it
    was asked)."""
    from App_Function_Libraries.Search.engine import search_with
    return search_with(str(engine).strip().lower(), text_argument("query", query), settings_or_current(settings),
                       use_cache=use_cache, **canonical(options, SEARCH))


def refused(engines, query: str, message: str):
    """The MultiSearch of a search whose options no engine could use: every engine refused it alike."""
    from App_Function_Libraries.Search.many import MultiSearch
    return MultiSearch.refused(names_list(engines), [query], message)


def engine_uses_address(engine: str) -> bool:
    """Whether the engine is reached at a configured URL with a key (False for DuckDuckGo through ddgs; True
    for an engine that cannot be loaded, so its settings stay editable)."""
    try:
        from App_Function_Libraries.Search.engines import load_engine
        spec = load_engine(engine).SPEC
    except (KeyError, ImportError):
        return True
    return bool(spec.needs_url or spec.needs_key or spec.auth != "none")


def _engines(engines, settings) -> list[str]:
    from App_Function_Libraries.config import ENGINES, LOCAL_SOURCES
    known = ENGINES + LOCAL_SOURCES  # the local engines answer a search too (Search/engines/wikipedia.py, ...)
    chosen = [e.lower() for e in names_list(engines or [], "engines")] or \
        [e for e in names_list(settings.search.search_provider_default) if e in known]
    unknown = [e for e in chosen if e not in known]
    if unknown:
        raise BadArgument("engines", f"has unknown engine {', '.join(unknown)}; engines are {', '.join(known)}")
    return chosen
