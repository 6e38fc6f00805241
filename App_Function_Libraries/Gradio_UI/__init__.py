"""Gradio_UI: one module per tab. Gradio is imported without its per-import stub writer (see gradio_import)."""
from App_Function_Libraries.Gradio_UI.gradio_import import skip_stub_writing

skip_stub_writing()
