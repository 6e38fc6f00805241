"""End-to-end answer quality: the real research pipeline on a frozen web with known answers.

    python bench/research_qa.py [--limit 300] [--seed 13] [--llm] [--config PATH]

The web is built at run time from the SQuAD v1.1 dev articles in ../shared/data/wiki_qa/ (see
bench/qa_web.py): pages of three paragraphs in real-looking boilerplate, and a SearXNG-format search server
that ranks by title + snippet-sized excerpts and mixes in distractors. For a seeded sample of questions,
`process_question` runs whole (sub-queries, search, relevance, fetch, text extraction, passage ranking, report,
citation verification), in extractive mode and, with --llm, with the LLM of Config_Files/config.txt (or
--config) as well.

Per mode:
  answer_recall       the report contains a gold answer (SQuAD normalisation: lower case, no punctuation,
                      no articles, whitespace collapsed), the closest passages of a not-answered report
                      included (they are shown, marked not used);
  cited_recall        (detail line) a cited sentence of the report contains a gold answer;
  cited_correctly     a report sentence containing a gold answer cites the page holding the gold paragraph;
  citation_precision  of all stored citations, the share whose quote is text of the cited page and supports the
                      sentence: at least half of the sentence's content words are in the quote (the verifier
                      stores the best-supporting passage; this checks it really is from that page and on point);
  answer_at_1         the report's lead answer contains a gold answer: its first cited text, up to its first
                      citation (a quoted sentence with the pronoun sentence after it that it brings along,
                      "… joined the League. He came back in 1908." [1], is one lead);
  quote_holds         the share of stored quotes that contain their cited sentence (SQuAD-normalised);
  support_precision   of the citations the verifier marks supported (Citation.verdict; code without verdicts
                      counts every kept citation as supported), the share whose quote is text of the cited page
                      and holds at least 80% of the sentence's content words. The pool includes one deliberately
                      wrong citation per answered question: its first cited sentence re-cited to another source
                      of the run whose text lacks it, verified again (report.verify_report); wrong_caught is the
                      share of those the verifier does not mark supported;
  not_answered        a further seeded sample of questions (--unanswerable, default a third of --limit) asked
                      with every page holding a gold answer removed from the search results (the gold page and any
                      other page whose text holds the answer): the share of runs whose result says it is not
                      answered (answer_status) and cites nothing;
  median_s, p90_s     wall time per question; llm_calls, llm_tokens per question.
Per question (--why prints those that fail, --details stores them all), in extractive mode, why it failed:
  answerable:   refused (said not answered, though a quotable text holds the gold answer; answer_recall still
                counts it when that text is listed among the closest passages, not used), not_found (no
                quotable text holds it; gold_page says what became of the gold page: not_in_results,
                judged_out, not_read or read), not_quoted (answered, the gold text not in the report), not_lead
                (in the report, not its lead answer), with the gold text's rank, relevance and whether it
                clears the floor (cited_answer.floor_for), and the lead's relevance;
  unanswerable: answered (the report answers anyway: its lead and that lead's relevance).
Baselines in the same run, on the same questions and search server:
  snippets            answer recall of the top-10 search snippets for the question;
  bm25_sentences      the top-10 result pages' text (Quarry's extraction), sentences ranked by BM25 against the
                      question, the best six as the answer.
What it does not measure: each answer sits in one paragraph of one page (no synthesis across sources), and
SQuAD questions share many words with their paragraph (lexical questions favour BM25 and extractive answers).

Last lines per mode:
    research_qa: mode=<m> answer_recall=<r> cited_correctly=<c> citation_precision=<p> median_s=<s> n=<n>
    research_qa: mode=<m> answer_at_1=<a> not_answered=<u> quote_holds=<q> support_precision=<s> wrong_caught=<w>
Exits 0 with a note when the shared data is absent.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import string
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

import qa_web  # noqa: E402


# ---------------------------------------------------------------- SQuAD normalisation and matching

def normalize(text: str) -> str:
    text = text.lower()
    text = "".join(ch for ch in text if ch not in set(string.punctuation))
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())


def contains_answer(text: str, answers: list[str]) -> bool:
    padded = f" {normalize(text)} "
    return any(f" {normalize(a)} " in padded for a in answers if normalize(a))


def content_words(text: str) -> set[str]:
    from App_Function_Libraries.Retrieval.bm25 import tokenize
    return set(tokenize(text))


# ---------------------------------------------------------------- one research run, scored

def lead_answer(markdown: str) -> str:
    """The report's lead answer: the first line holding a citation, up to its first citation group, without
    list marks, quotation marks and the citation itself ('' when nothing is cited)."""
    from App_Function_Libraries.Retrieval.citations import CITATION_GROUP_RE
    from App_Function_Libraries.Retrieval.verifier import own_sentence
    for line in markdown.splitlines():
        m = CITATION_GROUP_RE.search(line)
        if m:
            return own_sentence(re.sub(r"^\s*(?:[-*+]|\d+[.)]|#+|>)\s*", "", line[:m.start()]))
    return ""


def score_run(result, question: qa_web.Question, gold_url: str, page_text: dict[str, str], embedder=None) -> dict:
    from App_Function_Libraries.Retrieval.citations import cited_sentences
    report = result.report_markdown
    by_n = {s.n: s for s in result.sources if s.n is not None}
    correct = False
    cited = cited_sentences(report)
    for sentence, numbers in cited:
        if contains_answer(sentence, question.answers) and any(
                by_n.get(n) is not None and by_n[n].url == gold_url for n in numbers):
            correct = True
    supported = holds = 0
    verdicts: list[tuple[bool, bool]] = []  # (marked supported, truly supported)
    misses = []  # (sentence, quote) of quotes that do not hold their sentence, for --details
    for c in result.citations:
        truly = truly_supported(c.sentence, c.quote, page_text.get(c.url, ""))
        supported += truly
        held = bool(normalize(c.sentence)) and normalize(c.sentence) in normalize(c.quote)
        holds += held
        if not held:
            misses.append((c.sentence, c.quote))
        verdicts.append((getattr(c, "verdict", "supported") == "supported", truly))
    wrong = wrong_citation(result, page_text, embedder)
    usage = result.llm_usage or {}
    return {"recall": contains_answer(report, question.answers), "correct": correct,
            "cited_recall": any(contains_answer(sentence, question.answers) for sentence, _ in cited),
            "at_1": contains_answer(lead_answer(report), question.answers),
            "citations": len(result.citations), "supported": supported, "holds": holds, "quote_misses": misses,
            "marked": [m for m, _ in verdicts + wrong], "truly": [t for _, t in verdicts + wrong],
            "wrong": len(wrong), "wrong_caught": sum(not m for m, _ in wrong),
            "calls": usage.get("calls", 0),
            "tokens": usage.get("prompt_tokens", 0) + usage.get("completion_tokens", 0)}


def gold_fate(result, gold_url: str) -> str:
    """What became of the gold page in the run: not_in_results (the search never returned it), judged_out (the
    relevance stage judged it irrelevant), not_read (selected, not read: pages_max, a failure), read."""
    source = next((s for s in result.sources if gold_url in (s.url, s.final_url)), None)
    if source is None:
        return "not_in_results"
    if not source.selected:
        return "judged_out"
    return "read" if source.fetched and not source.failure and not source.skipped else "not_read"


def explain(result, question: qa_web.Question, embedder=None, answerable: bool = True,
            gold_url: str = "") -> dict:
    """Why a question failed (see the module docstring): 'ok' or the reason, with the gold text's rank and
    relevance among the quotable texts (Retrieval/cited_answer.candidates) and the lead's."""
    from App_Function_Libraries.Research.report import citable
    from App_Function_Libraries.Retrieval import cited_answer as core
    from App_Function_Libraries.Retrieval.verifier import own_sentence
    from App_Function_Libraries.Retrieval.citations import cited_sentences
    cited = cited_sentences(result.report_markdown)
    lead = own = cited[0][0] if cited else ""  # its last sentence: the one a quote of two is found by
    lead_text = lead_answer(result.report_markdown)
    ranked = core.candidates(question.text, citable(result.sources), embedder)
    if lead:
        own = own_sentence(re.sub(r"\s*\[[\d, ]+\]\s*$", "", lead))
    lead_pick = next((p for p in ranked if own and (own in p.text or p.text in own)), None)
    gold = next(((i, p) for i, p in enumerate(ranked, 1) if contains_answer(p.text, question.answers)), None)
    out = {"question": question.text, "answers": question.answers[:3], "answerable": answerable,
           "status": getattr(result, "answer_status", ""), "lead": lead_text[:160],
           "lead_score": round(lead_pick.score, 3) if lead_pick else None,
           "gold_rank": gold[0] if gold else None, "gold_score": round(gold[1].score, 3) if gold else None,
           "gold_text": gold[1].text[:160] if gold else "",
           "gold_clears": gold[1].score >= core.floor_for(embedder) if gold else None,
           "best": [(round(p.score, 2), p.text[:100]) for p in sorted(ranked, key=lambda p: -p.score)[:3]],
           "gold_page": gold_fate(result, gold_url) if gold_url else ""}
    report = result.report_markdown
    if not answerable:
        out["why"] = "ok" if out["status"] == "not_answered" and not result.citations else "answered"
    elif contains_answer(lead_text, question.answers):
        out["why"] = "ok"
    elif gold is None:
        out["why"] = "not_found"
    elif not cited:  # the gold text may still be listed among the closest passages, not used
        out["why"] = "refused"
    else:
        out["why"] = "not_lead" if contains_answer(report, question.answers) else "not_quoted"
    return out


