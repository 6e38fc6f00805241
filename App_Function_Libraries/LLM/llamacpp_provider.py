"""Provider `llamacpp`: a GGUF model run in-process by llama-cpp-python, loaded lazily and cached.

The chat template comes from the GGUF file unless `llamacpp_chat_format` names one. Base models (not
instruction-tuned) set `llamacpp_completion_mode`: chats are then written out as a plain completion prompt.
"""
from __future__ import annotations

import atexit
import os
import threading
from pathlib import Path
from typing import Iterator

from App_Function_Libraries.LLM.base import (
    LLMBadResponse, LLMClient, LLMContextOverflow, LLMError, LLMModelNotFound, LLMResponse, Message)

_models: dict[tuple, tuple[object, threading.Lock]] = {}
_models_lock = threading.Lock()


def _load(path: str, n_ctx: int, threads: int, chat_format: str):
    key = (path, n_ctx, threads, chat_format)
    with _models_lock:
        if key not in _models:
            try:
                import llama_cpp
            except ImportError as exc:
                raise LLMError("the llamacpp provider needs llama-cpp-python: pip install llama-cpp-python") from exc
            kwargs = {"model_path": path, "n_ctx": n_ctx, "verbose": False}
            if threads:
                kwargs["n_threads"] = threads
            if chat_format:
                kwargs["chat_format"] = chat_format
            try:
                model = llama_cpp.Llama(**kwargs)
            except (ValueError, RuntimeError) as exc:
                raise LLMBadResponse(f"llama.cpp could not load {path}: {exc}") from exc
            if not _models:
                atexit.register(close_models)
            _models[key] = (model, threading.Lock())
        return _models[key]


def close_models() -> None:
    """Free every loaded model now, while the interpreter is whole (llama-cpp-python's own finalizer, run
    during interpreter shutdown, fails on half-torn-down modules and prints a traceback)."""
    with _models_lock:
        models = list(_models.values())
        _models.clear()
    for model, lock in models:
        with lock:
            close = getattr(model, "close", None)
            if close is not None:
                close()


def completion_prompt(messages: list[Message]) -> str:
    """A chat written as a plain document for a base model: instructions, then the turns, then 'Answer:'."""
    parts = []
    for m in messages:
        if m.role == "system":
            parts.append(m.content.strip())
        elif m.role == "user":
            parts.append(m.content.strip())
        else:
            parts.append(f"Answer: {m.content.strip()}")
    return "\n\n".join(parts) + "\n\nAnswer:"


class LlamaCppClient(LLMClient):
    provider = "llamacpp"

    def _model(self):
        path = self.settings.llamacpp_model_path
        if not path:
            raise LLMModelNotFound(f"LLM role {self.role}: provider llamacpp needs llamacpp_model_path "
                                   f"(the path of a .gguf file)")
        path = os.path.expanduser(path)
        if not Path(path).is_file():
            raise LLMModelNotFound(f"GGUF model file not found: {path}")
        return _load(path, self.settings.llamacpp_n_ctx, self.settings.llamacpp_threads,
                     self.settings.llamacpp_chat_format)

    @property
    def context_window(self) -> int:
        return min(self.settings.context_window, self.settings.llamacpp_n_ctx)

    def count_tokens(self, text: str) -> int:
        try:
            model, lock = self._model()
        except LLMError:
            return super().count_tokens(text)
        with lock:
            return len(model.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def _chat(self, messages, temperature, max_tokens, json_mode, stop) -> LLMResponse:
        if self.settings.llamacpp_completion_mode:
            return self._complete(completion_prompt(messages), temperature, max_tokens, stop)
        model, lock = self._model()
        kwargs = {"messages": [{"role": m.role, "content": m.content} for m in messages],
                  "temperature": temperature, "max_tokens": max_tokens, "stop": stop or None}
        if json_mode:
            kwargs["response_format"] = {"type": "json_object"}
        with lock:
            out = self._guard(lambda: model.create_chat_completion(**kwargs))
        choice = out["choices"][0]
        usage = out.get("usage") or {}
        return LLMResponse(text=choice["message"].get("content") or "", model=self.describe(),
                           prompt_tokens=usage.get("prompt_tokens", 0),
                           completion_tokens=usage.get("completion_tokens", 0),
                           finish_reason=choice.get("finish_reason") or "")

    def _complete(self, prompt, temperature, max_tokens, stop) -> LLMResponse:
        model, lock = self._model()
        with lock:
            out = self._guard(lambda: model.create_completion(
                prompt=prompt, temperature=temperature, max_tokens=max_tokens, stop=stop or None))
        choice = out["choices"][0]
        usage = out.get("usage") or {}
        return LLMResponse(text=choice.get("text") or "", model=self.describe(),
                           prompt_tokens=usage.get("prompt_tokens", 0),
                           completion_tokens=usage.get("completion_tokens", 0),
                           finish_reason=choice.get("finish_reason") or "")

    def _stream_chat(self, messages, temperature, max_tokens, stop) -> Iterator[str]:
        model, lock = self._model()
        with lock:
            if self.settings.llamacpp_completion_mode:
                chunks = model.create_completion(prompt=completion_prompt(messages), temperature=temperature,
                                                 max_tokens=max_tokens, stop=stop or None, stream=True)
                for chunk in chunks:
                    text = chunk["choices"][0].get("text")
                    if text:
                        yield text
                return
            chunks = model.create_chat_completion(
                messages=[{"role": m.role, "content": m.content} for m in messages],
                temperature=temperature, max_tokens=max_tokens, stop=stop or None, stream=True)
            for chunk in chunks:
                text = chunk["choices"][0].get("delta", {}).get("content")
                if text:
                    yield text

    def _guard(self, fn):
        try:
            return fn()
        except ValueError as exc:
            if "context" in str(exc).lower() or "tokens" in str(exc).lower():
                raise LLMContextOverflow(f"{self.describe()}: {exc}") from exc
            raise LLMBadResponse(f"{self.describe()}: {exc}") from exc
