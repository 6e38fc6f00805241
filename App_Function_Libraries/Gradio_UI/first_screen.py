"""What the Web Search tab says before anything runs: the mode (answers written by an LLM, which one, or
quoted extractively), which engines in the picker are not set up or not reachable, and which controls do
nothing without an LLM (disabled, with a short note, in extractive mode).

Everything here is read from the settings in force and the engines' health record (Search/health.py: what
the last searches to each engine met), so the page says it again after Settings change or a search fails.
Nothing is searched to find out.
"""
from __future__ import annotations

import time

from App_Function_Libraries.config import ENGINES, LOCAL_SOURCES, Settings
from App_Function_Libraries.Gradio_UI.answer_view import md_text
from App_Function_Libraries.Gradio_UI.web_search_params import llm_label, llm_profiles

NEEDS_LLM_NOTE = "needs an LLM (Settings → Language models)"
# the health record's error kinds that mean the engine could not be reached, and how the picker says so
UNREACHABLE_KINDS = {"unreachable": "not reachable", "timeout": "not answering", "bad_key": "key refused",
                     "blocked": "refusing searches", "rate_limited": "rate-limited", "quota": "quota used up"}


def extractive(settings: Settings) -> bool:
    """No LLM anywhere in the config: every LLM-only control does nothing."""
    return not llm_profiles(settings)


def mode_markdown(settings: Settings) -> str:
    """One line: who writes the answers."""
    final = settings.llm_for("final_answer")
    if final.provider != "none":
        where = f" at {final.base_url}" if final.provider == "openai" and final.base_url else ""
        return (f"**Answers are written by an LLM**: {md_text(llm_label(final) + where)}. Each sentence cites "
                "its sources, and citations are checked against them.")
    return ("**Answers are quoted extractively** (no LLM is set up): the report is sentences quoted from the "
            "sources, each cited. For written answers, set an LLM in **Settings → Language models** (Ollama, "
            "llama.cpp or any OpenAI-compatible server).")


def engine_problem(engine: str, settings: Settings, health: dict | None = None, now: float | None = None) -> str:
    """Why the engine would not answer now ('' when nothing is known against it): not set up, or what its
    last searches met."""
    from App_Function_Libraries import quarry
    if engine in LOCAL_SOURCES:
        return ""
    needs = quarry.engines.needs(engine, settings)
    if needs is not None:
        return f"not set up: needs {' and '.join(needs) or 'a setting'}"
    state = (health or {}).get(engine)
    if state is None or not state.consecutive_failures:
        return ""
    if state.seconds_suspended(now or time.time()):
        return "suspended after failing"
    return UNREACHABLE_KINDS.get(state.last_error_kind, "failing")


def engine_choices(settings: Settings, health: dict | None = None) -> list[tuple[str, str]]:
    """The picker's (label, engine) pairs: an engine that would not answer says why beside its name."""
    now = time.time()
    out = []
    for engine in ENGINES + LOCAL_SOURCES:
        problem = engine_problem(engine, settings, health, now)
        out.append((f"{engine} ✗ {problem}" if problem else engine, engine))
    return out


def engine_health(settings: Settings) -> dict:
    """The engines' health records ({} when the research database cannot be read: marks are a courtesy)."""
    try:
        from App_Function_Libraries import quarry
        return quarry.engines.health(settings)
    except Exception:  # noqa: BLE001 - the picker still lists every engine
        return {}


LLM_ONLY = ("subqueries", "tone", "aggregation_prompt", "preset", "llm_subquery", "llm_relevance",
            "llm_extraction", "llm_final_answer")  # Web Search form names of the controls that need an LLM


def llm_only_state(settings: Settings) -> dict[str, dict]:
    """{form name: gr.update keywords} for the LLM-only controls: disabled with a note in extractive mode."""
    off = extractive(settings)
    notes = {"subqueries": "without an LLM the question's own parts are searched"}
    return {name: {"interactive": not off,
                   "info": (f"{NEEDS_LLM_NOTE}; {notes[name]}" if name in notes else NEEDS_LLM_NOTE) if off else ""}
            for name in LLM_ONLY}
