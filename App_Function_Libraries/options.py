"""Every research and search option, declared once: its one name (in code, the UI, config.txt, the docs, saved
JSON and the MCP/HTTP arguments), its type or choices, the setting that gives its default, what it does, its
command-line flag, and the old names it had (still read from saved runs, config files and callers).

The CLI flags of `research` and `search`, the MCP tools' and HTTP endpoints' arguments, the UI's choices and
config.txt's checks are made from (or checked against) OPTIONS; each choice list below exists nowhere else.
Adding a research option is one Option(...) here plus its use in the stage that reads it.

Spelling at the doors: a flag is `--` and the name with dashes (`--report-language`); a switch that is on by
default is turned off by its `off` spelling on every door (use_llm: `--no-llm`, `no_llm: true`).

Bottom layer: pure data and small helpers; imports only errors.py.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterable

from App_Function_Libraries.errors import QuarryError

# ---------------------------------------------------------------- the choice lists (each exists only here)

REPORT_FORMATS = ("full", "short", "bullets", "table")
REPORT_FORMAT_LABELS = {"full": "full report", "short": "short answer", "bullets": "bullet brief",
                        "table": "comparison table"}
CITATION_STYLES = ("numbered", "apa", "chicago")
CITATION_STYLE_LABELS = {"numbered": "numbered", "apa": "APA", "chicago": "Chicago author-date"}
SAFESEARCH_LEVELS = ("off", "moderate", "strict")
SAFESEARCH_LABELS = {"off": "Off", "moderate": "Moderate", "strict": "Strict"}
SORT_ORDERS = ("relevance", "date")
SORT_ORDER_LABELS = {"relevance": "Relevance", "date": "Newest first"}
DATE_PRESETS = ("day", "week", "month", "year")
DATE_PRESET_LABELS = {"day": "past day", "week": "past week", "month": "past month", "year": "past year"}
REPORT_TONES = ("neutral", "academic", "plain-language", "journalistic", "technical", "friendly")  # suggestions

MIN_LENGTH_WORDS, MAX_LENGTH_WORDS = 50, 10000
LANGUAGE_CODE = re.compile(r"[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})?")


class BadArgument(QuarryError, ValueError):
    """A value given for an option or argument is wrong; `argument` names it (None when the fault spans
    several). str() is the one line for the user."""

    def __init__(self, argument: str | None, reason: str) -> None:
        self.argument, self.reason = argument, reason
        super().__init__(f"{argument} {reason}" if argument else reason)

    def cli_text(self) -> str:
        """The message with the argument spelled as its command-line flag (pages_max -> --pages-max)."""
        if not self.argument:
            return self.reason
        option = OPTIONS.get(self.argument)
        return f"{option.flag if option else '--' + self.argument.replace('_', '-')} {self.reason}"


@dataclass(frozen=True)
class Option:
    """One option. kind: text, language (a code such as de or pt-BR), int, float, bool, choice, list (a list or
    comma-separated text), plan (a plan's JSON). group: search (a SearchOptions field: its parser checks the value), research, report, budget, run
    (how the run is done, not saved in its params). setting: "section.key" in config.txt giving the default.
    off: the spelling that turns a default-on switch off (no_llm). aliases: old names still accepted. doors:
    where it is offered ("cli", "wire": MCP and HTTP; "ui" for the form only). label: its one name on the UI's
    forms (Web Search and Settings alike); choice_labels: what each choice is called there (the stored value
    stays the code)."""
    name: str
    kind: str
    group: str
    help: str
    choices: tuple[str, ...] = ()
    low: float | None = None
    high: float | None = None
    setting: str = ""
    off: str = ""
    aliases: tuple[str, ...] = ()
    cli_aliases: tuple[str, ...] = ()
    metavar: str | None = None
    doors: tuple[str, ...] = ("cli", "wire")
    default: Any = None
    label: str = ""
    choice_labels: dict[str, str] = field(default_factory=dict, hash=False, compare=False)

    @property
    def flag(self) -> str:
        return "--" + (self.off or self.name).replace("_", "-")

    @property
    def wire(self) -> str:
        """The argument's name on MCP and HTTP (a default-on switch: its off spelling)."""
        return self.off or self.name

    def setting_key(self) -> tuple[str, str] | None:
        return tuple(self.setting.split(".", 1)) if self.setting else None  # type: ignore[return-value]


def _o(name: str, kind: str, group: str, help: str, **rest: Any) -> Option:  # noqa: A002 - argparse's word
    return Option(name, kind, group, help, **rest)


_SITES = "domains, comma-separated or repeated"
OPTIONS: dict[str, Option] = {o.name: o for o in (
    # where to search (group search: the SearchOptions of the same names; None: the [search] default)
    _o("engines", "list", "engines", "search engines and local sources (wikipedia, documents), comma-separated",
       setting="search.search_provider_default", cli_aliases=("--engine", "-e"),
       label="Search engines and local sources"),
    _o("count", "int", "search", "results asked of each engine for each query", low=1, high=100,
       setting="search.search_result_max_per_query", cli_aliases=("-n",), aliases=("result_count",),
       label="Results per engine and query"),
    _o("country", "text", "search", "two-letter country code the results are for, e.g. US",
       setting="search.search_content_country", aliases=("content_country",), label="Country (ISO code)"),
    _o("search_lang", "text", "search", "language of the searches, an ISO 639-1 code such as en",
       setting="search.search_language_query", label="Query language"),
    _o("result_lang", "text", "search", "language the results should be in, e.g. en",
       setting="search.search_language_results", aliases=("search_result_language",), label="Results language"),
    _o("date_range", "text", "search", "day, week, month, year or YYYY-MM-DD..YYYY-MM-DD (either end may be "
       "left out)", metavar="RANGE", label="Date range"),
    _o("safesearch", "choice", "search", "filter adult results", choices=SAFESEARCH_LEVELS,
       setting="search.search_safesearch", label="Safe search", choice_labels=SAFESEARCH_LABELS),
    _o("site_blacklist", "list", "search", f"sites to leave out ({_SITES})", metavar="DOMAIN",
       setting="search.search_result_blacklist", aliases=("exclude_sites",), cli_aliases=("--exclude-site",),
       label="Sites to leave out"),
    _o("include_sites", "list", "search", f"keep results to these sites ({_SITES})", metavar="DOMAIN",
       setting="search.search_include_sites", cli_aliases=("--site",), label="Only these sites"),
    _o("exact_terms", "list", "search", "phrases that must appear", metavar="PHRASE", aliases=("exactTerms",),
       cli_aliases=("--exact",), label="Exact phrases (one per line)"),
    _o("exclude_terms", "list", "search", "words that must not appear", metavar="WORD",
       aliases=("excludeTerms",), cli_aliases=("--exclude",), label="Words to exclude"),
    _o("dedupe_filter", "bool", "search", "Google's duplicate-content filter on or off", aliases=("filter",),
       label="Filter near-duplicate results (Google)"),
    _o("geolocation", "text", "search", "two-letter country code the search is made from (Google)",
       label="Geolocation (country code)"),
    _o("sort", "choice", "search", "order of the results", choices=SORT_ORDERS, aliases=("sort_results_by",),
       label="Sort results by", choice_labels=SORT_ORDER_LABELS),
    # the research's stages
    _o("result_max", "int", "research", "results kept after merging the engines' answers", low=1, high=200,
       setting="search.search_result_max", label="Results kept after merging"),
    _o("subqueries", "bool", "research", "split the question into sub-queries (off: search the question only)",
       setting="search.search_enable_subquery", off="no_subqueries", label="Split into sub-queries (LLM)"),
    _o("subquery_count", "int", "research", "most sub-queries", low=1, high=10,
       setting="search.search_enable_subquery_count_max", label="Most sub-queries"),
    _o("max_queries", "int", "research", "most queries searched", low=1, high=50,
       setting="search.search_default_max_queries"),
    _o("relevance_check", "bool", "research", "judge each result's relevance before reading it (off: read "
       "every result)", setting="research.relevance_check", off="no_relevance",
       label="Check relevance before reading"),
    _o("relevance_embedding_threshold", "float", "research", "without an LLM, a result whose embedding similarity "
       "to the question is below this is not read", low=-1.0, high=1.0, default=0.2,
       setting="research.relevance_embedding_threshold"),
    _o("pages_max", "int", "research", "most pages to read", low=1, high=100, setting="research.pages_max",
       aliases=("pages",), cli_aliases=("--pages",), label="Most pages read per run"),
    _o("passages_per_page", "int", "research", "passages kept from each page", low=1, high=50,
       setting="research.passages_per_page"),
    _o("use_llm", "bool", "research", "use the configured LLMs (off: an extractive brief, no LLM call)",
       off="no_llm", default=True),
    _o("use_cache", "bool", "research", "read and fill the search and page caches", off="no_cache",
       default=True),
    _o("read_further", "bool", "research", "when nothing read answers the question, read the next results before "
       "saying so (off: the report says so after the first pages)", off="no_read_further", default=True),
    # the report
    _o("tone", "text", "report", "tone of the report: " + ", ".join(REPORT_TONES) + ", or your own",
       setting="search.search_result_analysis_tone", label="Report tone"),
    _o("report_format", "choice", "report", "report format", choices=REPORT_FORMATS,
       setting="research.report_format", cli_aliases=("--format",), label="Report format",
       choice_labels=REPORT_FORMAT_LABELS),
    _o("length_words", "int", "report", "rough length budget of the report, in words", low=MIN_LENGTH_WORDS,
       high=MAX_LENGTH_WORDS, setting="research.length_words", aliases=("length", "report_length_words"),
       cli_aliases=("--length",), label="Report length (words)"),
    _o("report_language", "language", "report", "language of the report, an ISO code such as de or pt-BR (empty: "
       "the question's)", setting="research.report_language", aliases=("lang", "report_lang", "output_lang"),
       metavar="CODE", label="Report language (ISO code; empty: the question's)"),
    _o("preset", "text", "report", "a saved report prompt by name (Config_Files/report_presets/NAME.txt)",
       metavar="NAME"),
    _o("aggregation_prompt", "text", "report", "the report writer's instructions ({question} and {sources} "
       "required; empty: the built-in prompt)", doors=("ui",)),
    _o("citation_style", "choice", "report", "how the sources list is written in exports",
       choices=CITATION_STYLES, setting="research.citation_style", label="Citation style",
       choice_labels=CITATION_STYLE_LABELS),
    _o("follow_up_count", "int", "report", "follow-up questions suggested after the report (0: none)", low=0,
       high=5, setting="research.follow_up_count", label="Follow-up questions suggested (0-5)"),
    # the run's budget (0: no limit)
    _o("budget_seconds", "float", "budget", "stop reading pages after this many seconds (0: no limit)", low=0,
       high=86400, setting="research.budget_seconds"),
    _o("budget_pages", "int", "budget", "read at most this many pages (0: no limit)", low=0, high=100,
       setting="research.budget_pages"),
    _o("budget_llm_tokens", "int", "budget", "stop reading pages once the LLM has spent this many tokens (0: no "
       "limit)", low=0, high=100_000_000, setting="research.budget_llm_tokens", aliases=("budget_tokens",),
       cli_aliases=("--budget-tokens",)),
    # how this run is done (not among its saved params)
    _o("rounds", "int", "run", "dig deeper this many times after the report: search what it says is missing",
       low=0, high=5, default=0),
    _o("follow_up_of", "text", "run", "a saved report (id or its start) this question follows up: its queries "
       "and answer guide the new sub-queries", metavar="REPORT_ID"),
    _o("plan", "plan", "run", "run this plan (from research_plan / --plan-only, edited or not) instead of "
       "making one; on the command line a JSON file (- for stdin)", metavar="FILE"),
    _o("plan_only", "bool", "run", "print the research plan as JSON and stop: nothing is searched",
       doors=("cli",)),
    _o("resume", "text", "run", "continue this unfinished run (id or its start) from its last completed stage",
       aliases=("run_id",), metavar="RUN_ID"),
)}

#: an old name that two options had: which one it means where both are offered (research: the report's)
SHARED_OLD_NAMES = {"lang": ("report_language", "search_lang")}
#: only one of these per run
EXCLUSIVE = (("plan", "plan_only", "resume"),)

SEARCH = tuple(n for n, o in OPTIONS.items() if o.group == "search")
#: what `search` takes: engines and the search options
SEARCH_COMMAND = ("engines",) + SEARCH
#: what `research` takes on every door
RESEARCH = tuple(OPTIONS)
#: the ResearchParams fields among them (the rest say how the run is done)
PARAMS = tuple(n for n, o in OPTIONS.items() if o.group != "run")


def choices(name: str) -> tuple[str, ...]:
    return OPTIONS[name].choices


def labelled(name: str) -> list[tuple[str, str]]:
    """(label, value) pairs of an option's choices, for a dropdown: the table's choice labels."""
    option = OPTIONS[name]
    return [(option.choice_labels.get(c, c), c) for c in option.choices]


def label(name: str) -> str:
    """The option's one name on the UI's forms."""
    option = OPTIONS[name]
    return option.label or option.help[:1].upper() + option.help[1:]


def by_setting(setting: str) -> Option | None:
    """The option whose default is the config setting "section.key", if any."""
    return next((o for o in OPTIONS.values() if o.setting == setting), None)


def offered(door: str, names: Iterable[str] = RESEARCH) -> tuple[str, ...]:
    """The options among `names` offered on `door` ("cli", "wire" or "ui")."""
    return tuple(n for n in names if door in OPTIONS[n].doors or door == "ui")


def old_names(names: Iterable[str]) -> dict[str, str]:
    """{old name: option} for the options `names` (each old name once; a shared one as SHARED_OLD_NAMES says)."""
    names = tuple(names)
    out: dict[str, str] = {}
    for name in names:
        for alias in OPTIONS[name].aliases:
            out.setdefault(alias, name)
    for alias, meaning in SHARED_OLD_NAMES.items():
        for name in meaning:
            if name in names:
                out[alias] = name
                break
    return out


def canonical(values: dict[str, Any], names: Iterable[str] = RESEARCH, *, strict: bool = True) -> dict[str, Any]:
    """`values` under the options' names: old names mapped to theirs, an off spelling (no_llm=True) to the
    switch (use_llm=False). A name that is no option: BadArgument (strict) or dropped. One option given under
    two names with two values: BadArgument."""
    names = tuple(names)
    old = old_names(names)
    offs = {OPTIONS[n].off: n for n in names if OPTIONS[n].off}
    out: dict[str, Any] = {}
    for key, value in values.items():
        if key in names:
            name = key
        elif key in offs:  # no_llm=true turns use_llm off; no_llm=false leaves it as configured
            name, value = offs[key], (False if value is not None and _boolean(key, value) else None)
        elif key in old:
            name = old[key]
        elif strict:
            raise BadArgument(key, f"is no option here; the options are {', '.join(names)}")
        else:
            continue
        if value is None:
            continue
        if name in out and out[name] != value:
            raise BadArgument(name, f"was given twice with different values (also as {key})")
        out[name] = value
    return out


def parse(name: str, value: Any) -> Any:
    """The value of option `name` in its type (None stays None); BadArgument naming the option when it is
    wrong. Search options keep their raw value: the search's own parser checks them (SearchOptions)."""
    option = OPTIONS[name]
    if value is None or option.group == "search":
        return value
    kind = option.kind
    if kind == "bool":
        return _boolean(name, value)
    if kind in ("int", "float"):
        return _number(option, value)
    if kind == "choice":
        text = str(value).strip().lower()
        if text not in option.choices:
            raise BadArgument(name, f"must be one of {', '.join(option.choices)} (got {value!r})")
        return text
    if kind == "list":
        return names_list(value, name)
    if kind in ("text", "language"):
        if not isinstance(value, str):
            raise BadArgument(name, "must be text")
        value = value.strip()
        if kind == "language" and value and not LANGUAGE_CODE.fullmatch(value):
            raise BadArgument(name, f"{value!r} is not a language code like en, de or pt-BR")
    return value


def names_list(value: Any, name: str = "engines") -> list[str]:
    """A list or comma-separated text (or a list of such: repeated flags) as stripped non-empty strings."""
    if isinstance(value, str):
        items = value.split(",")
    elif isinstance(value, (list, tuple)):
        items = [part for item in value for part in str(item).split(",")]
    else:
        raise BadArgument(name, "must be a list or comma-separated text")
    return [str(item).strip() for item in items if str(item).strip()]


TRUE_WORDS, FALSE_WORDS = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


def truth(value: Any) -> bool | None:
    """True or False for a bool or one of the words for it (1/0, true/false, yes/no, on/off); None otherwise."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    return True if text in TRUE_WORDS else False if text in FALSE_WORDS else None


def _boolean(name: str, value: Any) -> bool:
    flag = truth(value)
    if flag is None:
        raise BadArgument(name, f"must be true or false (got {value!r})")
    return flag


def _number(option: Option, value: Any) -> int | float:
    whole = option.kind == "int"
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise BadArgument(option.name, "must be a whole number" if whole else "must be a number")
    try:
        number = int(value) if whole and not isinstance(value, float) else float(value)
    except ValueError:
        raise BadArgument(option.name, "must be a whole number" if whole else "must be a number") from None
    if whole and number != int(number):
        raise BadArgument(option.name, "must be a whole number")
    number = int(number) if whole else number
    low, high = option.low, option.high
    if low is not None and number < low or high is not None and number > high:
        span = f"{low:g} to {high:g}" if high is not None else f"at least {low:g}"
        raise BadArgument(option.name, f"must be {span}")
    return number


# ---------------------------------------------------------------- the command line

def add_arguments(parser: Any, names: Iterable[str]) -> None:
    """Add the options `names` offered on the command line to an argparse parser (dest: the option's name)."""
    for name in names:
        option = OPTIONS[name]
        if "cli" not in option.doors:
            continue
        flags = (option.flag, *option.cli_aliases)
        help_text = option.help + (f" (default: [{option.setting.replace('.', '] ')})" if option.setting else "")
        if option.kind == "bool" and (option.off or option.group == "run"):
            parser.add_argument(*flags, dest=name, action="store_const", const=not option.off, default=None,
                                help=help_text)
        elif option.kind == "bool":
            parser.add_argument(*flags, dest=name, choices=TRUE_WORDS + FALSE_WORDS, default=None,
                                metavar="0|1", help=help_text)
        elif option.kind == "list":
            parser.add_argument(*flags, dest=name, action="append", default=None, metavar=option.metavar,
                                help=help_text + " (repeatable)")
        else:
            typed = {"int": int, "float": float}.get(option.kind, str)
            parser.add_argument(*flags, dest=name, type=typed, default=None, metavar=option.metavar,
                                choices=option.choices or None, help=help_text)


def from_arguments(args: Any, names: Iterable[str]) -> dict[str, Any]:
    """The options `names` set on the command line, by name."""
    out = {}
    for name in names:
        value = getattr(args, name, None)
        if value is not None and value != []:
            out[name] = value
    return out


#: old argument names that older MCP and HTTP clients send (each still sets its option)
OLD_WIRE_NAMES = ("pages", "lang", "length", "exclude_sites", "budget_tokens", "run_id")


def wire_arguments(names: Iterable[str]) -> list[tuple[str, str]]:
    """(argument, option) for the options `names` on a tool or endpoint: each option's wire name, then the old
    names older clients send (OLD_WIRE_NAMES)."""
    names = offered("wire", names)
    return [(OPTIONS[n].wire, n) for n in names] + [(alias, n) for alias, n in old_names(names).items()
                                                     if alias in OLD_WIRE_NAMES]
