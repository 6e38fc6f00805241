"""Issue 23's hostile search answers and outside bytes, one case each, run by bench/hostile_inputs.py (`--cases
items`, with `--before REV` to run every case on that git revision too, in the same run). Each case runs in a
process of its own against a source tree (this one, or REV's extracted to a temporary folder) and prints one
line; the parent reports its seconds, the peak RSS of its process tree and that line.

    python bench/hostile_search_cases.py TREE CASE     (what the parent runs; TREE is the code under test)

Cases (the test world's hostile servers: Tests/support/hostile_search.py, loaded from this checkout):
  1-search     search_with on an API that sends Content-Length: 100000 then a byte a second,
               search_timeout_seconds = 5, no retry: seconds until the search ends
  1-cancel     a research (no LLM) with a healthy SearXNG and that dripping engine (Brave's slot),
               search_timeout_seconds = 60, Cancel after 3 s: seconds until the run returns
  3-surrogate  a research whose engine answers lone surrogates (\\ud800) in titles and snippets, saved and
               exported (md, json, docx)
  4-citation   a report whose LLM-written text holds a 5,000-digit citation group: verified, exported (html, docx)
  7-crossref   a Crossref answer with one 5 MB abstract: the search, and the abstract's length kept
  7-openalex   an OpenAlex answer of 4.6 MB whose inverted index repeats long words: the abstract's length
  7-arxiv      an arXiv feed of 60,000 entries (18 MB, under the 20 MB answer cap) when 10 were asked for
  8a-docx      a saved report whose source URL and DOI hold control characters, exported to Word
  8b-number    a SearXNG answer whose score is a 400-digit integer
"""
from __future__ import annotations

import importlib.util
import json
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent  # this checkout: where the hostile servers come from
QUESTION = "How do honey bees communicate the location of food with a dance?"
CASES = ("1-search", "1-cancel", "3-surrogate", "4-citation", "7-crossref", "7-openalex", "7-arxiv", "8a-docx",
         "8b-number")


