"""The one LLM interface every feature uses, its data types and its typed errors.

A provider implements `_chat`, `_stream_chat` and `_complete` for a single attempt; `LLMClient` adds what
every provider shares: retries with back-off (honouring Retry-After), `<think>` stripping, token counting,
prompt fitting and usage counting. Retries happen here and nowhere else. A client may carry a run's
`LLMHealth` (LLM/breaker.py): the retry loop then asks it before every attempt and tells it every outcome, so
that a server that stops answering is given up once for the whole run (LLMUnavailable).
"""
from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Iterator

from App_Function_Libraries.config import LLMSettings
from App_Function_Libraries.retry import backoff_delay
from App_Function_Libraries.errors import QuarryError
from App_Function_Libraries.valid_unicode import valid_unicode


@dataclass
class Message:
    role: str  # "system" | "user" | "assistant"
    content: str


@dataclass
class LLMResponse:
    text: str
    model: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    finish_reason: str = ""


@dataclass
class Usage:
    """Calls and tokens spent, shared by every call through one client (thread-safe)."""
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, prompt_tokens: int, completion_tokens: int) -> None:
        with self._lock:
            self.calls += 1
            self.prompt_tokens += prompt_tokens
            self.completion_tokens += completion_tokens

    def as_dict(self) -> dict:
        return {"calls": self.calls, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens}


# ---------------------------------------------------------------- errors

class LLMError(QuarryError):
    """Base of every LLM failure; str() is a message a person can act on; `cause` a short phrase of what
    happened on the wire ("connection refused", "no answer within 5 s", "HTTP 503"), when there is one."""
    retryable = False

    def __init__(self, message: str, retry_after: float | None = None, cause: str = ""):
        super().__init__(message)
        self.retry_after = retry_after
        self.cause = cause


class LLMNotConfigured(LLMError):
    pass


class LLMUnreachable(LLMError):
    retryable = True


class LLMTimeout(LLMError):
    retryable = True


class LLMRateLimited(LLMError):
    retryable = True


class LLMServerError(LLMError):
    retryable = True


class LLMAuthError(LLMError):
    pass


class LLMForbidden(LLMError):
    """The server refused this one request (403: e.g. a provider's moderation of the text sent); other
    requests may well pass, so the call fails and the client is not given up."""


class LLMModelNotFound(LLMError):
    pass


class LLMContextOverflow(LLMError):
    pass


class LLMBadResponse(LLMError):
    pass


class LLMUnavailable(LLMError):
    """This run gave up on the server (it stopped answering, or refused the key or model): the call was not
    made. Stages fall back to their path without an LLM; the run says why once (LLMHealth.notes)."""


def scrub_key(text: str, key: str) -> str:
    """Provider error text without the API key: some servers quote the credential they were sent."""
    if key and len(key) >= 4:
        text = text.replace(key, "[redacted]")
    return _BEARER_RE.sub(lambda m: f"{m.group(1) or m.group(2)} [redacted]", text)


# a value after "Bearer"/"token" that looks like a credential: 20+ characters, or 12+ mixing letters and digits
# ("invalid token provided" keeps its words)
_BEARER_RE = re.compile(r"(?i)\b(bearer|token)\s+(?=[A-Za-z0-9._~+/=-]*\d)(?=[A-Za-z0-9._~+/=-]*[A-Za-z])"
                        r"[A-Za-z0-9._~+/=-]{12,}|\b(bearer|token)\s+[A-Za-z0-9._~+/=-]{20,}")


# ---------------------------------------------------------------- <think> stripping

_THINK_RE = re.compile(r"<think>.*?(</think>|$)", re.DOTALL | re.IGNORECASE)


def strip_think(text: str) -> str:
    """Remove reasoning blocks (<think>…</think>, or an unclosed <think> to the end) from model output."""
    text = _THINK_RE.sub("", text)
    if "</think>" in text.lower():  # a reply that starts inside the block (the opening tag was in the prompt)
        text = text[text.lower().rindex("</think>") + len("</think>"):]
    return text.strip()


class ThinkFilter:
    """Streaming version of strip_think: feed chunks, get back only text outside <think> blocks."""

    def __init__(self) -> None:
        self.buffer = ""
        self.inside = False

    def feed(self, chunk: str) -> str:
        self.buffer += chunk
        out = []
        while self.buffer:
            tag = "</think>" if self.inside else "<think>"
            idx = self.buffer.lower().find(tag)
            if idx >= 0:
                if not self.inside:
                    out.append(self.buffer[:idx])
                self.buffer = self.buffer[idx + len(tag):]
                self.inside = not self.inside
                continue
            keep = _partial_suffix(self.buffer.lower(), tag)  # hold back a tag cut between chunks
            if not self.inside:
                out.append(self.buffer[:len(self.buffer) - keep])
            self.buffer = self.buffer[len(self.buffer) - keep:] if keep else ""
            break
        return "".join(out)

    def flush(self) -> str:
        rest, self.buffer = ("" if self.inside else self.buffer), ""
        return rest


def _partial_suffix(text: str, tag: str) -> int:
    for n in range(min(len(tag) - 1, len(text)), 0, -1):
        if text.endswith(tag[:n]):
            return n
    return 0


# ---------------------------------------------------------------- the client

