"""Durable research runs: the pipeline's stages run one by one, each stage's output committed to the run store
(DB/run_store.py) as the stage completes, each page kept as soon as it is read. A run that was interrupted (its
process killed, the machine off) or cancelled resumes from its last completed stage: what it has searched is
not searched again, a page it has read is not fetched again.

Steps (STEPS): subqueries (or the given plan), search (search_plan: each query on its engines), relevance,
pages (stages 4-6: fetch, extract, rank, notes), report, verify, follow_ups. The run follows a plan
(Research/plan.py; made from its sub-queries when none is given) and a budget (Research/budget.py): when the
budget is reached it stops reading pages, writes the report from what it has and adds what was left undone.
`hooks` (a watched run's, Research/watch.py) see the run before the report is written and after.
Dig-deeper rounds asked for with the run (`rounds`, kept with it) follow its report (`dig_rounds`): each finished
round is committed (step ROUNDS), so a resumed run goes on at the next round; a round cut short by a cancel is
committed as it stands (its results kept) and gone on with on resume; every page read is kept at once.
"""
from __future__ import annotations

import dataclasses
import threading
from typing import Any, Callable, Protocol

from App_Function_Libraries.records import Page, ResearchResult
from App_Function_Libraries.Research.dig_deeper import cut_short, dig_deeper
from App_Function_Libraries.Research.budget import Budget, BudgetWatch, left_undone, mark_unread
from App_Function_Libraries.Research.params import ResearchParams
from App_Function_Libraries.Research.errors import EmptyQuestion
from App_Function_Libraries.Research.pipeline import (note_search_failure, read_further, stage_follow_ups,
                                                      stage_number, stage_pages, stage_relevance, stage_report,
                                                      stage_subqueries, stage_verify)
from App_Function_Libraries.Research.plan import ResearchPlan, plan_from, search_plan
from App_Function_Libraries.Research.run import ProgressFn, Run, Services

STEPS = ("subqueries", "search", "relevance", "pages", "report", "verify", "follow_ups")
STOPPABLE = ("search", "relevance", "pages")
ROUNDS = "rounds"  # the step after STEPS: the dig-deeper rounds, committed one by one
UNREAD = "not read: the run reached its budget of"  # steps a cancel cuts short: not committed, done again on resume


class RunHooks(Protocol):
    def before_report(self, run: Run) -> None: ...

    def after_report(self, run: Run) -> None: ...


class RunPageLog:
    """The run's read pages in the run store (page_stream.PageLog)."""

    def __init__(self, store, run_id: str):
        self.store, self.run_id = store, run_id
        self.pages = {url: Page.from_dict(page) for url, page in store.run_pages(run_id).items()}
        self.lock = threading.Lock()

    def get(self, url: str) -> Page | None:
        with self.lock:
            return self.pages.get(url)

    def put(self, url: str, page: Page) -> None:
        try:
            self.store.save_page(self.run_id, url, page.to_dict())
        except Exception:  # noqa: BLE001 - keeping a page is best effort: at worst it is fetched again on resume
            return
        with self.lock:
            self.pages[url] = page


