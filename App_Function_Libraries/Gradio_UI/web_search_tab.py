"""Web Search tab: ask a question, shape the report (Report options), watch each stage, read a report whose
[n] link to their sources, click a follow-up question or dig deeper, tick sources in or out and re-run from
the fetch stage, then save to notes, copy or download.

Layout and wiring only; the pipeline runs through research_runner (a worker thread per run), the form is
read by web_search_params (report options: report_options), and results are drawn by web_search_view.
Every finished run is saved to the research database (the History tab lists them).
"""
from __future__ import annotations

import gradio as gr

from App_Function_Libraries.options import label as option_label
from App_Function_Libraries.config import LLM_ROLES
from App_Function_Libraries.Gradio_UI import first_screen
from App_Function_Libraries.Gradio_UI import report_chat_view as chat
from App_Function_Libraries.Gradio_UI import plan_review, report_options
from App_Function_Libraries.Gradio_UI import web_search_params as wp
from App_Function_Libraries.Gradio_UI import web_search_view as view
from App_Function_Libraries.Gradio_UI.answer_view import md_text
from App_Function_Libraries.Gradio_UI.research_runner import cancel_run, stream_run
from App_Function_Libraries.Gradio_UI.ui_common import current_settings, log, one_line, toast_text, user_errors
from App_Function_Libraries.quarry.errors import BadArgument

OPTION_NAMES = ["engines", "count", "result_max", "country", "search_lang", "result_lang", "date_range",
                "date_start", "date_end", "safesearch", "site_blacklist", "include_sites", "exact_terms",
                "exclude_terms",
                "dedupe_filter", "geolocation", "sort", "subqueries", "subquery_count", "relevance_check", "pages_max",
                "report_format", "tone", "report_language", "length_words", "aggregation_prompt", "preset",
                "citation_style"] + [
                    f"llm_{r}" for r in LLM_ROLES]
REPORT_OPTION_NAMES = ["tone", "report_format", "report_language", "length_words", "aggregation_prompt", "preset",
                       "citation_style"]
COPY_JS = "(text) => { if (text) { navigator.clipboard.writeText(text); } return []; }"
# Escape cancels a running research: clicks Cancel while the report area shows a run in progress
ESCAPE_JS = """() => {
  if (window.quarryEscapeCancels) { return []; }
  window.quarryEscapeCancels = true;
  document.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape') { return; }
    const cancel = document.getElementById('ws-cancel'), report = document.getElementById('ws-report');
    if (!cancel || !cancel.offsetParent || !report) { return; }
    const busy = report.querySelector('.pending') || [...report.querySelectorAll('[data-testid=status-tracker]')]
      .some((t) => !t.classList.contains('hide'));
    if (busy) { cancel.click(); }
  });
  return [];
}"""
# the controls that act on a report (follow-ups and dig deeper, ask about it, sources, notes, copy and
# downloads): hidden on the first screen and while a new report is being written
PANELS = 4
# after the panels: the source cards and the "Search options" fold (closed once a report exists, so the
# report's first line shows without scrolling)
TAIL = 2


def panels(shown: bool) -> list:
    return [gr.update(visible=shown)] * PANELS


def cancel_shown(running: bool):
    """Cancel shows only while a run is running."""
    return gr.update(visible=running)


# ---------------------------------------------------------------- results into outputs

def result_values(result) -> list:
    """What a finished run fills in (RESULT_OUTPUTS of them): report, sources, state, 4 downloads, clipboard
    text, note title, follow-ups heading, the follow-up buttons, rounds, the questions asked about it and
    an empty question box, then the report's PANELS shown, the source cards and the search options folded."""
    if result is None:
        return [gr.skip()] * RESULT_OUTPUTS
    if result.searched_nothing:  # no report: the report area says why; the report's controls stay hidden
        return [view.searched_nothing_html(result), [], None] + [gr.skip()] * (RESULT_OUTPUTS - 3 - PANELS - TAIL) \
            + panels(False) + ["", gr.skip()]
    files = view.download_files(result)
    buttons = [gr.Button(value=label or " ", visible=bool(label)) for label in view.follow_up_labels(result)]
    return [view.report_html(result), view.source_rows(result), result.to_dict(), *files,
            view.clipboard_text(result), one_line(result.question, 120), view.follow_ups_heading(result),
            *buttons, view.rounds_markdown(result), chat.saved_exchanges_html(result), "", *panels(True),
            view.source_cards_html(result), gr.update(open=False)]


