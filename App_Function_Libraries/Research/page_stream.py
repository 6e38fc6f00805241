"""Stages 4 to 6 as one stream: pages are fetched (downloaded) and their text extracted concurrently
(through the page cache), ranked in micro-batches as they arrive (all passages of a batch embedded in one
call), and each ranked page's notes are written by the LLM at once, so a slow page holds up only itself.

`load_page` is stage 4 for one URL (cache, fetch, extract); `read_pages` runs stages 4-6 over the selected
sources and fills in each Source's fetch outcome, passages and notes. Timings: "fetch" and "extract" are
spans of overlapping work (first start to last end), "rank" is time spent, "notes" a span.
"""
from __future__ import annotations

import dataclasses
import hashlib
import queue
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Callable, Protocol

from App_Function_Libraries.LLM.base import LLMClient
from App_Function_Libraries.Research.extract import ExtractionFailed, read_page_text, warm_extractor
from App_Function_Libraries.Research.fetch import PageFetcher
from App_Function_Libraries.Research.page_notes import passages_as_notes, write_notes
from App_Function_Libraries.Research.rank import RankSettings, rank_pages
from App_Function_Libraries.records import Page, Source
from App_Function_Libraries.Retrieval.embeddings import TextEncoder
from App_Function_Libraries.Retrieval.rerank import PairScorer


class PageCache(Protocol):
    """The page cache the stream reads and fills (DB/research_store.ResearchStore); best effort: any error it
    raises only means the page is fetched again, or not kept."""

    def get_page(self, url: str, max_age_seconds: float) -> Page | None: ...

    def put_page(self, page: Page) -> None: ...


class PageLog(Protocol):
    """The pages a durable run has read (Research/durable.py): one it has is not fetched again."""

    def get(self, url: str) -> Page | None: ...

    def put(self, url: str, page: Page) -> None: ...

POLL_SECONDS = 0.05
MAX_PARALLEL_LLM_CALLS = 8


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def load_page(url: str, fetcher: PageFetcher, cache: PageCache | None = None, cache_ttl: float = 0,
              cancel: threading.Event | None = None,
              on_extracting: Callable[[], None] | None = None,
              on_downloaded: Callable[[], None] | None = None) -> Page:
    """Stage 4 for one URL: the cached page when fresh, else fetched and its main text extracted in a parse
    worker (`on_downloaded` is called when the download is done and its text is to be extracted,
    `on_extracting` when a worker takes the downloaded page)."""
    cached = _cache_get(cache, url, cache_ttl)
    if cached is not None:
        return cached
    page = fetcher.fetch(url, cancel)
    out = Page(url=url, final_url=page.final_url or url, status=page.status)
    if page.error:
        out.failure = page.error
        return out
    if on_downloaded is not None:
        on_downloaded()
    try:
        read = read_page_text(page.body, page.content_type, page.header_charset, out.final_url,
                              fetcher.settings, on_extracting, cancel)
    except ExtractionFailed as exc:
        out.failure = str(exc)
        return out
    cut = f"cut at {fetcher.settings.max_bytes:,} bytes (larger than [fetch] max_bytes)" if page.truncated else ""
    out = dataclasses.replace(read, url=url, final_url=out.final_url, status=out.status,
                              content_hash=content_hash(read.text),
                              warning="; ".join(w for w in (cut, read.warning) if w))
    _cache_put(cache, out)
    return out


def _cache_get(cache: PageCache | None, url: str, ttl: float) -> Page | None:
    if cache is None or ttl <= 0:
        return None
    try:
        record = cache.get_page(url, ttl)
    except Exception:  # noqa: BLE001 - a broken cache never fails a research run; the page is fetched
        return None
    if record is None or not record.text:
        return None
    return Page(url=url, final_url=record.final_url or url, status=record.status, title=record.title,
                text=record.text, content_hash=record.content_hash or content_hash(record.text),
                warning=record.warning, from_cache=True)


