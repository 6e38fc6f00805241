"""How a research run looks in the Web Search tab: stage progress, the report (safe HTML: page text in it
shows as text) with linked citations and the options it was written with, the follow-up questions, the
dig-deeper rounds (sources added, what changed), the sources table the user ticks results in and out of, and
the files offered for download, what keeping the sources did."""
from __future__ import annotations

import html
from collections import Counter
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from App_Function_Libraries.Gradio_UI.answer_view import (SourceRef, anchor, answer_body, md_text, mode_label,
                                                          problems_markdown, render)
from App_Function_Libraries.quarry.errors import BadArgument
from App_Function_Libraries.quarry.render import export_filename, link_open_tag, round_summary, safe_href
from App_Function_Libraries.Gradio_UI.downloads import write_download
from App_Function_Libraries.Gradio_UI.ui_common import one_line
from App_Function_Libraries.options import REPORT_FORMAT_LABELS
from App_Function_Libraries.records import counted

STAGE_LABELS = {"subqueries": "Sub-queries", "search": "Search", "embedding_model": "Load embedding model",
                "relevance": "Relevance check",
                "fetch": "Fetch pages", "extract": "Extract page text", "rank": "Rank passages",
                "notes": "Write page notes",
                "report": "Write report", "verify": "Verify citations", "follow_ups": "Follow-up questions"}
# "kind" is last so the columns before it keep their places: web, paper, wikipedia or document (Source.kind)
SOURCE_HEADERS = ["use", "n", "title", "url", "engines", "verdict", "reason", "fetched", "round", "kind"]
SOURCE_TYPES = ["bool", "str", "str", "str", "str", "str", "str", "str", "str", "str"]
FORMAT_NAMES = REPORT_FORMAT_LABELS  # the one list of report formats and their names (options.py)
MAX_FOLLOW_UPS = 5
DOWNLOAD_FORMATS = ("md", "json", "html", "bib")
# made when chosen (a PDF takes a second or two): the "Download as" list beside the buttons above
MORE_FORMATS = [("PDF (.pdf)", "pdf"), ("Word (.docx)", "docx"), ("RIS (.ris)", "ris"), ("CSL-JSON (.csl.json)", "csl"),
                ("Plain text (.txt)", "txt")]
# plain symbols every system font has (emoji are missing on many Linux desktops)
MARKS = {"done": "✓", "running": "◐", "pending": "○", "skipped": "–", "stopped": "■", "failed": "✗"}


@dataclass
class StageState:
    done: int = 0
    total: int = 0
    message: str = ""
    started: bool = False
    finished: bool = False
    failed: bool = False  # the stage failed as a whole: message says why
    skipped: bool = False  # the stage had nothing to do in this run: message says why
    in_words: bool = False  # the message says how it went, its time included (the model load): no count, no time


@dataclass
class StageBoard:
    """The progress of each pipeline stage, from the pipeline's ProgressEvents."""
    stages: dict[str, StageState] = field(default_factory=lambda: {s: StageState() for s in STAGE_LABELS})
    finished: bool = False

    def apply(self, event) -> None:
        if event.stage == "done":
            self.finished = True
            return
        state = self.stages.setdefault(event.stage, StageState())
        state.started = True
        state.done, state.total = event.done, event.total
        state.message = event.message or state.message
        state.failed = bool(getattr(event, "failed", False))
        state.skipped = bool(getattr(event, "skipped", False))
        state.in_words = bool(getattr(event, "in_words", False))
        state.finished = event.total > 0 and event.done >= event.total

    def markdown(self, timings: dict[str, float] | None = None, cancelled: bool = False) -> str:
        timings = timings or {}
        lines = []
        for stage, label in STAGE_LABELS.items():
            state = self.stages[stage]
            if state.failed:
                mark = MARKS["failed"]
            elif state.skipped:
                mark = MARKS["skipped"]
            elif state.finished or (self.finished and state.started and not cancelled):
                mark = MARKS["done"]
            elif cancelled:
                mark = MARKS["stopped"]
            elif state.started:
                mark = MARKS["running"]
            else:
                mark = MARKS["skipped" if self.finished else "pending"]
            parts = [f"{mark} **{label}**"]
            if state.total and not state.failed and not state.in_words:
                parts.append(f"{state.done}/{state.total}")
            if state.message:
                parts.append(md_text(state.message))
            if stage in timings and not state.in_words:
                parts.append(f"{timings[stage]:.1f} s")
            lines.append(" · ".join(parts))
        return "  \n".join(lines)


# ---------------------------------------------------------------- the report

ANCHOR = "web"  # the prefix of the report's anchors: its evidence (web-evidence-i) and cards (web-source-n)


def source_refs(result) -> list[SourceRef]:
    return [SourceRef(n, s.title or s.url, s.final_url or s.url) for n, s in result.listed_sources()]