def _hostile_module():
    spec = importlib.util.spec_from_file_location("hostile_search", HERE / "Tests/support/hostile_search.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _settings(tmp: Path, values: dict):
    from App_Function_Libraries import config
    base = {"databases": {"research_db": str(tmp / "q.db"), "notes_db": str(tmp / "q.db")},
            "fetch": {"allow_private_addresses": "true"}, "documents": {"index_dir": str(tmp / "docs")}}
    for section, kv in values.items():
        base.setdefault(section, {}).update(kv)
    path = tmp / "config.txt"
    path.write_text("".join(f"[{s}]\n" + "".join(f"{k} = {v}\n" for k, v in kv.items()) for s, kv in base.items()))
    settings = config.load_settings(path, env={})
    config.set_settings(settings)
    return settings


def _search(engine: str, values: dict, tmp: Path, **options) -> str:
    from App_Function_Libraries.Search.engine import search_with
    settings = _settings(tmp, {"search": {"search_cache_ttl_seconds": 0, "search_max_retries": 0,
                                          "search_timeout_seconds": 5}, **values})
    started = time.monotonic()
    answer = search_with(engine, "bees", settings, **options)
    took = f"search ended after {time.monotonic() - started:.1f} s: "
    if answer.error:
        return took + f"error: {answer.error[:120]}"
    sizes = [len(h.paper.abstract) for h in answer.hits if h.paper]
    return took + f"{len(answer.hits)} hits" + (f", longest abstract kept {max(sizes):,} chars" if sizes else "")


def _research_config(world, web, hostile, timeout: float, engine_url: str) -> dict:
    sys.path.insert(1, str(HERE))
    from Tests.support.mini_web import research_config
    values = research_config(web, search={"search_timeout_seconds": timeout, "search_cache_ttl_seconds": 0},
                             engines={"brave_api_url": engine_url, "brave_api_key": "bench-key-1234"})
    return {s: {k: str(v) for k, v in kv.items()} for s, kv in values.items()}


def _exports(result, formats) -> str:
    from App_Function_Libraries.DB.export import export_report
    failed = []
    for fmt in formats:
        try:
            value = export_report(result, fmt)
            value.encode("utf-8") if isinstance(value, str) else value
        except Exception as exc:  # noqa: BLE001 - reported
            failed.append(f"{fmt}: {type(exc).__name__}")
    return "exports ok" if not failed else "exports failed (" + "; ".join(failed) + ")"


def case(name: str, tmp: Path) -> str:
    hostile_mod = _hostile_module()
    from Tests.support.testworld import Response, TestWorld
    world = TestWorld().start()
    hostile = hostile_mod.HostileSearch(world, delay=1.0).install()
    if name == "1-search":
        return _search("searxng", {"engines": {"searxng_api_url": hostile.base("drip-body")}}, tmp)
    if name == "1-cancel":
        from App_Function_Libraries.Research.params import ResearchParams
        from App_Function_Libraries.Research.pipeline import process_question
        from Tests.support.mini_web import MiniWeb
        web = MiniWeb(world, include_faults=False).install()
        settings = _settings(tmp, _research_config(world, web, hostile, 60, hostile.base("drip-body") + "/search"))
        cancel, at = threading.Event(), []
        threading.Timer(3.0, lambda: (at.append(time.monotonic()), cancel.set())).start()
        result = process_question(QUESTION, ResearchParams.from_settings(settings, engines=["searxng", "brave"]),
                                  cancel=cancel)
        return (f"returned {time.monotonic() - at[0]:.1f} s after Cancel, {len(result.sources)} sources; "
                + "; ".join(e[:60] for e in result.errors[:2]))
    if name == "3-surrogate":
        from App_Function_Libraries.DB.research_store import get_research_store
        from App_Function_Libraries.Research.pipeline import process_question
        from Tests.support.mini_web import MiniWeb
        web = MiniWeb(world, include_faults=False).install()
        hostile.pages = web.search(QUESTION)
        values = _research_config(world, web, hostile, 5, "")
        values["engines"] = {"searxng_api_url": hostile.base("text-surrogate")}
        settings = _settings(tmp, values)
        result = process_question(QUESTION)
        odd = sum("surrogate" in s.snippet or "Waggle" in s.title for s in result.sources)
        searched = "; ".join(e[:90] for e in result.errors if e.startswith("search ")) or "searched"
        try:
            get_research_store(settings).save_research(result)
            saved = "saved"
        except Exception as exc:  # noqa: BLE001 - reported
            saved = f"not saved ({type(exc).__name__})"
        return f"{searched}; {odd} surrogate results among {len(result.sources)} sources; {saved}; " + \
            _exports(result, ("md", "json", "docx"))
    if name == "4-citation":
        from App_Function_Libraries.records import ResearchResult, Source
        from App_Function_Libraries.Retrieval.citations import clean_citation_groups
        huge = "9" * 5000
        try:
            clean_citation_groups(f"Bees dance [1, {huge}].", {1})
            verified = "verified"
        except ValueError as exc:
            verified = f"verify failed ({str(exc)[:40]}…)"
        result = ResearchResult(question="q", report_markdown=f"Bees dance [1]. Text [{huge}] kept as written.")
        result.sources = [Source("Bees", "https://bees.example/", n=1, verdict="relevant", fetched=True)]
        return f"{verified}; " + _exports(result, ("html", "docx"))
    if name == "7-crossref":
        abstract = "<p>Bees <i>dance</i> to tell the way.</p> " * 120_000
        body = json.dumps({"status": "ok", "message": {"items": [{"DOI": "10.1000/x", "abstract": abstract}]}})
        world.route("GET", "/crossref", lambda req: Response(200, body.encode(), {"Content-Type": "application/json"}))
        return _search("crossref", {"engines": {"crossref_api_url": world.url("/crossref")}}, tmp)
    if name == "7-openalex":
        index = {f"w{i}" + "x" * 1500: [i] for i in range(3000)}
        body = json.dumps({"meta": {"count": 1}, "results": [{"id": "https://openalex.org/W1", "display_name": "T",
                                                              "abstract_inverted_index": index}]})
        world.route("GET", "/openalex", lambda req: Response(200, body.encode(), {"Content-Type": "application/json"}))
        return f"answer {len(body) / 2 ** 20:.1f} MB; " + _search(
            "openalex", {"engines": {"openalex_api_url": world.url("/openalex")}}, tmp)
    if name == "7-arxiv":
        items = "".join(f"<entry><id>http://arxiv.org/abs/{i}</id><title>Paper {i}</title><summary>Bees dance. "
                        f"{'Waggle runs. ' * 12}</summary><link rel='alternate' href='http://arxiv.org/abs/{i}'/>"
                        f"</entry>" for i in range(60_000))
        feed = f"<feed xmlns='http://www.w3.org/2005/Atom'>{items}</feed>".encode()
        world.route("GET", "/arxiv", lambda req: Response(200, feed, {"Content-Type": "application/atom+xml"}))
        return f"feed {len(feed) / 2 ** 20:.1f} MB; " + _search(
            "arxiv", {"engines": {"arxiv_api_url": world.url("/arxiv")}, "search": {"search_timeout_seconds": 60}},
            tmp, count=10)
    if name == "8a-docx":
        from App_Function_Libraries.records import Paper, ResearchResult, Source
        paper = Paper(authors=["Ann Bee"], year=2021, doi="10.1000/bee\x01s")
        result = ResearchResult(question="q", report_markdown="Bees dance [1].")
        result.sources = [Source("Bees", "https://bees.example/a\x1bb", kind="paper", paper=paper, n=1,
                                 verdict="relevant", fetched=True)]
        return _exports(result, ("docx",))
    if name == "8b-number":
        return _search("searxng", {"engines": {"searxng_api_url": hostile.base("big-number")}}, tmp)
    raise SystemExit(f"unknown case {name}")


def main(tree: str, name: str) -> None:
    import tempfile
    sys.path.insert(0, tree)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="hostile-item-") as tmp:
        outcome = case(name, Path(tmp))
    print(f"RESULT {time.monotonic() - started:.1f} s in the case: {outcome}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