def _cache_put(cache: PageCache | None, page: Page) -> None:
    if cache is None:
        return
    try:
        cache.put_page(dataclasses.replace(page, fetched_at=time.time()))
    except Exception:  # noqa: BLE001 - caching is best effort
        pass


def none_read(chosen: list[Source]) -> str:
    """Why the fetch stage failed as a whole (no chosen page could be read), in plain words."""
    offline = all(s.failure.startswith(("connection failed", "could not connect", "no address")) for s in chosen)
    return (f"none of the {len(chosen)} pages could be read" + (" — no internet?" if offline else "")
            + " (the sources table says why)")


def apply_loaded(source: Source, page: Page) -> None:
    """Record stage 4's outcome on the source."""
    source.fetched = not page.failure
    source.final_url = page.final_url
    source.status = page.status
    source.content_hash = page.content_hash
    source.failure, source.warning = page.failure, page.warning
    if page.title and not source.title:
        source.title = page.title


# ---------------------------------------------------------------- the stream

@dataclass
class StreamConfig:
    question: str
    fetcher: PageFetcher
    rank: RankSettings
    cache: PageCache | None = None
    cache_ttl: float = 0
    embedder: TextEncoder | None = None
    cross_encoder: PairScorer | None = None
    llm: LLMClient | None = None  # the LLM role "extraction" (named so in config); None: notes = top passages
    progress: Callable[[str, int, int], None] = lambda stage, done, total: None
    cancel: threading.Event | None = None
    page_log: PageLog | None = None  # a durable run's pages: read from it, each new one kept in it at once


@dataclass
class StreamReport:
    problems: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)


class _Clock:
    """Spans per stage, from the first start to the last end (the stages overlap in the stream); for
    ranking, which runs in one thread, the time actually spent."""

    def __init__(self):
        self.spans: dict[str, list[float]] = {}
        self.busy: dict[str, float] = {}
        self.lock = threading.Lock()

    def mark(self, stage: str, start: float, end: float) -> None:
        with self.lock:
            lo, hi = self.spans.get(stage, [start, end])
            self.spans[stage] = [min(lo, start), max(hi, end)]

    def add(self, stage: str, seconds: float) -> None:
        with self.lock:
            self.busy[stage] = self.busy.get(stage, 0.0) + seconds

    def timings(self) -> dict[str, float]:
        out = {k: round(hi - lo, 3) for k, (lo, hi) in self.spans.items()}
        out.update({k: round(v, 3) for k, v in self.busy.items()})
        return out


def read_pages(sources: list[Source], cfg: StreamConfig) -> StreamReport:
    """Stages 4-6 over these sources (fetched concurrently, ranked as they arrive, notes written at once)."""
    report, clock = StreamReport(), _Clock()
    arrived: queue.Queue = queue.Queue()
    watch = _Overdue(cfg.fetcher.settings.extract_timeout_seconds)
    counts = {"fetch": 0, "extract": 0, "rank": 0, "notes": 0}
    lock = threading.Lock()
    total = len(sources)

    def bump(stage: str) -> None:
        with lock:
            counts[stage] += 1
            cfg.progress(stage, counts[stage], total)

    def load(source: Source) -> None:
        started, downloaded = time.monotonic(), []

        def download_done() -> None:  # the text extraction begins
            downloaded.append(time.monotonic())
            clock.mark("fetch", started, downloaded[0])
            bump("fetch")

        page = load_source(source, cfg, lambda: watch.start(source, time.monotonic()), download_done)
        if downloaded:
            clock.mark("extract", downloaded[0], time.monotonic())
        else:  # from the page cache, or the download failed: no text extraction
            clock.mark("fetch", started, time.monotonic())
            bump("fetch")
        if watch.arrive(source):  # else it was already given up as overdue (and counted then)
            arrived.put((source, page))
            bump("extract")

    def notes_of(source: Source) -> None:
        started = time.monotonic()
        if not _cancelled(cfg.cancel):
            notes, problem = write_notes(cfg.llm, cfg.question, source)
            source.notes = notes
            if problem:
                with lock:
                    report.problems.append(problem)
        clock.mark("notes", started, time.monotonic())
        bump("notes")

    warm_extractor()
    _start_page_workers(sources, load, max(1, min(total, 4 * cfg.fetcher.settings.concurrency)), cfg.cancel)
    llm_pool = ThreadPoolExecutor(max_workers=MAX_PARALLEL_LLM_CALLS, thread_name_prefix="notes")
    try:
        pending = total
        while pending and not _cancelled(cfg.cancel):
            batch = _next_batch(arrived) + watch.give_up(time.monotonic(), bump)
            if not batch:
                continue
            pending -= len(batch)
            started = time.monotonic()
            ready = {id(s) for s in _rank_batch(batch, cfg, report.problems)}
            clock.add("rank", time.monotonic() - started)
            for source, _page in batch:
                bump("rank")
                if id(source) in ready and cfg.llm is not None:
                    llm_pool.submit(notes_of, source)
                else:
                    source.notes = passages_as_notes(source)
                    bump("notes")
        llm_pool.shutdown(wait=not _cancelled(cfg.cancel), cancel_futures=_cancelled(cfg.cancel))
    finally:
        llm_pool.shutdown(wait=False, cancel_futures=True)
    report.timings = clock.timings()
    return report


