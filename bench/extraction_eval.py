"""Main-content extraction quality on the shared evaluation subset, through the same code path as
`python app.py extract` (App_Function_Libraries.Web_Search.extract.extract_content).

    python bench/extraction_eval.py [--limit N]

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
    args = parser.parse_args(argv)
    index = EVAL_DIR / "evaldata_subset.json"
    if not index.exists():
        print(f"extraction: skipped ({EVAL_DIR} is absent)")
        return 0
    from App_Function_Libraries.Web_Search.extract import ExtractionFailed, extract_content
    cases = json.loads(index.read_text(encoding="utf-8"))
    items = list(cases.items())[: args.limit or None]
    tp = fn = fp = failures = 0
    started = time.perf_counter()
    for url, expected in items:
        body = (EVAL_DIR / "html" / expected["file"]).read_bytes()
        try:
            page = extract_content(body, "text/html", "", url)
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


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
