"""Notes tab: full-text search, a keyword filter, a markdown editor with preview, delete/restore (trash),
export (one note or all) and import.

Edits are version-checked: a note changed elsewhere since it was opened is not overwritten (the user is told
to reload it). Everything goes through the Python facade (quarry.notes), like the CLI, the MCP tools and the
HTTP API.
"""
from __future__ import annotations

import time

import gradio as gr

from App_Function_Libraries.Gradio_UI.downloads import new_download_path, write_download
from App_Function_Libraries.Gradio_UI.ui_common import current_settings, one_line, toast_text, user_errors
from App_Function_Libraries.quarry.errors import BadArgument

LIST_HEADERS = ["title", "keywords", "updated", "match"]
EXPORT_FORMATS = [("Markdown (.md)", "md"), ("JSON (.json)", "json"), ("HTML (.html)", "html"), ("PDF (.pdf)", "pdf"),
                  ("Word (.docx)", "docx"), ("BibTeX of its sources (.bib)", "bib"),
                  ("RIS of its sources (.ris)", "ris"), ("CSL-JSON of its sources (.csl.json)", "csl"),
                  ("Plain text (.txt)", "txt")]
NO_NOTE = {"id": None, "version": None}
ALL_KEYWORDS = "(all keywords)"
LIST_LIMIT = 200


def when(epoch: float | None) -> str:
    from App_Function_Libraries.quarry.render import format_epoch
    return format_epoch(epoch, invalid="?") if epoch else ""  # "?": a stored time that is not a valid one


# ---------------------------------------------------------------- the list

def find_notes(query: str, keyword: str | None, trash: bool) -> tuple[list, list[str]]:
    """(rows, note ids) for the list: search hits best first, or newest edited first. The match column shows
    the note's text as typed (its markdown escaped), a search's matches in bold."""
    from App_Function_Libraries import quarry
    from App_Function_Libraries.quarry.render import snippet_markdown
    keyword = None if keyword in (None, "", ALL_KEYWORDS) else keyword
    if query and query.strip():
        hits = quarry.notes.search(query, limit=LIST_LIMIT, include_deleted=trash, keyword=keyword,
                                   settings=current_settings())
        pairs = [(h.note, snippet_markdown(h.snippet, 160)) for h in hits if h.note.deleted == trash]
    else:
        notes = quarry.notes.list(keyword, LIST_LIMIT, deleted=trash, settings=current_settings())
        pairs = [(n, snippet_markdown(n.content, 120)) for n in notes]
    rows = [[n.title, ", ".join(n.keywords), when(n.updated_at), snippet] for n, snippet in pairs]
    return rows, [n.id for n, _ in pairs]


def keyword_choices() -> list[str]:
    from App_Function_Libraries import quarry
    return [ALL_KEYWORDS] + [k for k, _ in quarry.notes.keywords(current_settings())]


@user_errors
def refresh_list(query: str, keyword: str | None, trash: bool):
    rows, ids = find_notes(query, keyword, trash)
    choices = keyword_choices()
    keyword = keyword if keyword in choices else ALL_KEYWORDS
    return rows, ids, gr.Dropdown(choices=choices, value=keyword)


# ---------------------------------------------------------------- one note

def note_outputs(note, fmt: str) -> list:
    """title, keywords, content, preview, state, info, download for an opened note (or none)."""
    if note is None:
        return ["", "", "", "", dict(NO_NOTE), "New note: write it and press Save.", gr.DownloadButton(value=None)]
    state = {"id": note.id, "version": note.version}
    info = (f"Created {when(note.created_at)} · updated {when(note.updated_at)} · version {note.version}"
            + (" · **in the trash**" if note.deleted else "")
            + (" · from a research report" if note.report_id else ""))
    return [note.title, ", ".join(note.keywords), note.content, preview_html(note.content), state, info,
            download_for(note, fmt)]