class _Steps:
    """One run's steps, with what they share."""

    def __init__(self, run: Run, params: ResearchParams, plan: ResearchPlan | None, watch: BudgetWatch,
                 cancel: threading.Event, hooks: RunHooks | None, on_delta, rounds: int = 0):
        self.run, self.params, self.plan, self.watch = run, params, plan, watch
        self.cancel, self.hooks, self.on_delta, self.rounds = cancel, hooks, on_delta, rounds

    def subqueries(self) -> None:
        run, question = self.run, self.run.result.question
        if self.plan is not None:
            run.progress("subqueries", 0, 1)
            run.result.sub_queries = [q.query for q in self.plan.queries if q.query.lower() != question.lower()]
            run.progress("subqueries", 1, 1, "from the plan")
            return
        stage_subqueries(run)
        self.plan = plan_from(question, run.result.sub_queries, self.params)
        self.params.plan = self.plan.to_dict()
        run.result.params = self.params.to_dict()

    def search(self) -> None:
        plan = self.plan or ResearchPlan.from_dict(self.params.plan)
        self.run.result.sources += search_plan(self.run, self.params, plan)
        note_search_failure(self.run)

    def relevance(self) -> None:
        self.run.services.warm_up(self.run.result.sources)  # only once there is something to rank
        stage_relevance(self.run, self.run.result.sources)

    def pages(self) -> None:
        run, watch, pages_max = self.run, self.watch, self.params.pages_max
        sources = run.result.sources
        within = [s for s in sources if s.selected][:pages_max]  # what the run would read without a budget
        allowed = watch.pages_allowed(pages_max)
        if not run.cancel.is_set():
            stage_pages(run, sources, most=allowed)
        if watch.user_cancelled():
            return
        if len(within) > allowed:
            watch.reached.append("pages")
        if watch.reached:
            mark_unread(within, f"{UNREAD} {watch.budget.describe()}")
        run.cancel = self.cancel  # the budget stopped the reading; the rest of the run stops only when cancelled

    def report(self) -> None:
        run = self.run
        if self.hooks is not None:
            self.hooks.before_report(run)
        stage_number(run, run.result.sources)
        self._within_tokens(lambda: stage_report(run, self.on_delta,
                                                 stopped=bool(self.watch.reached) or self.watch.user_cancelled()))
        more = self._further_pages()
        if more:  # nothing read answers the question: read on, stopped by the budget as the first pages were
            run.cancel = self.watch.stop
            try:
                added = self._within_tokens(lambda: read_further(run, more))
            finally:
                run.cancel = self.cancel
            if added and not self.watch.user_cancelled():
                self._within_tokens(lambda: stage_report(run, self.on_delta, stopped=bool(self.watch.reached)))
        if self.hooks is not None:
            self.hooks.after_report(run)

    def _further_pages(self) -> int:
        """The pages the run may read on (Research/read_further.py): none once a budget is reached or the run
        cancelled, with the option off, or in a watch's run (its report is what is new since the last); within a
        page budget, what it leaves."""
        watch, params = self.watch, self.params
        if not params.read_further or watch.reached or watch.user_cancelled() or self.hooks is not None:
            return 0
        if not watch.budget.pages:
            return params.pages_max
        read = sum(1 for s in self.run.result.sources if s.fetched or s.failure)
        return max(0, min(params.pages_max, watch.budget.pages - read))

    def verify(self) -> None:
        stage_verify(self.run)
        watch, result = self.watch, self.run.result
        result.budget_reached = list(watch.reached)
        if watch.reached:
            unread = [s for s in result.sources if s.skipped.startswith(UNREAD)]
            read = sum(1 for s in result.sources if s.fetched or s.failure)
            result.report_markdown = result.report_markdown.rstrip() + "\n\n" + left_undone(
                watch.budget, watch.reached, unread, watch.elapsed(), _tokens(self.run), read)
            result.errors.append(f"budget: reached ({', '.join(watch.reached)}); {len(unread)} selected result(s) "
                                 "not read (see Left undone in the report)")

    def follow_ups(self) -> None:
        self._within_tokens(lambda: stage_follow_ups(self.run))

    def _within_tokens(self, stage: Callable[[], Any]) -> Any:
        """Run a stage with no LLM once the token budget is spent (an extractive brief, follow-ups without an
        LLM), so nothing spends tokens past the budget."""
        run, llms = self.run, self.run.llms
        if self.watch.tokens_out():
            run.llms = {}
        try:
            return stage()
        finally:
            run.llms = llms


def _tokens(run: Run) -> int:
    usage = run.usage()
    return int(usage["prompt_tokens"] + usage["completion_tokens"])


def execute(question: str, params: ResearchParams, *, plan: ResearchPlan | None = None, store=None,
            run_id: str | None = None, resume=None, hooks: RunHooks | None = None, watch_id: str = "", rounds: int = 0,
            on_progress: ProgressFn | None = None, cancel: threading.Event | None = None,
            on_report_delta: Callable[[str], None] | None = None, services: Services | None = None) -> ResearchResult:
    """Run (or, with `resume`, a run_store.RunRecord, continue) a research; with `store` each step is committed.
    The run's status in the store becomes "cancelled" when cancelled, "failed" on an error; the caller marks it
    "done" once the result is saved. `rounds`: the dig-deeper rounds asked for after the report, kept with the run
    (rounds_asked) for dig_rounds; on resume, those kept."""
    if resume is not None:
        state = dict(resume.state)
        result = ResearchResult.from_dict(state)
        params = ResearchParams.from_dict(result.params)
        plan = ResearchPlan.from_dict(params.plan) if params.plan else None
        done, watch_id = resume.stage, resume.watch_id
        rounds = rounds_asked(resume)
    else:
        state, done = {}, ""
        question = " ".join(question.split())
        if not question:
            raise EmptyQuestion("the question is empty")
        params = plan.apply(params) if plan is not None else dataclasses.replace(params)
        result = ResearchResult(question=question, params=params.to_dict(), **({"id": run_id} if run_id else {}))
    params.check_report_options()
    services = services or Services.from_settings(use_llm=params.use_llm)
    cancel = cancel or threading.Event()
    stop = threading.Event()  # set by the user's cancel or by the budget
    run = Run(result, services, params, on_progress, stop)
    _legacy_in_hand(run.result, state.get("in_hand") or {})
    watch = BudgetWatch(Budget.from_params(params), stop, cancel, lambda: _tokens(run),
                        float(state.get("run_seconds") or 0))
    watch.reached += list(state.get("budget_reached") or [])
    steps = _Steps(run, params, plan, watch, cancel, hooks, on_report_delta, rounds)
    if store is not None:
        run.page_log = RunPageLog(store, result.id)
        store.start_run(result.id, result.question, _state(run, watch, rounds), params.plan, watch.budget.to_dict(),
                        watch_id)
    watch.start()
    try:
        _run_steps(run, steps, () if done == ROUNDS else STEPS[STEPS.index(done) + 1:] if done else STEPS, store,
                   watch)
    except BaseException:
        if store is not None:
            _quietly(lambda: store.set_status(result.id, "failed"))
        raise
    finally:
        watch.close()
    if store is not None and watch.user_cancelled():
        _quietly(lambda: store.set_status(result.id, "cancelled"))
    return run.finish()