def _start_page_workers(sources: list[Source], load: Callable[[Source], None], workers: int,
                        cancel: threading.Event | None) -> None:
    """Daemon threads that load the sources, each taking the next one until none is left or the run is
    cancelled. Daemon threads, not a ThreadPoolExecutor: the interpreter joins an executor's threads at exit,
    so a page whose parser never returns would keep `python app.py research` from ever exiting."""
    todo: queue.Queue = queue.Queue()
    for source in sources:
        todo.put(source)

    def work() -> None:
        while not _cancelled(cancel):
            try:
                source = todo.get_nowait()
            except queue.Empty:
                return
            load(source)

    for i in range(workers):
        threading.Thread(target=work, name=f"page-{i}", daemon=True).start()


class _Overdue:
    """Pages whose text extraction has run past its deadline (from when a parse worker took the page;
    downloads have their own deadline in the fetcher). The worker itself is killed at that deadline
    (parse_sandbox.py); this is the backstop that keeps the run going should anything else in a page's
    loading hang. A given-up page is recorded as failed; its late result is dropped."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.started: dict[int, tuple[Source, float]] = {}
        self.given_up: set[int] = set()
        self.lock = threading.Lock()

    def start(self, source: Source, at: float) -> None:
        with self.lock:
            self.started[id(source)] = (source, at)

    def arrive(self, source: Source) -> bool:
        """False when the page was already given up."""
        with self.lock:
            self.started.pop(id(source), None)
            return id(source) not in self.given_up

    def give_up(self, now: float, bump: Callable[[str], None]) -> list[tuple[Source, Page]]:
        with self.lock:
            late = [(key, s) for key, (s, at) in self.started.items() if now - at > self.seconds]
            for key, _ in late:
                del self.started[key]
                self.given_up.add(key)
        for _ in late:
            bump("extract")  # its download was counted when it ended
        return [(s, Page(url=s.url, failure=f"gave up after {self.seconds:g} s reading the page's text "
                                          "([fetch] extract_timeout_seconds)"))
                for _, s in late]


def load_source(source: Source, cfg: StreamConfig, on_extracting: Callable[[], None] | None = None,
                on_downloaded: Callable[[], None] | None = None) -> Page:
    """_load_source, through the run's page log when it keeps one (a page read before a crash is not fetched
    again; a page cut short by a cancelled run is not kept)."""
    kept = cfg.page_log.get(source.url) if cfg.page_log is not None else None
    if kept is not None:
        return kept
    page = _load_source(source, cfg, on_extracting, on_downloaded)
    if cfg.page_log is not None and not _cancelled(cfg.cancel):
        cfg.page_log.put(source.url, page)
    return page


def _load_source(source: Source, cfg: StreamConfig, on_extracting: Callable[[], None] | None = None,
                 on_downloaded: Callable[[], None] | None = None) -> Page:
    """A source's page: the text found with it (a local source's passages, a paper's abstract), else its page
    downloaded and read; a paper's open-access PDF is read when it has one, its abstract when that fails."""
    hand = source.text_in_hand
    pdf = source.paper.pdf_url if source.paper is not None else ""
    if hand and not pdf:
        return _in_hand(source, hand, "abstract only: no open-access full text" if source.paper else "")
    page = load_page_safely(pdf or source.url, cfg, on_extracting, on_downloaded)
    if source.paper is not None and page.failure and hand:
        return _in_hand(source, hand, f"abstract only: the open-access PDF could not be read ({page.failure})")
    if source.paper is not None:
        source.paper.abstract_only = False
    return page


