"""The Gradio application: one tab per module in this package, assembled here."""
from __future__ import annotations

import importlib

import gradio as gr

from App_Function_Libraries.config import Settings

# (tab label, module with build_tab(settings)) in display order
TAB_MODULES = [
    ("Settings", "App_Function_Libraries.Gradio_UI.settings_tab"),
]


def build_app(settings: Settings) -> gr.Blocks:
    with gr.Blocks(title="Quarry", analytics_enabled=False) as app:
        gr.Markdown("# Quarry\nA local research assistant: answers you can check.")
        with gr.Tabs():
            for label, module in TAB_MODULES:
                with gr.Tab(label, id=label.lower().replace(" ", "_")):
                    importlib.import_module(module).build_tab(settings)
    return app
