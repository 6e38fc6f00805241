"""Dig deeper: more rounds of research aimed only at what a report lacks.

    dig_deeper(result, rounds=2) -> a new ResearchResult (same id) with more sources, a rewritten report and
                                    one record per round in `rounds`

Each round:
  1 gaps     with an LLM, what the report says is missing or uncertain and search queries for those gaps only
             (a JSON object, parsed strictly, 3 tries); without one (or when that fails) the least covered
             sub-questions' missing words (coverage.py). A query searched before is never searched again.
  2 search   the new queries on the run's engines.
  3 new      results whose address (normalized, asked-for or final) the run already has are dropped, so no
             page is fetched twice.
  4 read     relevance, fetch, passages and notes for the new results only (at most pages_max).
  5 number   old sources keep their numbers; new sources with notes get the next ones.
  6 rewrite  the report is written again from old and new sources (the LLM sees the report it rewrites) and
             every [n] is verified against the whole list.
The round's record (records.Round): round, queries, gaps, considered (new results), added ([{n, url, title}]), change
(added and removed sentences, a unified diff), stop (why digging stopped after it, "" when it did not),
seconds. Digging stops when a round adds no numbered source, finds no gap to search, is cancelled, or after
the rounds asked for. A round cut short by a cancel (its stop "cancelled", nothing rewritten) is the one the next
dig deeper goes on with: its queries and the results it found are kept, not searched again, and it is read and
rewritten then. `on_round` sees the result after each finished round (a durable run commits it there:
Research/durable.py), `page_log` keeps each page as it is read (a durable run's: nothing read twice).
"""
from __future__ import annotations

import copy
import difflib
import re
import threading
import time
from typing import Any, Callable

from App_Function_Libraries.LLM import prompts
from App_Function_Libraries.LLM.base import LLMUnavailable
from App_Function_Libraries.LLM.structured import StructuredOutputError, after_tries, ask_structured, extract_json
from App_Function_Libraries.Retrieval.citations import CITATION_GROUP_RE
from App_Function_Libraries.Retrieval.passages import split_sentences
from App_Function_Libraries.Research import coverage
from App_Function_Libraries.Research.follow_ups import searched_queries, shown_report
from App_Function_Libraries.Research.errors import NoReport
from App_Function_Libraries.Research.pipeline import (search_sources, stage_follow_ups, stage_number, stage_pages,
                                                      stage_relevance, stage_report, stage_verify)
from App_Function_Libraries.Research.params import ResearchParams
from App_Function_Libraries.Research.read_further import known_addresses
from App_Function_Libraries.Research.run import ProgressFn, Run, Services
from App_Function_Libraries.records import ResearchResult, Round, Source, counted
from App_Function_Libraries.Research.subqueries import dedupe_queries
from App_Function_Libraries.Search.urls import normalize_url

MAX_ROUNDS = 5
MAX_GAP_QUERIES = 3
TRIES = 3
MAX_GAP_CHARS = 200
MAX_CHANGED_SENTENCES = 40
MAX_DIFF_LINES = 200


def dig_deeper(result: ResearchResult, rounds: int = 1, params: ResearchParams | None = None,
               on_progress: ProgressFn | None = None, cancel: threading.Event | None = None, *,
               on_report_delta: Callable[[str], None] | None = None, services: Services | None = None,
               on_round: Callable[[ResearchResult], None] | None = None, page_log=None) -> ResearchResult:
    """Up to `rounds` (1..5) rounds on `result` (a round cut short by a cancel is gone on with first, and
    counts as one of them); `result` itself is left as it was."""
    if not result.report_markdown.strip():
        raise NoReport("there is no report to dig deeper into; research the question first")
    params = params or ResearchParams.from_dict(result.params)
    params.check_report_options()
    services = services or Services.from_settings(use_llm=params.use_llm)
    work = ResearchResult.from_dict(copy.deepcopy(result.to_dict()))
    if cut_short(work) is not None:  # going on with it: the cancel is over
        work.errors = [e for e in work.errors if not e.startswith("cancelled")]
    before_usage, before_timings = work.llm_usage, dict(work.timings)
    run = Run(work, services, params, on_progress, cancel)
    run.page_log = page_log
    grew = False
    for _ in range(max(1, min(int(rounds), MAX_ROUNDS))):
        record = cut_short(work)
        carried = [s for s in work.sources if record and s.round == record.round and s.n is None]
        if record is None:
            record = Round(round=len(work.rounds) + 1)
            work.rounds.append(record)  # the report stage writes along every round's queries, this one's too
        _one_round(run, record, on_report_delta, carried)
        grew = grew or bool(record.added)
        if on_round is not None and cut_short(work) is None:
            work.llm_usage = add_usage(before_usage, run.usage())
            on_round(work)
        if record.stop:
            break
    if grew and not run.cancelled("follow_ups"):
        stage_follow_ups(run)
    run.finish()
    work.llm_usage = add_usage(before_usage, work.llm_usage)
    work.timings = {**before_timings, "total": round(before_timings.get("total", 0) + work.timings["total"], 3)}
    return work