def why_line(row: dict) -> str:
    """One failing question as --why prints it."""
    gold = (f" gold@{row['gold_rank']} rel={row['gold_score']:.2f} clears={row['gold_clears']}: "
            f"{row['gold_text'][:90]!r}"
            if row["gold_rank"] else "")
    lead = f" lead rel={row['lead_score']}: {row['lead'][:90]!r}" if row["lead"] else ""
    page = f" gold page {row['gold_page']}" if row.get("gold_page") and row["why"] == "not_found" else ""
    return f"  why={row['why']} q={row['question']!r} answers={row['answers'][:2]}{page}{gold}{lead}"


def truly_supported(sentence: str, quote: str, page: str) -> bool:
    """The quote is text of the cited page and holds at least 80% of the sentence's content words. The page is
    read without its editors' inline tags ("writers[who?] used"), which quotes leave out by design
    (Retrieval/quotable.INLINE_TAGS): a quote without them is still the page's text."""
    from App_Function_Libraries.Retrieval.quotable import INLINE_TAGS
    words = content_words(sentence)
    quote_n = normalize(quote)
    return bool(words) and bool(quote_n) and quote_n in normalize(INLINE_TAGS.sub("", page)) and \
        len(words & content_words(quote)) >= 0.8 * len(words)


def wrong_citation(result, page_text: dict[str, str], embedder) -> list[tuple[bool, bool]]:
    """The run's first cited sentence re-cited to another numbered source whose page lacks it, verified again:
    [(marked supported, truly supported)], or [] when the run has no such pair."""
    from App_Function_Libraries.Research import report
    from App_Function_Libraries.Retrieval.citations import cited_sentences
    cited = cited_sentences(result.report_markdown)
    numbered = sorted((s for s in result.sources if s.n is not None), key=lambda s: s.n)
    if not cited:
        return []
    sentence, numbers = cited[0]
    others = [s for s in numbered if s.n not in numbers
              and normalize(sentence) not in normalize(page_text.get(s.final_url or s.url, ""))]
    if not others:
        return []
    check = report.verify_report(f"{sentence.rstrip('.')} [{others[0].n}].", result.sources, embedder)
    return [(getattr(c, "verdict", "supported") == "supported",
             truly_supported(c.sentence, c.quote, page_text.get(c.url, ""))) for c in check.citations]


