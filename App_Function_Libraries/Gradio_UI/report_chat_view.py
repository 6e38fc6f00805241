"""Ask about this report, in the UI: a follow-up box under a finished report (Web Search tab) and under a
saved report's preview (History). The answer comes from the report's own sources (quarry.history.ask),
its [n] numbered 1..k in the answer (each source keeping the report's number), and every exchange is
saved with the report and listed under it, newest last."""
from __future__ import annotations

import time

import gradio as gr

from App_Function_Libraries.Gradio_UI.answer_view import answer_record_html, md_text, mode_label, render
from App_Function_Libraries.Gradio_UI.ui_common import current_settings, one_line, warn

HEADING = ("**Ask about this report**: answered from this report's own sources (no new web search); each "
           "answer lists the sources it cites, with the report's number for each.")
MODE_NOTES = {"none": "No source of the report covers this question"}


def build(prefix: str) -> tuple[gr.Textbox, gr.Button, gr.HTML]:
    """The question box, its button and the list of exchanges; elem_ids `{prefix}-chat-…`."""
    gr.Markdown(HEADING, elem_id=f"{prefix}-chat-heading")
    with gr.Row(equal_height=True):
        question = gr.Textbox(label="Question about this report", max_lines=3, scale=5,
                              placeholder="e.g. What does source 2 say about distance? (Enter to ask)",
                              elem_id=f"{prefix}-chat-question")
        ask = gr.Button("Ask", scale=1, elem_id=f"{prefix}-chat-ask")
    log = gr.HTML(elem_id=f"{prefix}-chat-log")  # safe HTML from exchanges_html
    return question, ask, log


def exchanges_html(exchanges) -> str:
    """The exchanges as safe HTML: each question, its answer with [n] opening its evidence, the sources it cites
    (numbered in the answer, with the report's number for each), and a line saying how it was made."""
    if not exchanges:
        return ""
    parts = []
    for i, e in enumerate(exchanges, 1):
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(e.asked_at))
        how = MODE_NOTES.get(e.answer.mode) or mode_label(e.answer.mode)
        parts.append(render(f"**Q: {md_text(one_line(e.question, 300))}**")
                     + answer_record_html(e.answer, f"chat{i}", f"*{how} · {when}*", count_removed=False))
    return "\n<hr>\n".join(parts)


def saved_exchanges_html(result) -> str:
    """The exchanges saved with this report (none when it is not in History)."""
    from App_Function_Libraries import quarry
    try:
        return exchanges_html(quarry.history.exchanges(result.id, current_settings()))
    except Exception as exc:  # noqa: BLE001 - the report still shows; its follow-ups could not be read
        warn(exc)
        return ""


def ask(result, question: str) -> str:
    """Answer `question` about `result`, save it with the report, and return every exchange as HTML (an empty
    question: BadArgument)."""
    from App_Function_Libraries import quarry
    asked = quarry.history.ask(result, question, current_settings())
    if not asked.saved:  # the report is not in History (saving it failed): answered without saving
        gr.Warning("This report is not in History, so the answer is not saved.")
        return exchanges_html([asked.exchange])
    return saved_exchanges_html(result)
