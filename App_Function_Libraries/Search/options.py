"""Search options: `SearchOptions` (one search's options, validated) and the parsers that build it
(InvalidOption on a bad value).

Each option is declared once in App_Function_Libraries/options.py (group search): its one name is the
SearchOptions field's, in code, the CLI, the UI, the MCP/HTTP arguments and ResearchParams, and the table's
`setting` is the [search] key that gives its default. Its `label` (field metadata) is the name in
`app.py search --json`, cache keys and the notes and errors a person reads (kept: stored cache rows carry it).
A list of option names is `SearchOptions.names()`, never written out by hand; each field carries its parser.

Accepted forms:
  date_range       day|week|month|year (also d/w/m/y, past_day, last_week, …) or explicit
                   'YYYY-MM-DD..YYYY-MM-DD' (either side may be empty), a (start, end) pair or
                   {"start": …, "end": …}
  safesearch       off|moderate|strict (also on/active → strict, medium → moderate, 0/1/2, true/false)
  site_blacklist   a list or a comma/space separated string of domains (scheme and path are dropped)
  include_sites    the same: the sites results are kept to
  exact_terms      a phrase or a list of phrases;  exclude_terms: a list or a space/comma separated string
  dedupe_filter    Google's duplicate-content filter: 0/1, true/false
  sort             relevance|date
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any, Callable

from App_Function_Libraries import codes
from App_Function_Libraries import options as table
from App_Function_Libraries.options import DATE_PRESETS, SAFESEARCH_LEVELS, SORT_ORDERS
from App_Function_Libraries.Search.errors import InvalidOption

MAX_RESULT_COUNT = 100
MAX_QUERY_CHARS = 2000
PRESET_DAYS = {"day": 1, "week": 7, "month": 31, "year": 365}
_PRESET_ALIASES = {"d": "day", "w": "week", "m": "month", "y": "year", "24h": "day", "today": "day",
                   "past_day": "day", "past_week": "week", "past_month": "month", "past_year": "year",
                   "last_day": "day", "last_week": "week", "last_month": "month", "last_year": "year",
                   "pd": "day", "pw": "week", "pm": "month", "py": "year"}
_SAFE_ALIASES = {"on": "strict", "active": "strict", "high": "strict", "2": "strict", "true": "strict",
                 "medium": "moderate", "1": "moderate", "0": "off", "false": "off", "none": "off"}


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


def option(default: Any, *, label: str, parse: Callable[[Any], Any]) -> Any:
    """A search option (declared in options.py under the field's name); `label` its name in `app.py search
    --json`, cache keys, notes and errors (kept so none of them change); `parse` makes its value from a raw one
    (InvalidOption when it cannot)."""
    return field(default=default, metadata={"label": label, "parse": parse})


@dataclass(frozen=True)
class SearchOptions:
    """One search's options, validated and normalized (build it with SearchOptions.build). Field order is the
    order notes name them in.

    country: ISO 3166 alpha-2 upper case; languages: ISO 639-1 lower case; today: the date presets and
    relative dates count from (kept here so builders and parsers stay pure)."""
    query: str = ""
    country: str | None = option(None, label="content_country", parse=lambda v: parse_country(v, "content_country"))
    search_lang: str | None = option(None, label="search_lang", parse=lambda v: parse_language(v, "search_lang"))
    result_lang: str | None = option(None, label="search_result_language",
                                     parse=lambda v: parse_language(v, "search_result_language"))
    date_range: DateRange | None = option(None, label="date_range", parse=lambda v: parse_date_range(v))
    safesearch: str | None = option(None, label="safesearch", parse=lambda v: parse_safesearch(v))
    site_blacklist: tuple[str, ...] = option((), label="site_blacklist", parse=lambda v: parse_sites(v))
    include_sites: tuple[str, ...] = option((), label="include_sites",
                                            parse=lambda v: parse_sites(v, "include_sites"))
    exact_terms: tuple[str, ...] = option((), label="exactTerms", parse=lambda v: parse_terms(v, phrases=True))
    exclude_terms: tuple[str, ...] = option((), label="excludeTerms", parse=lambda v: parse_terms(v, phrases=False))
    # Google's duplicate-content filter
    dedupe_filter: bool | None = option(None, label="filter", parse=lambda v: parse_flag(v))
    geolocation: str | None = option(None, label="geolocation", parse=lambda v: parse_country(v, "geolocation"))
    sort: str | None = option(None, label="sort_results_by", parse=lambda v: parse_sort(v))
    count: int = option(10, label="result_count", parse=lambda v: parse_count(v))
    today: date = field(default_factory=date.today, compare=False)
    #: option names whose value is a [search] default, not the caller's choice
    defaulted: frozenset[str] = frozenset()

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """Every option's name, in field order (query, today and defaulted are no options)."""
        return tuple(f.name for f in dataclasses.fields(cls) if "label" in f.metadata)

    @classmethod
    def label(cls, name: str) -> str:
        """The option's name in JSON, cache keys and messages: "exact_terms" -> "exactTerms"."""
        return _FIELDS[name].metadata["label"]

    @classmethod
    def setting(cls, name: str) -> str | None:
        """The [search] key that gives the option's default (options.py), or None."""
        key = table.OPTIONS[name].setting_key()
        return key[1] if key else None

    @classmethod
    def check_names(cls, values: dict[str, Any]) -> None:
        """TypeError (a programming error, not the user's) when a value is given under no option's name."""
        unknown = set(values) - set(cls.names())
        if unknown:
            raise TypeError(f"unknown search options: {', '.join(sorted(unknown))}")

    @classmethod
    def build(cls, query: Any, settings: Any, *, today: date | None = None, **values: Any) -> "SearchOptions":
        """Options from values by option name; a value left None takes its [search] default from `settings`
        (config.Settings). Unknown name: TypeError; bad value: InvalidOption. query None gives a template for
        several queries (for_query fills it in)."""
        cls.check_names(values)
        given, defaulted = {}, set()
        for name in cls.names():
            value, setting = values.get(name), cls.setting(name)
            if value is None and setting:
                value = getattr(settings.search, setting)
                defaulted.add(name)
            given[name] = value
        return build_options(query, today=today, defaulted=frozenset(defaulted), **given)

    def for_query(self, query: str) -> "SearchOptions":
        """These options for one query (InvalidOption when it is empty or too long)."""
        return dataclasses.replace(self, query=parse_query(query))

    def options_in_use(self) -> list[str]:
        """The names of the options that carry a value for this search (count is always set: not among them;
        sort by relevance is what every engine does anyway)."""
        return [name for name in self.names() if name != "count" and getattr(self, name) not in (None, (), "")
                and not (name == "sort" and self.sort == "relevance")]

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
        """Everything that shapes the request, as plain data (no date, no key, no endpoint). Its keys and the
        labels in `defaulted` are those of the cache rows already stored: do not rename them."""
        return {"query": self.query, "count": self.count, "country": self.country,
                "search_lang": self.search_lang, "result_lang": self.result_lang,
                "date_range": self.date_range.label() if self.date_range else None,
                "safesearch": self.safesearch, "site_blacklist": list(self.site_blacklist),
                "include_sites": list(self.include_sites),
                "exact_terms": list(self.exact_terms), "exclude_terms": list(self.exclude_terms),
                "filter": self.dedupe_filter, "geolocation": self.geolocation, "sort": self.sort,
                "defaulted": sorted(self.label(n) for n in self.defaulted)}  # they change the notes


_FIELDS = {f.name: f for f in dataclasses.fields(SearchOptions)}


def build_options(query: Any, *, today: date | None = None, defaulted: frozenset[str] = frozenset(),
                  **values: Any) -> SearchOptions:
    """Validated options from raw values by option name (no defaults filled in: see SearchOptions.build; count
    is required). query None: a template without a query."""
    SearchOptions.check_names(values)
    return SearchOptions(query="" if query is None else parse_query(query),
                         **{name: _FIELDS[name].metadata["parse"](values.get(name)) for name in SearchOptions.names()},
                         today=today or date.today(), defaulted=frozenset(defaulted))


def parse_query(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidOption("the search query is empty")
    query = " ".join(value.split())
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidOption(f"the search query is {len(query)} characters long; the most is {MAX_QUERY_CHARS}")
    return query


def parse_count(value: Any) -> int:
    try:
        count = int(value)
    except (TypeError, ValueError):
        raise InvalidOption(f"result_count {value!r} is not a whole number") from None
    if not 1 <= count <= MAX_RESULT_COUNT:
        raise InvalidOption(f"result_count must be between 1 and {MAX_RESULT_COUNT} (got {count})")
    return count


def parse_country(value: Any, name: str) -> str | None:
    return _coded(codes.country_code, value, name)


def parse_language(value: Any, name: str) -> str | None:
    """An ISO 639-1 code; 'en-US'/'en_GB' keep their language part. 'all'/'any' mean no preference."""
    return _coded(codes.language_code, value, name)


def parse_date_range(value: Any) -> DateRange | None:
    if value is None or value == "" or (isinstance(value, str) and value.strip().lower() in ("any", "all")):
        return None
    if isinstance(value, dict):
        return _explicit(value.get("start"), value.get("end"), value)
    if isinstance(value, (tuple, list)) and len(value) == 2:
        return _explicit(value[0], value[1], value)
    if isinstance(value, str):
        text = value.strip().lower()
        preset = text if text in DATE_PRESETS else _PRESET_ALIASES.get(text)
        if preset:
            return DateRange(preset=preset)
        for sep in ("..", "/", " to "):
            if sep in text:
                start, end = text.split(sep, 1)
                return _explicit(start, end, value)
    raise InvalidOption(f"date_range {value!r} is not understood: use day, week, month, year or "
                        "YYYY-MM-DD..YYYY-MM-DD")


def _explicit(start: Any, end: Any, original: Any) -> DateRange:
    first, last = _day(start, original), _day(end, original)
    if first is None and last is None:
        raise InvalidOption(f"date_range {original!r} has neither a start nor an end date")
    if first and last and first > last:
        raise InvalidOption(f"date_range {original!r} ends before it starts")
    return DateRange(start=first, end=last)


def _day(value: Any, original: Any) -> date | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, date):
        return value
    try:
        return date.fromisoformat(str(value).strip())
    except ValueError:
        raise InvalidOption(f"date_range {original!r}: {value!r} is not a date (YYYY-MM-DD)") from None


def parse_safesearch(value: Any) -> str | None:
    if value is None or value == "":
        return None
    text = str(value).strip().lower()
    level = text if text in SAFESEARCH_LEVELS else _SAFE_ALIASES.get(text)
    if level is None:
        raise InvalidOption(f"safesearch {value!r} is not one of off, moderate, strict")
    return level


def parse_sites(value: Any, name: str = "site_blacklist") -> tuple[str, ...]:
    return _coded(codes.site_domains, value, name)


def parse_terms(value: Any, *, phrases: bool) -> tuple[str, ...]:
    """exact_terms: each string is one phrase; exclude_terms: words split on spaces/commas."""
    if isinstance(value, str) and phrases:
        items = [value]
    else:
        items = _split(value, r"[,\s]+" if not phrases else r",")
    cleaned = [" ".join(item.replace('"', " ").split()) for item in items]
    return tuple(dict.fromkeys(term for term in cleaned if term))


def parse_flag(value: Any) -> bool | None:
    if value is None or value == "":
        return None
    flag = table.truth(value)
    if flag is not None:
        return flag
    raise InvalidOption(f"filter {value!r} must be 0 or 1 (Google's duplicate-content filter)")


def parse_sort(value: Any) -> str | None:
    if value is None or value == "":
        return None
    text = str(value).strip().lower()
    if text not in SORT_ORDERS:
        raise InvalidOption(f"sort_results_by {value!r} is not one of {', '.join(SORT_ORDERS)}")
    return text


def _split(value: Any, pattern: str) -> list[str]:
    return _coded(codes.split_values, value, pattern)


def _coded(parse: Callable[..., Any], *args: Any) -> Any:
    """A codes.py parser, its ValueError as the search's InvalidOption (same message)."""
    try:
        return parse(*args)
    except ValueError as exc:
        raise InvalidOption(str(exc)) from None
