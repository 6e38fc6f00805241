"""Main-content extraction quality on the Mozilla Readability test pages, through the same code path as
`python app.py extract` (App_Function_Libraries.Research.extract.extract_content).

    python bench/readability_eval.py [--limit N] [--verbose]

Each case in ../shared/data/web_pages/mozilla_readability/<case>/ has source.html (the page) and
expected.html (the article body Readability.js keeps: the reference). Scoring is bag-of-words with counts:
the reference and the output are lower-cased word tokens (\\w+); the overlap is the multiset intersection.
Per page, precision = overlap / output tokens and recall = overlap / reference tokens; the reported numbers
are the means over pages (each page counts once, however long), F1 from those means. A page with no output
scores precision 0 and recall 0. Skips cleanly when the data is absent. Last line:
    readability: pages=<n> precision=<p> recall=<r> f1=<f> seconds=<s>
"""
from __future__ import annotations

import argparse
import re
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DATA_DIR = ROOT.parent / "shared" / "data" / "web_pages" / "mozilla_readability"
TOKEN = re.compile(r"\w+")
BLOCK_TAGS = ("p", "li", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote", "td", "th", "dd", "dt",
              "figcaption", "div", "section", "article", "table", "tr", "ul", "ol", "br")


def tokens(text: str) -> Counter:
    return Counter(TOKEN.findall(text.lower()))


def reference_text(expected_html: str) -> str:
    """The text of expected.html, one block per line."""
    import warnings

    from bs4 import BeautifulSoup, XMLParsedAsHTMLWarning
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)
        soup = BeautifulSoup(expected_html, "lxml")
    for tag in soup(["script", "style", "noscript", "template"]):
        tag.decompose()
    for tag in soup.find_all(list(BLOCK_TAGS)):
        tag.insert_before("\n")
        tag.insert_after("\n")
    return "\n".join(" ".join(line.split()) for line in soup.get_text().split("\n") if line.strip())


def score(output: str, reference: str) -> tuple[float, float]:
    """(precision, recall) of one page's output against its reference, bag-of-words with counts."""
    out, ref = tokens(output), tokens(reference)
    overlap = sum((out & ref).values())
    n_out, n_ref = sum(out.values()), sum(ref.values())
    return (overlap / n_out if n_out else 0.0), (overlap / n_ref if n_ref else 0.0)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=0, help="score only the first N pages")
    parser.add_argument("--verbose", action="store_true", help="one line per page")
    args = parser.parse_args(argv)
    cases = sorted(p for p in DATA_DIR.glob("*") if (p / "source.html").exists() and (p / "expected.html").exists()) \
        if DATA_DIR.is_dir() else []
    if not cases:
        print(f"readability: skipped ({DATA_DIR} is absent)")
        return 0
    from App_Function_Libraries.Research.extract import ExtractionFailed, extract_content
    cases = cases[: args.limit or None]
    precisions, recalls = [], []
    failures = 0
    started = time.perf_counter()
    for case in cases:
        body = (case / "source.html").read_bytes()
        try:
            text = extract_content(body, "text/html", "", "http://fakehost/test/page.html").text
        except ExtractionFailed:
            text, failures = "", failures + 1
        p, r = score(text, reference_text((case / "expected.html").read_text(encoding="utf-8")))
        precisions.append(p)
        recalls.append(r)
        if args.verbose:
            print(f"  {case.name:40s} precision={p:.3f} recall={r:.3f}")
    seconds = time.perf_counter() - started
    precision = sum(precisions) / len(precisions)
    recall = sum(recalls) / len(recalls)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    print(f"pages without any text: {failures}")
    print(f"readability: pages={len(cases)} precision={precision:.3f} recall={recall:.3f} f1={f1:.3f} "
          f"seconds={seconds:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
