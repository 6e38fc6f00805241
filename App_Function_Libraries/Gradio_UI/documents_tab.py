"""Documents tab: add files (uploaded) or a folder (a path on this computer), see the collection, remove a
document, and ask questions answered from it with citations to file and page/chunk.

Uploaded files are copied into `<documents index_dir>/uploads/` so they outlive the browser session; a
folder is indexed where it is. Models load on the first add or question, never at start-up.
"""
from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import gradio as gr

from App_Function_Libraries import quarry
from App_Function_Libraries.Gradio_UI.answer_view import answer_record_html, md_text, mode_label
from App_Function_Libraries.Gradio_UI.ui_common import current_settings, one_line, toast_text, user_errors
from App_Function_Libraries.quarry.errors import BadArgument

COLLECTION_HEADERS = ["id", "name", "type", "pages", "words", "chunks", "added", "path"]
SOURCE_HEADERS = ["n", "file", "where", "score", "text"]
UPLOAD_FOLDER = "uploads"
# every call to quarry.docs passes shared=True: the tab uses the library that stays open for the process (the
# one research searches too), its models and indexes loaded once


# ---------------------------------------------------------------- the collection

def collection_rows() -> list[list]:
    rows = []
    settings = current_settings()
    kept = settings.resolve_path(settings.documents.kept_sources_dir)
    for d in quarry.docs.list(settings, shared=True):
        chunks = d.nodes.get("fine", sum(d.nodes.values()))
        rows.append([d.id, document_name(d, kept), d.file_type, d.pages or "", d.words, chunks,
                     d.added_at[:16].replace("T", " "), d.path])
    return rows


def document_name(doc, kept_sources_dir: Path) -> str:
    """The file name; for a kept source (a report's page or paper, its file named by a hash of its text) the
    page's title. The path column names the file either way."""
    title = " ".join((doc.title or "").split())
    return title if title and Path(doc.path).parent.resolve() == Path(kept_sources_dir).resolve() else doc.name


def skipped_markdown() -> str:
    return skipped_files_markdown(quarry.docs.skipped(current_settings(), shared=True))


def skipped_files_markdown(skipped: list[tuple[str, str]]) -> str:
    """The files that could not be read, as Markdown. A file name and a reason are untrusted text (a backtick
    in a name used to end its code span, an <img> there would load): shown as text."""
    if not skipped:
        return ""
    return "**Files that could not be read:**\n" + "\n".join(
        f"- {md_text(Path(p).name)}: {md_text(one_line(reason, 160))}" for p, reason in skipped[:20])


@user_errors
def refresh():
    rows = collection_rows()
    return rows, [r[0] for r in rows], skipped_markdown(), count_markdown(len(rows))


def count_markdown(count: int) -> str:
    """The collection's size, or what to do when it is empty."""
    if count:
        return f"{count} document(s) in the collection."
    return ("**No documents yet.** Add files or a folder: drop files in *Files to add* or type a folder below, "
            "then press **Add to collection** and ask your question above.")


