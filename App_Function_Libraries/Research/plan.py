"""A research's plan: the queries it will search (the question and its sub-queries), the engines and local
sources for each, the sites and date range the web search keeps to, and the budget.

`make_plan` runs stage 1 (sub-queries) and returns the plan without searching; a person may edit it (remove,
add or change queries, drop an engine or local source from one, change sites, dates, budget) and run it
(`ResearchPlan.from_dict` checks every field and names a wrong one). `search_plan` is stage 2 for a plan:
each query on its own engines, one fused ranking. The plan a run followed is saved with it (params.plan).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from App_Function_Libraries.errors import QuarryError
from App_Function_Libraries.records import Source
from App_Function_Libraries.Research.budget import Budget
from App_Function_Libraries.Research.params import ResearchParams
from App_Function_Libraries.Research.read_further import engine_groups
from App_Function_Libraries.Research.subqueries import MAX_QUERY_CHARS, run_queries

class PlanError(QuarryError, ValueError):
    """A plan (or its question) that cannot be run; str() names the first wrong field, in one line. A ValueError
    too, for callers that caught the plain one."""


PLAN_FIELDS = ("question", "queries", "include_sites", "exclude_sites", "date_range", "budget")
MAX_PLAN_QUERIES = 30


@dataclass
class PlanQuery:
    query: str
    engines: list[str] = field(default_factory=list)  # web engines and local sources (config.ENGINES, LOCAL_SOURCES)


@dataclass
class ResearchPlan:
    question: str
    queries: list[PlanQuery] = field(default_factory=list)
    include_sites: list[str] = field(default_factory=list)  # keep web results to these sites
    exclude_sites: list[str] = field(default_factory=list)
    date_range: str | None = None  # day|week|month|year or YYYY-MM-DD..YYYY-MM-DD
    budget: Budget = field(default_factory=Budget)

    def to_dict(self) -> dict[str, Any]:
        return {"question": self.question, "queries": [dataclasses.asdict(q) for q in self.queries],
                "include_sites": list(self.include_sites), "exclude_sites": list(self.exclude_sites),
                "date_range": self.date_range, "budget": self.budget.to_dict()}

    @classmethod
    def from_dict(cls, data: Any) -> "ResearchPlan":
        """A plan from its JSON; PlanError names the first wrong field (one line)."""
        from App_Function_Libraries.config import ENGINES, LOCAL_SOURCES
        if not isinstance(data, dict):
            raise PlanError("a plan is a JSON object with question, queries, include_sites, exclude_sites, "
                             "date_range, budget")
        unknown = sorted(set(data) - set(PLAN_FIELDS))
        if unknown:
            raise PlanError(f"unknown plan field {', '.join(unknown)}; fields are {', '.join(PLAN_FIELDS)}")
        question = " ".join(str(data.get("question") or "").split())
        if not question:
            raise PlanError("the plan's question is empty")
        queries = data.get("queries")
        if not isinstance(queries, list) or not queries:
            raise PlanError("the plan's queries must be a non-empty list of {query, engines}")
        if len(queries) > MAX_PLAN_QUERIES:
            raise PlanError(f"the plan has {len(queries)} queries; at most {MAX_PLAN_QUERIES}")
        out = []
        for i, q in enumerate(queries, start=1):
            if not isinstance(q, dict) or set(q) - {"query", "engines"}:
                raise PlanError(f"queries[{i}] must be an object with query and engines")
            text = " ".join(str(q.get("query") or "").split())
            engines = q.get("engines")
            if not text or len(text) > MAX_QUERY_CHARS:
                raise PlanError(f"queries[{i}].query must be 1 to {MAX_QUERY_CHARS} characters")
            if not isinstance(engines, list) or not engines or not all(isinstance(e, str) for e in engines):
                raise PlanError(f"queries[{i}].engines must be a non-empty list of engine names")
            bad = [e for e in engines if e not in ENGINES + LOCAL_SOURCES]
            if bad:
                raise PlanError(f"queries[{i}]: unknown engine {', '.join(bad)}; engines are {', '.join(ENGINES)}, "
                                 f"local sources {', '.join(LOCAL_SOURCES)}")
            out.append(PlanQuery(text, list(dict.fromkeys(engines))))
        sites = {k: _sites(data.get(k), k) for k in ("include_sites", "exclude_sites")}
        date_range = data.get("date_range")
        if date_range is not None and not isinstance(date_range, str):
            raise PlanError("date_range must be day, week, month, year or YYYY-MM-DD..YYYY-MM-DD (or null)")
        return cls(question, out, date_range=date_range or None, budget=Budget.from_dict(data.get("budget")),
                   **sites)

    def engines(self) -> list[str]:
        """Every engine and local source the plan uses, in first-use order."""
        return list(dict.fromkeys(e for q in self.queries for e in q.engines))

    def apply(self, params: ResearchParams) -> ResearchParams:
        """The run's params with the plan's sites, dates, budget and engines (and the plan itself, with the
        budget the run has). A budget the plan leaves at 0 is the run's own (options, [research] budget_*)."""
        budget = Budget(self.budget.seconds or params.budget_seconds, self.budget.pages or params.budget_pages,
                        self.budget.llm_tokens or params.budget_llm_tokens)
        return dataclasses.replace(
            params, engines=self.engines(), include_sites=list(self.include_sites) or None,
            site_blacklist=list(self.exclude_sites) or None, date_range=self.date_range,
            budget_seconds=budget.seconds, budget_pages=budget.pages, budget_llm_tokens=budget.llm_tokens,
            max_queries=max(params.max_queries, len(self.queries)),
            plan=dataclasses.replace(self, budget=budget).to_dict())


