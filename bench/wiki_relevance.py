"""Where to put the relevance floor of extractive answers: the best passage's similarity for questions the
corpus answers and for questions it does not, with the configured embedding model.

    python bench/wiki_relevance.py            # demo encyclopedia and SQuAD paragraphs
    python bench/wiki_relevance.py --docs     # also local documents (a few minutes: SQuAD articles as files)

Demo encyclopedia: the questions in App_Function_Libraries/Wikipedia/demo_corpus/questions.json (written by
the team: answerable ones, and ones whose subject the encyclopedia lacks), searched in the demo index the
way `wiki ask` searches (hybrid), taking the best estimated cosine similarity among the hits.
SQuAD v1.1 dev (../shared/data/wiki_qa/): the articles are split in two halves by position; a question is
answerable against the half holding its article and unanswerable against the other half (float32 cosine
of the question to the half's best paragraph; both halves take each role once). Embeddings are the
cached ones bench/wiki_index.py made.

Local documents (--docs, for [documents] relevance_floor): the articles of one half are written as text
files and added to a documents library in bench/out/; a sample of questions from that half (answerable)
and from the other (unanswerable) is searched as `docs ask` searches, and each question's best chunk
similarity is measured as the answer step measures it, and whether a found chunk holds every name the
question states (Retrieval/names.holds_names, which lets a chunk reach the floor too).

For each candidate floor the script prints the share of answerable questions whose best passage clears it
(answers kept), the share of unanswerable questions whose best passage does not (refusals), and for SQuAD
the share of answerable questions refused although their gold paragraph was among the 10 best (answers
lost), and the same for the configured [wikipedia] relevance_floor. Last line:
`relevance: floor=… demo_answered=…% demo_refused=…% squad_answered=…% squad_refused=…% squad_lost=…%`
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from wiki_index import DATA, OUT, SQUAD_FILES, load_squad, squad_embeddings  # noqa: E402

QUESTIONS = ROOT / "App_Function_Libraries" / "Wikipedia" / "demo_corpus" / "questions.json"
CANDIDATE_FLOORS = np.round(np.arange(0.20, 0.551, 0.025), 3)


def demo_best_scores(settings) -> dict[str, np.ndarray]:
    """{answerable|unanswerable: best hit similarity per question} in the demo index (built once in bench/out)."""
    from App_Function_Libraries.Retrieval.embeddings import get_embedder
    from App_Function_Libraries.Wikipedia.demo import DEMO_CORPUS, is_demo_index
    from App_Function_Libraries.Wikipedia.builder import build_index
    from App_Function_Libraries.Wikipedia.index import SearchParams, WikiIndex
    folder = OUT / "wiki_demo_index"
    embedder = get_embedder(settings)
    if not is_demo_index(folder):
        build_index(DEMO_CORPUS, folder, embedder, fmt="jsonl", force=True, demo=True)
    index = WikiIndex.open(folder, embedder)
    params = SearchParams.from_settings(settings)
    questions = json.loads(QUESTIONS.read_text(encoding="utf-8"))
    from App_Function_Libraries.Retrieval.names import holds_names
    out = {}
    for kind in ("answerable", "unanswerable"):
        found = [index.search(q, params) for q in questions[kind]]
        out[kind] = np.asarray([max(h.vector_score for h in hits) for hits in found])
        out[f"{kind}_named"] = np.asarray([any(holds_names(q, f"{h.title} {h.text}") for h in hits)
                                           for q, hits in zip(questions[kind], found)])
    index.close()
    return out


def squad_best_scores() -> dict[str, np.ndarray]:
    """{answerable|unanswerable: best paragraph cosine per question, found: whether an answerable question's
    gold paragraph is among its half's 10 best}, each half of the articles indexed once."""
    paragraphs, questions, gold = load_squad()
    _, P, Q = squad_embeddings(paragraphs, questions)
    titles = list(dict.fromkeys(p["title"] for p in paragraphs))
    half = {t: i % 2 for i, t in enumerate(titles)}
    para_half = np.asarray([half[p["title"]] for p in paragraphs])
    question_half = para_half[gold]
    out = {"answerable": [], "unanswerable": [], "found": []}
    for h in (0, 1):
        members = np.flatnonzero(para_half == h)
        sims = Q @ P[members].T
        best = sims.max(axis=1)
        out["answerable"].append(best[question_half == h])
        out["unanswerable"].append(best[question_half != h])
        top10 = members[np.argpartition(-sims[question_half == h], 10, axis=1)[:, :10]]
        out["found"].append((top10 == gold[question_half == h][:, None]).any(axis=1))
    return {kind: np.concatenate(parts) for kind, parts in out.items()}


def docs_best_scores(settings, per_kind: int = 150) -> dict[str, np.ndarray]:
    """{answerable|unanswerable: best chunk similarity per sampled question} in a documents library holding
    the SQuAD articles of one half."""
    import dataclasses

    from App_Function_Libraries.Documents.answer import hit_similarities
    from App_Function_Libraries.Retrieval.names import holds_names
    from App_Function_Libraries.Documents.library import DocumentLibrary
    paragraphs, questions, gold = load_squad()
    titles = list(dict.fromkeys(p["title"] for p in paragraphs))[0::2]
    files = OUT / "relevance_docs" / "files"
    files.mkdir(parents=True, exist_ok=True)
    for title in titles:
        text = "\n\n".join(p["text"] for p in paragraphs if p["title"] == title)
        (files / f"{title.replace('/', '_')}.txt").write_text(text, encoding="utf-8")
    docs = dataclasses.replace(settings.documents, index_dir=str(OUT / "relevance_docs" / "index"))
    library = DocumentLibrary(dataclasses.replace(settings, documents=docs))
    library.add([files])  # files already indexed and unchanged are skipped
    inside = np.asarray([paragraphs[g]["title"] in titles for g in gold])
    rng = np.random.default_rng(0)
    out = {}
    for kind, members in (("answerable", np.flatnonzero(inside)), ("unanswerable", np.flatnonzero(~inside))):
        picked = rng.choice(members, per_kind, replace=False)
        found = [library.search(questions[i]) for i in picked]
        out[kind] = np.asarray([hit_similarities(questions[i], hits, library.embedder).max()
                                for i, hits in zip(picked, found)])
        out[f"{kind}_named"] = np.asarray([any(holds_names(questions[i], f"{h.title} {h.text}") for h in hits)
                                           for i, hits in zip(picked, found)])
    library.close()
    return out


def rates(scores: dict[str, np.ndarray], floor: float) -> tuple[float, ...]:
    """(% answerable kept, % unanswerable refused[, % answerable refused though its gold passage was found])."""
    kept = scores["answerable"] >= floor
    out = (float(np.mean(kept)) * 100, float(np.mean(scores["unanswerable"] < floor)) * 100)
    return out + ((float(np.mean(~kept & scores["found"])) * 100,) if "found" in scores else ())


def with_names(scores: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The scores as the floor reads them when a hit holding every name the question states reaches it too."""
    return {k: np.where(scores[f"{k}_named"], np.inf, scores[k]) for k in ("answerable", "unanswerable")}


def describe(name: str, scores: dict[str, np.ndarray]) -> None:
    for kind in ("answerable", "unanswerable"):
        values = scores[kind]
        p = np.percentile(values, [1, 5, 25, 50, 75, 95, 99])
        print(f"  {name} {kind:12} n={len(values):5}  percentiles 1/5/25/50/75/95/99: "
              + " ".join(f"{v:.3f}" for v in p))


def main() -> int:
    from App_Function_Libraries.config import get_settings
    settings = get_settings()
    if "--docs" in sys.argv[1:]:
        docs, floor = docs_best_scores(settings), settings.documents.relevance_floor
        describe("docs ", docs)
        for f in sorted(set(CANDIDATE_FLOORS.tolist()) | {floor}):
            print("  {:.3f}   docs answered {:6.1f}%  refused {:6.1f}%".format(f, *rates(docs, f))
                  + ("   <- configured" if f == floor else ""))
        print("  {:.3f}   docs answered {:6.1f}%  refused {:6.1f}%   <- configured, a chunk holding the question's "
              "names reaching it too (holds_names)".format(floor, *rates(with_names(docs), floor)))
    floor = settings.wikipedia.relevance_floor
    demo = demo_best_scores(settings)
    squad = squad_best_scores() if all((DATA / f).is_file() for f in SQUAD_FILES) else None
    print(f"Best passage similarity ({settings.embeddings.model or 'the shipped MiniLM'}):")
    describe("demo ", demo)
    if squad is not None:
        describe("squad", squad)
    print("  floor   demo answered/refused   squad answered/refused/lost (refused, gold passage in the top 10)")
    for f in sorted(set(CANDIDATE_FLOORS.tolist()) | {floor}):
        line = "  {:.3f}   {:6.1f}% {:6.1f}%".format(f, *rates(demo, f))
        if squad is not None:
            line += "          {:6.1f}% {:6.1f}% {:5.1f}%".format(*rates(squad, f))
        print(line + ("   <- configured" if f == floor else ""))
    print("  {:.3f}   {:6.1f}% {:6.1f}%   demo, a passage holding the question's names reaching it too "
          "(holds_names)".format(floor, *rates(with_names(demo), floor)))
    fields = [f"floor={floor}", "demo_answered={:.1f}% demo_refused={:.1f}%".format(*rates(demo, floor))]
    if squad is not None:
        fields.append("squad_answered={:.1f}% squad_refused={:.1f}% squad_lost={:.1f}%".format(*rates(squad, floor)))
    print("relevance: " + " ".join(fields))
    return 0


if __name__ == "__main__":
    sys.exit(main())
