"""Research pipeline latency on the test world with injected delays, three ways in one run:

  wall          Quarry as built (process_question: stages concurrent inside, pages streamed into ranking
                and per-page notes);
  sequential    the same stages strictly one after another, the tldw way: one query and engine at a time,
                one LLM call per result for relevance, one page at a time (fetch, rank, notes);
  critical_path the lower bound from the injected delays alone: sub-query call + slowest search + slowest
                relevance batch + slowest page read + one notes call + the report call + the follow-ups call.

All three do the same work, follow-up suggestions included (one LLM call after the report).

Injected latency (fixed seed): search API 300 ms a request, each page 200-1500 ms, LLM 800 ms a call. Pages
live on separate virtual hosts (site<k>.test -> the test world) so per-host limits apply as on the real web.
The embedding model and the LLM client library are loaded, and one untimed research run warms the code paths,
before timing (a running app has done so); caches are off, so every page is fetched again.

    python bench/pipeline_latency.py [--seed 7] [--mirrors 2] [--torch-threads N] [--mixed] [--repeats 3]

With --mixed, also one research across every source: the web engine plus both local sources (the demo
Wikipedia index and a small document library, built into the temp folder first, untimed), timed in turns with
the web-only run (--repeats of each, medians compared):
    mixed: web_only=<s> mixed=<s> ratio=<x>
Goal: ratio <= 1.10 (local search overlaps the network waits).

On a machine whose cores are shared with other busy processes, torch's default of one thread per core makes
the embedding model several times slower (its threads wait on each other); --torch-threads 1 shows that.

Last line:
    pipeline: wall=<s> critical_path=<s> sequential=<s> speedup=<x> overhead=<x> llm_calls=<n>
Goals: speedup >= 5x, overhead <= 1.25x, llm_calls <= 3 + ceil(results/8) + pages fetched.
"""
from __future__ import annotations

import argparse
import math
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

QUESTION = "How do honey bees communicate the location of food?"
SUB_QUERIES = ["honey bee waggle dance", "bee round dance scent", "bee navigation sun compass"]
SEARCH_DELAY, LLM_DELAY, PAGE_DELAYS = 0.3, 0.8, (0.2, 1.5)


def build_world(seed: int, mirrors: int):
    from Tests.support.mini_web import MiniWeb
    from Tests.support.openai_server import ScriptedLLM
    from Tests.support.research_llm import script_research
    from Tests.support.testworld import TestWorld
    world = TestWorld().start()
    web = MiniWeb(world, include_faults=False, slow_chunk_delay=0.0, mirrors=mirrors, virtual_hosts=True).install()
    rng = random.Random(seed)
    page_delays = {}
    for page in web.pages:
        page_delays[web.url(page.path)] = delay = round(rng.uniform(*PAGE_DELAYS), 3)
        world.fault("/web/" + page.path, delay=delay)
    world.fault("/searxng/search", delay=SEARCH_DELAY)
    llm = script_research(ScriptedLLM(default="?", delay=LLM_DELAY), ("bee", "honey", "waggle", "forag"),
                          sub_queries=SUB_QUERIES, invalid_citation=None).install(world)
    return world, web, llm, page_delays


def make_services(world, web, workdir: Path):
    from App_Function_Libraries import config
    from App_Function_Libraries.Research.fetch import PageFetcher
    from App_Function_Libraries.Research.pipeline import Services
    from Tests.support.mini_web import research_config
    values = research_config(web, world.url("/v1"), embeddings=True,
                             research={"pages_max": 10, "passage_words_min": 100, "passage_words_max": 200},
                             fetch={"per_host_concurrency": 2, "read_timeout_seconds": 5,
                                    "total_timeout_seconds": 10, "connect_timeout_seconds": 5},
                             llm={"max_output_tokens": 600, "timeout_seconds": 30})
    values["databases"] = {"research_db": str(workdir / "bench.db"), "notes_db": str(workdir / "bench.db")}
    values["wikipedia"] = {"index_dir": str(workdir / "wiki")}
    values["documents"] = {"index_dir": str(workdir / "docs"), "kept_sources_dir": str(workdir / "kept")}
    path = workdir / "config.txt"
    path.write_text("".join(f"[{s}]\n" + "".join(f"{k} = {v}\n" for k, v in kv.items()) for s, kv in values.items()),
                    encoding="utf-8")
    settings = config.load_settings(path, env={})
    config.set_settings(settings)
    services = Services.from_settings(settings)
    services.fetcher = PageFetcher(settings.fetch, resolver=web.resolver)
    return settings, services


def run_quarry(services, params):
    from App_Function_Libraries.Research.pipeline import process_question
    started = time.perf_counter()
    result = process_question(QUESTION, params, services=services)
    return time.perf_counter() - started, result


