"""Web search: one or more engines, results merged by reciprocal rank fusion (Search/many.py)."""
from __future__ import annotations

from App_Function_Libraries.quarry._common import count_argument, name_list, settings_or_current, text_argument
from App_Function_Libraries.quarry.errors import BadArgument

SAFESEARCH = ("off", "moderate", "strict")
SORTS = ("relevance", "date")


def search(query: str, engines=None, *, use_cache: bool = True, settings=None, cancel=None, **options):
    """Search the web; a MultiSearch (results merged across engines, each engine's error by name). Each request
    ends within [search] search_timeout_seconds; `cancel` (a threading.Event) set breaks the search off.
    `engines`: a list or comma-separated names (default: [search] search_provider_default). `options` by their
    SearchOptions names (count, country, search_lang, result_lang, date_range, safesearch, site_blacklist,
    exact_terms, exclude_terms, sort, ...); one left None takes its [search] default."""
    from App_Function_Libraries.config import ENGINES
    from App_Function_Libraries.Search.errors import InvalidOption
    from App_Function_Libraries.Search.many import search_many
    from App_Function_Libraries.Search.options import SearchOptions
    settings = settings_or_current(settings)
    query = text_argument("query", query)
    chosen = name_list(engines) or [e for e in name_list(settings.search.search_provider_default) if e in ENGINES]
    unknown = [e for e in chosen if e not in ENGINES]
    if unknown:
        raise BadArgument("engines", f"has unknown engine {', '.join(unknown)}; engines are {', '.join(ENGINES)}")
    count_argument("count", options.get("count"), 1, 100)
    for name, allowed in (("safesearch", SAFESEARCH), ("sort", SORTS)):
        if options.get(name) is not None and options[name] not in allowed:
            raise BadArgument(name, f"must be one of {', '.join(allowed)}")
    try:
        SearchOptions.check_names(options)
        built = SearchOptions.build(None, settings, **{k: v or None for k, v in options.items()})
    except TypeError as exc:
        raise BadArgument("options", str(exc)) from exc
    except InvalidOption as exc:
        raise BadArgument("options", str(exc)) from exc
    return search_many(chosen, query, built, settings=settings, use_cache=use_cache, cancel=cancel)