def page_text(page: qa_web.QAPage) -> str:
    return "\n\n".join([page.article, page.heading] + page.paragraphs)


def page_texts(pages: list[qa_web.QAPage], search: qa_web.QASearch) -> dict[str, str]:
    """The page text each URL really holds (its paragraphs), to check quotes against."""
    return {search.url_of(p): page_text(p) for p in pages}


def answer_pages(search: qa_web.QASearch, question) -> set[str]:
    """The pages an unanswerable case hides: the gold page and every other page whose text holds a gold answer
    (SQuAD-normalised), so that no page left can answer it (hiding the gold page alone left questions such as
    "When were the Wars of Religion fought?" answerable from another page of the article)."""
    return {question.page} | {p.path for p in search.pages if contains_answer(page_text(p), question.answers)}


# ---------------------------------------------------------------- baselines

def baselines(questions, search: qa_web.QASearch, html_of: dict[str, str]) -> dict[str, float]:
    from App_Function_Libraries.Retrieval.bm25 import BM25
    from App_Function_Libraries.Retrieval.passages import split_sentences
    from App_Function_Libraries.Retrieval.reading import extract_html
    text_cache: dict[str, str] = {}
    snippet_hits = bm25_hits = 0
    for q in questions:
        results = search.results(q.text)
        snippet_hits += contains_answer(" \n ".join(r["content"] for r in results), q.answers)
        sentences = []
        for r in results:
            if r["url"] not in text_cache:
                text_cache[r["url"]] = extract_html(html_of[r["url"]], r["url"])[1]
            sentences += [s for s in split_sentences(text_cache[r["url"]]) if len(s.split()) >= 4]
        if sentences:
            scores = BM25(sentences).scores(q.text)
            best = sorted(range(len(sentences)), key=lambda i: -scores[i])[:6]
            bm25_hits += contains_answer(" ".join(sentences[i] for i in best), q.answers)
    n = len(questions) or 1
    return {"snippets": snippet_hits / n, "bm25_sentences": bm25_hits / n}