RESULT_OUTPUTS = 13 + view.MAX_FOLLOW_UPS + PANELS + TAIL


def save_to_history(result, settings) -> None:
    from App_Function_Libraries import quarry
    if result.searched_nothing:  # no report to keep
        return
    saved = quarry.history.save(result, settings)  # a durable run is marked done
    if not saved.ok:  # the report is still shown; saving is a convenience
        log.warning("could not save the research run: %s", saved.message)
        gr.Warning(toast_text(f"The report could not be saved to History: {one_line(saved.message, 160)}"))


def stream_outputs(work, settings):
    """Yield [run id, progress, *result_values, Cancel] while `work` runs, then the finished run; Cancel
    shows while it runs and goes when it ends, however it ends."""
    first = True
    try:
        for update in stream_run(work):
            progress = update.board.markdown(cancelled=update.cancelled)
            if not update.final:
                shown = update.partial or ("*Working…*" if first else "")
                partial = view.report_html(None, shown) if shown else gr.skip()
                first = False
                yield ([update.run_id, progress, partial] + [gr.skip()] * (RESULT_OUTPUTS - 1 - PANELS - TAIL)
                       + panels(False) + [gr.skip()] * TAIL + [cancel_shown(True)])
                continue
            if update.error is not None:
                raise update.error
            result = update.result
            save_to_history(result, settings)
            if update.cancelled:
                gr.Info("Search cancelled: showing what was done.")
            yield ([None, update.board.markdown(result.timings, update.cancelled)] + result_values(result)
                   + [cancel_shown(False)])
    except Exception:
        yield [gr.skip()] * (1 + 1 + RESULT_OUTPUTS) + [cancel_shown(False)]
        raise


@user_errors
def run_search(question: str, *values):
    yield from _research(question, None, values)


@user_errors
def run_follow_up(state: dict | None, question: str, *values):
    """A follow-up question of the report in `state`: its queries and answer guide the new sub-queries."""
    if not state:
        raise BadArgument(None, "there is no report to follow up yet")
    yield from _research(question, state, values)


def _research(question: str, previous: dict | None, values):
    from App_Function_Libraries import quarry
    from App_Function_Libraries.records import ResearchResult
    if not (question or "").strip():
        raise BadArgument(None, "type a question first")
    settings = current_settings()
    form = dict(zip(OPTION_NAMES, values))
    params = wp.build_params(settings, form)
    if previous:
        params = quarry.runs.follow_up(ResearchResult.from_dict(previous), params)
    services = wp.build_services(settings, form, params)

    def work(on_progress, cancel, on_delta):  # saved by stream_outputs, with the tab's own messages
        return quarry.research(question, params, save=False, durable=True, on_progress=on_progress, cancel=cancel,
                               on_report_delta=on_delta, settings=settings, services=services)
    yield from stream_outputs(work, settings)


@user_errors
def rerun_selection(state: dict | None, rows, *values):
    from App_Function_Libraries import quarry
    from App_Function_Libraries.records import ResearchResult
    if not state:
        raise BadArgument(None, "search first, then tick sources in or out and re-run")
    result = ResearchResult.from_dict(state)
    changed = view.apply_ticks(result, rows)
    if not any(s.selected for s in result.sources):
        raise BadArgument(None, "tick at least one source to read")
    settings = current_settings()
    form = dict(zip(OPTION_NAMES, values))
    params = quarry.runs.params_of(result)
    services = wp.build_services(settings, form, params)
    gr.Info(f"Re-running from the fetch stage with {sum(s.selected for s in result.sources)} source(s) "
            f"({changed} changed by you).")

    def work(on_progress, cancel, on_delta):
        return quarry.runs.rerun(result, params, on_progress=on_progress, cancel=cancel, on_report_delta=on_delta,
                                 services=services)
    yield from stream_outputs(work, settings)


@user_errors
def dig_deeper(state: dict | None, rounds, *values):
    """More rounds on the report in `state`, aimed at what it lacks (its own options and engines)."""
    from App_Function_Libraries import quarry
    from App_Function_Libraries.records import ResearchResult
    if not state:
        raise BadArgument(None, "search first, then dig deeper into the report")
    result = ResearchResult.from_dict(state)
    settings = current_settings()
    params = quarry.runs.params_of(result)
    services = wp.build_services(settings, dict(zip(OPTION_NAMES, values)), params)

    def work(on_progress, cancel, on_delta):
        return quarry.runs.dig_deeper(result, int(rounds or 1), params, on_progress=on_progress, cancel=cancel,
                                      on_report_delta=on_delta, services=services)
    yield from stream_outputs(work, settings)


