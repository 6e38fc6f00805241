"""One run's circuit breaker for its LLM servers, shared by every stage of the run.

Retries live in one layer, the client's retry loop (LLMClient._with_retries), which asks the run's
`LLMHealth` before each attempt and reports each outcome:

- a server that fails a call after all its retries (connection refused, time-outs, 5xx, 429) is given up for
  the rest of the run, unless it answered another call successfully since that call started: then the server
  is alive and only that call fails (its prompt is the problem, e.g. too slow to answer); a client the server
  refuses outright (bad key, unknown model) is given up at once; a 403 (a provider refusing one request's
  text) fails that call only;
- every later call to it raises LLMUnavailable without sending anything, and the stages take their path
  without an LLM (embedding relevance, passages as notes, the extractive brief);
- while one call is retrying a failing server, the run's other calls to it that failed wait for that call's
  outcome instead of retrying too (a call's first attempt does not wait: its answer may show the server
  alive): a dead server costs one attempt per call started meanwhile plus one call's retries, not one
  timeout-with-retries per call;
- the run says so once: `notes(then)`, e.g. "the LLM at http://host:8080/v1 is not answering (no answer within
  5 s, 4 tries): Quarry stopped calling it, so this report is extractive".

    health = LLMHealth()
    client = RunClient(shared_client, health)   # the run's view of a process-wide client
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Iterator

from App_Function_Libraries.LLM.base import (
    LLMAuthError, LLMClient, LLMError, LLMModelNotFound, LLMNotConfigured, LLMRateLimited, LLMResponse,
    LLMServerError, LLMTimeout, LLMUnavailable, LLMUnreachable, Message)

NOT_ANSWERING = (LLMUnreachable, LLMTimeout, LLMServerError, LLMRateLimited)  # given up after the retries
REFUSING = (LLMAuthError, LLMModelNotFound, LLMNotConfigured)  # given up at once: asking again cannot help


def diagnosis(exc: LLMError, where: str, tries: int = 1) -> str:
    """One line on why an LLM cannot be used, the same in a run's notes, `check` and the Settings tab."""
    if isinstance(exc, NOT_ANSWERING):
        cause = exc.cause or str(exc)
        return f"the LLM at {where} is not answering ({cause}{f', {tries} tries' if tries > 1 else ''})"
    return str(exc)


@dataclass
class Outage:
    where: str
    error: LLMError
    tries: int

    def note(self, then: str) -> str:
        return f"{diagnosis(self.error, self.where, self.tries)}: Quarry stopped calling it, {then}"