def cut_short(result: ResearchResult) -> Round | None:
    """The last round when a cancel cut it short before its rewrite (dig deeper goes on with it), else None."""
    last = result.rounds[-1] if result.rounds else None
    return last if last is not None and last.stop == "cancelled" and not last.change else None


def _one_round(run: Run, record: Round, on_delta, carried: list[Source]) -> None:
    """One round; a round cut short before (`record.stop` "cancelled") goes on with its queries and the
    results it found (`carried`), its time added up."""
    started = time.monotonic() - (record.seconds if record.stop else 0.0)
    label = f"round {record.round}"
    if record.stop:
        record.stop = ""
        queries = counted(len(record.queries), "query", "queries")
        run.progress("subqueries", 1, 1, f"{label}: going on with its {queries}")
    else:
        run.progress("subqueries", 0, 1, f"{label}: finding gaps")
        record.gaps, record.queries = find_gaps(run)
        run.progress("subqueries", 1, 1, f"{label}: {counted(len(record.queries), 'new query', 'new queries')}")
    record.stop = _search_and_read(run, record, carried) or _rewrite(run, record, on_delta)
    record.seconds = round(time.monotonic() - started, 3)


def _search_and_read(run: Run, record: Round, carried: list[Source]) -> str:
    """Steps 2-4 (the search only when nothing was `carried` over from the round cut short); returns why the
    round stops here ('' to go on to the rewrite)."""
    if not record.queries:
        return "no gap left to search" if not record.gaps else "every query for the gaps was searched before"
    if run.cancelled("search"):
        return "cancelled"
    found = carried or _search(run, record)
    if not found:
        return "the searches found only pages already read"
    for source in carried:  # judged and read again (a kept page is not fetched again)
        source.skipped = ""
    if not run.cancelled("relevance"):
        stage_relevance(run, found, aspects=record.queries)
    if not run.cancelled("fetch"):
        stage_pages(run, found)
    if run.cancelled("report"):
        return "cancelled"
    added = stage_number(run, found)
    record.added = [{"n": s.n, "url": s.url, "title": s.title} for s in added]
    return "" if added else "no new result was relevant and readable"


def _search(run: Run, record: Round) -> list[Source]:
    known, params = known_addresses(run.result.sources), run.params
    found = search_sources(run, params, record.queries,
                           lambda results: [r for r in results if normalize_url(r.url) not in known]
                           [:params.result_max])
    for source in found:
        source.round = record.round
    record.considered = len(found)
    run.result.sources += found
    return found


def _rewrite(run: Run, record: Round, on_delta) -> str:
    """Steps 5-6: the report rewritten from every numbered source and verified; its change recorded."""
    before = run.result.report_markdown
    run.timed("report", lambda: stage_report(run, on_delta))
    run.timed("verify", lambda: stage_verify(run))
    record.change = report_change(before, run.result.report_markdown)
    return "cancelled" if run.cancelled("follow_ups") else ""


# ---------------------------------------------------------------- gaps

def find_gaps(run: Run) -> tuple[list[str], list[str]]:
    """(gaps, new queries) for the report as it stands."""
    result = run.result
    searched = searched_queries(result)
    subs = list(result.sub_queries) + [q for r in result.rounds for q in r.queries]
    llm = run.llm("subquery") or run.llm("final_answer")
    if llm is None:
        return coverage.gap_queries(result.question, subs, result.sources, searched, MAX_GAP_QUERIES)
    failure: list[str] = []

    def fallback(exc: Exception) -> tuple[list[str], list[str]]:
        failure.append(f"dig deeper: the LLM named no usable gaps{after_tries(exc, TRIES)} ({exc}); "
                       "searched the least covered sub-questions instead")
        return coverage.gap_queries(result.question, subs, result.sources, searched, MAX_GAP_QUERIES)

    messages = prompts.gap_messages(result.question, shown_report(result.report_markdown), searched,
                                    MAX_GAP_QUERIES, prompts.new_data_tag())
    try:
        (gaps, queries), ok = ask_structured(llm, messages, parse_gaps, tries=TRIES, fallback=fallback,
                                             temperature=0.0, json_mode=False)
    except LLMUnavailable:  # the run gave up on the server and says so once
        return coverage.gap_queries(result.question, subs, result.sources, searched, MAX_GAP_QUERIES)
    result.errors += failure
    if ok:
        queries = dedupe_queries(queries, exclude=searched)[:MAX_GAP_QUERIES]
    return gaps, queries


