"""Start-up benchmark: `python app.py` to the first HTTP 200 (and, with --interactive, to the page's
interactive state in headless Chromium), median of N runs. Baselines in the same run: a bare `import gradio`
as Quarry imports it (without Gradio's per-import stub writer, see Gradio_UI/gradio_import.py), so the share of
start-up that is Quarry's own is visible, and the stock `import gradio` for comparison.

    python bench/startup.py [--runs 5] [--interactive]
Last line: startup: first_200=<s> interactive=<s|n/a> import_gradio=<s> import_gradio_stock=<s> quarry_share=<x>
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from Tests.support.app_process import start_app, stop_app  # noqa: E402


def time_import_gradio(as_quarry: bool) -> float:
    """A bare `import gradio` in a fresh interpreter: stock, or as Quarry imports it (stub writer skipped)."""
    code = ("from App_Function_Libraries.Gradio_UI.gradio_import import skip_stub_writing; skip_stub_writing(); "
            if as_quarry else "") + "import gradio"
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT,
                   env={**os.environ, "GRADIO_ANALYTICS_ENABLED": "False"})
    return time.perf_counter() - t


INTERACTIVE_SELECTOR = "#ws-question textarea:not([disabled])"  # the Web Search question box, ready to type in


def time_interactive(url: str) -> float:
    """Seconds from navigation start until the Web Search question box is rendered and enabled (the page
    has loaded Gradio's scripts, fetched the app's config and drawn the first tab)."""
    from playwright.sync_api import sync_playwright

    from Tests.support.browser import CHROMIUM, CHROMIUM_ARGS
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page()
        t = time.perf_counter()
        page.goto(url)
        page.wait_for_selector(INTERACTIVE_SELECTOR, state="visible", timeout=60000)
        seconds = time.perf_counter() - t
        browser.close()
        return seconds


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--interactive", action="store_true", help="also time the page to interactive (Chromium)")
    args = ap.parse_args()
    first, inter, base, stock = [], [], [], []
    for i in range(args.runs):
        base.append(time_import_gradio(as_quarry=True))
        stock.append(time_import_gradio(as_quarry=False))
        proc, url, seconds = start_app()
        try:
            first.append(seconds)
            if args.interactive:
                inter.append(seconds + time_interactive(url))
        finally:
            stop_app(proc)
        print(f"run {i + 1}: first_200={seconds:.2f}s" + (f" interactive={inter[-1]:.2f}s" if inter else ""),
              flush=True)
    f, b = statistics.median(first), statistics.median(base)
    it = f"{statistics.median(inter):.2f}" if inter else "n/a"
    print(f"startup: first_200={f:.2f} interactive={it} import_gradio={b:.2f} "
          f"import_gradio_stock={statistics.median(stock):.2f} quarry_share={f / b:.2f}x")


if __name__ == "__main__":
    main()