def _sites(value: Any, name: str) -> list[str]:
    if value in (None, ""):
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise PlanError(f"{name} must be a list of sites like [\"nature.com\"]")
    return [v.strip() for v in value]


def plan_from(question: str, sub_queries: list[str], params: ResearchParams) -> ResearchPlan:
    """The plan a run makes by itself: the question and its sub-queries, each on every engine of params."""
    queries = run_queries(question, sub_queries, params.max_queries)
    return ResearchPlan(question=question, queries=[PlanQuery(q, list(params.engines)) for q in queries],
                        include_sites=list(params.include_sites or []), exclude_sites=list(params.site_blacklist or []),
                        date_range=params.date_range if isinstance(params.date_range, str) else None,
                        budget=Budget.from_params(params))


def make_plan(question: str, params: ResearchParams, services=None) -> ResearchPlan:
    """Stage 1 only: the plan the run would follow (nothing is searched)."""
    from App_Function_Libraries.records import ResearchResult
    from App_Function_Libraries.Research.pipeline import Run, Services, stage_subqueries
    question = " ".join(question.split())
    if not question:
        raise PlanError("the question is empty")
    services = services or Services.from_settings(use_llm=params.use_llm)
    run = Run(ResearchResult(question=question, params=params.to_dict()), services, params, None, None)
    stage_subqueries(run)
    return plan_from(question, run.result.sub_queries, params)


def search_plan(run, params: ResearchParams, plan: ResearchPlan) -> list[Source]:
    """Stage 2 for a plan: the queries that share engines are searched together (pipeline.search_groups)."""
    from App_Function_Libraries.Research.pipeline import search_groups
    return search_groups(run, params, engine_groups([(q.query, q.engines) for q in plan.queries]))


def plan_markdown(plan: dict[str, Any]) -> str:
    """A saved plan (its dict) as Markdown: the queries and their engines, sites, dates, budget ("" if none)."""
    if not plan or not plan.get("queries"):
        return ""
    lines = ["## Plan", "", "| # | Query | Engines and local sources |", "|---|---|---|"]
    for i, q in enumerate(plan["queries"], start=1):
        query = str(q.get("query", "")).replace("|", "\\|")
        lines.append(f"| {i} | {query} | {', '.join(q.get('engines') or [])} |")
    budget = Budget.from_dict(plan.get("budget")).describe() if plan.get("budget") else "none"
    facts = [f"sites: {', '.join(plan['include_sites'])}" if plan.get("include_sites") else "",
             f"not: {', '.join(plan['exclude_sites'])}" if plan.get("exclude_sites") else "",
             f"dates: {plan['date_range']}" if plan.get("date_range") else "", f"budget: {budget}"]
    return "\n".join(lines + ["", "; ".join(f for f in facts if f)])
