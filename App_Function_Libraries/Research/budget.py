"""A run's budget: wall-clock seconds, pages read, LLM tokens spent (0: no limit on that one).

`BudgetWatch` watches a running run (a thread polling its clock and its LLM clients' usage) and sets the run's
stop event when the time or token budget is spent; the page budget is applied by reading no more pages than it
allows. A run that reaches its budget stops reading pages and writes its report from what it has read; `left_undone`
says what it did not do (added to the report and to the run's notes): never a silent truncation.
"""
from __future__ import annotations

import threading
import time
from dataclasses import asdict, dataclass
from typing import Any, Callable

from App_Function_Libraries.records import Source
from App_Function_Libraries.Research.errors import BadBudget

POLL_SECONDS = 0.05


@dataclass
class Budget:
    seconds: float = 0.0  # wall-clock seconds of the run
    pages: int = 0  # pages read
    llm_tokens: int = 0  # prompt + completion tokens of every LLM call

    def __post_init__(self) -> None:
        for name, value in asdict(self).items():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise BadBudget(f"budget {name} must be a number of at least 0 (0: no limit), not {value!r}")

    @property
    def limited(self) -> bool:
        return bool(self.seconds or self.pages or self.llm_tokens)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> "Budget":
        data = dict(data or {})
        unknown = sorted(set(data) - {"seconds", "pages", "llm_tokens"})
        if unknown:
            raise BadBudget(f"unknown budget field {', '.join(unknown)}; use seconds, pages, llm_tokens")
        return cls(**data)

    @classmethod
    def from_params(cls, params) -> "Budget":
        return cls(params.budget_seconds, params.budget_pages, params.budget_llm_tokens)

    def describe(self) -> str:
        parts = [f"{self.seconds:g} s" if self.seconds else "", f"{self.pages} pages" if self.pages else "",
                 f"{self.llm_tokens:,} LLM tokens" if self.llm_tokens else ""]
        return ", ".join(p for p in parts if p) or "none"


class BudgetWatch:
    """Sets `stop` when the run's time or token budget is spent, or when the user cancels (`cancel`)."""

    def __init__(self, budget: Budget, stop: threading.Event, cancel: threading.Event | None,
                 tokens_spent: Callable[[], int], spent_before: float = 0.0):
        self.budget, self.stop, self.cancel = budget, stop, cancel
        self.tokens_spent = tokens_spent
        self.started = time.monotonic() - spent_before
        self.reached: list[str] = []  # "time", "tokens", "pages", in the order reached
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="budget", daemon=True)

    def start(self) -> "BudgetWatch":
        self._thread.start()
        return self

    def close(self) -> None:
        self._done.set()

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def user_cancelled(self) -> bool:
        return self.cancel is not None and self.cancel.is_set()

    def check(self) -> None:
        """Record (once each) which budget is spent; set `stop` if any, or if the user cancelled."""
        if self.budget.seconds and self.elapsed() >= self.budget.seconds and "time" not in self.reached:
            self.reached.append("time")
        if self.budget.llm_tokens and "tokens" not in self.reached and self.tokens_spent() >= self.budget.llm_tokens:
            self.reached.append("tokens")
        if self.user_cancelled() or {"time", "tokens"} & set(self.reached):
            self.stop.set()

    def _watch(self) -> None:
        while not self._done.wait(POLL_SECONDS):
            self.check()

    def tokens_out(self) -> bool:
        return "tokens" in self.reached

    def pages_allowed(self, pages_max: int) -> int:
        return min(pages_max, self.budget.pages) if self.budget.pages else pages_max


def mark_unread(sources: list[Source], why: str) -> list[Source]:
    """Those of these sources (selected to be read) that the run did not read: marked skipped with `why`."""
    unread = [s for s in sources if not s.fetched and not s.duplicate and s.failure in ("", "cancelled")]
    for source in unread:  # a download the stop broke off ("cancelled") was not read either
        source.failure, source.skipped = "", why
    return unread


def left_undone(budget: Budget, reached: list[str], unread: list[Source], elapsed: float, tokens: int,
                read: int) -> str:
    """The report's closing section: which budget was reached and what the run did not do."""
    said = {"time": f"its time budget of {budget.seconds:g} s (after {elapsed:.1f} s)",
            "pages": f"its budget of {budget.pages} pages read ({read} read)",
            "tokens": f"its budget of {budget.llm_tokens:,} LLM tokens ({tokens:,} spent)"}
    what = (", so it stopped reading pages and wrote this report from what it had read." if read else
            ", so it stopped before reading any page.")
    lines = ["## Left undone", "", "This run reached " + " and ".join(said[r] for r in reached) + what]
    if "tokens" in reached and read:
        lines[-1] += " With no LLM tokens left, the report is an extractive brief."
    if unread:
        lines += ["", f"Not read ({len(unread)} selected result{'s' if len(unread) != 1 else ''}):"]
        lines += [f"- {s.title or s.url} — {s.url}" for s in unread]
    return "\n".join(lines)