def keep_upload(path: Path, folder: Path) -> Path:
    """Copy an uploaded file into the uploads folder under its own name (a different file of the same name
    gets a short content hash added)."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / path.name
    if target.exists() and target.read_bytes() != path.read_bytes():
        digest = hashlib.sha256(path.read_bytes()).hexdigest()[:8]
        target = folder / f"{path.stem}-{digest}{path.suffix}"
    if not target.exists():
        shutil.copyfile(path, target)
    return target


def check_upload_sizes(paths: list[Path]) -> None:
    """BadArgument naming each upload larger than the document library reads (nothing is copied then)."""
    most = quarry.docs.max_file_bytes()
    large = [f"{p.name} ({p.stat().st_size // 1_000_000} MB)" for p in paths if p.stat().st_size > most]
    if large:
        raise BadArgument(None, f"too large to add (at most {most // 1_000_000} MB a file): {', '.join(large)}")


def paths_to_add(files: list | None, folder: str) -> list[Path]:
    settings = current_settings()
    uploads = settings.resolve_path(settings.documents.index_dir) / UPLOAD_FOLDER
    uploaded = [Path(getattr(f, "name", f)) for f in files or []]
    check_upload_sizes(uploaded)
    paths = [keep_upload(p, uploads) for p in uploaded]
    if folder and folder.strip():
        where = Path(folder.strip()).expanduser()
        if not where.exists():
            raise BadArgument(None, f"no such file or folder: {where}")
        paths.append(where)
    if not paths:
        raise BadArgument(None, "choose files to upload, or type the path of a folder on this computer")
    return paths


@user_errors
def add_documents(files: list | None, folder: str, progress=gr.Progress()):
    paths = paths_to_add(files, folder)

    def report(done: int, total: int, current: str) -> None:
        progress((done, total), desc=f"Indexing {Path(current).name}" if current else "Indexing", unit="files")

    progress(0, desc="Loading the embedding model")
    result = quarry.docs.add(paths, progress=report, settings=current_settings(), shared=True)
    gr.Info(toast_text(result.summary()))
    return added_markdown(result), None, ""


def added_markdown(result) -> str:
    """What an add did (an IngestReport), as Markdown; file names, reasons and warnings (which can quote a
    server's error body) shown as text."""
    lines = [f"**Added:** {result.summary()}."]
    lines += [f"- skipped {md_text(Path(s.path).name)}: {md_text(one_line(s.reason, 160))}"
              for s in result.skipped[:20]]
    lines += [f"- {md_text(one_line(w, 200))}" for w in result.warnings[:10]]
    return "\n".join(lines)


@user_errors
def remove_document(selected: int | None):
    if selected is None:
        raise BadArgument(None, "select a document in the collection first")
    done = quarry.docs.remove([int(selected)], current_settings(), shared=True)
    if done.missing:
        raise BadArgument(None, done.missing[0])
    info = done.removed[0]
    gr.Info(toast_text(f"Removed {info.name} from the collection (the file itself is untouched)."))
    return None, "Select a document to remove it."


def select_document(ids: list[int], evt: gr.SelectData):
    row = evt.index[0] if isinstance(evt.index, (list, tuple)) else evt.index
    if not ids or row is None or row >= len(ids):
        return gr.skip()
    return ids[row], f"Selected document #{ids[row]}."


# ---------------------------------------------------------------- questions

def answer_view(asked) -> str:
    answer = asked.answer
    return answer_record_html(answer, "doc", f"*{mode_label(answer.mode)} · {len(answer.sources)} passage(s) used*")


@user_errors
def ask(question: str, k: int, progress=gr.Progress()):
    if not (question or "").strip():
        raise BadArgument(None, "type a question first")
    settings = current_settings()
    if not quarry.docs.list(settings, shared=True):
        raise BadArgument(None, "the collection is empty: add files or a folder first")
    progress(0.1, desc="Searching your documents")
    asked = quarry.docs.ask(question.strip(), k=int(k), settings=settings, shared=True)
    rows = [[n, h.name, h.location, round(float(h.score), 4), one_line(h.text, 300)]
            for n, h in enumerate(asked.hits, 1)]
    return answer_view(asked), rows


# ---------------------------------------------------------------- layout

def build_tab(settings, shared: dict | None = None) -> None:
    ids = gr.State([])
    selected = gr.State(None)
    with gr.Row():
        with gr.Column(scale=3):
            question = gr.Textbox(label="Question", placeholder="Ask your documents… (Enter to ask)",
                                  max_lines=3, elem_id="docs-question")
        with gr.Column(scale=1, min_width=200):
            k = gr.Slider(1, 50, value=10, step=1, label="Passages to answer from", elem_id="docs-k")
            go = gr.Button("Ask", variant="primary", elem_id="docs-ask")
    answer = gr.HTML(elem_id="docs-answer")  # safe HTML from answer_view
    with gr.Accordion("Passages used", open=False):
        sources = gr.Dataframe(headers=SOURCE_HEADERS, datatype=["number", "str", "str", "number", "str"],
                               interactive=False, wrap=True, elem_id="docs-sources",
                               column_widths=["6%", "20%", "10%", "9%", "55%"])
    with gr.Accordion("Collection", open=True):
        with gr.Row():
            uploads = gr.File(label="Files to add (txt, md, rst, html, pdf, docx)", file_count="multiple",
                              elem_id="docs-upload", scale=2)
            with gr.Column(scale=2):
                folder = gr.Textbox(label="…or a folder (or file) on this computer", max_lines=1,
                                    placeholder="e.g. ~/papers", elem_id="docs-folder")
                add = gr.Button("Add to collection", variant="primary", elem_id="docs-add")
                added = gr.Markdown(elem_id="docs-added")
        count = gr.Markdown(elem_id="docs-count")
        table = gr.Dataframe(headers=COLLECTION_HEADERS, interactive=False, wrap=True, elem_id="docs-list",
                             column_widths=["5%", "20%", "6%", "6%", "7%", "7%", "14%", "35%"])
        with gr.Row():
            chosen = gr.Markdown("Select a document to remove it.", elem_id="docs-selected")
            remove = gr.Button("Remove selected", variant="stop", scale=0, min_width=160, elem_id="docs-remove")
        skipped = gr.Markdown(elem_id="docs-skipped")

    go.click(ask, inputs=[question, k], outputs=[answer, sources])
    question.submit(ask, inputs=[question, k], outputs=[answer, sources])
    listing = dict(fn=refresh, outputs=[table, ids, skipped, count])
    add.click(add_documents, inputs=[uploads, folder], outputs=[added, uploads, folder]).then(**listing)
    table.select(select_document, inputs=ids, outputs=[selected, chosen])
    remove.click(remove_document, inputs=selected, outputs=[selected, chosen]).then(**listing)
    if shared is not None:
        shared["tab"].select(**listing)
