"""Settings tab: the active settings (keys masked) and reachability of each LLM role and engine."""
from __future__ import annotations

import gradio as gr

from App_Function_Libraries.config import Settings, masked


def settings_markdown(settings: Settings) -> str:
    lines = [f"**Config file:** `{settings.path}`", ""]
    for section, values in masked(settings).items():
        lines.append(f"**[{section}]**  ")
        lines += [f"`{k}` = `{v}`  " for k, v in values.items()]
        lines.append("")
    return "\n".join(lines)


def status_table(settings: Settings) -> list[list[str]]:
    from App_Function_Libraries.status import status_lines
    mark = {True: "OK", False: "FAIL", None: "—"}
    return [[v.name, mark[v.ok], v.message] for v in status_lines(settings)]


def build_tab(settings: Settings) -> None:
    gr.Markdown("Check that each LLM role and search engine is reachable. Keys are never shown.")
    check = gr.Button("Test all", variant="primary")
    table = gr.Dataframe(headers=["what", "verdict", "details"], interactive=False, wrap=True)
    with gr.Accordion("Active settings", open=False):
        gr.Markdown(settings_markdown(settings))
    check.click(lambda: status_table(settings), outputs=table)