def preview_html(content: str) -> str:
    """A note's markdown as safe HTML: a note saved from a report quotes page text, which shows as text."""
    from App_Function_Libraries.Gradio_UI.answer_view import render
    return render(content or "")


def download_for(note, fmt: str):
    from App_Function_Libraries import quarry
    return gr.DownloadButton(value=write_download(quarry.notes.export(note, fmt),
                                                  quarry.render.export_filename(note.title, fmt)))


@user_errors
def open_note(ids: list[str], fmt: str, evt: gr.SelectData):
    row = evt.index[0] if isinstance(evt.index, (list, tuple)) else evt.index
    if not ids or row is None or row >= len(ids):
        return gr.skip()
    from App_Function_Libraries import quarry
    return note_outputs(quarry.notes.get(ids[row], settings=current_settings()), fmt)


@user_errors
def save_note(state: dict, title: str, keywords: str, content: str, fmt: str):
    from App_Function_Libraries import quarry
    if state.get("id"):
        note = quarry.notes.edit(state["id"], state["version"], title=title, content=content, keywords=keywords,
                                 settings=current_settings())
        gr.Info(toast_text(f"Saved “{one_line(note.title, 60)}”."))
    else:
        note = quarry.notes.add(title, content, keywords, settings=current_settings())
        gr.Info(toast_text(f"Created “{one_line(note.title, 60)}”."))
    return note_outputs(note, fmt)


@user_errors
def delete_note(state: dict, fmt: str):
    from App_Function_Libraries import quarry
    if not state.get("id"):
        raise BadArgument(None, "open a note first")
    try:
        quarry.notes.delete(state["id"], state["version"], settings=current_settings())
    except quarry.notes.AlreadyInTrash:
        gr.Info("This note is already in the trash (press Restore to bring it back).")
        return gr.skip()
    gr.Info("Moved to the trash (tick “Trash” to see it and restore it).")
    return note_outputs(None, fmt)


@user_errors
def restore_note(state: dict, fmt: str):
    from App_Function_Libraries import quarry
    if not state.get("id"):
        raise BadArgument(None, "open a note from the trash first")
    note = quarry.notes.restore(state["id"], current_settings())
    gr.Info(toast_text(f"Restored “{one_line(note.title, 60)}”."))
    return note_outputs(note, fmt)


@user_errors
def change_format(state: dict, fmt: str):
    from App_Function_Libraries import quarry
    if not state.get("id"):
        return gr.skip()
    return download_for(quarry.notes.get(state["id"], current_settings()), fmt)


# ---------------------------------------------------------------- all notes in and out

@user_errors
def export_all(include_trash: bool):
    from App_Function_Libraries import quarry
    path = new_download_path(time.strftime("quarry-notes-%Y%m%d-%H%M%S.zip"))
    count = quarry.notes.export_all(path, include_deleted=include_trash, settings=current_settings())
    gr.Info(f"Exported {count} note(s).")
    return str(path)


@user_errors
def import_files(files: list | None):
    from App_Function_Libraries import quarry
    if not files:
        raise BadArgument(None, "choose .md, .json or .zip files to import")
    lines = []
    for f in files:
        path = getattr(f, "name", f)
        lines.append(import_markdown(path.rsplit('/', 1)[-1], quarry.notes.import_file(path, current_settings())))
    return "\n\n".join(lines)


def import_markdown(name: str, summary) -> str:
    """One imported file's summary (an ImportSummary) as Markdown. Its skipped lines quote the file (zip member
    names, values such as a version '<img src=...>'): shown as text, never as HTML or Markdown."""
    from App_Function_Libraries.Gradio_UI.answer_view import md_text
    lines = [f"**{md_text(name)}**: {summary.line()}"]
    lines += [f"- skipped {md_text(one_line(e))}" for e in summary.errors[:10]]
    return "\n\n".join(lines)


# ---------------------------------------------------------------- layout

