"""History's runs panel: the runs that did not finish (interrupted: the app or machine stopped; cancelled;
failed) with a Resume button (from the last completed stage, nothing searched or read again) and, while a
resumed run runs, a Cancel button that stops it as Web Search's Cancel does (what it did is kept, and it can be
resumed again); and "Watch this report" (re-run its plan every day, week, ...: Docs/runs.md)."""
from __future__ import annotations

import time

import gradio as gr

from App_Function_Libraries.Gradio_UI.research_runner import cancel_run, stream_run
from App_Function_Libraries.Gradio_UI.ui_common import current_settings, one_line, toast_text, user_errors
from App_Function_Libraries.quarry.errors import BadArgument

EVERY_CHOICES = [("every hour", "1h"), ("every day", "1d"), ("every week", "1w")]


def unfinished_choices() -> list[tuple[str, str]]:
    from App_Function_Libraries import quarry
    return [(f"{time.strftime('%Y-%m-%d %H:%M', time.localtime(r.updated_at))} · {r.status} after "
             f"{r.stage or 'no stage'} · {one_line(r.question, 100)}", r.id)
            for r in quarry.runs.unfinished(current_settings())]


@user_errors
def refresh():
    choices = unfinished_choices()
    return gr.Dropdown(choices=choices, value=choices[0][1] if choices else None), \
        f"{len(choices)} run(s) not finished" if choices else "Every run finished."


@user_errors
def resume(run_id: str | None):
    """Yield (the running run's id, progress or outcome, Cancel shown) while the run resumes, then its outcome;
    Cancel shows while it runs and goes when it ends, however it ends."""
    from App_Function_Libraries import quarry
    if not run_id:
        raise BadArgument(None, "choose a run to resume")
    settings = current_settings()

    def work(on_progress, cancel, on_delta):
        return quarry.runs.resume(run_id, settings=settings, on_progress=on_progress, cancel=cancel,
                                  on_report_delta=on_delta)
    try:
        for update in stream_run(work):
            if not update.final:
                yield update.run_id, update.board.markdown(cancelled=update.cancelled), gr.update(visible=True)
                continue
            if update.error is not None:
                raise update.error
            yield None, _outcome(update.result, update.cancelled), gr.update(visible=False)
    except Exception:
        yield None, gr.skip(), gr.update(visible=False)
        raise


def _outcome(result, cancelled: bool) -> str:
    if cancelled:
        gr.Info(toast_text(f"Cancelled: run {result.id[:8]} keeps what it did and can be resumed again."))
        return f"Cancelled run {result.id[:8]}: it is listed to resume again."
    gr.Info(toast_text(f"Resumed and saved: {one_line(result.question, 120)}"))
    return f"Resumed run {result.id[:8]}: its report is in the list above."


def stop(run_id: str | None) -> None:
    if not cancel_run(run_id):
        gr.Info("Nothing is running.")


@user_errors
def watch(report_id: str | None, every: str):
    from App_Function_Libraries import quarry
    if not report_id:
        raise BadArgument(None, "select a report first")
    w = quarry.watch.add(report_id, every, settings=current_settings())
    return (f"Watching it {dict((v, k) for k, v in EVERY_CHOICES).get(every, every)} (watch {w.id[:8]}); "
            "runs happen when `python app.py watch run` runs (cron or a systemd timer: Docs/runs.md).")


def build(selected, listing: dict) -> dict:
    """The panel, under the report list; `selected` is the History tab's selected report id, `listing` the
    event that refreshes that list. Returns the event that refreshes the panel's list of runs."""
    with gr.Accordion("Runs not finished, and watching", open=False, elem_id="hist-runs"):
        with gr.Row():
            runs = gr.Dropdown([], label="Interrupted or cancelled runs", scale=4, elem_id="hist-unfinished")
            resume_button = gr.Button("Resume", scale=1, elem_id="hist-resume")
            cancel_button = gr.Button("Cancel", variant="stop", scale=1, size="sm", visible=False,
                                      elem_id="hist-resume-cancel")
            refresh_button = gr.Button("Refresh", scale=1, size="sm", elem_id="hist-runs-refresh")
        runs_note = gr.Markdown(elem_id="hist-runs-note")
        with gr.Row():
            every = gr.Dropdown(EVERY_CHOICES, value="1d", label="Watch the selected report", scale=2,
                                elem_id="hist-every")
            watch_button = gr.Button("Watch", scale=1, elem_id="hist-watch")
        watched = gr.Markdown(elem_id="hist-watched")
        resuming = gr.State(None)  # the id of the resumed run's worker while it runs (research_runner)
    refresh_button.click(refresh, outputs=[runs, runs_note])
    resume_button.click(resume, inputs=runs, outputs=[resuming, runs_note, cancel_button]).then(
        refresh, outputs=[runs, runs_note]).then(**listing)
    cancel_button.click(stop, inputs=resuming)
    watch_button.click(watch, inputs=[selected, every], outputs=watched)
    return dict(fn=refresh, outputs=[runs, runs_note])
