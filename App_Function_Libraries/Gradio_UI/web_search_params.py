"""The Web Search form's values turned into ResearchParams by the one builder (quarry.research_params: a bad
option is one clear message before anything runs) and the LLM choice per role turned into the pipeline's
Services. The form's names are the options' names (App_Function_Libraries/options.py), and its choices the
table's.

LLM per role: each role (sub-queries, relevance, extraction, report) runs on its configured LLM, on any other
LLM profile the config defines ([llm] and each [llm_<role>] section that differs from it), or on no LLM. The
choice builds that run's Services only; the settings are not changed.
"""
from __future__ import annotations

from typing import Any

from App_Function_Libraries import options
from App_Function_Libraries.config import (ENGINES, LLM_ROLES, LOCAL_SOURCES, ROLE_SECTION_PREFIX, LLMSettings,
                                           Settings)
from App_Function_Libraries.options import BadArgument

DATE_CHOICES = [("any time", "any"), *[(options.DATE_PRESET_LABELS[p], p) for p in options.DATE_PRESETS],
                ("between dates…", "custom")]
SORT_CHOICES = options.labelled("sort")
SAFESEARCH_CHOICES = options.labelled("safesearch")
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
            raise BadArgument(None, "give a start date, an end date or both (YYYY-MM-DD) for the date range")
        return f"{(start or '').strip()}..{(end or '').strip()}"
    return choice


def build_params(settings: Settings, form: dict[str, Any]):
    """ResearchParams from the form (names as in web_search_tab.OPTION_NAMES: the options' own, and date_start,
    date_end, llm_<role>), by quarry.research_params."""
    from App_Function_Libraries import quarry
    engines = [e for e in form.get("engines") or [] if e in ENGINES + LOCAL_SOURCES]
    if not engines:
        raise BadArgument(None, "choose at least one search engine")
    values = {name: form[name] for name in options.offered("ui") if name in form and name != "engines"}
    values.update(
        engines=engines, date_range=date_range_value(form.get("date_range"), form.get("date_start"),
                                                     form.get("date_end")),
        site_blacklist=split_list(form.get("site_blacklist")), include_sites=split_list(form.get("include_sites")),
        exact_terms=split_list(form.get("exact_terms"), "\n"), exclude_terms=split_list(form.get("exclude_terms"),
                                                                                          ", \n"),
        dedupe_filter=bool(form.get("dedupe_filter")) or None, subqueries=bool(form.get("subqueries")),
        subquery_count=int(form.get("subquery_count") or 1), relevance_check=bool(form.get("relevance_check")),
        use_llm=any(form.get(f"llm_{role}") != NO_LLM for role in LLM_ROLES), **report_fields(settings, form))
    blank = {k: None for k, v in values.items() if isinstance(v, str) and not v.strip() and k != "report_language"}
    return quarry.research_params(settings, **{**values, **blank})


def report_fields(settings: Settings, form: dict[str, Any]) -> dict[str, Any]:
    """The Report options as ResearchParams fields. The built-in prompt is stored as "" (so it stays the
    current built-in one); `preset` names the saved preset only when the editor still holds its text."""
    from App_Function_Libraries import quarry
    text = (form.get("aggregation_prompt") or "").strip()
    custom = "" if not text or quarry.presets.is_default(text) else text
    preset = form.get("preset") or ""
    if custom and preset and preset != quarry.presets.DEFAULT_NAME:
        try:
            preset = preset if quarry.presets.load(preset, settings).strip() == custom else ""
        except quarry.QuarryError:
            preset = ""
    else:
        preset = ""
    length = form.get("length_words")
    return {"tone": (form.get("tone") or "").strip() or None, "report_format": form.get("report_format") or None,
            "report_language": None if form.get("report_language") is None else str(form["report_language"]).strip(),
            "aggregation_prompt": custom,
            "preset": preset, "length_words": int(length) if length else None,
            "citation_style": form.get("citation_style") or None}


def build_services(settings: Settings, form: dict[str, Any], params):
    """The pipeline's services for one run: each role on the LLM chosen for it (configured, another profile,
    or none)."""
    from App_Function_Libraries import quarry
    chosen: dict[str, str | None] = {}
    for role in LLM_ROLES:
        choice = form.get(f"llm_{role}") or CONFIGURED
        if choice == NO_LLM:
            chosen[role] = None
        elif choice != CONFIGURED and params.use_llm:
            if choice not in llm_profiles(settings):
                raise BadArgument(None, f"the LLM [{choice}] chosen for the {ROLE_NAMES[role]} is not in the "
                                        f"config (any more); choose another")
            chosen[role] = choice
    return quarry.research_services(settings, use_llm=params.use_llm, role_llms=chosen)