def _in_hand(source: Source, text: str, warning: str) -> Page:
    """The page of a source read from the text found with it (a paper's: its abstract)."""
    if source.paper is not None:
        source.paper.abstract_only = True
    return Page(url=source.url, final_url=source.url, text=text, content_hash=content_hash(text), warning=warning)


def load_page_safely(url: str, cfg: StreamConfig, on_extracting: Callable[[], None] | None = None,
                     on_downloaded: Callable[[], None] | None = None) -> Page:
    """load_page, with any unexpected failure (a bug, or hostile bytes breaking a library) recorded as this
    page's failure: one page never stops the run, and the stream always hears back about every page."""
    try:
        return load_page(url, cfg.fetcher, cfg.cache, cfg.cache_ttl, cfg.cancel, on_extracting, on_downloaded)
    except Exception as exc:  # noqa: BLE001 - kept as the source's failure, with its type and first line
        return Page(url=url, failure=f"could not read the page: unexpected {_one_line(exc)}")


def _cancelled(cancel: threading.Event | None) -> bool:
    return cancel is not None and cancel.is_set()


def _next_batch(arrived: queue.Queue) -> list[tuple[Source, Page]]:
    """Every page that has arrived (waiting briefly for the first)."""
    try:
        batch = [arrived.get(timeout=POLL_SECONDS)]
    except queue.Empty:
        return []
    while True:
        try:
            batch.append(arrived.get_nowait())
        except queue.Empty:
            return batch


def _rank_batch(batch: list[tuple[Source, Page]], cfg: StreamConfig, problems: list[str]) -> list[Source]:
    """Record each page's outcome and rank the readable ones together; returns the sources that have text.
    When the models fail (out of memory, a broken cross-encoder), the batch is ranked by BM25 alone and the
    problem recorded; if even that fails, that is those pages' failure, and the stream goes on."""
    readable = []
    for source, page in batch:
        apply_loaded(source, page)
        if page.text:
            readable.append((source, page))
    if not readable:
        return []
    texts = [p.text for _, p in readable]
    try:
        ranked = rank_pages(cfg.question, texts, cfg.rank, cfg.embedder, cfg.cross_encoder)
    except Exception as exc:  # noqa: BLE001 - recorded; BM25 alone still ranks the pages
        problems.append(f"passage ranking fell back to BM25 alone: {_one_line(exc)}")
        try:
            ranked = rank_pages(cfg.question, texts, cfg.rank)
        except Exception as again:  # noqa: BLE001 - a bug on hostile text costs these pages, not the run
            for source, _ in readable:
                source.fetched, source.failure = False, f"could not rank the page's passages: {_one_line(again)}"
            return []
    for (source, _), passages in zip(readable, ranked):
        source.passages = passages
    return [s for s, _ in readable]


def _one_line(exc: Exception) -> str:
    detail = " ".join(str(exc).split())[:150]
    return f"{type(exc).__name__}" + (f" ({detail})" if detail else "")