def _run_steps(run: Run, steps: _Steps, todo: tuple[str, ...], store, watch: BudgetWatch) -> None:
    for step in todo:
        watch.check()  # the budget as it stands now, not as the watcher last polled it
        if watch.user_cancelled():
            _note_cancel(run, watch, step)
            return
        if step == "pages":
            steps.pages()
        else:
            run.timed(step, getattr(steps, step))
        if watch.user_cancelled() and step in STOPPABLE:
            _note_cancel(run, watch, step)
            return  # cut short: not committed
        if store is not None:
            store.checkpoint(run.result.id, step, _state(run, watch, steps.rounds))
        if run.result.searched_nothing:  # nothing to judge, read or report: the run says why and stops
            if store is not None:
                _quietly(lambda: store.set_status(run.result.id, "failed"))
            return


def _note_cancel(run: Run, watch: BudgetWatch, step: str) -> None:
    """The user cancelled: "cancelled during <step>" among the run's errors, at once (the budget's watcher may
    not have passed the cancel on to the run yet)."""
    watch.check()
    run.cancelled(step)


def _state(run: Run, watch: BudgetWatch, rounds: int) -> dict[str, Any]:
    return {**run.result.to_dict(), "run_seconds": round(watch.elapsed(), 3),
            "budget_reached": list(watch.reached), "rounds_asked": rounds}


def rounds_asked(record) -> int:
    """The dig-deeper rounds a run (run_store.RunRecord) was asked to do after its report."""
    try:
        return max(0, int(record.state.get("rounds_asked") or 0))
    except (TypeError, ValueError):
        return 0


def dig_rounds(result: ResearchResult, rounds: int, *, store=None, on_progress: ProgressFn | None = None,
               cancel: threading.Event | None = None, services: Services | None = None) -> ResearchResult:
    """Dig deeper after a run's report until it has done `rounds` rounds in all (those it has count: a resumed
    run goes on at the next one, or with the round a cancel cut short); digging that stopped by itself (no gap
    left, nothing new) is over. With `store` each finished round is committed (step ROUNDS) and each page kept
    as it is read; a cancel commits the round as it stands and marks the run "cancelled", an error "failed"."""
    if result.rounds and result.rounds[-1].stop not in ("", "cancelled"):
        return result  # digging stopped by itself
    left = rounds - len(result.rounds) + (1 if cut_short(result) else 0)
    if left <= 0:
        return result
    params = ResearchParams.from_dict(result.params)
    if store is None:
        return dig_deeper(result, left, params, on_progress, cancel, services=services)
    extra = {"run_seconds": 0.0, "budget_reached": [], "rounds_asked": rounds}
    try:
        dug = dig_deeper(result, left, params, on_progress, cancel, services=services,
                         on_round=lambda work: store.checkpoint(work.id, ROUNDS, {**work.to_dict(), **extra}),
                         page_log=RunPageLog(store, result.id))
    except BaseException:
        _quietly(lambda: store.set_status(result.id, "failed"))
        raise
    if cut_short(dug) is not None:  # cancelled: the round as it stands (its results, pages kept) for resume
        state = dug.to_dict()
        state["errors"] = [e for e in dug.errors if not e.startswith("cancelled")]
        _quietly(lambda: store.checkpoint(dug.id, ROUNDS, {**state, **extra}))
    if cancel is not None and cancel.is_set():
        _quietly(lambda: store.set_status(dug.id, "cancelled"))
    return dug


def _legacy_in_hand(result: ResearchResult, in_hand: dict[str, str]) -> None:
    """A run stopped before the text in hand rode on its source kept it beside, by URL: put it back on."""
    for source in result.sources:
        if not source.in_hand and source.paper is None and in_hand.get(source.url):
            source.in_hand = in_hand[source.url]


def _quietly(fn: Callable[[], None]) -> None:
    try:
        fn()
    except Exception:  # noqa: BLE001 - the status is bookkeeping; the run's own outcome stands
        pass
