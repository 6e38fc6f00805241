"""The Gradio application: one tab per module in this package, assembled here.

Each tab module exposes `build_tab(settings, shared)`. `shared` is a dict the tabs use to reach each other
(e.g. the Web Search tab puts the components a reopened report fills in; the History tab wires to them);
`shared["tabs"]` is the gr.Tabs, so a callback can switch tab; `shared["tab"]` is the tab being built (to
refresh it when it is opened); a tab may add {fn, inputs, outputs} to `shared["on_load"]` for work to do
when the page opens (cheap reads only). Tab modules import their backends inside
callbacks: building the UI loads no model and no index.
"""
from __future__ import annotations

import importlib

import gradio as gr

from App_Function_Libraries.config import Settings

# (tab label, module with build_tab(settings, shared)) in display order
TAB_MODULES = [
    ("Web Search", "App_Function_Libraries.Gradio_UI.web_search_tab"),
    ("Wikipedia", "App_Function_Libraries.Gradio_UI.wikipedia_tab"),
    ("Documents", "App_Function_Libraries.Gradio_UI.documents_tab"),
    ("Notes", "App_Function_Libraries.Gradio_UI.notes_tab"),
    ("History", "App_Function_Libraries.Gradio_UI.history_tab"),
    ("Settings", "App_Function_Libraries.Gradio_UI.settings_tab"),
]


def tab_id(label: str) -> str:
    return label.lower().replace(" ", "_")


def ui_css() -> str:
    """The UI's own style rules, given to launch(): a linked [n] group shows tight and on one line."""
    from App_Function_Libraries.quarry.render import CITE_CSS
    return CITE_CSS


def build_app(settings: Settings) -> gr.Blocks:
    # Gradio's copies of the files it served are deleted after a day (checked hourly) and when the UI stops.
    with gr.Blocks(title="Quarry", analytics_enabled=False, delete_cache=(3600, 24 * 3600)) as app:
        gr.Markdown("# Quarry\nA local research assistant: answers you can check.")
        with gr.Tabs() as tabs:
            shared: dict = {"tabs": tabs}
            for label, module in TAB_MODULES:
                with gr.Tab(label, id=tab_id(label), elem_id=f"tab-{tab_id(label)}") as tab:
                    shared["tab"] = tab
                    importlib.import_module(module).build_tab(settings, shared)
                shared[tab_id(label)] = tab
        for event in shared.get("on_load", []):
            app.load(**event)
        from App_Function_Libraries.Gradio_UI import api_endpoints
        from App_Function_Libraries.Gradio_UI.ui_common import current_settings
        api_endpoints.register(current_settings)
    api_endpoints.hide_plumbing(app)
    return app
