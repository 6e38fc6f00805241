"""Hostile inputs end within their limits: servers that drip bytes, and files that make a parser spend minutes
and gigabytes (Tests/support/hostile_files.py), against the fetcher, a research run, the research page stream,
`python app.py extract` and `python app.py docs add`. One summary line per case.

    python bench/hostile_inputs.py [--cases drip,research,stream,extract,docs,items] [--cap 120] [--after 30]
                                   [--before REV] [--item-cap 60]
    python bench/hostile_inputs.py --cases exports [--before REV]

drip      PageFetcher.fetch of a page that drips its body / its headers / headers behind a redirect (a byte every
          0.5 s), [fetch] total_timeout_seconds = 5: seconds until the fetch ends
research  `python app.py research --no-llm` over the mini web's stalling pages (the drips, a 500k-attribute tag,
          the repeated-page-tree PDF), total_timeout_seconds = 5, extract_timeout_seconds = 5: seconds until
          the run ends (killed at --cap)
stream    the research page stream (page_stream.read_pages) on the 500k-attribute page and on the PDF with the
          default [fetch] limits: seconds until the page is given up, then CPU seconds spent and RSS held by
          this process and its children during the next --after seconds
extract   `python app.py extract` on a file with a 100k-attribute tag and one with 1e6 nested tags (default
          settings): seconds, and the peak RSS of its process tree
docs      `python app.py docs add` on the same two files (default settings, and parse_timeout_seconds = 20
          where that setting exists): seconds and peak RSS of the process tree (the embedding model included)
items     issue 23's hostile search answers and outside bytes (bench/hostile_search_cases.py: a dripping search
          API, Cancel during the search stage, lone surrogates, a 5,000-digit citation, huge abstracts, a
          60,000-entry arXiv feed, control characters in a DOI/URL, a 400-digit number), each in a process of
          its own: seconds, peak tree RSS and its outcome; with --before REV each case runs on that git revision
          too (extracted to a temporary folder), in the same run, killed at --item-cap seconds;
          `--cases items:7-arxiv,items:1-search` runs only those
exports   export_report to Word of a 1,600-cell table (80 x 20), to PDF of 1 MB of text and of 50,000 `[1]`, each
          in a process of its own: seconds, peak RSS of its tree (the render worker included) and the outcome;
          with --before REV, the same on that git revision first (before / after in one run)

Every subprocess is killed at --cap seconds (reported as "still running after").
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
QUESTION = "How do honey bees communicate the location of food with a dance?"
DRIP_DELAY = 0.5


# ---------------------------------------------------------------- process-tree measurements (Linux /proc)

def _children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as fh:
                    fields = fh.read().rsplit(b")", 1)[1].split()
                if int(fields[1]) == pid:
                    out.append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    return out


def tree(pid: int) -> list[int]:
    pids, todo = [], [pid]
    while todo:
        p = todo.pop()
        pids.append(p)
        todo += _children(p)
    return pids


def tree_stats(pid: int) -> tuple[float, int]:
    """(CPU seconds, resident bytes) of a process and its descendants: the CPU of the live ones and of the
    children it has reaped (so a child killed between two readings still counts), the RSS of the live ones."""
    tick, page = os.sysconf("SC_CLK_TCK"), os.sysconf("SC_PAGE_SIZE")
    cpu, rss = 0.0, 0
    for p in tree(pid):
        try:
            with open(f"/proc/{p}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
            cpu += (int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])) / tick
            rss += int(fields[21]) * page
        except (OSError, IndexError, ValueError):
            pass
    return cpu, rss


def run_measured(cmd: list[str], cap: float, cwd: Path = ROOT) -> tuple[float, int, int | None, str, str]:
    """(seconds, peak tree RSS, exit code or None when killed at cap, its stdout, last stderr line)."""
    started = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    peak = 0
    box: dict[str, str] = {}
    reader = threading.Thread(target=lambda: box.update(zip(("out", "err"), proc.communicate())), daemon=True)
    reader.start()
    while proc.poll() is None and time.monotonic() - started < cap:
        peak = max(peak, tree_stats(proc.pid)[1])
        time.sleep(0.05)
    code = proc.poll()
    if code is None:
        os.killpg(proc.pid, 9)
    reader.join(10)
    seconds = time.monotonic() - started
    err = [line for line in box.get("err", "").splitlines() if line.strip()]
    return seconds, peak, code, box.get("out", ""), (err[-1][:160] if err else "")


def mb(n: int) -> str:
    return f"{n / 2 ** 20:.0f} MB"


# ---------------------------------------------------------------- the cases

def write_config(path: Path, values: dict) -> Path:
    path.write_text("".join(f"[{s}]\n" + "".join(f"{k} = {v}\n" for k, v in kv.items()) for s, kv in values.items()),
                    encoding="utf-8")
    return path


def case_drip(web, cap: float) -> None:
    from App_Function_Libraries.config import FetchSettings
    from App_Function_Libraries.Research.fetch import PageFetcher
    for path in ("stalling/drip-body", "stalling/drip-headers", "stalling/to-drip"):
        fetcher = PageFetcher(FetchSettings(allow_private_addresses=True, total_timeout_seconds=5))
        box: dict = {}
        started = time.monotonic()
        thread = threading.Thread(target=lambda: box.update(page=fetcher.fetch(web.url(path))), daemon=True)
        thread.start()
        thread.join(cap)
        seconds = time.monotonic() - started
        if "page" in box:
            print(f"drip {path}: fetch ended after {seconds:.1f} s (total_timeout_seconds=5): {box['page'].error}",
                  flush=True)
        else:
            print(f"drip {path}: fetch still running after {seconds:.0f} s (total_timeout_seconds=5)", flush=True)


def case_research(web, workdir: Path, cap: float) -> None:
    from Tests.support.mini_web import research_config
    values = research_config(web, fetch={"total_timeout_seconds": 5, "read_timeout_seconds": 15,
                                         "extract_timeout_seconds": 5, "max_bytes": 8_000_000})
    values["databases"] = {"research_db": str(workdir / "r.db"), "notes_db": str(workdir / "r.db")}
    config = write_config(workdir / "research.txt", values)
    cmd = [sys.executable, "app.py", "--config", str(config), "research", QUESTION, "--no-llm", "--json",
           "--no-save", "--engine", "searxng"]
    seconds, peak, code, _, _ = run_measured(cmd, cap)
    state = f"ended after {seconds:.1f} s (exit {code})" if code is not None else f"still running after {seconds:.0f} s"
    print(f"research with stalling pages: {state}; peak tree RSS {mb(peak)}", flush=True)


STREAM_PAGES = {"attributes": ("stalling/attributes", "500k-attribute page"),
                "pdf": ("stalling/page-tree.pdf", "repeated-page-tree PDF")}


def case_stream(after: float, cap: float) -> None:
    """Each page in a process of its own, so what one leaves burning does not count against the other."""
    for name in STREAM_PAGES:
        cmd = [sys.executable, __file__, "--cases", f"stream:{name}", "--after", str(after)]
        out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=cap + after + 60)
        lines = [line for line in out.stdout.splitlines() if line.startswith("stream ")]
        print(lines[-1] if lines else f"stream {name}: failed ({out.stderr.strip()[-300:]})", flush=True)


def stream_one(web, name: str, after: float) -> None:
    from App_Function_Libraries.config import FetchSettings
    from App_Function_Libraries.Research.fetch import PageFetcher
    from App_Function_Libraries.Research.page_stream import StreamConfig, read_pages
    from App_Function_Libraries.Research.rank import RankSettings
    from App_Function_Libraries.records import Source
    path, label = STREAM_PAGES[name]
    settings = FetchSettings(allow_private_addresses=True, max_bytes=8_000_000)
    source = Source(label, web.url(path))
    started = time.monotonic()
    read_pages([source], StreamConfig(QUESTION, PageFetcher(settings), RankSettings(3, 20, 80)))
    seconds = time.monotonic() - started
    cpu0, rss0 = tree_stats(os.getpid())
    time.sleep(after)
    cpu1, rss1 = tree_stats(os.getpid())
    print(f"stream {label}: given up after {seconds:.1f} s ({source.error[:60]}…); the next {after:g} s: "
          f"cpu {cpu1 - cpu0:.1f} s, tree RSS {mb(rss0)} -> {mb(rss1)}", flush=True)


def hostile_files(workdir: Path) -> list[Path]:
    from Tests.support.hostile_files import attribute_bomb_html, nested_tags_html
    files = [workdir / "attributes-100k.html", workdir / "nested-1e6.html"]
    files[0].write_bytes(attribute_bomb_html(100_000))
    files[1].write_bytes(nested_tags_html(1_000_000))
    return files


def case_extract(workdir: Path, cap: float) -> None:
    config = write_config(workdir / "extract.txt", {"databases": {"research_db": str(workdir / "x.db")}})
    for path in hostile_files(workdir):
        cmd = [sys.executable, "app.py", "--config", str(config), "extract", str(path), "--json"]
        seconds, peak, code, _, err = run_measured(cmd, cap)
        state = f"{seconds:.1f} s (exit {code})" if code is not None else f"still running after {seconds:.0f} s"
        err = err.replace(str(path), path.name)
        print(f"extract {path.name} ({mb(path.stat().st_size)}): {state}, peak tree RSS {mb(peak)}; {err}", flush=True)


def case_docs(workdir: Path, cap: float) -> None:
    from App_Function_Libraries.config import DocumentSettings
    limited = "parse_timeout_seconds" in DocumentSettings.__dataclass_fields__
    for timeout in (None, 20) if limited else (None,):
        for path in hostile_files(workdir):
            index = tempfile.mkdtemp(prefix="docs-", dir=workdir)
            documents = {"index_dir": index, **({"parse_timeout_seconds": timeout} if timeout else {})}
            config = write_config(workdir / "docs.txt", {"databases": {"research_db": str(workdir / "d.db")},
                                                         "documents": documents})
            cmd = [sys.executable, "app.py", "--config", str(config), "docs", "add", str(path), "--quiet"]
            seconds, peak, code, out, _ = run_measured(cmd, cap)
            said = [line for line in out.splitlines() if line.startswith(("added", "skipped"))]
            outcome = said[0].replace(str(path), path.name)[:150] if said else ""
            state = f"{seconds:.1f} s (exit {code})" if code is not None else f"still running after {seconds:.0f} s"
            setting = f"parse_timeout_seconds={timeout}" if timeout else "default settings"
            print(f"docs add {path.name} ({setting}): {state}, peak tree RSS {mb(peak)}; {outcome}", flush=True)


def older_tree(before: str | None, dest: Path) -> list[tuple[str, Path]]:
    """[(label, folder)] of `before`'s code extracted into dest (git archive), or [] without a revision."""
    if not before:
        return []
    archive = subprocess.run(["git", "archive", before], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return [(f"before ({before})", dest)]


def case_items(trees: list[tuple[str, Path]], cap: float, only: list[str]) -> None:
    """Every case of hostile_search_cases.py (or those in `only`) on each tree (an older one first)."""
    from bench.hostile_search_cases import CASES
    script = str(ROOT / "bench" / "hostile_search_cases.py")
    for name in [c for c in CASES if not only or c in only]:
        for label, tree in trees:
            seconds, peak, code, out, err = run_measured([sys.executable, script, str(tree), name], cap)
            said = [line[len("RESULT "):] for line in out.splitlines() if line.startswith("RESULT ")]
            state = f"{seconds:.1f} s (exit {code})" if code is not None else f"still running after {seconds:.0f} s"
            outcome = said[0] if said else (err or "no result")
            print(f"item {name} {label}: {state}, peak tree RSS {mb(peak)}; {outcome[:200]}", flush=True)


EXPORT_SCRIPT = """
import sys
sys.path.insert(0, ".")
from App_Function_Libraries.DB.export import export_report
kind = sys.argv[1]
source = [{"n": 1, "title": "A source", "url": "https://example.org/a"}]
if kind == "word-table":
    fmt, cols = "docx", 20
    rows = ["|" + "|".join(f"h{c}" for c in range(cols)) + "|", "|" + "|".join("---" for _ in range(cols)) + "|"]
    rows += ["|" + "|".join(f"r{r}c{c} [1]" for c in range(cols)) + "|" for r in range(79)]
    body = chr(10).join(rows)
elif kind == "pdf-text":
    fmt, para = "pdf", "Honey bees communicate the location of food with a dance whose angle encodes it [1]. " * 5
    body = (chr(10) * 2).join([para] * (1_000_000 // len(para)))
else:
    fmt, body = "pdf", "[1] " * 50_000
try:
    data = export_report({"question": "Q", "report_markdown": body, "sources": source, "created_at": 0}, fmt,
                         secrets=())
    print(f"made {len(data):,} bytes")
except Exception as exc:
    print(f"{type(exc).__name__}: {exc}")
"""
EXPORT_CASES = {"word-table": "Word, 1,600-cell table", "pdf-text": "PDF, 1 MB of text",
                "pdf-citations": "PDF, 50,000 [1]"}


def case_exports(trees: list[tuple[str, Path]], cap: float) -> None:
    for label, root in trees:
        for kind, name in EXPORT_CASES.items():
            seconds, peak, code, out, err = run_measured([sys.executable, "-c", EXPORT_SCRIPT, kind], cap, cwd=root)
            state = f"{seconds:.1f} s" if code is not None else f"still running after {seconds:.0f} s"
            outcome = (out.strip().splitlines() or [err])[-1][:150] if code is not None else ""
            print(f"export {name} ({label}): {state}, peak tree RSS {mb(peak)}; {outcome}", flush=True)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default="drip,research,stream,extract,docs,items")
    parser.add_argument("--before", help="git revision whose code the items and exports cases also run on first")
    parser.add_argument("--item-cap", type=float, default=60, help="seconds before an items case is killed")
    parser.add_argument("--cap", type=float, default=120, help="seconds before a case is called hung and killed")
    parser.add_argument("--after", type=float, default=30, help="seconds watched after a page is given up")
    args = parser.parse_args(argv)
    os.environ.update(GRADIO_ANALYTICS_ENABLED="False", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    from Tests.support.mini_web import MiniWeb
    from Tests.support.testworld import TestWorld
    world = TestWorld().start()
    web = MiniWeb(world, include_faults=False, stalling=True, drip_delay=DRIP_DELAY).install()
    cases = args.cases.split(",")
    with tempfile.TemporaryDirectory(prefix="hostile-") as tmp:
        workdir = Path(tmp)
        if "drip" in cases:
            case_drip(web, args.cap)
        if "research" in cases:
            case_research(web, workdir, args.cap)
        if "stream" in cases:
            case_stream(args.after, args.cap)
        for case in (c for c in cases if c.startswith("stream:")):
            stream_one(web, case.split(":", 1)[1], args.after)
        if "extract" in cases:
            case_extract(workdir, args.cap)
        if "docs" in cases:
            case_docs(workdir, args.cap)
        only = [c.split(":", 1)[1] for c in cases if c.startswith("items:")]
        if "items" in cases or only or "exports" in cases:
            old = workdir / "before"
            old.mkdir()
            trees = older_tree(args.before, old) + [("after", ROOT)]
            if "items" in cases or only:
                case_items(trees, args.item_cap, only)
            if "exports" in cases:
                case_exports(trees, args.cap)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