class LLMHealth:
    """Which LLM servers one run has given up on, and which call (if any) is retrying each (thread-safe)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._down: dict[str, Outage] = {}  # endpoint -> why it was given up
        self._refused: dict[int, Outage] = {}  # id(client) -> why (another role's model or key may still work)
        self._prober: dict[str, object] = {}  # endpoint -> the call now retrying it
        self._answers: dict[str, int] = {}  # endpoint -> calls it answered successfully so far
        self._started: dict[object, int] = {}  # call -> its endpoint's answers when the call started

    # --- asked by the retry loop
    def gate(self, client: LLMClient, me: object) -> None:
        """Before an attempt: raise LLMUnavailable when given up. A call's first attempt does not wait for
        another call's retries: its answer may show that the server is alive."""
        with self._cond:
            self._started.setdefault(me, self._answers.get(client.endpoint, 0))
            self._raise_if_down(client)

    def failed(self, client: LLMClient, me: object, exc: LLMError, tries: int, last: bool) -> None:
        """After a failed attempt. Raises LLMUnavailable when the server (or this client) is given up now or
        was meanwhile; returns when the caller may retry (after another call's retries ended without giving
        the server up, or as the call that retries), or, after its last try, when the server answered another
        call since this one started (the server is alive: this call alone fails, with its own error)."""
        where = client.endpoint
        with self._cond:
            if isinstance(exc, REFUSING):
                self._refused[id(client)] = Outage(where, exc, tries)
                self._release(where, me)
                raise LLMUnavailable(diagnosis(exc, where)) from exc
            if not isinstance(exc, NOT_ANSWERING):  # the server answered (a bad request, a context overflow)
                self._release(where, me)
                return
            self._raise_if_down(client)
            if last:
                self._release(where, me)
                if self._answers.get(where, 0) > self._started.get(me, 0):
                    return  # alive: it answered another call meanwhile
                self._down[where] = Outage(where, exc, tries)
                raise LLMUnavailable(diagnosis(exc, where, tries)) from exc
            if self._prober.get(where) is None:
                self._prober[where] = me
            while self._prober.get(where) not in (None, me) and self._outage(client) is None:
                self._cond.wait()
            self._raise_if_down(client)

    def answered(self, client: LLMClient, me: object) -> None:
        with self._cond:
            self._answers[client.endpoint] = self._answers.get(client.endpoint, 0) + 1
            self._release(client.endpoint, me)

    def release(self, client: LLMClient, me: object) -> None:
        """At the end of a call, however it ended: it no longer retries."""
        with self._cond:
            self._started.pop(me, None)
            self._release(client.endpoint, me)

    # --- asked by the run
    def is_down(self, client: LLMClient | None) -> bool:
        if client is None:
            return False
        with self._cond:
            return self._outage(client) is not None

    def notes(self, then: str) -> list[str]:
        """One line per server (or refused client) the run gave up on, ending with `then` (what the run did
        instead, e.g. "so this report is extractive")."""
        with self._cond:
            outages = list(self._down.values()) + list(self._refused.values())
        return list(dict.fromkeys(o.note(then) for o in outages))

    # --- inside the lock
    def _outage(self, client: LLMClient) -> Outage | None:
        return self._down.get(client.endpoint) or self._refused.get(id(client))

    def _raise_if_down(self, client: LLMClient) -> None:
        outage = self._outage(client)
        if outage is not None:
            raise LLMUnavailable(diagnosis(outage.error, outage.where, outage.tries))

    def _release(self, where: str, me: object) -> None:
        if self._prober.get(where) is me:
            del self._prober[where]
        self._cond.notify_all()


class RunClient(LLMClient):
    """One run's view of a shared client: the same settings, usage counter and provider state (the shared
    client makes every attempt), with the run's LLMHealth deciding whether an attempt is made at all."""

    def __init__(self, inner: LLMClient, health: LLMHealth):
        super().__init__(inner.settings, inner.role, sleep=inner._sleep)
        self.inner, self.health, self.usage = inner, health, inner.usage
        self.provider = inner.provider

    def _chat(self, messages: list[Message], temperature: float, max_tokens: int, json_mode: bool,
              stop: list[str] | None) -> LLMResponse:
        return self.inner._chat(messages, temperature, max_tokens, json_mode, stop)

    def _stream_chat(self, messages: list[Message], temperature: float, max_tokens: int,
                     stop: list[str] | None) -> Iterator[str]:
        return self.inner._stream_chat(messages, temperature, max_tokens, stop)

    def _complete(self, prompt: str, temperature: float, max_tokens: int, stop: list[str] | None) -> LLMResponse:
        return self.inner._complete(prompt, temperature, max_tokens, stop)

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)

    def describe(self) -> str:
        return self.inner.describe()

    @property
    def endpoint(self) -> str:
        return self.inner.endpoint

    @property
    def context_window(self) -> int:
        return self.inner.context_window

    def __getattr__(self, name: str):  # where, list_models, _model ...: the shared client's
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)


def guarded(clients: dict[str, LLMClient | None], health: LLMHealth) -> dict[str, LLMClient | None]:
    """The run's view of each role's client (roles sharing a client share its view)."""
    views: dict[int, LLMClient] = {}
    out: dict[str, LLMClient | None] = {}
    for role, client in clients.items():
        if client is None or not isinstance(client, LLMClient):
            out[role] = client
            continue
        if id(client) not in views:
            views[id(client)] = RunClient(client, health)
        out[role] = views[id(client)]
    return out
