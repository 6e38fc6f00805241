"""Web search: one or more engines, results merged by reciprocal rank fusion (Search/many.py)."""
from __future__ import annotations

from App_Function_Libraries.quarry._common import count_argument, name_list, settings_or_current, text_argument
from App_Function_Libraries.quarry.errors import BadArgument

SAFESEARCH = ("off", "moderate", "strict")
SORTS = ("relevance", "date")


def search(query: str, engines=None, *, count: int | None = None, country: str | None = None,
           lang: str | None = None, result_lang: str | None = None, date_range: str | None = None,
           safesearch: str | None = None, exclude_sites=None, exact=None, exclude=None, sort: str | None = None,
           use_cache: bool = True, settings=None):
    """Search the web; a MultiSearch (results merged across engines, each engine's error by name).
    `engines`: a list or comma-separated names (default: [search] search_provider_default)."""
    from App_Function_Libraries.config import ENGINES
    from App_Function_Libraries.Search.many import search_many
    settings = settings_or_current(settings)
    query = text_argument("query", query)
    chosen = name_list(engines) or name_list(settings.search.search_provider_default)
    unknown = [e for e in chosen if e not in ENGINES]
    if unknown:
        raise BadArgument("engines", f"has unknown engine {', '.join(unknown)}; engines are {', '.join(ENGINES)}")
    count_argument("count", count, 1, 100)
    for name, value, allowed in (("safesearch", safesearch, SAFESEARCH), ("sort", sort, SORTS)):
        if value is not None and value not in allowed:
            raise BadArgument(name, f"must be one of {', '.join(allowed)}")
    options = dict(date_range=date_range, safesearch=safesearch, site_blacklist=exclude_sites or None,
                   exactTerms=exact or None, excludeTerms=exclude or None, search_result_language=result_lang,
                   sort_results_by=sort)
    return search_many(chosen, query, country, lang, None, count, settings=settings, use_cache=use_cache,
                       **options)
