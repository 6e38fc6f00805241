"""Gradio is imported by the UI without its per-import stub writer, and works as usual."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PROBE = """
import gradio.component_meta as meta, gradio as gr
print(meta.create_or_modify_pyi.__name__)
with gr.Blocks() as demo:
    box = gr.Textbox(label="Question")
    box.submit(lambda q: q, box, box)
print(type(box).__name__, len(demo.fns))
"""


def run_probe(prelude: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", prelude + PROBE], cwd=ROOT, capture_output=True, text=True,
                         env={"GRADIO_ANALYTICS_ENABLED": "False", "PATH": "/usr/bin:/bin"}, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.split()


def test_the_ui_package_imports_gradio_without_the_stub_writer_and_components_work():
    assert run_probe("import App_Function_Libraries.Gradio_UI\n") == ["_no_stubs", "Textbox", "1"]


def test_stock_gradio_still_has_its_stub_writer():
    """The hook is what changes it: a plain import keeps Gradio's own function (so the test above can fail)."""
    assert run_probe("") == ["create_or_modify_pyi", "Textbox", "1"]
