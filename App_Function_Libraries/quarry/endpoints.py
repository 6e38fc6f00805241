"""What Quarry offers as a call: one table of plain functions, each registered as an MCP tool (MCP/tools.py) and
as a named HTTP endpoint of the UI server (Gradio_UI/api_endpoints.py) with the same name and arguments. Each
takes the settings and its arguments and answers plain JSON (quarry/plain.py); a failure is a QuarryError. The
research options among the arguments come from App_Function_Libraries/options.py (with the old names older
clients send), so `research` takes the same options on every door.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Callable, Literal

from App_Function_Libraries import options as table
from App_Function_Libraries.quarry import plain


@dataclass(frozen=True)
class Arg:
    """One argument. kind: text, int, float, bool, choice, list (a list or comma-separated text), plan (a plan's
    dict or its JSON). required: no default."""
    name: str
    kind: str
    help: str
    default: Any = None
    required: bool = False
    choices: tuple[str, ...] = ()
    low: float | None = None
    high: float | None = None
    old: str = ""  # the name older MCP clients sent it under (still taken)


@dataclass(frozen=True)
class Endpoint:
    """A call: run(settings, **arguments) -> plain JSON. long: it also takes on_progress and cancel."""
    name: str
    help: str
    run: Callable[..., Any]
    args: tuple[Arg, ...] = ()
    long: bool = False

    def call(self, settings, **arguments) -> Any:
        """run() with each argument given under its old name moved to its name."""
        for arg in self.args:
            if arg.old and arg.old in arguments:
                value = arguments.pop(arg.old)
                if arguments.get(arg.name) is None:
                    arguments[arg.name] = value
        return self.run(settings, **arguments)


def _text(name: str, help: str, required: bool = True, default: Any = None) -> Arg:  # noqa: A002
    return Arg(name, "text", help, default=default, required=required)


def _count(name: str, default: int, high: int, help: str = "how many to return") -> Arg:  # noqa: A002
    return Arg(name, "int", help, default=default, low=1, high=high)


def option_args(names) -> tuple[Arg, ...]:
    """The arguments options `names` give (options.wire_arguments): an off spelling is a switch (true turns
    the option off), an old name says whose it is."""
    args = []
    for wire, name in table.wire_arguments(names):
        o = table.OPTIONS[name]
        if wire == o.off:
            args.append(Arg(wire, "bool", f"true: turn off: {o.help}", default=False))
        else:
            text = o.help if wire == name else f"old name of {name}"
            args.append(Arg(wire, o.kind, text, choices=o.choices, low=o.low, high=o.high))
    return tuple(args)


# ---------------------------------------------------------------- the functions

def research(settings, question: str = "", *, on_progress=None, cancel=None, **values) -> dict[str, Any]:
    from App_Function_Libraries import quarry
    values = table.canonical(values, table.RESEARCH)
    rounds = table.parse("rounds", values.pop("rounds", 0)) or 0
    resume, plan = values.pop("resume", None), values.pop("plan", None)
    if resume:
        result = quarry.runs.resume(resume, rounds=rounds, save=False, on_progress=on_progress, cancel=cancel,
                                    settings=settings)
    else:
        chosen = quarry.runs.read_plan(plan) if plan else None
        result = quarry.research(chosen.question if chosen else question, plan=chosen, rounds=rounds, save=False,
                                 durable=True, on_progress=on_progress, cancel=cancel, settings=settings, **values)
    if result.searched_nothing:  # no report, nothing saved: the CLI's line as the error
        raise quarry.nothing_searched(result)
    saved = quarry.history.save(result, settings)  # success as data: the report stands either way
    if not saved.ok:
        result.errors.append(saved.message)
    return plain.research_out(result, saved=saved.ok)


def research_plan(settings, question: str, **values) -> dict[str, Any]:
    from App_Function_Libraries import quarry
    return quarry.runs.plan(question, settings=settings, **table.canonical(values, PLAN_OPTIONS)).to_dict()


def web_search(settings, query: str, *, cancel=None, on_progress=None, **values) -> dict[str, Any]:
    from App_Function_Libraries import quarry
    values = table.canonical(values, table.SEARCH_COMMAND)
    engines = values.pop("engines", None)
    return plain.search_out(quarry.search(query, engines, settings=settings, cancel=cancel, **values))


def wiki_search(settings, question: str, top_k: int = 10) -> dict[str, Any]:
    from App_Function_Libraries import quarry
    return {"passages": plain.wiki_hits_out(quarry.wiki.search(question, top_k, settings=settings))}


def wiki_ask(settings, question: str) -> dict[str, Any]:
    from App_Function_Libraries import quarry
    return plain.answer_out(quarry.wiki.ask(question, settings=settings))


def docs_search(settings, query: str, k: int = 10) -> dict[str, Any]:
    from App_Function_Libraries import quarry
    return {"chunks": plain.docs_hits_out(quarry.docs.search(query, k, settings=settings))}


def docs_ask(settings, question: str, no_llm: bool = False) -> dict[str, Any]:
    from App_Function_Libraries import quarry
    return plain.answer_out(quarry.docs.ask(question, use_llm=not no_llm, settings=settings))


def notes_search(settings, query: str, limit: int = 20) -> dict[str, Any]:
    from App_Function_Libraries import quarry
    return {"notes": plain.note_hits_out(quarry.notes.search(query, limit, settings=settings))}


def notes_get(settings, note_id: str) -> dict[str, Any]:
    from App_Function_Libraries import quarry
    return plain.note_out(quarry.notes.get(note_id, settings=settings))


def notes_add(settings, title: str | None = None, content: str | None = None, keywords=None,
              from_report: str | None = None) -> dict[str, Any]:
    from App_Function_Libraries import quarry
    words = table.names_list(keywords, "keywords") if keywords else None
    return plain.note_out(quarry.notes.add(title or None, content or None, words, from_report=from_report or None,
                                           settings=settings), content=False)


def history_list(settings, query: str | None = None, limit: int = 20) -> dict[str, Any]:
    from App_Function_Libraries import quarry
    return {"reports": plain.history_out(quarry.history.list(limit, query=query or None, settings=settings))}


def history_get(settings, report_id: str) -> dict[str, Any]:
    from App_Function_Libraries import quarry
    return plain.research_out(quarry.history.get(report_id, settings=settings), True)


def export(settings, report_id: str, format: str = "md") -> str:  # noqa: A002 - the argument's name
    from App_Function_Libraries import quarry
    if format in ("pdf", "docx"):
        raise quarry.BadArgument("format", f"{format} is a binary file: export it with python app.py history "
                                           f"export ID --format {format} -o FILE")
    return quarry.export(report_id, format, settings=settings)


def keep_sources(settings, report_id: str) -> dict[str, Any]:
    from App_Function_Libraries import quarry
    return plain.keep_out(quarry.history.keep_sources(report_id, settings=settings))


def runs_unfinished(settings, limit: int = 20) -> dict[str, Any]:
    from App_Function_Libraries import quarry
    return {"runs": [plain.run_out(r) for r in quarry.runs.unfinished(settings, limit=limit)]}


def watch_add(settings, report_id: str, every: str = "1d") -> dict[str, Any]:
    from App_Function_Libraries import quarry
    return plain.watch_out(quarry.watch.add(report_id, every, settings=settings), [])


def watch_list(settings) -> dict[str, Any]:
    from App_Function_Libraries import quarry
    return {"watches": [plain.watch_out(w, r) for w, r in quarry.watch.list(settings)]}


def watch_remove(settings, watch_id: str) -> dict[str, Any]:
    from App_Function_Libraries import quarry
    return {"removed": quarry.watch.remove(watch_id, settings=settings).id}


def watch_run(settings, watch_id: str | None = None) -> dict[str, Any]:
    from App_Function_Libraries import quarry
    outcomes = [quarry.watch.run(watch_id, settings)] if watch_id else quarry.watch.run_due(settings)
    return {"outcomes": [plain.watch_outcome_out(o) for o in outcomes]}


# ---------------------------------------------------------------- the table

PLAN_OPTIONS = table.PARAMS + ("follow_up_of",)  # what a plan is made from (not how the run goes)
_REPORT_ID = Arg("report_id", "text", "a saved report's id (its first characters are enough)", old="id")
ENDPOINTS: tuple[Endpoint, ...] = (
    Endpoint("research", "Research a question on the web: search engines, read the best pages, and write a report "
             "whose every [n] cites a numbered source, each citation checked against a quote from that source. "
             "Takes minutes; sends progress and stops when the call is cancelled. Returns report_markdown, sources "
             "(n, title, url, kind), citations (n, sentence, quote), errors, and the id it was saved under. "
             "no_llm=true writes an extractive brief without any LLM. plan: run this plan (from research_plan, "
             "edited or not). resume: continue that unfinished run (see runs_unfinished) from its last completed "
             "stage. budget_*: stop reading pages at the budget; the report says what was left undone.",
             research, (_text("question", "the question, in plain words (not needed with plan or resume)",
                              required=False, default=""),) + option_args(table.RESEARCH), long=True),
    Endpoint("research_plan", "The plan a research of this question would follow, without searching: question, "
             "queries (each with the engines and local sources it is searched on), include_sites, exclude_sites, "
             "date_range, budget (seconds, pages, llm_tokens; 0 = none). Edit it and pass it to research as `plan`.",
             research_plan, (_text("question", "the question, in plain words"),) + option_args(PLAN_OPTIONS)),
    Endpoint("web_search", "Search the web with one or more engines; results merged by rank fusion. Returns "
             "numbered results (title, url, snippet, engines, date) and each failing engine's error. Quick; reads "
             "no page.", web_search, (_text("query", "what to search for"),) + option_args(table.SEARCH_COMMAND),
             long=True),
    Endpoint("wiki_search", "Passages of the local Wikipedia index nearest to a question (title, url, text, score), "
             "best first. Use wiki_ask for a cited answer.", wiki_search,
             (_text("question", "the question or keywords"), _count("top_k", 10, 100, "passages to return"))),
    Endpoint("wiki_ask", "Answer a question from the local Wikipedia index, citing articles as [n]. Says plainly "
             "when the index holds no passage that answers it (mode none).", wiki_ask,
             (_text("question", "the question"),)),
    Endpoint("docs_search", "Chunks of your indexed documents (python app.py docs add) that best match a query: "
             "file#page or chunk, text, score.", docs_search,
             (_text("query", "words or a question"), _count("k", 10, 100, "chunks to return"))),
    Endpoint("docs_ask", "Answer a question from your indexed documents, citing file#page as [n].", docs_ask,
             (_text("question", "the question"), Arg("no_llm", "bool", "extractive answer, no LLM", default=False))),
    Endpoint("notes_search", "Full-text search of your notes (words, \"a phrase\", OR, -word). Returns id, title "
             "and a snippet; read a whole note with notes_get.", notes_search,
             (_text("query", "the search"), _count("limit", 20, 100))),
    Endpoint("notes_get", "One note in full (markdown content, keywords, version) by its id or its start.",
             notes_get, (Arg("note_id", "text", "the note id (its first characters do)", old="id"),)),
    Endpoint("notes_add", "Save a note: a title and markdown content, or from_report (the id of a saved research "
             "report) to keep that report with its sources.", notes_add,
             (_text("title", "the title (from_report: default the question)", required=False),
              _text("content", "markdown content", required=False),
              Arg("keywords", "list", "keywords (a list or comma-separated)"),
              _text("from_report", "a saved report's id", required=False))),
    Endpoint("history_list", "Past research runs, newest first (id, question, time, counts); `query` keeps those "
             "whose question or report contains it.", history_list,
             (_text("query", "text to look for", required=False), _count("limit", 20, 200))),
    Endpoint("history_get", "A saved research report by id (or its start): report, numbered sources, citations.",
             history_get, (_REPORT_ID,)),
    Endpoint("export", "A saved report as text: md, json, html, bib, ris, csl, txt (pdf and docx: python app.py "
             "history export).", export, (_REPORT_ID, _text("format", "md, json, html, bib, ris, csl or txt",
                                                             required=False, default="md"))),
    Endpoint("keep_sources", "Keep a saved research report's sources: its read web pages and papers become "
             "documents in your library (searchable with docs_search and docs_ask, offline); a page kept before is "
             "not added again. Returns summary, added, kept_before, not_kept.", keep_sources, (_REPORT_ID,)),
    Endpoint("runs_unfinished", "Research runs that did not finish (interrupted: the process stopped; cancelled; "
             "failed), newest first: id, question, status, last_stage. Continue one with research and resume.",
             runs_unfinished, (_count("limit", 20, 200),)),
    Endpoint("watch_add", "Watch a saved research: re-run its plan every `every` (1d, 12h, 30m, 2w) and report only "
             "what is new. Returns the watch (id, next_due, ...). Runs happen on watch_run or `python app.py watch "
             "run` from the system's scheduler.", watch_add,
             (_REPORT_ID, _text("every", "how often: 1d, 12h, 30m, 2w", required=False, default="1d"))),
    Endpoint("watch_list", "Every watch (id, question, every_seconds, next_due, plan) with its runs (run_id, "
             "new_sources, changed_sources, notified); open a run with history_get.", watch_list),
    Endpoint("watch_remove", "Stop watching (the watch's runs stay in history).", watch_remove,
             (_text("watch_id", "the watch id"),)),
    Endpoint("watch_run", "Run one watch now (watch_id), or every watch that is due (no watch_id). Each outcome: "
             "run_id, nothing_new, new_sources, changed_sources, findings (cited), notified, report_markdown (it "
             "opens with 'New since <date>').", watch_run,
             (_text("watch_id", "the watch id; none: those due", required=False),)),
)
NAMES = tuple(e.name for e in ENDPOINTS)


def python_type(arg) -> Any:
    """The Python type of an endpoint argument (the same for the MCP schema and the HTTP API)."""
    if arg.kind == "choice":
        base = Literal[arg.choices]  # type: ignore[valid-type]
    else:
        base = {"text": str, "language": str, "int": int, "float": float, "bool": bool, "list": list[str] | str,
                "plan": dict[str, Any] | str}[arg.kind]
    return base if arg.required or arg.kind == "bool" or isinstance(arg.default, (int, str)) and \
        arg.default is not None else base | None


def signature(endpoint, annotate) -> inspect.Signature:
    """The endpoint's arguments as a signature (an argument with an old name: both, neither required, the old
    ones last); annotate(arg, type) gives each parameter's annotation."""
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    args = [a if not a.old else Arg(a.name, a.kind, a.help) for a in endpoint.args]
    args += [Arg(a.old, a.kind, f"old name of {a.name}") for a in endpoint.args if a.old]  # last: order kept
    return inspect.Signature([inspect.Parameter(a.name, kind, annotation=annotate(a, python_type(a)),
                                                default=inspect.Parameter.empty if a.required else a.default)
                              for a in args],
                             return_annotation=inspect.signature(endpoint.run, eval_str=True).return_annotation)


def stages() -> list[str]:
    """The research pipeline's stages in order (what progress counts)."""
    from App_Function_Libraries.Research.pipeline import STAGES
    return list(STAGES)
