"""get_llm(role): the client for one LLM role, built from settings and cached per process."""
from __future__ import annotations

import threading

from App_Function_Libraries.config import Settings, get_settings
from App_Function_Libraries.LLM.base import LLMClient

_clients: dict[tuple, LLMClient] = {}
_lock = threading.Lock()


def make_client(llm_settings, role: str) -> LLMClient | None:
    """A fresh client for these settings; None when the provider is `none` (extractive mode)."""
    if llm_settings.provider == "openai":
        from App_Function_Libraries.LLM.openai_provider import OpenAICompatibleClient
        return OpenAICompatibleClient(llm_settings, role)
    if llm_settings.provider == "llamacpp":
        from App_Function_Libraries.LLM.llamacpp_provider import LlamaCppClient
        return LlamaCppClient(llm_settings, role)
    return None


def get_llm(role: str, settings: Settings | None = None) -> LLMClient | None:
    """The cached client for a role (subquery, relevance, extraction, final_answer), or None without an LLM."""
    settings = settings or get_settings()
    llm_settings = settings.llm_for(role)
    key = (role, repr(llm_settings))
    with _lock:
        if key not in _clients:
            _clients[key] = make_client(llm_settings, role)
        return _clients[key]
