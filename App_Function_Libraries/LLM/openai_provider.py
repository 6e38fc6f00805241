"""Provider `openai`: any OpenAI-compatible server through the openai SDK with a configurable base URL
(OpenAI, llama.cpp server, Ollama, vLLM, LM Studio, OpenRouter)."""
from __future__ import annotations

from typing import Iterator

from App_Function_Libraries.LLM.base import (
    LLMAuthError, LLMBadResponse, LLMClient, LLMContextOverflow, LLMError, LLMForbidden, LLMModelNotFound,
    LLMRateLimited, LLMResponse, LLMServerError, LLMTimeout, LLMUnreachable, Message, scrub_key)
from App_Function_Libraries.retry import parse_retry_after

_CONTEXT_WORDS = ("context length", "context_length", "maximum context", "too many tokens", "context window",
                  "exceeds the context")


class OpenAICompatibleClient(LLMClient):
    provider = "openai"

    def __init__(self, settings, role="default", **kw):
        super().__init__(settings, role, **kw)
        self._client = None
        self._json_supported = settings.json_mode

    @property
    def where(self) -> str:
        return self.settings.base_url or "https://api.openai.com/v1"

    def client(self):
        if self._client is None:
            import openai  # heavy import kept out of start-up
            self._client = openai.OpenAI(
                base_url=self.settings.base_url or None,
                api_key=self.settings.api_key or "not-needed",
                timeout=self.settings.timeout_seconds,
                max_retries=0)  # retries are ours (LLMClient._with_retries)
        return self._client

    def _payload(self, messages, temperature, max_tokens, stop):
        if not self.settings.model:
            raise LLMError(f"LLM role {self.role}: no model set; put the model name in [llm] model "
                           f"(or [llm_{self.role}] model)")
        payload = {"model": self.settings.model, "temperature": temperature, "max_tokens": max_tokens,
                   "messages": [{"role": m.role, "content": m.content} for m in messages]}
        if stop:
            payload["stop"] = stop
        return payload

    def _chat(self, messages, temperature, max_tokens, json_mode, stop) -> LLMResponse:
        payload = self._payload(messages, temperature, max_tokens, stop)
        if json_mode and self._json_supported:
            payload["response_format"] = {"type": "json_object"}
        try:
            resp = self._call(lambda: self.client().chat.completions.create(**payload))
        except LLMBadResponse as exc:
            if "response_format" in payload and "response_format" in str(exc).lower():
                self._json_supported = False  # this server has no JSON mode: ask in the prompt alone
                payload.pop("response_format")
                resp = self._call(lambda: self.client().chat.completions.create(**payload))
            else:
                raise
        if not getattr(resp, "choices", None):
            raise LLMBadResponse(f"LLM server at {self.where} answered without any choices")
        choice = resp.choices[0]
        usage = getattr(resp, "usage", None)
        text = (choice.message.content or "") if choice.message else ""
        return LLMResponse(text=text, model=getattr(resp, "model", "") or self.settings.model,
                           prompt_tokens=getattr(usage, "prompt_tokens", 0) or 0,
                           completion_tokens=getattr(usage, "completion_tokens", 0) or 0,
                           finish_reason=choice.finish_reason or "")

    def _stream_chat(self, messages, temperature, max_tokens, stop) -> Iterator[str]:
        payload = self._payload(messages, temperature, max_tokens, stop)
        stream = self._call(lambda: self.client().chat.completions.create(stream=True, **payload))
        try:
            for event in stream:
                if event.choices and event.choices[0].delta and event.choices[0].delta.content:
                    yield event.choices[0].delta.content
        except Exception as exc:  # noqa: BLE001 - mapped to a typed error
            raise self._map(exc) from exc

    def _complete(self, prompt, temperature, max_tokens, stop) -> LLMResponse:
        payload = {"model": self.settings.model, "prompt": prompt, "temperature": temperature,
                   "max_tokens": max_tokens}
        if stop:
            payload["stop"] = stop
        resp = self._call(lambda: self.client().completions.create(**payload))
        usage = getattr(resp, "usage", None)
        return LLMResponse(text=resp.choices[0].text or "", model=resp.model or self.settings.model,
                           prompt_tokens=getattr(usage, "prompt_tokens", 0) or 0,
                           completion_tokens=getattr(usage, "completion_tokens", 0) or 0,
                           finish_reason=resp.choices[0].finish_reason or "")

    def list_models(self) -> list[str]:
        page = self._call(lambda: self.client().models.list())
        return [m.id for m in page.data]

    # --- error mapping
    def _call(self, fn):
        try:
            return fn()
        except LLMError:
            raise
        except Exception as exc:  # noqa: BLE001 - mapped to a typed error
            raise self._map(exc) from exc

    def _map(self, exc: Exception) -> LLMError:
        """The typed error for an SDK exception, its text cleared of the API key (some servers quote it)."""
        err = self._typed(exc)
        return type(err)(scrub_key(str(err), self.settings.api_key), err.retry_after,
                         scrub_key(err.cause, self.settings.api_key))

    def _typed(self, exc: Exception) -> LLMError:
        import openai
        where = self.where
        if isinstance(exc, openai.APITimeoutError):
            return LLMTimeout(f"LLM server at {where} did not answer within {self.settings.timeout_seconds:g} s",
                              cause=f"no answer within {self.settings.timeout_seconds:g} s")
        if isinstance(exc, openai.APIConnectionError):
            refused = "refused" in str(exc.__cause__ or "").lower()
            return LLMUnreachable(f"cannot reach the LLM server at {where}: is it running, and is base_url right?",
                                  cause="connection refused" if refused else "cannot connect")
        if isinstance(exc, openai.APIStatusError):
            status, body = exc.status_code, scrub_key(_error_text(exc), self.settings.api_key)  # before any cut
            if status == 401:
                return LLMAuthError(f"LLM server at {where} refused the API key ({status}): check api_key "
                                    f"or QUARRY_LLM_API_KEY")
            if status == 403:
                return LLMForbidden(f"LLM server at {where} refused this request (403): {body[:200]}",
                                    cause="HTTP 403")
            if status == 404:
                return LLMModelNotFound(f"model {self.settings.model!r} not found at {where}: check the model "
                                        f"name (GET {where.rstrip('/')}/models lists them)")
            if status == 429:
                retry_after = parse_retry_after(exc.response.headers.get("retry-after"))
                return LLMRateLimited(f"LLM server at {where} is rate limiting (429)", retry_after,
                                      cause="HTTP 429, rate limited")
            if status >= 500:
                return LLMServerError(f"LLM server at {where} failed ({status}): {body[:200]}",
                                      cause=f"HTTP {status}" + (f": {' '.join(body.split())[:80]}" if body else ""))
            if any(w in body.lower() for w in _CONTEXT_WORDS):
                return LLMContextOverflow(f"the prompt is longer than the context window of "
                                          f"{self.settings.model!r}: {body[:200]}")
            return LLMBadResponse(f"LLM server at {where} rejected the request ({status}): {body[:300]}")
        return LLMBadResponse(f"LLM server at {where} sent an answer Quarry could not read: {exc}")

    @property
    def endpoint(self) -> str:
        return self.where


def _error_text(exc) -> str:
    try:
        body = exc.response.json()
        err = body.get("error", body) if isinstance(body, dict) else body
        return str(err.get("message", err) if isinstance(err, dict) else err)
    except Exception:  # noqa: BLE001 - body was not JSON
        return (getattr(exc, "message", "") or str(exc))
