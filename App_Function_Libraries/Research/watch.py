"""Watchlists: a saved research re-run on a schedule, reporting only what is new.

A watch keeps what its runs have read (normalized URL, content hash, passages; seeded from the watched report).
Each watched run follows the report's plan with the caches off (the pages are read as they are now); before the
report is written, a source read before with the same content is set aside, so the report is written from new
and changed sources only; it opens with "New since <date>": the new sources, the changed ones, and their new
findings (sentences not in what was read before), each cited. Nothing new: a short "Nothing new since <date>".
`watch run` (Research/watch.py via quarry.watch) runs what is due; the operating system's scheduler (cron, a
systemd user timer; Docs/runs.md) calls it. A run that found something new notifies (Research/notify.py).
"""
from __future__ import annotations

import dataclasses
import re
import time
from dataclasses import dataclass, field
from typing import Any

from App_Function_Libraries.records import ResearchResult, Source
from App_Function_Libraries.Research.errors import BadSchedule
from App_Function_Libraries.Retrieval.passages import split_sentences
from App_Function_Libraries.Search.urls import normalize_url

EVERY = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([smhdw]?)\s*", re.IGNORECASE)
UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
MIN_EVERY_SECONDS = 60
SEEN_UNCHANGED = "seen before, unchanged: left out of this watched run's report"
MAX_FINDINGS_PER_SOURCE = 2


def parse_every(text: str) -> float:
    """'1d', '12h', '30m', '2w', '90s' or seconds as a number -> seconds; BadSchedule (one line) otherwise."""
    m = EVERY.fullmatch(str(text or ""))
    if not m:
        raise BadSchedule(f"--every {text!r} is not understood; use a number with s, m, h, d or w (e.g. 1d, 12h)")
    seconds = float(m.group(1)) * UNITS[m.group(2).lower()]
    if seconds < MIN_EVERY_SECONDS:
        raise BadSchedule(f"--every must be at least {MIN_EVERY_SECONDS} seconds")
    return seconds


def when(epoch: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(epoch))


def url_key(source: Source) -> str:
    return normalize_url(source.url)


def seen_of(sources: list[Source], pages: dict[str, dict[str, Any]] | None = None) -> dict[str, dict[str, Any]]:
    """What these sources give a watch to remember: for each one read, its content hash and its text (the page's
    whole text from the run's kept pages when there, else its passages)."""
    pages = pages or {}
    return {url_key(s): {"content_hash": s.content_hash,
                         "passages": [pages[s.url]["text"]] if pages.get(s.url, {}).get("text")
                         else [p.text for p in s.passages]}
            for s in sources if s.fetched and s.content_hash}


@dataclass
class WatchHooks:
    """durable.RunHooks of a watched run: sets aside the sources seen unchanged; opens the report with what is new."""
    seen: dict[str, dict[str, Any]]
    since: float
    new: list[Source] = field(default_factory=list)
    changed: list[Source] = field(default_factory=list)
    findings: list[str] = field(default_factory=list)  # "sentence [n]"

    def before_report(self, run) -> None:
        for source in run.result.sources:
            if not (source.fetched and source.content_hash and source.notes.strip()):
                continue
            before = self.seen.get(url_key(source))
            if before is None:
                self.new.append(source)
            elif before["content_hash"] != source.content_hash:
                self.changed.append(source)
            else:
                source.notes, source.skipped = "", SEEN_UNCHANGED

    def after_report(self, run) -> None:
        result = run.result
        if not self.new and not self.changed:
            result.report_markdown = (f"Nothing new since {when(self.since)}: every source this watch read was "
                                      "read before, unchanged.")
            return
        old = {id(s): set(split_sentences(" ".join(self.seen[url_key(s)]["passages"]))) for s in self.changed}
        lines = [f"## New since {when(self.since)}", ""]
        if self.new:
            lines += ["New sources:"] + [f"- {s.title or s.url} — {s.final_url or s.url} (source {s.n})"
                                         for s in self.new if s.n is not None] + [""]
        if self.changed:
            lines += ["Changed since then:"] + [f"- {s.title or s.url} — {s.final_url or s.url} (source {s.n})"
                                                for s in self.changed if s.n is not None] + [""]
        for source in self.new + self.changed:
            if source.n is None:  # the same page as another source: not numbered
                continue
            sentences = [t for p in source.passages for t in split_sentences(p.text)]
            fresh = [_without_title(t, source.title) for t in sentences if t not in old.get(id(source), set())]
            self.findings += [f"{t} [{source.n}]" for t in list(dict.fromkeys(fresh))[:MAX_FINDINGS_PER_SOURCE]]
        lines += ["New or changed findings:"] + [f"- {f}" for f in self.findings]
        result.report_markdown = "\n".join(lines) + "\n\n---\n\n" + result.report_markdown


