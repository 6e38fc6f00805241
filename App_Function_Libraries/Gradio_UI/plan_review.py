"""Web Search's "Review the plan": with the toggle on, the Plan button makes the plan (sub-queries only, nothing
searched) and shows it as editable JSON: remove, add or change queries, drop an engine or local source from one,
set sites, dates and budget; Run plan runs it (Research/plan.py; Docs/runs.md)."""
from __future__ import annotations

import json

import gradio as gr

from App_Function_Libraries.Gradio_UI.ui_common import current_settings, user_errors
from App_Function_Libraries.quarry.errors import BadArgument


def build_toggle():
    """The toggle and the Plan button (shown instead of Search while the toggle is on); (toggle, button)."""
    review = gr.Checkbox(False, label="Review the plan", elem_id="ws-review-plan")
    plan_button = gr.Button("Plan", variant="primary", visible=False, elem_id="ws-plan")
    return review, plan_button


def build_panel():
    """The plan as JSON, editable, and the Run plan button; (panel, code, run button)."""
    with gr.Column(visible=False, elem_id="ws-plan-panel") as panel:
        gr.Markdown("**The plan** — edit the queries (each with its engines and local sources), sites, date range "
                    "and budget (0: none), then run it.")
        code = gr.Code(language="json", interactive=True, lines=12, elem_id="ws-plan-json")
        run = gr.Button("Run plan", variant="primary", elem_id="ws-run-plan")
    return panel, code, run


def wire(review, plan_button, search, question, panel, code, run, option_names, option_inputs, run_outputs,
         stream_outputs) -> None:
    """Events: the toggle swaps Search for Plan; Plan shows the plan; Run plan streams the run like Search."""
    review.change(lambda on: (gr.update(visible=not on), gr.update(visible=on), gr.update(visible=False)),
                  inputs=review, outputs=[search, plan_button, panel])

    @user_errors
    def make(text: str, *values):
        from App_Function_Libraries import quarry
        from App_Function_Libraries.Gradio_UI import web_search_params as wp
        if not (text or "").strip():
            raise BadArgument(None, "type a question first")
        settings = current_settings()
        form = dict(zip(option_names, values))
        params = wp.build_params(settings, form)
        plan = quarry.runs.plan(text, params, settings=settings, services=wp.build_services(settings, form, params))
        return gr.update(visible=True), json.dumps(plan.to_dict(), indent=2, ensure_ascii=False)

    @user_errors
    def run_plan(text: str, *values):
        from App_Function_Libraries import quarry
        from App_Function_Libraries.Gradio_UI import web_search_params as wp
        settings = current_settings()
        plan = quarry.runs.read_plan(text or "")
        form = dict(zip(option_names, values))
        params = wp.build_params(settings, form)
        services = wp.build_services(settings, form, params)

        def work(on_progress, cancel, on_delta):
            return quarry.research(plan.question, params, plan=plan, save=False, durable=True,
                                   on_progress=on_progress, cancel=cancel, on_report_delta=on_delta,
                                   settings=settings, services=services)
        yield from stream_outputs(work, settings)

    plan_button.click(make, inputs=[question, *option_inputs], outputs=[panel, code])
    run.click(run_plan, inputs=[code, *option_inputs], outputs=run_outputs)