@user_errors
def save_note(state: dict | None, title: str, keywords: str):
    from App_Function_Libraries import quarry
    from App_Function_Libraries.records import ResearchResult
    if not state:
        raise BadArgument(None, "there is no report to save yet")
    note = quarry.notes.add_result(ResearchResult.from_dict(state), title, keywords, current_settings())
    gr.Info(toast_text(f"Saved to Notes as “{one_line(note.title, 60)}”."))
    return f"Saved to Notes as “{md_text(one_line(note.title, 80))}”."


@user_errors
def keep_report_sources(state: dict | None):
    """The report's read pages and papers into the document library, each once; what was done."""
    from App_Function_Libraries import quarry
    from App_Function_Libraries.records import ResearchResult
    if not state:
        raise BadArgument(None, "there is no report yet")
    kept = quarry.history.keep_result(ResearchResult.from_dict(state), current_settings())
    gr.Info(toast_text(kept.summary()))
    return view.kept_markdown(kept)


@user_errors
def ask_about(state: dict | None, question: str):
    """A question about the report in `state`, answered from its own sources; (exchanges, cleared box)."""
    from App_Function_Libraries.records import ResearchResult
    if not state:
        raise BadArgument(None, "search first, then ask about the report")
    return chat.ask(ResearchResult.from_dict(state), question), ""


def stop(run_id: str | None) -> None:
    if not cancel_run(run_id):
        gr.Info("Nothing is running.")


def open_report(report_id: str):
    """Outputs for a saved report reopened from History: progress text, then result_values."""
    from App_Function_Libraries import quarry
    result = quarry.history.get(report_id, current_settings())
    return ([f"Reopened a saved report from History (id `{result.id[:8]}`)."] + result_values(result)
            + report_options.values_from_params(result.params) + [result.question])


def question_of(state: dict | None):
    """The question box after a re-run or a dig-deeper round: the report's question."""
    return (state or {}).get("question") or gr.skip()


# ---------------------------------------------------------------- layout

def build_options(settings) -> dict:
    s = settings.search
    c: dict = {}
    with gr.Row():
        c["engines"] = gr.Dropdown(first_screen.engine_choices(settings), multiselect=True,
                                   value=[e.strip() for e in s.search_provider_default.split(",") if e.strip()],
                                   label=option_label("engines"), scale=3, elem_id="ws-engines")
        c["count"] = gr.Slider(1, 50, value=min(s.search_result_max_per_query, 50), step=1,
                               label=option_label("count"), scale=2, elem_id="ws-count")
        c["result_max"] = gr.Slider(1, 100, value=min(s.search_result_max, 100), step=1,
                                    label=option_label("result_max"), scale=2)
    with gr.Accordion("Advanced search", open=False, elem_id="ws-advanced"):
        with gr.Row():
            c["country"] = gr.Textbox(s.search_content_country, label=option_label("country"), max_lines=1)
            c["search_lang"] = gr.Textbox(s.search_language_query, label=option_label("search_lang"), max_lines=1)
            c["result_lang"] = gr.Textbox(s.search_language_results, label=option_label("result_lang"), max_lines=1)
            c["geolocation"] = gr.Textbox("", label=option_label("geolocation"), max_lines=1)
        with gr.Row():
            c["date_range"] = gr.Dropdown(wp.DATE_CHOICES, value="any", label=option_label("date_range"))
            c["date_start"] = gr.Textbox("", label="From (YYYY-MM-DD)", max_lines=1)
            c["date_end"] = gr.Textbox("", label="To (YYYY-MM-DD)", max_lines=1)
            c["safesearch"] = gr.Dropdown(wp.SAFESEARCH_CHOICES, value=s.search_safesearch,
                                          label=option_label("safesearch"))
            c["sort"] = gr.Dropdown(wp.SORT_CHOICES, value="relevance", label=option_label("sort"))
        with gr.Row():
            c["site_blacklist"] = gr.Textbox(", ".join(s.search_result_blacklist), label=option_label("site_blacklist"),
                                             placeholder="pinterest.com, example.org", max_lines=2)
            c["include_sites"] = gr.Textbox(", ".join(s.search_include_sites), label=option_label("include_sites"),
                                            placeholder="nature.com, example.org (empty: every site)",
                                            max_lines=2, elem_id="ws-include-sites")
            c["exact_terms"] = gr.Textbox("", label=option_label("exact_terms"), max_lines=3)
            c["exclude_terms"] = gr.Textbox("", label=option_label("exclude_terms"), max_lines=2)
            c["dedupe_filter"] = gr.Checkbox(False, label=option_label("dedupe_filter"))
        with gr.Row():
            c["subqueries"] = gr.Checkbox(s.search_enable_subquery, label=option_label("subqueries"),
                                          elem_id="ws-subqueries")
            c["subquery_count"] = gr.Slider(1, 10, value=s.search_enable_subquery_count_max, step=1,
                                            label=option_label("subquery_count"))
            c["relevance_check"] = gr.Checkbox(settings.research.relevance_check, label=option_label("relevance_check"),
                                         elem_id="ws-relevance")
            c["pages_max"] = gr.Slider(1, 50, value=min(settings.research.pages_max, 50), step=1,
                                       label=option_label("pages_max"))
        with gr.Row():
            for role in LLM_ROLES:
                c[f"llm_{role}"] = gr.Dropdown(wp.llm_choices(settings, role), value=wp.CONFIGURED,
                                               label=f"LLM for the {wp.ROLE_NAMES[role]}")
    c.update(report_options.build(settings))
    return c


