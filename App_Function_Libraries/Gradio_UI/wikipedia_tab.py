"""Wikipedia tab: ask the local Wikipedia index; the answer cites the passages it used (title, link, score).

Shows which index is configured (articles, passages, model) and offers "Build the demo encyclopedia" when
there is none. The index opens on the first question, never at start-up.
"""
from __future__ import annotations

import dataclasses

import gradio as gr

from App_Function_Libraries.Gradio_UI.answer_view import answer_record_html, md_text, mode_label
from App_Function_Libraries.Gradio_UI.ui_common import current_settings, one_line, user_errors
from App_Function_Libraries.quarry.errors import BadArgument

PASSAGE_HEADERS = ["n", "article", "link", "score", "similarity", "passage"]


DEMO_NOTE = ("**Demo encyclopedia**: short passages the Quarry team wrote for trying this tab out, not "
             "Wikipedia's text; its sources link to no web page.")


def status_text(settings) -> tuple[str, bool]:
    """(markdown, exists) for the configured index, said once and in the UI's words (the button, the
    setting), never the CLI's."""
    from App_Function_Libraries import quarry
    index = quarry.wiki.status(settings)
    if index.exists:
        return f"**Index:** {md_text(index.message)}" + ("  \n" + DEMO_NOTE if index.demo else ""), index.exists
    if index.built:  # there is one, but it cannot be used: say why
        return f"**The index cannot be opened:** {md_text(index.message)}", index.exists
    return (f"**No index yet** in `{index.folder}`. Build the demo encyclopedia (the button on the right; a few "
            "minutes), or set `[wikipedia] index_dir` in the config file to an index folder."), index.exists


@user_errors
def refresh_status():
    text, exists = status_text(current_settings())
    return text, gr.Button(visible=not exists)


@user_errors
def build_demo(progress=gr.Progress()):
    from App_Function_Libraries import quarry
    settings = current_settings()

    def report(done: int, total: int | None) -> None:
        progress((done, total) if total else None, desc="Embedding passages", unit="passages")

    progress(0, desc="Loading the embedding model")
    built = quarry.wiki.build_demo(progress=report, settings=settings)
    gr.Info(f"Demo index built: {built.count:,} passages from {built.documents:,} articles in "
            f"{built.seconds:.1f} s.")
    return f"Built {built.count:,} passages from {built.documents:,} articles in {built.seconds:.1f} s."


def with_search_options(settings, top_k: int, candidates: int, rescore: int, hybrid: bool):
    """The settings with this question's search options in place of the configured ones."""
    wiki = dataclasses.replace(settings.wikipedia, top_k_nodes=int(top_k),
                               similarity_search_top_k_nodes=int(candidates),
                               similarity_search_rescore_multiplier=int(rescore), hybrid=bool(hybrid))
    return dataclasses.replace(settings, wikipedia=wiki)


def passage_rows(asked) -> list[list]:
    number = {s.url: s.n for s in asked.answer.sources}
    return [[number.get(p.url, ""), p.title, p.url, round(float(p.score), 4), round(float(p.vector_score), 3),
             one_line(p.text, 300)] for p in asked.passages]


def answer_view(asked) -> str:
    timing = " · ".join(f"{k} {v:.2f} s" for k, v in asked.timings.items())
    return answer_record_html(asked.answer, "wiki", f"*{mode_label(asked.answer.mode)} · {timing}*")


@user_errors
def ask(question: str, top_k: int, candidates: int, rescore: int, hybrid: bool, progress=gr.Progress()):
    from App_Function_Libraries import quarry
    if not (question or "").strip():
        raise BadArgument(None, "type a question first")
    settings = with_search_options(current_settings(), top_k, candidates, rescore, hybrid)
    progress(0.1, desc="Searching the index")
    try:
        asked = quarry.wiki.ask(question, settings=settings)
    except quarry.QuarryError as exc:
        raise gr.Error(str(exc)) from None
    if not asked.answer.sources:
        gr.Info("No passage in the index matches this question.")
    return answer_view(asked), passage_rows(asked)


def build_tab(settings, shared: dict | None = None) -> None:
    w = settings.wikipedia
    with gr.Row():
        status = gr.Markdown("**Index:** checking…", elem_id="wiki-status")
        build = gr.Button("Build the demo encyclopedia", variant="primary", scale=0, min_width=220,
                          visible=False, elem_id="wiki-build")
    build_note = gr.Markdown(elem_id="wiki-build-progress")
    with gr.Row():
        question = gr.Textbox(label="Question", placeholder="Ask the local encyclopedia… (Enter to ask)",
                              scale=5, max_lines=3, elem_id="wiki-question")
        go = gr.Button("Ask", variant="primary", scale=1, elem_id="wiki-ask")
    with gr.Accordion("Search options", open=False):
        with gr.Row():
            top_k = gr.Slider(1, 50, value=min(w.top_k_nodes, 50), step=1, label="Passages kept (top-k)",
                              elem_id="wiki-topk")
            candidates = gr.Slider(10, 1000, value=min(w.similarity_search_top_k_nodes, 1000), step=10,
                                   label="Candidates kept after int8 rescoring")
            rescore = gr.Slider(1, 20, value=min(w.similarity_search_rescore_multiplier, 20), step=1,
                                label="Rescore multiplier (binary candidates per kept passage)")
            hybrid = gr.Checkbox(value=w.hybrid, label="Fuse with keyword (BM25) search")
    answer = gr.HTML(elem_id="wiki-answer")  # safe HTML from answer_view
    with gr.Accordion("Passages used", open=False):
        gr.Markdown("*score*: the ranking score after re-ranking; *similarity*: the passage's estimated cosine "
                    "similarity to the question.")
        passages = gr.Dataframe(headers=PASSAGE_HEADERS,
                                datatype=["number", "str", "str", "number", "number", "str"],
                                interactive=False, wrap=True, elem_id="wiki-passages",
                                column_widths=["5%", "16%", "20%", "8%", "9%", "42%"])

    inputs = [question, top_k, candidates, rescore, hybrid]
    go.click(ask, inputs=inputs, outputs=[answer, passages])
    question.submit(ask, inputs=inputs, outputs=[answer, passages])
    # the build's progress shows on its own line, not over the status it will change
    build.click(build_demo, outputs=build_note).then(refresh_status, outputs=[status, build])
    if shared is not None:
        shared["tab"].select(refresh_status, outputs=[status, build])
        shared.setdefault("on_load", []).append(dict(fn=refresh_status, outputs=[status, build]))
