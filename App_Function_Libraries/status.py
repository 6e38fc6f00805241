"""Reachability checks for `python app.py check` and the Settings tab: one verdict per configured LLM role
and search engine. A check never raises and never shows a key."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from App_Function_Libraries.config import LLM_ROLES, Settings


@dataclass
class Verdict:
    name: str
    ok: bool | None  # None: not configured / not applicable
    message: str


def check_llm_role(settings: Settings, role: str) -> Verdict:
    from App_Function_Libraries.LLM.base import LLMError
    from App_Function_Libraries.LLM.breaker import diagnosis
    from App_Function_Libraries.LLM.registry import make_client
    s = settings.llm_for(role)
    name = f"llm {role}"
    if s.provider == "none":
        return Verdict(name, None, "no LLM (extractive mode)")
    client = make_client(s, role)
    try:
        if s.provider == "openai":
            models = client.list_models()
            if s.model and models and s.model not in models:
                return Verdict(name, False, f"{client.where} is up but has no model {s.model!r} "
                                            f"(it has: {', '.join(models[:8])})")
            return Verdict(name, True, f"{client.where} answers; model {s.model or '(none set)'}")
        client._model()  # loads the GGUF file
        return Verdict(name, True, f"llama.cpp loaded {s.llamacpp_model_path}")
    except LLMError as exc:  # worded as a research run's note says it; the provider cleared its key from it
        return Verdict(name, False, diagnosis(exc, client.endpoint))


def check_engine(settings: Settings, engine: str) -> Verdict:
    from App_Function_Libraries.Search.engine import engine_health_check
    ok, message = engine_health_check(engine, settings)
    return Verdict(f"engine {engine}", ok, message)


def configured_engines(settings: Settings) -> list[str]:
    from App_Function_Libraries.Search.engines import ENGINE_MODULES, is_configured
    return [e for e in ENGINE_MODULES if e in settings.search.search_provider_default.split(",") or is_configured(e, settings)]


def status_lines(settings: Settings) -> list[Verdict]:
    jobs = [lambda r=r: check_llm_role(settings, r) for r in LLM_ROLES]
    try:
        engines = configured_engines(settings)
    except ImportError:
        engines = []
    jobs += [lambda e=e: check_engine(settings, e) for e in engines]
    with ThreadPoolExecutor(max_workers=8) as pool:
        return list(pool.map(lambda job: job(), jobs))
