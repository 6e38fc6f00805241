"""ResearchParams: everything one research run was asked to do, JSON-serialisable (it is saved with the
result). Its fields are the options of App_Function_Libraries/options.py (group search, research, report,
budget) under the same names, plus what a follow-up carries over. `from_settings` is the one builder: defaults
from config.txt, then the values given, each checked as options.py declares (BadArgument names a wrong one).
It never holds an API key: engines are named, and their keys stay in the settings.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from App_Function_Libraries import options as table
from App_Function_Libraries.config import ENGINES, LOCAL_SOURCES, Settings, get_settings
from App_Function_Libraries.options import BadArgument
from App_Function_Libraries.Research.report import ReportOptions
from App_Function_Libraries.Search.errors import InvalidOption
from App_Function_Libraries.Search.options import SearchOptions


def _declared_options(cls):
    """Each option of options.py (PARAMS) the class below does not spell out becomes a field too, its default
    the option's (from_settings fills in its setting): a new option is declared once, in options.py."""
    notes = cls.__dict__["__annotations__"]
    for name in table.PARAMS:
        if name not in notes:
            notes[name] = "Any"
            setattr(cls, name, table.OPTIONS[name].default)
    return cls


@dataclass
@_declared_options
class ResearchParams:
    engines: list[str] = field(default_factory=list)
    # search: the SearchOptions of the same names, as given (None: the [search] default applies)
    count: int | None = None  # results asked of each engine for each query
    result_max: int = 15  # results kept after merging
    country: str | None = None
    search_lang: str | None = None
    date_range: Any = None  # day|week|month|year or "YYYY-MM-DD..YYYY-MM-DD"
    safesearch: str | None = None
    site_blacklist: list[str] | None = None
    include_sites: list[str] | None = None  # keep results to these sites
    exact_terms: list[str] | None = None
    exclude_terms: list[str] | None = None
    dedupe_filter: bool | None = None
    geolocation: str | None = None
    result_lang: str | None = None
    sort: str | None = None
    # stages
    subqueries: bool = True
    subquery_count: int = 5
    max_queries: int = 10
    relevance_check: bool = True
    pages_max: int = 10
    passages_per_page: int = 5
    use_llm: bool = True  # False: extractive mode even when an LLM is configured
    use_cache: bool = True  # search cache and page cache
    read_further: bool = True  # nothing read answers the question: read the next results (Research/read_further.py)
    # report
    tone: str = "neutral"
    report_format: str = "full"
    length_words: int = 600
    report_language: str = ""  # empty: the question's language
    aggregation_prompt: str = ""  # the report writer's instructions ({question}, {sources}); empty: built-in
    preset: str = ""  # the name of the saved preset aggregation_prompt came from ("" = built-in or edited)
    citation_style: str = "numbered"  # the sources list in exports: numbered, apa, chicago (DB/citation_styles)
    follow_up_count: int = 5  # follow-up questions suggested after the report (0: none)
    # a follow-up of an earlier run: what it searched and answered (the sub-query step builds on them)
    previous_queries: list[str] = field(default_factory=list)
    previous_answer: str = ""
    follow_up_of: str = ""  # the earlier run's id
    # budget (0: no limit; Research/budget.py): wall seconds, pages read, LLM tokens
    budget_seconds: float = 0.0
    budget_pages: int = 0
    budget_llm_tokens: int = 0
    plan: dict[str, Any] = field(default_factory=dict)  # the plan the run followed (Research/plan.py)

    @classmethod
    def from_settings(cls, settings: Settings | None = None, **values) -> "ResearchParams":
        """The params of a run: each option's configured default (options.py `setting`), then `values` by
        option name or an old name (None: the default). Each given value is checked: BadArgument (a
        QuarryError) names a wrong one. `preset` without `aggregation_prompt` loads that saved prompt."""
        s = settings or get_settings()
        carried = {f.name for f in dataclasses.fields(cls)} - set(table.PARAMS)  # follow-up_of, plan, ...
        options = table.canonical({k: v for k, v in values.items() if k not in carried}, table.PARAMS)
        given = {k: v for k, v in values.items() if k in carried and v is not None}
        given.update({name: table.parse(name, value) for name, value in options.items()})
        _check_engines(given)
        _check_search(given, s)
        _apply_preset(given, s)
        return cls(**{**_defaults(s), **given})

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ResearchParams":
        """Params from to_dict(), unchecked (a saved run opens as it was). A run saved before the options had
        one name each stored some under old names (result_count, content_country, output_lang, ...): read too."""
        data = dict(data or {})
        for old, name in table.old_names(table.PARAMS).items():
            if old in data:
                value = data.pop(old)
                if value is not None:
                    data.setdefault(name, value)
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    def search_values(self) -> dict[str, Any]:
        """The search options that are set, by name (SearchOptions.build's keywords)."""
        return {name: getattr(self, name) for name in SearchOptions.names()
                if getattr(self, name) not in (None, [], "")}

    def search_options(self) -> dict[str, Any]:
        """The search options that are set, under their labels (as a person reads them in JSON and notes)."""
        return {SearchOptions.label(name): value for name, value in self.search_values().items()
                if name != "count"}

    def report_options(self) -> ReportOptions:
        """The report's options. An earlier run's answer is not among them: its [n] name other sources."""
        return ReportOptions(tone=self.tone, report_format=self.report_format, length_words=self.length_words,
                             report_language=self.report_language, template=self.aggregation_prompt)

    def check_report_options(self) -> None:
        """BadArgument (one line for the user) for a report option that cannot be used (a saved or edited run)."""
        for name in ("report_format", "length_words", "report_language", "citation_style"):
            table.parse(name, getattr(self, name))
        if self.aggregation_prompt.strip():
            _check_template(self.aggregation_prompt)


