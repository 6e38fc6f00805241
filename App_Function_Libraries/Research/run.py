"""One research run and what it talks to: the record every stage takes (`Run`), the services behind it
(`Services`: settings, LLM clients, fetcher, page cache, search, embedding model) and its progress events.

Every stage of Research/pipeline.py takes the run (and what it works on, such as the sources to read), never the
params beside it: `run.params` are its options, `run.result` what it has found so far, `run.progress` /
`run.timed` / `run.cancelled` its bookkeeping. Dig deeper (Research/dig_deeper.py) and durable runs
(Research/durable.py) make a Run and call the same public stages.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

from App_Function_Libraries.config import LLM_ROLES, Settings, get_settings
from App_Function_Libraries.LLM.base import LLMClient
from App_Function_Libraries.LLM.breaker import LLMHealth, guarded
from App_Function_Libraries.Research.fetch import PageFetcher
from App_Function_Libraries.Research.page_stream import PageCache
from App_Function_Libraries.Research.params import ResearchParams
from App_Function_Libraries.Research.rank import MemoEmbedder
from App_Function_Libraries.records import ResearchResult, Source
from App_Function_Libraries.Retrieval.embeddings import ModelOnFirstUse, TextEncoder
from App_Function_Libraries.Search.many import MultiSearch, search_many
from App_Function_Libraries.Search.options import SearchOptions

LOAD_STAGE = "embedding_model"  # waiting for the embedding model to load: where a stage first needs it


@dataclass
class ProgressEvent:
    stage: str  # one of STAGES, or "done"
    done: int
    total: int
    message: str = ""
    failed: bool = False  # the stage failed as a whole; message says why, in plain words
    skipped: bool = False  # the stage had nothing to do in this run; message says why
    in_words: bool = False  # the message says how the stage went, its time included: no count, no time beside it

    def text(self) -> str:
        """The event as one line, as the CLI and MCP progress show it: "search: 3/3 (9 results)", "search: failed
        (why)"; a stage said in words or skipped shows only its words, never a count ("embedding_model: ready
        (loaded before this run)", "embedding_model: skipped: embeddings off"), as the Web Search board does."""
        if self.in_words or self.skipped:
            return f"{self.stage}: {self.message or 'skipped'}"
        count = "failed" if self.failed else f"{self.done}/{self.total}"
        return f"{self.stage}: {count}" + (f" ({self.message})" if self.message else "")


ProgressFn = Callable[[ProgressEvent], None]


class SearchFn(Protocol):
    """How the pipeline searches (Search/many.search_many, or a test's stand-in): every query on every engine,
    merged; `cancel` set breaks it off (every request under way ends at once)."""

    def __call__(self, engines: list[str], queries: list[str], options: SearchOptions, *,
                 settings: Settings | None = None, use_cache: bool = True,
                 cancel: threading.Event | None = None) -> MultiSearch: ...


@dataclass
class Services:
    """What the pipeline talks to. Built from settings by default; tests and benchmarks may swap parts."""
    settings: Settings
    llms: dict[str, LLMClient | None] = field(default_factory=dict)
    fetcher: PageFetcher | None = None
    page_cache: PageCache | None = None  # default: the research store, when [fetch] cache_ttl_seconds > 0
    search: SearchFn | None = None  # default: Search/many.search_many
    embedder_factory: Callable[[], TextEncoder] | None = None  # default: Retrieval/embeddings.get_embedder
    _embedder: TextEncoder | None = None
    _embedder_lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def from_settings(cls, settings: Settings | None = None, use_llm: bool = True) -> "Services":
        from App_Function_Libraries.LLM.registry import get_llm
        settings = settings or get_settings()
        llms = {role: (get_llm(role, settings) if use_llm else None) for role in LLM_ROLES}
        return cls(settings=settings, llms=llms, fetcher=PageFetcher(settings.fetch))

    def embedder_ready(self) -> bool:
        """Whether embedder() answers at once: the model is loaded (by an earlier run, or a preload)."""
        if self._embedder is not None:
            return True
        if self.embedder_factory is not None or not self.settings.research.use_embeddings:
            return False
        from App_Function_Libraries.Retrieval.embeddings import get_embedder
        return get_embedder(self.settings).loaded

    def embedder(self) -> TextEncoder | None:
        """The embedding model (loaded once, in whichever thread asks first), or None when turned off."""
        if not self.settings.research.use_embeddings:
            return None
        with self._embedder_lock:
            if self._embedder is None:
                if self.embedder_factory is not None:
                    model = self.embedder_factory()
                else:
                    from App_Function_Libraries.Retrieval.embeddings import get_embedder
                    model = get_embedder(self.settings)
                model.encode(["warm up"])  # the weights and the first call's set-up, now
                self._embedder = model  # only now: embedder_ready() means loaded
            return self._embedder

    def warm_up(self, sources: list[Source]) -> threading.Thread | None:
        """Start loading the embedding model in the background once there are sources to rank (an LLM's
        relevance check or the page downloads overlap the load); none for a run that found nothing."""
        if not sources or not self.settings.research.use_embeddings or self.embedder_ready():
            return None

        def load():
            try:
                self.embedder()
            except Exception:  # noqa: BLE001 - the stage that needs it reports the failure
                pass
        thread = threading.Thread(target=load, name="embedder-warm-up", daemon=True)
        thread.start()
        return thread

    def page_store(self) -> PageCache | None:
        if self.page_cache is None and self.settings.fetch.cache_ttl_seconds > 0:
            from App_Function_Libraries.DB.research_store import get_research_store
            self.page_cache = get_research_store(self.settings)
        return self.page_cache

    def search_fn(self) -> SearchFn:
        if self.search is None:
            self.search = search_many
        return self.search