def first_screen_values(*_) -> list:
    """The mode line, the engine picker's marks and the LLM-only controls, from the settings in force."""
    settings = current_settings()
    engines = gr.update(choices=first_screen.engine_choices(settings, first_screen.engine_health(settings)))
    llm_only = first_screen.llm_only_state(settings)
    return [first_screen.mode_markdown(settings), engines] + [gr.update(**llm_only[n]) for n in first_screen.LLM_ONLY]


def engine_picker(*_):
    """The engine picker with fresh marks (after a run: an engine that just failed says so)."""
    return first_screen_values()[1]


def build_tab(settings, shared: dict | None = None) -> None:
    run_id = gr.State(None)
    state = gr.State(None)
    mode = gr.Markdown(first_screen.mode_markdown(settings), elem_id="ws-mode")
    with gr.Row():
        question = gr.Textbox(label="Question", placeholder="What do you want to find out? (Enter to search)",
                              scale=6, lines=1, max_lines=4, autofocus=True, elem_id="ws-question")
        with gr.Column(scale=1, min_width=140):
            search = gr.Button("Search", variant="primary", elem_id="ws-search")
            review, plan_button = plan_review.build_toggle()
            cancel = gr.Button("Cancel", variant="stop", size="sm", visible=False, elem_id="ws-cancel")
    plan_panel, plan_code, run_plan = plan_review.build_panel()
    with gr.Accordion("Search options", open=True, elem_id="ws-options") as options_fold:
        options = build_options(settings)
    with gr.Row():
        with gr.Column(scale=1, min_width=260):
            progress = gr.Markdown("*Stages appear here while a search runs.*", elem_id="ws-progress")
        with gr.Column(scale=3):
            report = gr.HTML(elem_id="ws-report")  # safe HTML from view.report_html
            with gr.Column(visible=False, elem_id="ws-chat") as chat_panel:
                chat_question, chat_ask, chat_log = chat.build("ws")
            with gr.Column(visible=False, elem_id="ws-next") as next_panel:
                follow_heading = gr.Markdown(elem_id="ws-followups")
                follow_buttons = [gr.Button(" ", visible=False, size="sm", elem_id=f"ws-followup-{i}")
                                  for i in range(view.MAX_FOLLOW_UPS)]
                with gr.Row(equal_height=True):
                    dig_rounds = gr.Slider(1, 5, value=1, step=1, label="Dig-deeper rounds", scale=2,
                                           elem_id="ws-dig-rounds")
                    dig = gr.Button("Dig deeper", scale=1, elem_id="ws-dig")
                rounds = gr.Markdown(elem_id="ws-rounds")
    with gr.Column(visible=False, elem_id="ws-sources-panel") as sources_panel:
        cards = gr.HTML(elem_id="ws-source-cards")  # safe HTML from view.source_cards_html
        with gr.Accordion("Details: every result; tick results in or out, then re-run", open=False,
                          elem_id="ws-details"):
            sources = gr.Dataframe(headers=view.SOURCE_HEADERS, datatype=view.SOURCE_TYPES, type="array",
                                   interactive=True, static_columns=list(range(1, len(view.SOURCE_HEADERS))),
                                   wrap=True, max_height=420, elem_id="ws-sources",
                                   column_widths=["6%", "4%", "18%", "21%", "8%", "8%", "17%", "11%", "7%"])
            rerun = gr.Button("Re-run with selection", elem_id="ws-rerun")
    with gr.Column(visible=False, elem_id="ws-keep") as keep_panel:
        with gr.Row(equal_height=True):
            note_title = gr.Textbox(label="Note title", max_lines=1, scale=3, elem_id="ws-note-title")
            note_keywords = gr.Textbox(label="Keywords", placeholder="comma-separated", max_lines=1, scale=2,
                                       elem_id="ws-note-keywords")
            save = gr.Button("Save to notes", scale=1, elem_id="ws-save-note")
            copy = gr.Button("Copy", scale=1, elem_id="ws-copy")
            keep = gr.Button("Keep sources", scale=1, elem_id="ws-keep-sources")
        saved = gr.Markdown(elem_id="ws-saved")
        kept = gr.Markdown(elem_id="ws-kept")
        with gr.Row():
            downloads = [gr.DownloadButton(f"Download .{fmt}", size="sm", elem_id=f"ws-download-{fmt}")
                         for fmt in view.DOWNLOAD_FORMATS]
            more_format = gr.Dropdown(view.MORE_FORMATS, value=None, label="Download as", scale=1,
                                      min_width=160, elem_id="ws-download-format")
            more_download = gr.DownloadButton("Download", size="sm", elem_id="ws-download-more")
    copy_text = gr.Textbox(visible="hidden", elem_id="ws-copy-text")

    option_inputs = [options[name] for name in OPTION_NAMES]
    result_outputs = [report, sources, state, *downloads, copy_text, note_title, follow_heading, *follow_buttons,
                      rounds, chat_log, chat_question, chat_panel, next_panel, sources_panel, keep_panel,
                      cards, options_fold]
    run_outputs = [run_id, progress, *result_outputs, cancel]
    search.click(run_search, inputs=[question, *option_inputs], outputs=run_outputs).then(
        engine_picker, outputs=options["engines"])
    plan_review.wire(review, plan_button, search, question, plan_panel, plan_code, run_plan, OPTION_NAMES,
                     option_inputs, run_outputs, stream_outputs)
    question.submit(run_search, inputs=[question, *option_inputs], outputs=run_outputs).then(
        engine_picker, outputs=options["engines"])
    for button in follow_buttons:  # the question box shows the follow-up, then it is researched
        button.click(lambda text: text, inputs=button, outputs=question).then(
            run_follow_up, inputs=[state, question, *option_inputs], outputs=run_outputs)
    dig.click(dig_deeper, inputs=[state, dig_rounds, *option_inputs], outputs=run_outputs).then(
        question_of, inputs=state, outputs=question)
    rerun.click(rerun_selection, inputs=[state, sources, *option_inputs], outputs=run_outputs).then(
        question_of, inputs=state, outputs=question)
    cancel.click(stop, inputs=run_id)
    save.click(save_note, inputs=[state, note_title, note_keywords], outputs=saved)
    copy.click(None, inputs=copy_text, js=COPY_JS)
    keep.click(keep_report_sources, inputs=state, outputs=kept)
    for changed in (more_format, state):  # a new report or a new choice: the file is made again
        changed.change(user_errors(lambda report, fmt: gr.DownloadButton(value=view.download_file(report, fmt))),
                       inputs=[state, more_format], outputs=more_download)
    chat_ask.click(ask_about, inputs=[state, chat_question], outputs=[chat_log, chat_question])
    chat_question.submit(ask_about, inputs=[state, chat_question], outputs=[chat_log, chat_question])
    if shared is not None:
        shared.setdefault("on_load", []).append(dict(fn=None, js=ESCAPE_JS))
        shared["on_load"].append(dict(fn=first_screen_values, outputs=[
            mode, options["engines"], *[options[name] for name in first_screen.LLM_ONLY]]))
        report_controls = [options[name] for name in REPORT_OPTION_NAMES]
        shared["open_report"] = dict(fn=open_report,
                                     outputs=[progress, *result_outputs, *report_controls, question])