def _defaults(settings: Settings) -> dict[str, Any]:
    """The configured default of each option that has one (search options stay None: the search fills in
    its [search] defaults itself, and a run records only what was asked)."""
    out = {}
    for name in table.PARAMS:
        option = table.OPTIONS[name]
        if option.setting and option.group != "search":
            section, key = option.setting_key()
            out[name] = getattr(getattr(settings, section), key)
    out["engines"] = table.names_list(out["engines"])
    return out


def _check_engines(given: dict[str, Any]) -> None:
    if "engines" not in given:
        return
    engines = [e.lower() for e in given["engines"]]
    unknown = [e for e in engines if e not in ENGINES + LOCAL_SOURCES]
    if unknown:
        raise BadArgument("engines", f"has unknown engine {', '.join(unknown)}; engines are {', '.join(ENGINES)}, "
                                     f"local sources {', '.join(LOCAL_SOURCES)}")
    if engines:
        given["engines"] = engines
    else:
        del given["engines"]


def _check_search(given: dict[str, Any], settings: Settings) -> None:
    """Each search option given, checked by the parser the search uses (its message, under its name)."""
    for name in table.SEARCH:
        value = given.get(name)
        if value in (None, "", [], ()):
            given.pop(name, None)
            continue
        try:
            SearchOptions.build(None, settings, **{name: value})
        except InvalidOption as exc:  # "date_range 'x' is not understood: ..." (its name or label first)
            text = " ".join(str(exc).split())
            first, _, rest = text.partition(" ")
            named = first in (name, SearchOptions.label(name)) and rest
            raise BadArgument(name, rest if named else f"is not valid: {text}") from exc


def _apply_preset(given: dict[str, Any], settings: Settings) -> None:
    """A preset named without its text: the saved prompt (PresetError, a QuarryError, when it cannot be)."""
    from App_Function_Libraries.Research.presets import PresetError, load_preset, sanitize_name
    if given.get("preset") and not given.get("aggregation_prompt"):
        try:
            given.update(aggregation_prompt=load_preset(given["preset"], settings),
                         preset=sanitize_name(given["preset"]))
        except PresetError as exc:
            raise BadArgument(None, str(exc)) from exc
    if given.get("aggregation_prompt", "").strip():
        _check_template(given["aggregation_prompt"])


def _check_template(text: str) -> None:
    from App_Function_Libraries.Research.presets import PresetError, validate_template
    try:
        validate_template(text)
    except PresetError as exc:
        raise BadArgument(None, str(exc)) from exc