def report_html(result, partial: str = "") -> str:
    """The finished report as safe HTML (linked citations, each [n] opening its evidence; notes) or the part
    written so far: text a page or an LLM wrote shows as text (answer_view.render), never as HTML. Its sources
    are not listed under it: the source cards show them (source_cards_html), the details table all results."""
    if result is None:
        return render(partial)
    body = answer_body(result.report_markdown or "*No report was written.*", source_refs(result), ANCHOR,
                       result.citations)
    notes = problems_markdown(result.errors, 0)
    usage = result.llm_usage or {}
    unsupported = getattr(result, "unsupported_citations", 0)
    footer = (f"*{mode_label(result.mode, 'report')} · {len(result.cited_sources())} "
              f"cited of {counted(len(result.sources), 'result')}"
              + (f" · {unsupported} not supported by their source" if unsupported else "")
              + f" · {result.timings.get('total', 0):.1f} s"
              + (f" · {counted(usage['calls'], 'LLM call')}" if usage.get("calls") else "") + "*")
    after = "\n\n".join(p for p in (notes, footer, options_line(result.params, result.mode)) if p)
    return render(f"## {md_text(result.question)}") + body + "\n" + render(after)


def searched_nothing_html(result) -> str:
    """The report area of a run where no search answered: what failed, in plain words, and what to do."""
    reason = result.stage_failures.get("search", "")
    lines = [f"## {md_text(result.question)}", "",
             f"**✗ Nothing could be searched:** {md_text(reason)}", "",
             "No report was written and nothing was saved to History. Check the internet connection, or pick "
             "another engine above (engines marked as not set up need a key or URL in Settings)."]
    notes = problems_markdown(result.errors, 0)
    return render("\n".join(lines) + ("\n\n" + notes if notes else ""))


EXTRACTIVE_OPTIONS = "extractive (quoted sentences, no LLM)"


def options_line(params: dict, mode: str = "llm") -> str:
    """The report options a run was written with, in one line: for an extractive brief only those it used
    (its format and length budget; tone, language and prompt are an LLM's)."""
    if not params:
        return ""
    fmt = FORMAT_NAMES.get(params.get("report_format"), md_text(params.get("report_format") or ""))
    length = f"≤ {params.get('length_words')} words"
    if mode == "llm":
        prompt = (f"preset {md_text(params['preset'])}" if params.get("preset") else
                  "edited prompt" if params.get("aggregation_prompt") else "built-in prompt")
        language = md_text(params.get("report_language") or "") or "the question's language"
        parts = [f"tone {md_text(params.get('tone') or 'neutral')}", fmt, language, length, prompt]
    else:
        parts = [EXTRACTIVE_OPTIONS, fmt, length]
    if params.get("follow_up_of"):
        parts.append(f"follow-up of `{str(params['follow_up_of'])[:8]}`")
    return "*Report options: " + " · ".join(p for p in parts if p) + "*"


# ---------------------------------------------------------------- follow-ups and rounds

def follow_up_labels(result) -> list[str]:
    """Exactly MAX_FOLLOW_UPS button labels ('' for a hidden button)."""
    labels = list((result.follow_ups if result is not None else [])[:MAX_FOLLOW_UPS])
    return labels + [""] * (MAX_FOLLOW_UPS - len(labels))


def follow_ups_heading(result) -> str:
    if result is None or not result.follow_ups:
        return ""
    return "**Follow-up questions**: click one to research it; the new search builds on this report."


def rounds_markdown(result) -> str:
    """Each dig-deeper round: what it searched, the sources it added (linked), and what changed."""
    if result is None or not result.rounds:
        return ""
    lines = ["### Dig-deeper rounds", ""]
    for record in result.rounds:
        lines += [f"**Round {record.round}**: {md_text(round_summary(record).split('; ', 1)[-1])}", ""]
        change = record.change
        added, removed = change.get("added_sentences") or [], change.get("removed_sentences") or []
        if added or removed:
            lines += ["<details><summary>What changed in the report</summary>", ""]
            lines += [f"- added: {md_text(s)}" for s in added] + [f"- removed: {md_text(s)}" for s in removed]
            lines += ["", "</details>", ""]
    return "\n".join(lines)


# ---------------------------------------------------------------- source cards

CARDS_STYLE = "display:flex;flex-wrap:wrap;gap:8px"
CARD_STYLE = ("flex:1 1 260px;max-width:420px;border:1px solid var(--border-color-primary,#ddd);"
              "border-radius:6px;padding:6px 10px")


def source_cards_html(result) -> str:
    """The report's sources as cards, cited first then read but not cited: number, title (linked), site or
    authors and year, kind, verdict, whether cited. Every field is escaped (page text shows as text)."""
    if result is None:
        return ""
    listed = result.listed_sources()
    if not listed:
        return ""
    verdicts: dict[int, Counter] = {}
    for c in result.citations:
        verdicts.setdefault(c.n, Counter())[c.verdict or "not checked"] += 1
    cards = [source_card(n, s, verdicts.get(n)) for n, s in listed]
    return (f'<div id="ws-cards" style="{CARDS_STYLE}">' + "".join(cards) + "</div>")