# ---------------------------------------------------------------- setup

def make_settings(world, workdir: Path, llm_from: Path | None):
    from App_Function_Libraries import config
    values = {
        "search": {"search_provider_default": "searxng", "search_max_retries": 0},
        "engines": {"searxng_api_url": world.url("/searxng")},
        "fetch": {"allow_private_addresses": "true", "per_host_concurrency": 4},
        "databases": {"research_db": str(workdir / "qa.db"), "notes_db": str(workdir / "qa.db")},
        "llm": {"provider": "none"},
    }
    extra = ""
    if llm_from is not None:  # the configured LLM; everything else points at the QA web
        values.pop("llm")
        block = re.search(r"^\[llm\][^\[]*", llm_from.read_text(encoding="utf-8"), re.M)
        extra = block.group(0) if block else ""
    path = workdir / "config.txt"
    path.write_text("".join(f"[{s}]\n" + "".join(f"{k} = {v}\n" for k, v in kv.items()) for s, kv in values.items())
                    + extra, encoding="utf-8")
    settings = config.load_settings(path, env=dict(os.environ))
    config.set_settings(settings)
    return settings


def run_mode(mode: str, settings, questions, search, texts, unanswerable=()) -> dict:
    from App_Function_Libraries.Research.fetch import PageFetcher
    from App_Function_Libraries.Research.pipeline import Services, process_question
    from App_Function_Libraries.Research.params import ResearchParams
    services = Services.from_settings(settings, use_llm=(mode == "llm"))
    services.fetcher = PageFetcher(settings.fetch, resolver=qa_web.resolver)
    embedder = services.embedder()  # load the model before timing
    params = ResearchParams.from_settings(settings, use_cache=False, use_llm=(mode == "llm"))
    rows, seconds = [], []
    for i, q in enumerate(questions, 1):
        started = time.perf_counter()
        result = process_question(q.text, params, services=services)
        seconds.append(time.perf_counter() - started)
        gold_url = search.url_of_path(q.page)
        rows.append(score_run(result, q, gold_url, texts, embedder))
        rows[-1]["explain"] = explain(result, q, embedder, gold_url=gold_url) if mode == "extractive" else {}
        if i % 10 == 0 or i == len(questions):
            done = rows
            print(f"  {mode}: {i}/{len(questions)} recall={sum(r['recall'] for r in done) / i:.3f} "
                  f"cited_correctly={sum(r['correct'] for r in done) / i:.3f}", flush=True)
    said_not_answered, hidden_rows = [], []
    for q in unanswerable:
        search.hidden = answer_pages(search, q)
        try:
            result = process_question(q.text, params, services=services)
        finally:
            search.hidden = set()
        said_not_answered.append(getattr(result, "answer_status", "") == "not_answered" and not result.citations)
        hidden_rows.append(explain(result, q, embedder, answerable=False) if mode == "extractive" else {})
    n = len(rows) or 1
    cites = sum(r["citations"] for r in rows)
    for q, row in zip(questions, rows):
        row["question"] = q.text
    marked = [t for r in rows for m, t in zip(r["marked"], r["truly"]) if m]
    wrong = sum(r["wrong"] for r in rows)
    return {"rows": rows, "unanswerable": hidden_rows, "mode": mode, "n": len(rows),
            "answer_recall": sum(r["recall"] for r in rows) / n,
            "cited_recall": sum(r["cited_recall"] for r in rows) / n,
            "cited_correctly": sum(r["correct"] for r in rows) / n,
            "citation_precision": sum(r["supported"] for r in rows) / cites if cites else 0.0,
            "answer_at_1": sum(r["at_1"] for r in rows) / n,
            "quote_holds": sum(r["holds"] for r in rows) / cites if cites else 0.0,
            "support_precision": sum(marked) / len(marked) if marked else 0.0,
            "wrong_caught": sum(r["wrong_caught"] for r in rows) / wrong if wrong else 0.0,
            "not_answered": sum(said_not_answered) / len(said_not_answered) if said_not_answered else 0.0,
            "n_unanswerable": len(said_not_answered),
            "median_s": statistics.median(seconds) if seconds else 0.0,
            "p90_s": sorted(seconds)[int(0.9 * (len(seconds) - 1))] if seconds else 0.0,
            "llm_calls": sum(r["calls"] for r in rows) / n, "llm_tokens": sum(r["tokens"] for r in rows) / n}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=300, help="questions in the seeded sample")
    parser.add_argument("--seed", type=int, default=13, help="seed of the question sample")
    parser.add_argument("--llm", action="store_true", help="also run in LLM mode with the configured LLM")
    parser.add_argument("--config", type=Path, default=ROOT / "Config_Files" / "config.txt",
                        help="config file whose [llm] section --llm uses")
    parser.add_argument("--unanswerable", type=int, default=-1,
                        help="questions asked with their gold page removed (default: a third of --limit)")
    parser.add_argument("--details", type=Path, help="write each question's scores to this JSON file")
    parser.add_argument("--why", action="store_true", help="print each failing question and why it failed")
    args = parser.parse_args(argv)
    articles = qa_web.load_squad()
    if not articles:
        print(f"research_qa: skipped, no SQuAD data at {qa_web.DATA}")
        return 0
    from Tests.support.testworld import TestWorld
    pages, all_questions = qa_web.build_pages(articles)
    sample = random.Random(args.seed).sample(all_questions, len(all_questions))
    questions = sample[:min(args.limit, len(sample))]
    extra = args.limit // 3 if args.unanswerable < 0 else args.unanswerable
    unanswerable = sample[len(questions):len(questions) + extra]
    world = TestWorld().start()
    try:
        search = qa_web.install(world, pages)
        texts = page_texts(pages, search)
        html_of = {search.url_of(p): world_html(world, p) for p in pages}
        print(f"web: {len(pages)} pages from {len(articles)} articles; {len(questions)} of {len(all_questions)} "
              f"questions (seed {args.seed})", flush=True)
        base = baselines(questions, search, html_of)
        print(f"baselines: snippets answer_recall={base['snippets']:.3f} "
              f"bm25_sentences answer_recall={base['bm25_sentences']:.3f}", flush=True)
        modes = ["extractive"] + (["llm"] if args.llm else [])
        results = []
        with tempfile.TemporaryDirectory() as tmp:
            for mode in modes:
                settings = make_settings(world, Path(tmp), args.config if mode == "llm" else None)
                results.append(run_mode(mode, settings, questions, search, texts, unanswerable))
        if args.details:
            args.details.write_text(json.dumps([{k: v for k, v in r.items()} for r in results], indent=1))
    finally:
        world.stop()
    for r in results if args.why else []:
        failed = [row for row in [x["explain"] for x in r["rows"]] + r["unanswerable"]
                  if row and row["why"] != "ok"]
        print(f"why: mode={r['mode']} {len(failed)} failing")
        for row in failed:
            print(why_line(row))
    for r in results:
        print(f"detail: mode={r['mode']} cited_recall={r['cited_recall']:.3f} p90_s={r['p90_s']:.2f} "
              f"llm_calls={r['llm_calls']:.1f} "
              f"llm_tokens={r['llm_tokens']:.0f}")
    for r in results:
        print(f"research_qa: mode={r['mode']} answer_recall={r['answer_recall']:.3f} "
              f"cited_correctly={r['cited_correctly']:.3f} citation_precision={r['citation_precision']:.3f} "
              f"median_s={r['median_s']:.2f} n={r['n']}")
        print(f"research_qa: mode={r['mode']} answer_at_1={r['answer_at_1']:.3f} "
              f"not_answered={r['not_answered']:.3f} quote_holds={r['quote_holds']:.3f} "
              f"support_precision={r['support_precision']:.3f} wrong_caught={r['wrong_caught']:.3f} "
              f"n_unanswerable={r['n_unanswerable']}")
    return 0


def world_html(world, page: qa_web.QAPage) -> str:
    import urllib.request
    with urllib.request.urlopen(world.url("/" + page.path), timeout=10) as resp:
        return resp.read().decode("utf-8")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