def _without_title(sentence: str, title: str) -> str:
    """A passage's first sentence carries the page's heading before it (no full stop between): left out."""
    rest = sentence[len(title):].strip() if title and sentence.startswith(title + " ") else ""
    return rest or sentence


@dataclass
class WatchOutcome:
    watch_id: str
    run_id: str = ""
    new_sources: int = 0
    changed_sources: int = 0
    findings: list[str] = field(default_factory=list)
    notified: bool = False
    problem: str = ""  # the run failed, or the notification did
    report_markdown: str = ""

    @property
    def nothing_new(self) -> bool:
        return not self.problem and not (self.new_sources or self.changed_sources)

    def summary(self) -> str:
        if self.problem and not self.run_id:
            return f"watch {self.watch_id[:8]}: failed: {self.problem}"
        said = ("nothing new" if self.nothing_new else
                f"{self.new_sources} new, {self.changed_sources} changed source(s)"
                + ("; notified" if self.notified else ""))
        return f"watch {self.watch_id[:8]}: run {self.run_id[:8]}: {said}" + (
            f" ({self.problem})" if self.problem else "")


def run_watch(watch, settings, *, services=None, on_progress=None, cancel=None, resume=None) -> WatchOutcome:
    """Run one watch now (or, with `resume`, a run_store.RunRecord of it, continue that run): its plan again
    (caches off), only what is new reported, saved, linked, notified."""
    from App_Function_Libraries.DB.research_store import get_research_store
    from App_Function_Libraries.DB.run_store import get_run_store
    from App_Function_Libraries.Research import notify
    from App_Function_Libraries.Research.durable import execute
    from App_Function_Libraries.Research.params import ResearchParams
    from App_Function_Libraries.Research.plan import ResearchPlan
    store = get_run_store(settings)
    params = dataclasses.replace(ResearchParams.from_dict(watch.params), use_cache=False, follow_up_count=0)
    plan = ResearchPlan.from_dict(watch.plan) if watch.plan else None
    since = watch.last_run_at or watch.created_at
    hooks = WatchHooks(store.seen(watch.id), since)
    outcome = WatchOutcome(watch.id)
    try:
        result: ResearchResult = execute(watch.question, params, plan=plan, store=store, hooks=hooks, resume=resume,
                                         watch_id=watch.id, on_progress=on_progress, cancel=cancel,
                                         services=services)
        if result.searched_nothing:  # no report: the watch says why and saves nothing
            outcome.problem = f"nothing could be searched: {result.stage_failures['search']}"
            return outcome
        seen = seen_of(result.sources, store.run_pages(result.id))
        get_research_store(settings).save_research(result)
        store.set_status(result.id, "done")
    except Exception as exc:  # noqa: BLE001 - one watch failing does not stop the others
        outcome.problem = " ".join(str(exc).split()) or type(exc).__name__
        return outcome
    outcome.run_id, outcome.report_markdown = result.id, result.report_markdown
    outcome.new_sources, outcome.changed_sources = len(hooks.new), len(hooks.changed)
    outcome.findings = list(hooks.findings)
    if not outcome.nothing_new:
        notice = notify.compose(watch.question, when(since), outcome.findings, outcome.new_sources,
                                outcome.changed_sources, result.id)
        failed = notify.send(notice, settings)
        outcome.notified = bool(notify.notify_urls(settings)) and not failed
        outcome.problem = failed
    store.record_watch_run(watch.id, result.id, seen, outcome.new_sources, outcome.changed_sources,
                           outcome.notified)
    return outcome
