"""What went wrong with each engine in a search, in plain words: one line per engine (not one per query, and
never the internal "engine|query" label), and whether anything could be searched at all.

    engine_failures(runs) -> list[EngineFailure]
        runs: (engine, error message or None, error kind or None), one per search made
    nothing_searched(runs) -> str     the reason, in plain words, when no search answered; else ""

A reason names the engine as people know it and says what to do ("DuckDuckGo could not be reached — no
internet?"); the engine's own message follows it in the run's notes.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

#: how a failure of each kind (Search/errors.py SearchError.kind) reads after the engine's name
PLAIN_REASONS = {
    "unreachable": "could not be reached — no internet?",
    "timeout": "did not answer in time — slow or no internet?",
    "not_configured": "is not set up: it needs an API key or URL — see Settings → Search engines",
    "bad_key": "refused the API key — check it in Settings → Search engines",
    "quota": "has used up the plan's quota",
    "rate_limited": "is rate-limiting Quarry — wait a few minutes or pick another engine",
    "blocked": "refused the search — wait a while or pick another engine",
    "server_error": "had a server error — try again later",
    "bad_response": "gave an answer Quarry cannot read — is its API URL right?",
    "invalid_option": "could not take one of the search options",
    "cancelled": "was stopped: the research was cancelled",
}

Run = tuple[str, "str | None", "str | None"]


def engine_name(engine: str) -> str:
    """The engine as people know it: "DuckDuckGo", "Brave Search", "The Wikipedia index"."""
    try:
        from App_Function_Libraries.Search.engines import load_engine
        return load_engine(engine).SPEC.label.split(" (")[0]
    except (KeyError, ImportError):
        return engine


def plain_reason(engine: str, kind: str | None, message: str) -> str:
    """One engine's failure in plain words; a kind without wording gives the engine's own message."""
    name = engine_name(engine)
    if kind in PLAIN_REASONS:
        return f"{name} {PLAIN_REASONS[kind]}"
    text = " ".join(str(message).split())
    return text if text.lower().startswith(name.lower()) else f"{name}: {text}"


@dataclass
class EngineFailure:
    engine: str
    reason: str  # plain words (plain_reason)
    detail: str  # the first failure's message as the engine gave it
    failed: int  # searches that failed
    asked: int  # searches made on this engine

    @property
    def total(self) -> bool:
        """Every search on this engine failed."""
        return self.failed >= self.asked

    def note(self) -> str:
        """The run's note: the reason, then how many searches failed and the engine's own message in brackets."""
        count = "" if self.asked == 1 else (f"all {self.asked} searches" if self.total
                                            else f"{self.failed} of {self.asked} searches")
        detail = self.detail if self.detail and self.detail not in self.reason else ""
        said = ": ".join(part for part in (count, detail) if part)
        return f"{self.reason} ({said})" if said else self.reason


def engine_failures(runs: Iterable[Run]) -> list[EngineFailure]:
    """One EngineFailure per engine with at least one failed search, in the order the engines were asked."""
    asked: dict[str, int] = {}
    failed: dict[str, list[tuple[str, str | None]]] = {}
    for engine, error, kind in runs:
        asked[engine] = asked.get(engine, 0) + 1
        if error:
            failed.setdefault(engine, []).append((error, kind))
    out = []
    for engine, errors in failed.items():
        message, kind = errors[0]
        out.append(EngineFailure(engine, plain_reason(engine, kind, message), " ".join(message.split()),
                                 len(errors), asked[engine]))
    return out


def nothing_searched(runs: Iterable[Run]) -> str:
    """Why nothing could be searched, in plain words ('' when at least one search answered, even with no
    results)."""
    runs = list(runs)
    if any(error is None for _, error, _ in runs):
        return ""
    reasons = [f.reason for f in engine_failures(runs)]
    return "; ".join(dict.fromkeys(reasons)) or "no engine or source was chosen"