def build_tab(settings, shared: dict | None = None) -> None:
    ids = gr.State([])
    state = gr.State(dict(NO_NOTE))
    with gr.Row():
        with gr.Column(scale=2):
            with gr.Row():
                query = gr.Textbox(label="Search notes", placeholder="words, \"a phrase\", OR, -word to leave out",
                                   elem_id="notes-search", scale=3, max_lines=1)
                keyword = gr.Dropdown([ALL_KEYWORDS], value=ALL_KEYWORDS, label="Keyword", scale=2,
                                      elem_id="notes-keyword")
            with gr.Row():
                search = gr.Button("Search", variant="primary", size="sm", elem_id="notes-search-btn")
                trash = gr.Checkbox(label="Trash", value=False, elem_id="notes-trash")
                new = gr.Button("New note", size="sm", elem_id="notes-new")
            table = gr.Dataframe(headers=LIST_HEADERS, datatype=["str", "str", "str", "markdown"],
                                 interactive=False, wrap=True, max_height=520, elem_id="notes-list",
                                 column_widths=["30%", "20%", "18%", "32%"])
        with gr.Column(scale=3):
            title = gr.Textbox(label="Title", max_lines=1, elem_id="notes-title")
            keywords = gr.Textbox(label="Keywords (comma-separated)", max_lines=1, elem_id="notes-keywords")
            with gr.Tabs():
                with gr.Tab("Edit"):
                    content = gr.Textbox(label="Markdown", lines=14, max_lines=30, elem_id="notes-content")
                with gr.Tab("Preview") as preview_tab:
                    preview = gr.HTML(elem_id="notes-preview")  # safe HTML from preview_html
            info = gr.Markdown("Open a note from the list, or write a new one.", elem_id="notes-info")
            with gr.Row():
                save = gr.Button("Save", variant="primary", elem_id="notes-save")
                delete = gr.Button("Delete", variant="stop", elem_id="notes-delete")
                restore = gr.Button("Restore", elem_id="notes-restore")
            with gr.Row():
                fmt = gr.Dropdown(EXPORT_FORMATS, value="md", label="Export as", elem_id="notes-format", scale=2)
                download = gr.DownloadButton("Download note", elem_id="notes-download", scale=1)
    with gr.Accordion("Export all / import", open=False):
        with gr.Row():
            with gr.Column():
                with_trash = gr.Checkbox(label="Include the trash", value=False)
                export = gr.Button("Export all notes (.zip)", elem_id="notes-export-all")
                exported = gr.File(label="Exported notes", interactive=False)
            with gr.Column():
                uploads = gr.File(label="Import .md, .json or .zip", file_count="multiple",
                                  file_types=[".md", ".markdown", ".json", ".zip"], elem_id="notes-import")
                imported = gr.Markdown(elem_id="notes-imported")

    list_args = dict(fn=refresh_list, inputs=[query, keyword, trash], outputs=[table, ids, keyword])
    editor = [title, keywords, content, preview, state, info, download]
    search.click(**list_args)
    query.submit(**list_args)
    keyword.input(**list_args)
    trash.change(**list_args)
    if shared is not None and shared.get("tab") is not None:
        shared["tab"].select(**list_args)
    table.select(open_note, inputs=[ids, fmt], outputs=editor)
    new.click(lambda f: note_outputs(None, f), inputs=fmt, outputs=editor)
    preview_tab.select(preview_html, inputs=content, outputs=preview)
    for button, action in ((save, save_note), (delete, delete_note), (restore, restore_note)):
        inputs = [state, title, keywords, content, fmt] if action is save_note else [state, fmt]
        button.click(action, inputs=inputs, outputs=editor).then(**list_args)
    fmt.change(change_format, inputs=[state, fmt], outputs=download)
    export.click(export_all, inputs=with_trash, outputs=exported)
    uploads.upload(import_files, inputs=uploads, outputs=imported).then(**list_args)