def source_card(n: int, source, verdicts: Counter | None) -> str:
    esc = html.escape
    title = esc(one_line(source.title or source.url, 160))
    href = source.url  # its address as every list of sources shows it (a redirect leads on to where it was read)
    link = f"{link_open_tag(href)}{title}</a>" if safe_href(href, fragments=False) else title
    cited = ("cited: " + ", ".join(f"{k} ×{v}" if v > 1 else k for k, v in verdicts.items())
             if verdicts else "read, not cited")
    facts = " · ".join(esc(f) for f in (where_from(source), source.kind, f"relevance {source.verdict}") if f)
    # the id is where a citation with no evidence of its own links (answer_view.citation_targets)
    return (f'<div class="ws-card" id="{anchor(ANCHOR, n)}" data-cited="{"yes" if verdicts else "no"}" '
            f'style="{CARD_STYLE}"><div><b>[{n}]</b> {link}</div>'
            f"<div><small>{facts}</small></div><div><small>{esc(cited)}</small></div></div>")


def where_from(source) -> str:
    """A paper's first authors and year; else the page's site (its host name)."""
    paper = source.paper if source.kind == "paper" else None
    if paper is not None:
        facts = ", ".join(f for f in (paper.authors_line(), str(paper.year or "")) if f)
        if facts:
            return one_line(facts, 120)
    try:
        return urlsplit(source.final_url or source.url).hostname or ""
    except ValueError:
        return ""


def fetched_cell(source) -> str:
    """Whether the page was read; what went wrong when it was not, and any warning or duplicate when it was."""
    if source.fetched:
        cell = f"yes ({source.status})" if source.status else "yes"
        said = "; ".join(x for x in (source.duplicate, source.warning) if x)
        return cell + (": " + one_line(said, 80) if said else "")
    if source.failure or source.skipped:
        return "no: " + one_line(source.failure or source.skipped, 80)
    return "—"


def title_cell(source) -> str:
    """The title; for a paper also its first authors and year, as the CLI's sources list shows them."""
    paper = source.paper if source.kind == "paper" else None
    if paper is None:
        return source.title
    facts = "; ".join(f for f in (paper.authors_line(), str(paper.year or "")) if f)
    return f"{source.title} — {one_line(facts, 120)}" if facts else source.title


def table_sources(result) -> list:
    """Every result in the details table's order: the listed sources first (as the cards show them: cited, then
    read but not cited), then the others in their search rank."""
    listed = [s for _, s in result.listed_sources()]
    shown = {id(s) for s in listed}
    return listed + [s for s in result.sources if id(s) not in shown]


def source_rows(result) -> list[list]:
    if result is None:
        return []
    numbers = {id(s): n for n, s in result.listed_sources()}
    return [[s.selected, str(numbers.get(id(s), "")), title_cell(s), s.url, ", ".join(s.engines),
             s.verdict, one_line(s.reason, 160), fetched_cell(s), str(s.round) if s.round else "", s.kind]
            for s in table_sources(result)]


def apply_ticks(result, rows) -> int:
    """Set each source's user_override from the ticked `use` column; returns how many differ from the
    verdict. A tick that agrees with the verdict clears the override."""
    ticks = table_ticks(rows)
    if len(ticks) != len(result.sources):
        raise BadArgument(None, "the sources table no longer matches this report; search again")
    changed = 0
    for source, (url, use) in zip(table_sources(result), ticks):
        if url != source.url:
            raise BadArgument(None, "the sources table no longer matches this report; search again")
        default = source.verdict != "irrelevant"
        source.user_override = None if use == default else use
        changed += use != default
    return changed


def table_ticks(rows) -> list[tuple[str, bool]]:
    """(url, ticked) per row of the sources table, whatever form Gradio hands it over in."""
    if hasattr(rows, "values") and hasattr(rows, "columns"):  # a pandas DataFrame
        rows = rows.values.tolist()
    out = []
    for row in rows or []:
        use = row[0]
        if isinstance(use, str):
            use = use.strip().lower() in ("true", "1", "yes", "✓")
        out.append((str(row[3]), bool(use)))
    return out


# ---------------------------------------------------------------- files

def download_files(result) -> list[str]:
    """The report as .md, .json, .html and .bib files (paths), in DOWNLOAD_FORMATS order."""
    from App_Function_Libraries import quarry
    return [write_download(quarry.history.export_result(result, fmt), export_filename(result.question, fmt))
            for fmt in DOWNLOAD_FORMATS]


def download_file(report: dict | None, fmt: str | None) -> str | None:
    """The report (a run's dict, as the tab's state holds it) as a file in `fmt`, its path; None without both.
    The sources list follows the run's citation style (Report options)."""
    if not report or not fmt:
        return None
    from App_Function_Libraries import quarry
    return write_download(quarry.history.export_result(report, fmt),
                          export_filename(str(report.get("question") or ""), fmt))


def clipboard_text(result) -> str:
    from App_Function_Libraries import quarry
    return quarry.history.export_result(result, "md")


def kept_markdown(kept) -> str:
    """What Keep sources did (a KeepReport): its summary, then each source not kept and why."""
    return "\n".join([md_text(kept.summary()) + "."] + [f"- not kept: {md_text(one_line(why, 200))}"
                                                        for why in kept.skipped])
