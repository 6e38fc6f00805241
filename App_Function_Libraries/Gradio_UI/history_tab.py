"""History tab: past searches and their reports, newest first; reopen one into the Web Search view, or
delete it, keep its sources in the document library. Under a selected report: the questions asked about it, and a box to ask another
(report_chat_view)."""
from __future__ import annotations

import time

import gradio as gr

from App_Function_Libraries.Gradio_UI import report_chat_view as chat
from App_Function_Libraries.Gradio_UI import runs_panel
from App_Function_Libraries.Gradio_UI.answer_view import md_text, render
from App_Function_Libraries.Gradio_UI.ui_common import current_settings, one_line, toast_text, user_errors
from App_Function_Libraries.quarry.errors import BadArgument

HEADERS = ["when", "question", "results", "citations", "mode", "models"]  # results found, citations made
LIST_LIMIT = 200
PREVIEW_CHARS = 1500


@user_errors
def list_history(query: str):
    from App_Function_Libraries import quarry
    reports = quarry.history.list(LIST_LIMIT, query=query or None, settings=current_settings())
    rows = [[time.strftime("%Y-%m-%d %H:%M", time.localtime(r.created_at)), one_line(r.question, 160),
             r.source_count, r.citation_count, r.mode, ", ".join(r.models)] for r in reports]
    return rows, [r.id for r in reports], f"{len(rows)} saved report(s)" + (" matching" if query else "")


@user_errors
def select_report(ids: list[str], evt: gr.SelectData):
    row = evt.index[0] if isinstance(evt.index, (list, tuple)) else evt.index
    if not ids or row is None or row >= len(ids):
        return gr.skip()
    from App_Function_Libraries import quarry
    result = quarry.history.get(ids[row], current_settings())
    return ids[row], preview_html(result), chat.saved_exchanges_html(result), gr.update(visible=True)


@user_errors
def ask_about(report_id: str | None, question: str):
    """A question about the selected report, answered from its own sources; (exchanges, cleared box)."""
    from App_Function_Libraries import quarry
    if not report_id:
        raise BadArgument(None, "select a report first")
    return chat.ask(quarry.history.get(report_id, current_settings()), question), ""


def preview_html(result) -> str:
    """The question, the start of the report, then the plan it followed and its watches, as safe HTML (page
    text quoted in it shows as text)."""
    from App_Function_Libraries import quarry
    facts = quarry.runs.facts_markdown(result.id, current_settings())
    return render(f"**{md_text(one_line(result.question, 200))}**\n\n{result.report_markdown[:PREVIEW_CHARS]}"
                  + (f"\n\n{facts}" if facts else ""))


@user_errors
def delete_report(report_id: str | None):
    from App_Function_Libraries import quarry
    if not report_id:
        raise BadArgument(None, "select a report first")
    quarry.history.delete(report_id, current_settings())
    gr.Info("Report deleted from History.")
    return None, "", "", gr.update(visible=False)


@user_errors
def keep_selected_sources(report_id: str | None):
    """The selected report's read pages and papers into the document library, each once; what was done."""
    from App_Function_Libraries import quarry
    from App_Function_Libraries.Gradio_UI.web_search_view import kept_markdown
    if not report_id:
        raise BadArgument(None, "select a report first")
    kept = quarry.history.keep_sources(report_id, current_settings())
    gr.Info(toast_text(kept.summary()))
    return kept_markdown(kept)


DOWNLOAD_FORMATS = [("PDF (.pdf)", "pdf"), ("Word (.docx)", "docx"), ("Markdown (.md)", "md"), ("HTML (.html)", "html"),
                    ("JSON (.json)", "json"), ("BibTeX (.bib)", "bib"), ("RIS (.ris)", "ris"),
                    ("CSL-JSON (.csl.json)", "csl"), ("Plain text (.txt)", "txt")]


@user_errors
def download_report(report_id: str | None, fmt: str | None):
    """The selected report as a file in `fmt` (its sources list in the report's citation style), with the
    questions asked about it."""
    if not report_id or not fmt:
        return gr.DownloadButton(value=None)
    from App_Function_Libraries import quarry
    from App_Function_Libraries.Gradio_UI.downloads import write_download
    settings = current_settings()
    result = quarry.history.get(report_id, settings)
    exchanges = quarry.history.exchanges(report_id, settings)
    path = write_download(quarry.history.export_result(result, fmt, exchanges=exchanges),
                          quarry.render.export_filename(result.question, fmt))
    return gr.DownloadButton(value=path)


def build_tab(settings, shared: dict | None = None) -> None:
    ids = gr.State([])
    selected = gr.State(None)
    with gr.Row():
        query = gr.Textbox(label="Find in questions and reports", max_lines=1, scale=4, elem_id="hist-search")
        find = gr.Button("Find", scale=1, elem_id="hist-find")
    count = gr.Markdown(elem_id="hist-count")
    table = gr.Dataframe(headers=HEADERS, interactive=False, wrap=True, max_height=420, elem_id="hist-list",
                         column_widths=["14%", "46%", "8%", "9%", "10%", "13%"])
    with gr.Row():
        reopen = gr.Button("Open in Web Search", variant="primary", elem_id="hist-open")
        keep = gr.Button("Keep sources", elem_id="hist-keep-sources")
        delete = gr.Button("Delete", variant="stop", elem_id="hist-delete")
        fmt = gr.Dropdown(DOWNLOAD_FORMATS, value=None, label="Download as", elem_id="hist-format")
        download = gr.DownloadButton("Download", elem_id="hist-download")
    kept = gr.Markdown(elem_id="hist-kept")
    preview = gr.HTML(elem_id="hist-preview")  # safe HTML from preview_html
    with gr.Column(visible=False, elem_id="hist-chat") as chat_panel:
        chat_question, chat_ask, chat_log = chat.build("hist")

    listing = dict(fn=list_history, inputs=query, outputs=[table, ids, count])
    runs_listing = runs_panel.build(selected, listing)
    find.click(**listing)
    query.submit(**listing)
    table.select(select_report, inputs=ids, outputs=[selected, preview, chat_log, chat_panel]).then(
        download_report, inputs=[selected, fmt], outputs=download)
    table.select(lambda: "", outputs=kept)  # what was kept belongs to the report selected before
    keep.click(keep_selected_sources, inputs=selected, outputs=kept)
    fmt.change(download_report, inputs=[selected, fmt], outputs=download)
    delete.click(delete_report, inputs=selected, outputs=[selected, preview, chat_log, chat_panel]).then(
        **listing).then(download_report, inputs=[selected, fmt], outputs=download)
    chat_ask.click(ask_about, inputs=[selected, chat_question], outputs=[chat_log, chat_question])
    chat_question.submit(ask_about, inputs=[selected, chat_question], outputs=[chat_log, chat_question])
    if shared is None:
        return
    shared["tab"].select(**listing)
    shared["tab"].select(**runs_listing)
    opener = shared.get("open_report")
    if opener is not None:
        reopen.click(user_errors(lambda rid: reopen_report(rid, opener["fn"])), inputs=selected,
                     outputs=[shared["tabs"], *opener["outputs"]])


def reopen_report(report_id: str | None, open_report) -> list:
    if not report_id:
        raise BadArgument(None, "select a report first")
    return [gr.Tabs(selected="web_search")] + open_report(report_id)