class Run:
    """One run's bookkeeping: progress, timings, cancellation, LLM usage, the health of its LLM servers."""

    def __init__(self, result: ResearchResult, services: Services, params: ResearchParams,
                 on_progress: ProgressFn | None, cancel: threading.Event | None):
        self.result, self.services, self.params = result, services, params
        self.on_progress, self.cancel = on_progress, cancel
        self.started = time.monotonic()
        self.finished = False  # set by finish(): no progress is reported after it
        self.health = LLMHealth()
        self.llms = guarded(dict(services.llms), self.health) if params.use_llm else {}
        self._memo: MemoEmbedder | None = None
        self.search_failure = ""  # why no search answered, in plain words ("" once one did)
        self.searched_any = False  # a search of this run answered (even with no results)
        self.usage_before = {role: _usage(c) for role, c in self.llms.items() if c is not None}
        self.page_log = None  # a durable run's pages (Research/durable.py): read once, kept as they are read
        self.model_reported = False  # LOAD_STAGE has said how the embedding model was had (loaded, ready, skipped)

    def llm(self, role: str) -> LLMClient | None:
        """The role's client; None without an LLM, or once the run has given up on its server."""
        client = self.llms.get(role)
        return None if self.health.is_down(client) else client

    def embedder(self) -> MemoEmbedder | None:
        """The run's embedder (None when embeddings are turned off: LOAD_STAGE then says it was skipped, where a
        stage first asks for it): each text is encoded once in the whole run, and the model loads when the first
        text is encoded."""
        if not self.services.settings.research.use_embeddings:
            self._skip_model("embeddings off")
        elif self._memo is None:
            self._memo = MemoEmbedder(ModelOnFirstUse(self.load_embedder))
        return self._memo

    def _skip_model(self, why: str) -> None:
        if not self.model_reported and not self.stopped():
            self.model_reported = True
            self.progress(LOAD_STAGE, 0, 0, f"skipped: {why}", skipped=True)

    def load_embedder(self) -> TextEncoder:
        """The embedding model; when it is not loaded yet, the wait shows as the stage LOAD_STAGE (progress and
        timing); when it is, LOAD_STAGE says it was ready."""
        self.model_reported = True
        if self.services.embedder_ready():
            self.progress(LOAD_STAGE, 1, 1, "ready (loaded before this run)", in_words=True)
            return self.services.embedder()
        self.progress(LOAD_STAGE, 0, 1, "loading the embedding model", in_words=True)
        t0 = time.monotonic()
        model = self.services.embedder()
        waited = self.result.timings[LOAD_STAGE] = round(time.monotonic() - t0, 3)  # said as recorded
        self.progress(LOAD_STAGE, 1, 1, f"loaded in {waited:.1f} s", in_words=True)
        return model

    def progress(self, stage: str, done: int, total: int, message: str = "", failed: bool = False,
                 skipped: bool = False, in_words: bool = False) -> None:
        if self.on_progress and not self.finished:  # a page broken off by a stop may end after the run
            self.on_progress(ProgressEvent(stage, done, total, message, failed, skipped, in_words))

    def stopped(self) -> bool:
        """The run was told to stop (cancelled, or its budget reached); unlike cancelled(), notes nothing."""
        return self.cancel is not None and self.cancel.is_set()

    def cancelled(self, stage: str) -> bool:
        if self.cancel is not None and self.cancel.is_set():
            if not any(e.startswith("cancelled") for e in self.result.errors):
                self.result.errors.append(f"cancelled during {stage}")
            return True
        return False

    def timed(self, stage: str, fn: Callable[[], Any], add: bool = False) -> Any:
        """fn(), its seconds kept as the stage's timing (`add`: added to the stage's earlier timing)."""
        t0, earlier = time.monotonic(), self.result.timings.get(stage, 0.0) if add else 0.0
        try:
            return fn()
        finally:
            self.result.timings[stage] = round(earlier + time.monotonic() - t0, 3)

    def usage(self) -> dict[str, Any]:
        """Calls and tokens this run has spent so far, per role and in all."""
        return usage_delta(self.llms, self.usage_before)

    def finish(self) -> ResearchResult:
        self.result.timings["total"] = round(time.monotonic() - self.started, 3)
        self.result.llm_usage = self.usage()
        notes = self.health.notes("so this report is extractive" if self.result.mode == "extractive"
                                  else "for the rest of this run")
        self.result.errors[:0] = [n for n in notes if n not in self.result.errors]
        self._skip_model("embeddings off" if not self.services.settings.research.use_embeddings
                         else "nothing to encode")
        self.progress("done", 1, 1)
        self.finished = True
        return self.result



def _usage(client: LLMClient) -> dict[str, int]:
    return client.usage.as_dict()


def usage_delta(llms: dict[str, LLMClient | None], before: dict[str, dict[str, int]]) -> dict[str, Any]:
    """Calls and tokens this run spent, per role and in all (clients shared by roles counted once)."""
    out: dict[str, Any] = {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "roles": {}, "models": []}
    seen: set[int] = set()
    for role, client in llms.items():
        if client is None:
            continue
        now, was = _usage(client), before.get(role, {})
        delta = {k: now[k] - was.get(k, 0) for k in now}
        out["roles"][role] = delta
        if client.describe() not in out["models"]:
            out["models"].append(client.describe())
        if id(client) in seen:
            continue
        seen.add(id(client))
        for k in ("calls", "prompt_tokens", "completion_tokens"):
            out[k] += delta[k]
    return out
