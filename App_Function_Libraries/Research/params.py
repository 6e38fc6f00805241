"""ResearchParams: everything one research run was asked to do, JSON-serialisable (it is saved with the
result). Defaults come from [search] and [research] in config.txt. It never holds an API key: engines are
named, and their keys stay in the settings.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Any

from App_Function_Libraries.config import Settings, get_settings
from App_Function_Libraries.Research.report import ReportOptions
from App_Function_Libraries.Search.options import SearchOptions

REPORT_FORMAT_CHOICES = ("full", "short", "bullets", "table")
MIN_LENGTH_WORDS, MAX_LENGTH_WORDS = 50, 10000
LANGUAGE_CODE = re.compile(r"[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})?")


@dataclass
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
    def from_settings(cls, settings: Settings | None = None, **overrides) -> "ResearchParams":
        s = settings or get_settings()
        base = cls(engines=[e.strip() for e in s.search.search_provider_default.split(",") if e.strip()],
                   result_max=s.search.search_result_max,
                   subqueries=s.search.search_enable_subquery,
                   subquery_count=s.search.search_enable_subquery_count_max,
                   max_queries=s.search.search_default_max_queries, relevance_check=s.research.relevance_check,
                   pages_max=s.research.pages_max, passages_per_page=s.research.passages_per_page,
                   tone=s.search.search_result_analysis_tone, report_format=s.research.report_format,
                   length_words=s.research.report_length_words, report_language=s.research.output_lang,
                   citation_style=s.research.citation_style,
                   follow_up_count=s.research.follow_up_count, budget_seconds=s.research.budget_seconds,
                   budget_pages=s.research.budget_pages, budget_llm_tokens=s.research.budget_llm_tokens)
        return dataclasses.replace(base, **{k: v for k, v in overrides.items() if v is not None})

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ResearchParams":
        """Params from to_dict(). A run saved before the options had one name each stored them under their
        labels (result_count, content_country, search_result_language, sort_results_by): read those too."""
        data = dict(data or {})
        for name in SearchOptions.names():
            label = SearchOptions.label(name)
            if label in data and name not in data:
                data[name] = data.pop(label)
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
                             output_lang=self.report_language, template=self.aggregation_prompt)

    def check_report_options(self) -> None:
        """Raise ValueError (one line for the user) for a report option that cannot be used."""
        from App_Function_Libraries.Research.presets import validate_template
        if self.report_format not in REPORT_FORMAT_CHOICES:
            raise ValueError(f"unknown report format {self.report_format!r}; use {', '.join(REPORT_FORMAT_CHOICES)}")
        if not MIN_LENGTH_WORDS <= int(self.length_words) <= MAX_LENGTH_WORDS:
            raise ValueError(f"the report length must be {MIN_LENGTH_WORDS} to {MAX_LENGTH_WORDS} words")
        if self.report_language and not LANGUAGE_CODE.fullmatch(self.report_language):
            raise ValueError(f"answer language {self.report_language!r} is not a language code like en, de or pt-BR")
        if self.aggregation_prompt.strip():
            validate_template(self.aggregation_prompt)
        if self.citation_style not in ("numbered", "apa", "chicago"):
            raise ValueError(f"unknown citation style {self.citation_style!r}; use numbered, apa or chicago")
