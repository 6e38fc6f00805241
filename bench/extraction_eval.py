"""Main-content extraction quality on the shared evaluation subset, through the extraction `python app.py
extract` and research use (App_Function_Libraries.Research.extract.extract_content).

    python bench/extraction_eval.py [--limit N] [--worker]

--worker reads each page as research does, in a parse worker under the default [fetch] limits
(extract.read_page_text), to measure what the worker costs per page. Either way one warm-up page (imports;
the worker's start) is timed and reported apart from the run.

Scoring (as the evaluation set defines it): a "with" segment found in the output is a true positive, one
missing a false negative; a "without" segment found is a false positive. Skips cleanly when
../shared/data/extraction_eval is absent. Last line:
    extraction: pages=<n> precision=<p> recall=<r> f1=<f> seconds=<s>
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
EVAL_DIR = ROOT.parent / "shared" / "data" / "extraction_eval"


def score(text: str, expected: dict) -> tuple[int, int, int]:
    """(true positives, false negatives, false positives) for one page."""
    tp = sum(1 for seg in expected.get("with", []) if seg in text)
    fn = len(expected.get("with", [])) - tp
    fp = sum(1 for seg in expected.get("without", []) if seg in text)
    return tp, fn, fp


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=0, help="score only the first N pages")
    parser.add_argument("--worker", action="store_true", help="extract in a parse worker, as research does")
    args = parser.parse_args(argv)
    index = EVAL_DIR / "evaldata_subset.json"
    if not index.exists():
        print(f"extraction: skipped ({EVAL_DIR} is absent)")
        return 0
    from App_Function_Libraries.Research.extract import ExtractionFailed
    extract = _warmed(args.worker)
    cases = json.loads(index.read_text(encoding="utf-8"))
    items = list(cases.items())[: args.limit or None]
    tp = fn = fp = failures = 0
    started = time.perf_counter()
    for url, expected in items:
        body = (EVAL_DIR / "html" / expected["file"]).read_bytes()
        try:
            page = extract(body, "text/html", "", url)
            text = " ".join(page.text.split())
        except ExtractionFailed:
            text, failures = "", failures + 1
        expected = {k: [" ".join(s.split()) for s in v] for k, v in expected.items() if k in ("with", "without")}
        a, b, c = score(text, expected)
        tp, fn, fp = tp + a, fn + b, fp + c
    seconds = time.perf_counter() - started
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    print(f"pages without any text: {failures}")
    print(f"extraction: pages={len(items)} precision={precision:.3f} recall={recall:.3f} f1={f1:.3f} "
          f"seconds={seconds:.1f}")
    return 0


def _warmed(worker: bool):
    """extract_content, in this process or through a parse worker (as research reads pages), after one warm-up
    page (imports, and the worker's start) timed and reported apart from the run."""
    from App_Function_Libraries.config import FetchSettings
    from App_Function_Libraries.Research.extract import extract_content, read_page_text
    settings = FetchSettings()
    extract = ((lambda body, ctype, charset, url: read_page_text(body, ctype, charset, url, settings)) if worker
               else extract_content)
    started = time.perf_counter()
    extract(b"<html><body><p>Bees dance to point at food.</p></body></html>", "text/html", "", None)
    print(f"warm-up ({'parse worker' if worker else 'in process'}): {time.perf_counter() - started:.2f} s")
    return extract


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