def parse_gaps(text: str) -> tuple[list[str], list[str]]:
    """{"gaps": [str], "queries": [str]} strictly (both may be empty: nothing is missing)."""
    value = extract_json(text)
    if not isinstance(value, dict) or not isinstance(value.get("gaps"), list) \
            or not isinstance(value.get("queries"), list):
        raise StructuredOutputError('expected {"gaps": [...], "queries": [...]}')
    lists = []
    for key in ("gaps", "queries"):
        items = value[key]
        if not all(isinstance(i, str) for i in items):
            raise StructuredOutputError(f"{key} must be strings")
        lists.append([" ".join(i.split())[:MAX_GAP_CHARS] for i in items if i.strip()])
    if lists[0] and not lists[1]:
        raise StructuredOutputError("gaps named but no query written for them")
    return lists[0], lists[1]


# ---------------------------------------------------------------- what changed

def _sentences(markdown: str) -> list[str]:
    out = []
    for line in markdown.splitlines():
        body = re.sub(r"^\s*(?:[-*+]|\d+[.)]|#+|>|\|)\s*", "", line).strip()
        out += [" ".join(s.split()) for s in split_sentences(body) if s.strip()] if body else []
    return out


def _key(sentence: str) -> str:
    return " ".join(CITATION_GROUP_RE.sub("", sentence).lower().split())


def report_change(before: str, after: str) -> dict[str, Any]:
    """Sentences added and removed (citation marks ignored when comparing) and a unified diff of the lines."""
    old, new = _sentences(before), _sentences(after)
    old_keys, new_keys = {_key(s) for s in old}, {_key(s) for s in new}
    diff = list(difflib.unified_diff(before.splitlines(), after.splitlines(), "before", "after", lineterm="", n=1))
    if len(diff) > MAX_DIFF_LINES:
        diff = diff[:MAX_DIFF_LINES] + [f"… {len(diff) - MAX_DIFF_LINES} more lines"]
    return {"added_sentences": [s for s in new if _key(s) not in old_keys][:MAX_CHANGED_SENTENCES],
            "removed_sentences": [s for s in old if _key(s) not in new_keys][:MAX_CHANGED_SENTENCES],
            "diff": "\n".join(diff)}


def round_summary(record: Round) -> str:
    """One line per round, for the command line and the UI."""
    parts = [f"round {record.round}"]
    queries = record.queries
    parts.append("searched " + ", ".join(f'"{q}"' for q in queries) if queries else "no new query")
    if queries:
        parts.append(f"{record.considered} new result(s)")
    if record.added:
        parts.append("added " + ", ".join(f"[{a['n']}] {a.get('title') or a['url']}" for a in record.added))
        change = record.change
        parts.append(f"report +{len(change.get('added_sentences', []))}/"
                     f"-{len(change.get('removed_sentences', []))} sentences")
    if record.stop:
        parts.append(f"stopped: {record.stop}")
    return "; ".join(parts)


def add_usage(before: dict[str, Any], more: dict[str, Any]) -> dict[str, Any]:
    """Two llm_usage records added up (calls and tokens, per role and in all; models listed once)."""
    out: dict[str, Any] = {k: (before or {}).get(k, 0) + (more or {}).get(k, 0)
                           for k in ("calls", "prompt_tokens", "completion_tokens")}
    roles: dict[str, dict[str, int]] = {}
    for usage in (before or {}, more or {}):
        for role, counts in (usage.get("roles") or {}).items():
            mine = roles.setdefault(role, {})
            for k, v in counts.items():
                mine[k] = mine.get(k, 0) + v
    out["roles"] = roles
    out["models"] = list(dict.fromkeys(list((before or {}).get("models") or []) + list((more or {}).get("models") or [])))
    return out