class LLMClient:
    """Provider-independent behaviour. Subclasses implement the single-attempt methods."""

    provider = "base"
    health = None  # a run's LLMHealth (LLM/breaker.py), set on the run's RunClient; None: no breaker

    def __init__(self, settings: LLMSettings, role: str = "default",
                 sleep: Callable[[float], None] = time.sleep):
        self.settings = settings
        self.role = role
        self.usage = Usage()
        self._sleep = sleep

    # --- provider hooks (one attempt each)
    def _chat(self, messages: list[Message], temperature: float, max_tokens: int,
              json_mode: bool, stop: list[str] | None) -> LLMResponse:
        raise NotImplementedError

    def _stream_chat(self, messages: list[Message], temperature: float, max_tokens: int,
                     stop: list[str] | None) -> Iterator[str]:
        raise NotImplementedError

    def _complete(self, prompt: str, temperature: float, max_tokens: int,
                  stop: list[str] | None) -> LLMResponse:
        raise NotImplementedError

    def count_tokens(self, text: str) -> int:
        """Token count; providers without a tokenizer estimate generously (3.5 characters a token)."""
        return int(len(text) / 3.5) + 1

    def describe(self) -> str:
        return f"{self.provider}:{self.settings.model or self.settings.llamacpp_model_path}"

    @property
    def endpoint(self) -> str:
        """Where calls go (a server's base URL, a model file): what a run gives up on when it stops answering."""
        return self.describe()

    @property
    def context_window(self) -> int:
        return self.settings.context_window

    # --- public API
    def chat(self, messages: list[Message], *, temperature: float | None = None,
             max_tokens: int | None = None, json_mode: bool = False,
             stop: list[str] | None = None) -> LLMResponse:
        temp = self.settings.temperature if temperature is None else temperature
        mtok = max_tokens or self.settings.max_output_tokens
        self._check_fits(messages, mtok)
        resp = self._with_retries(lambda: self._chat(messages, temp, mtok, json_mode, stop))
        resp.text = valid_unicode(strip_think(resp.text))
        self.usage.add(resp.prompt_tokens, resp.completion_tokens)
        return resp

    def complete(self, prompt: str, *, temperature: float | None = None, max_tokens: int | None = None,
                 stop: list[str] | None = None) -> LLMResponse:
        temp = self.settings.temperature if temperature is None else temperature
        mtok = max_tokens or self.settings.max_output_tokens
        self._check_fits([Message("user", prompt)], mtok)
        resp = self._with_retries(lambda: self._complete(prompt, temp, mtok, stop))
        resp.text = valid_unicode(strip_think(resp.text))
        self.usage.add(resp.prompt_tokens, resp.completion_tokens)
        return resp

    def stream_chat(self, messages: list[Message], *, temperature: float | None = None,
                    max_tokens: int | None = None, stop: list[str] | None = None) -> Iterator[str]:
        """Yield text pieces as they arrive (think blocks removed). Retries only before the first piece."""
        temp = self.settings.temperature if temperature is None else temperature
        mtok = max_tokens or self.settings.max_output_tokens
        self._check_fits(messages, mtok)
        prompt_tokens = sum(self.count_tokens(m.content) for m in messages)
        pieces = self._with_retries(lambda: _first_and_rest(self._stream_chat(messages, temp, mtok, stop)))
        flt, produced = ThinkFilter(), []
        for piece in pieces:
            produced.append(piece)
            text = flt.feed(piece)
            if text:
                yield valid_unicode(text)
        tail = flt.flush()
        if tail:
            yield valid_unicode(tail)
        self.usage.add(prompt_tokens, self.count_tokens("".join(produced)))

    def chat_text(self, system: str, user: str, **kw) -> str:
        """Convenience: one system + one user message, returns the reply text."""
        return self.chat([Message("system", system), Message("user", user)], **kw).text

    # --- shared machinery
    def _check_fits(self, messages: list[Message], max_tokens: int) -> None:
        used = sum(self.count_tokens(m.content) + 4 for m in messages)
        if used + max_tokens > self.context_window:
            raise LLMContextOverflow(
                f"{self.describe()}: the prompt needs about {used} tokens plus {max_tokens} for the answer, "
                f"more than the context window of {self.context_window}; raise context_window or shorten "
                f"the input")

    def _with_retries(self, attempt: Callable):
        """The one retry loop. With a run's health: no attempt once the server is given up, and while another
        call of the run is retrying this server, wait for its outcome instead of retrying too."""
        health, me = self.health, object()
        tries = self.settings.max_retries + 1
        try:
            for i in range(tries):
                if health is not None:
                    health.gate(self, me)
                try:
                    result = attempt()
                except LLMError as exc:
                    if health is not None:
                        health.failed(self, me, exc, i + 1, last=i == tries - 1)  # raises when given up
                    if not exc.retryable or i == tries - 1:
                        raise
                    self._sleep(backoff_delay(i, exc.retry_after))
                    continue
                if health is not None:
                    health.answered(self, me)
                return result
        finally:
            if health is not None:
                health.release(self, me)
        raise AssertionError("unreachable")


def _first_and_rest(gen: Iterator[str]) -> Iterator[str]:
    """Pull the first piece now (so connection errors surface inside the retry loop), then the rest."""
    try:
        first = next(gen)
    except StopIteration:
        return iter(())

    def chain():
        yield first
        yield from gen
    return chain()
