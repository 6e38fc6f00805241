"""The Web Search form's values turned into ResearchParams (checked first, so a bad option is one clear
message before anything runs) and the LLM choice per role turned into the pipeline's Services.

LLM per role: each role (sub-queries, relevance, extraction, report) runs on its configured LLM, on any other
LLM profile the config defines ([llm] and each [llm_<role>] section that differs from it), or on no LLM. The
choice builds that run's Services only; the settings are not changed.
"""
from __future__ import annotations

import dataclasses
from typing import Any

from App_Function_Libraries.config import (ENGINES, LLM_ROLES, LOCAL_SOURCES, ROLE_SECTION_PREFIX, LLMSettings,
                                           Settings)

DATE_CHOICES = [("any time", "any"), ("past day", "day"), ("past week", "week"), ("past month", "month"),
                ("past year", "year"), ("between dates…", "custom")]
SORT_CHOICES = [("relevance", "relevance"), ("date", "date")]
SAFESEARCH_CHOICES = ["off", "moderate", "strict"]
CONFIGURED = "configured"
NO_LLM = "none"
ROLE_NAMES = {"subquery": "sub-queries", "relevance": "relevance check", "extraction": "extraction",
              "final_answer": "report"}


def split_list(text: str | None, separators: str = ",\n") -> list[str]:
    items = [text or ""]
    for sep in separators:
        items = [part for item in items for part in item.split(sep)]
    return [i.strip() for i in items if i.strip()]


def llm_label(s: LLMSettings) -> str:
    if s.provider == "none":
        return "none configured (extractive)"
    if s.provider == "llamacpp":
        return f"llama.cpp: {s.llamacpp_model_path.rsplit('/', 1)[-1] or '(no model file)'}"
    return f"{s.provider}: {s.model or '(default model)'}"


def llm_profiles(settings: Settings) -> dict[str, LLMSettings]:
    """The LLMs the config defines, by section ("llm", "llm_extraction", …): each distinct one once, none
    with provider `none`."""
    sections = {"llm": settings.llm} | {ROLE_SECTION_PREFIX + r: settings.llm_for(r) for r in LLM_ROLES}
    profiles: dict[str, LLMSettings] = {}
    for section, llm in sections.items():
        if llm.provider != "none" and llm not in profiles.values():
            profiles[section] = llm
    return profiles


def llm_choices(settings: Settings, role: str) -> list[tuple[str, str]]:
    """The role's dropdown: its configured LLM, the other profiles, no LLM."""
    own = settings.llm_for(role)
    others = [(f"{llm_label(llm)} — [{section}]", section) for section, llm in llm_profiles(settings).items()
              if llm != own]
    return [(f"as configured — {llm_label(own)}", CONFIGURED), *others, ("no LLM (extractive)", NO_LLM)]


def date_range_value(choice: str, start: str, end: str) -> str | None:
    if choice in (None, "", "any"):
        return None
    if choice == "custom":
        if not (start or "").strip() and not (end or "").strip():
            raise ValueError("give a start date, an end date or both (YYYY-MM-DD) for the date range")
        return f"{(start or '').strip()}..{(end or '').strip()}"
    return choice


def check_options(params, settings: Settings) -> None:
    """Raise ValueError with the engines' own message for an option no engine could accept."""
    from App_Function_Libraries.Search.errors import InvalidOption
    from App_Function_Libraries.Search.options import SearchOptions
    try:
        SearchOptions.build(None, settings, **params.search_values())
    except InvalidOption as exc:
        raise ValueError(str(exc)) from None


def build_params(settings: Settings, form: dict[str, Any]):
    """ResearchParams from the form (names as in web_search_tab.OPTION_NAMES)."""
    from App_Function_Libraries.Research.params import ResearchParams
    engines = [e for e in form.get("engines") or [] if e in ENGINES + LOCAL_SOURCES]
    if not engines:
        raise ValueError("choose at least one search engine")
    roles = {role: form.get(f"llm_{role}") for role in LLM_ROLES}
    params = ResearchParams.from_settings(
        settings, engines=engines, count=int(form["count"]), result_max=int(form["result_max"]),
        country=form.get("country") or None, search_lang=form.get("search_lang") or None,
        result_lang=form.get("result_lang") or None,
        date_range=date_range_value(form.get("date_range"), form.get("date_start"), form.get("date_end")),
        safesearch=form.get("safesearch") or None, site_blacklist=split_list(form.get("site_blacklist")),
        include_sites=split_list(form.get("include_sites")),
        exact_terms=split_list(form.get("exact_terms"), "\n") or None,
        exclude_terms=split_list(form.get("exclude_terms"), ", \n") or None,
        dedupe_filter=bool(form.get("dedupe_filter")) or None, geolocation=form.get("geolocation") or None,
        sort=form.get("sort") or None, subqueries=bool(form.get("subqueries")),
        subquery_count=int(form.get("subquery_count") or 1), relevance_check=bool(form.get("relevance")),
        pages_max=int(form["pages_max"]), use_llm=any(choice != NO_LLM for choice in roles.values()),
        **report_fields(settings, form))
    check_options(params, settings)
    params.check_report_options()
    return params


def report_fields(settings: Settings, form: dict[str, Any]) -> dict[str, Any]:
    """The Report options as ResearchParams fields. The built-in prompt is stored as "" (so it stays the
    current built-in one); `preset` names the saved preset only when the editor still holds its text."""
    from App_Function_Libraries.Research.presets import PresetError, is_default, load_preset
    text = (form.get("aggregation_prompt") or "").strip()
    custom = "" if not text or is_default(text) else text
    preset = form.get("preset") or ""
    if custom and preset and preset != "default":
        try:
            preset = preset if load_preset(preset, settings).strip() == custom else ""
        except PresetError:
            preset = ""
    else:
        preset = ""
    length = form.get("length_words")
    return {"tone": (form.get("tone") or "").strip() or None, "report_format": form.get("report_format") or None,
            "report_language": None if form.get("report_lang") is None else str(form["report_lang"]).strip(),
            "aggregation_prompt": custom,
            "preset": preset, "length_words": int(length) if length else None,
            "citation_style": form.get("citation_style") or None}


def build_services(settings: Settings, form: dict[str, Any], params):
    """The pipeline's services for one run: each role on the LLM chosen for it (configured, another profile,
    or none)."""
    from App_Function_Libraries.Research.pipeline import Services
    services = Services.from_settings(settings, use_llm=params.use_llm)
    for role in LLM_ROLES:
        choice = form.get(f"llm_{role}") or CONFIGURED
        if choice == NO_LLM:
            services.llms[role] = None
        elif choice != CONFIGURED and params.use_llm:
            services.llms[role] = profile_client(settings, choice, role)
    return services


def profile_client(settings: Settings, section: str, role: str):
    """The (cached) client of the LLM profile `section` doing `role`'s work."""
    from App_Function_Libraries.LLM.registry import get_llm
    profile = llm_profiles(settings).get(section)
    if profile is None:
        raise ValueError(f"the LLM [{section}] chosen for the {ROLE_NAMES[role]} is not in the config (any "
                         f"more); choose another")
    return get_llm(role, dataclasses.replace(settings, roles={**settings.roles, role: profile}))