def run_sequential(services, params, settings) -> float:
    """The same stages strictly one after another (the tldw way)."""
    from App_Function_Libraries.config import FetchSettings
    from App_Function_Libraries.Research import relevance, report
    from App_Function_Libraries.Research.fetch import PageFetcher
    from App_Function_Libraries.Research.follow_ups import suggest_follow_ups
    from App_Function_Libraries.Research.page_notes import write_notes
    from App_Function_Libraries.Research.page_stream import apply_loaded, load_page
    from App_Function_Libraries.Research.rank import MemoEmbedder, RankSettings, rank_pages
    from App_Function_Libraries.records import ResearchResult, Source
    from App_Function_Libraries.Search.many import merge_runs, search_many
    from App_Function_Libraries.Search.options import SearchOptions
    from App_Function_Libraries.Research.subqueries import analyze_question
    llms, embedder = services.llms, MemoEmbedder(services.embedder())
    fetcher = PageFetcher(FetchSettings(**{**settings.fetch.__dict__, "concurrency": 1, "per_host_concurrency": 1}),
                          resolver=services.fetcher.resolver)
    started = time.perf_counter()
    subs, _ = analyze_question(QUESTION, llms["subquery"], params.subquery_count)
    options = SearchOptions.build(None, settings, **params.search_values())
    runs = []
    for query in [QUESTION] + subs:
        for engine in params.engines:
            runs += search_many([engine], [query], options, settings=settings, use_cache=False, max_workers=1).runs
    sources = [Source(r.title, r.url, r.content) for r in merge_runs(runs)[:params.result_max]]
    relevance.judge_with_llm(llms["relevance"], QUESTION, subs, sources, batch_size=1, max_parallel=1)
    rank = RankSettings(params.passages_per_page, settings.research.passage_words_min,
                        settings.research.passage_words_max)
    for source in [s for s in sources if s.selected][:params.pages_max]:
        page = load_page(source.url, fetcher)
        apply_loaded(source, page)
        if page.text:
            source.passages = rank_pages(QUESTION, [page.text], rank, embedder)[0]
            source.notes, _ = write_notes(llms["extraction"], QUESTION, source)
    report.number_sources(sources)
    markdown = report.write_report(QUESTION, sources, llms["final_answer"], params.report_options(), subs)
    checked = report.verify_report(markdown, sources, embedder)
    suggest_follow_ups(ResearchResult(QUESTION, sub_queries=subs, sources=sources, report_markdown=checked.markdown),
                       llms["subquery"], params.follow_up_count)
    return time.perf_counter() - started


def compare_mixed(services, params, settings, workdir: Path, repeats: int) -> tuple[float, float, object]:
    """Median wall time of the web-only run and of the mixed run (web + wikipedia + documents), in turns."""
    import dataclasses
    import statistics
    from Tests.support.all_sources import set_up_local_sources
    set_up_local_sources(settings, workdir)  # the demo Wikipedia index and a document library, not timed
    mixed_params = dataclasses.replace(params, engines=list(params.engines) + ["wikipedia", "documents"])
    run_quarry(services, mixed_params)  # warm-up, not timed (opens the local indexes, as a running app has)
    web_only, mixed, result = [], [], None
    for _ in range(repeats):
        web_only.append(run_quarry(services, params)[0])
        seconds, result = run_quarry(services, mixed_params)
        mixed.append(seconds)
    print(f"mixed runs: web_only={[round(t, 2) for t in web_only]} mixed={[round(t, 2) for t in mixed]} "
          f"kinds_numbered={sorted({s.kind for s in result.cited_sources()})} "
          f"stage_timings={result.timings}")
    return statistics.median(web_only), statistics.median(mixed), result


def critical_path(result, page_delays: dict[str, float]) -> float:
    fetched = [page_delays[s.url] for s in result.sources if s.fetched and s.url in page_delays]
    notes_call = LLM_DELAY if fetched else 0.0
    follow_ups_call = LLM_DELAY if result.follow_ups else 0.0
    return LLM_DELAY + SEARCH_DELAY + LLM_DELAY + max(fetched, default=0.0) + notes_call + LLM_DELAY + follow_ups_call


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=7, help="seed of the page delays")
    parser.add_argument("--mirrors", type=int, default=2, help="mirror copies of each article (more results)")
    parser.add_argument("--torch-threads", type=int, default=0,
                        help="CPU threads for the embedding model (0: torch's default, one per core)")
    parser.add_argument("--mixed", action="store_true",
                        help="also time web + wikipedia + documents against web only (same run)")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs of each for --mixed (medians)")
    args = parser.parse_args(argv)
    if args.torch_threads:
        import torch
        torch.set_num_threads(args.torch_threads)
    from App_Function_Libraries.Research.params import ResearchParams
    world, web, llm, page_delays = build_world(args.seed, args.mirrors)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            settings, services = make_services(world, web, Path(tmp))
            services.embedder()  # load the model and the LLM client library before timing
            for client in {id(c): c for c in services.llms.values() if c is not None}.values():
                client.client()
            params = ResearchParams.from_settings(settings, use_cache=False)
            run_quarry(services, params)  # warm-up, not timed
            before = llm.calls
            wall, result = run_quarry(services, params)
            calls = llm.calls - before
            sequential = run_sequential(services, params, settings)
            mixed = compare_mixed(services, params, settings, Path(tmp), args.repeats) if args.mixed else None
    finally:
        world.stop()
    bound = critical_path(result, page_delays)
    fetched = sum(1 for s in result.sources if s.fetched)
    budget = 3 + math.ceil(len(result.sources) / 8) + fetched
    print(f"results={len(result.sources)} pages_fetched={fetched} citations={len(result.citations)} "
          f"llm_call_budget={budget} stage_timings={result.timings}")
    print(f"goals: speedup>=5 {'met' if sequential / wall >= 5 else 'MISSED'}; overhead<=1.25 "
          f"{'met' if wall / bound <= 1.25 else 'MISSED'}; llm_calls<=budget {'met' if calls <= budget else 'MISSED'}")
    print(f"pipeline: wall={wall:.2f} critical_path={bound:.2f} sequential={sequential:.2f} "
          f"speedup={sequential / wall:.1f}x overhead={wall / bound:.2f}x llm_calls={calls}")
    if mixed:
        web_only, mixed_wall, _ = mixed
        ratio = mixed_wall / web_only
        print(f"goal: mixed ratio<=1.10 {'met' if ratio <= 1.10 else 'MISSED'}")
        print(f"mixed: web_only={web_only:.2f} mixed={mixed_wall:.2f} ratio={ratio:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
