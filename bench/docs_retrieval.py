"""Local-documents retrieval on SQuAD v1.1 dev: each article is one document (a .txt file, its paragraphs
separated by blank lines), indexed through the same code path as `python app.py docs add` with the
paragraphs as the searched node group. For each question: is the paragraph it was written on among the top
1, 5 and 20 of BM25 alone (SQLite FTS5), vector alone (MiniLM + faiss) and the two fused (RRF, k = 60)?

    python bench/docs_retrieval.py [--limit N] [--keep DIR]

--limit N evaluates N questions spread evenly over the set (default: all 10,570). Skips cleanly when
../shared/data/wiki_qa is absent. Last line:
    docs: recall20_bm25=<r> recall20_vector=<r> recall20_fused=<r>
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DATA_DIR = ROOT.parent / "shared" / "data" / "wiki_qa"
CUTOFFS = (1, 5, 20)
METHODS = ("bm25", "vector", "fused")


def load_articles() -> list[dict]:
    """The two halves of the dev set, concatenated (48 articles)."""
    articles: list[dict] = []
    for path in sorted(DATA_DIR.glob("squad_v1.1_dev_*.json")):
        articles += json.loads(path.read_text(encoding="utf-8"))["data"]
    return articles


def write_documents(articles: list[dict], folder: Path) -> list[Path]:
    paths = []
    for i, art in enumerate(articles):
        text = "\n\n".join(" ".join(p["context"].split()) for p in art["paragraphs"])
        path = folder / f"{i:02d}_{art['title'][:60]}.txt"
        path.write_text(text + "\n", encoding="utf-8")
        paths.append(path)
    return paths


def questions_with_gold(articles: list[dict], limit: int) -> list[tuple[str, int, int]]:
    """(question, article index, paragraph index); `limit` picks evenly spaced questions."""
    items = [(qa["question"], a, p) for a, art in enumerate(articles)
             for p, para in enumerate(art["paragraphs"]) for qa in para["qas"]]
    if 0 < limit < len(items):
        step = len(items) / limit
        items = [items[int(i * step)] for i in range(limit)]
    return items


def build_library(folder: Path, files: list[Path]):
    from App_Function_Libraries.config import get_settings
    from App_Function_Libraries.Documents.library import DocumentLibrary
    from App_Function_Libraries.Documents.node_groups import NodeGroup
    from App_Function_Libraries.Retrieval.passages import split_paragraphs
    group = NodeGroup("fine", split_paragraphs, recipe="one node per paragraph")
    lib = DocumentLibrary(get_settings(), groups=[group], index_dir=folder / "index")
    report = lib.add(files, annotate=False)
    if report.skipped:
        raise SystemExit(f"docs: {len(report.skipped)} article(s) could not be indexed: {report.skipped[0]}")
    return lib


def gold_node_ids(lib, files: list[Path], articles: list[dict]) -> dict[tuple[int, int], int]:
    """(article, paragraph) → node id, checking that every paragraph became exactly one node."""
    out = {}
    for a, path in enumerate(files):
        info = lib.store.document(str(path.resolve()))
        nodes = lib.store.group_nodes(info.id, "fine")
        if len(nodes) != len(articles[a]["paragraphs"]):
            raise SystemExit(f"docs: {path.name}: {len(nodes)} nodes for {len(articles[a]['paragraphs'])} paragraphs")
        out.update({(a, n.index): n.id for n in nodes})
    return out


def evaluate(lib, questions: list[tuple[str, int, int]], gold: dict[tuple[int, int], int]) -> dict:
    from App_Function_Libraries.Documents.retrieve import FUSED_TOP_K, fuse
    retriever = lib.retriever()
    t0 = time.perf_counter()
    vectors = lib.embedder.encode([q for q, _, _ in questions], is_query=True)
    encode_s = time.perf_counter() - t0
    hits = {m: {k: 0 for k in CUTOFFS} for m in METHODS}
    t0 = time.perf_counter()
    for (question, a, p), vec in zip(questions, vectors):
        rankings = retriever.candidates(question, "fine", query_vector=vec)
        ranked = {"bm25": [i for i, _ in rankings["bm25"]], "vector": [i for i, _ in rankings["vector"]],
                  "fused": [i for i, _ in fuse(rankings)[:FUSED_TOP_K]]}
        target = gold[(a, p)]
        for method, ids in ranked.items():
            for k in CUTOFFS:
                hits[method][k] += target in ids[:k]
    search_s = time.perf_counter() - t0
    n = len(questions)
    return {"recall": {m: {k: hits[m][k] / n for k in CUTOFFS} for m in METHODS},
            "encode_s": encode_s, "search_s": search_s}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=0, help="evaluate N questions spread over the set (0: all)")
    parser.add_argument("--keep", type=Path, help="build the index in this folder and keep it")
    args = parser.parse_args(argv)
    if not DATA_DIR.is_dir() or not any(DATA_DIR.glob("squad_v1.1_dev_*.json")):
        print(f"docs: skipped ({DATA_DIR} is absent)")
        return 0
    articles = load_articles()
    questions = questions_with_gold(articles, args.limit)
    with tempfile.TemporaryDirectory(prefix="quarry-docs-bench-") as tmp:
        folder = args.keep or Path(tmp)
        (folder / "articles").mkdir(parents=True, exist_ok=True)
        files = write_documents(articles, folder / "articles")
        t0 = time.perf_counter()
        lib = build_library(folder, files)
        ingest_s = time.perf_counter() - t0
        gold = gold_node_ids(lib, files, articles)
        result = evaluate(lib, questions, gold)
        lib.close()
    print(f"articles={len(articles)} paragraphs={len(gold)} questions={len(questions)} "
          f"embedder={lib.embedder.label}")
    print(f"ingest_s={ingest_s:.1f} question_encode_s={result['encode_s']:.1f} "
          f"search_ms_per_question={1000 * result['search_s'] / len(questions):.2f}")
    for method in METHODS:
        r = result["recall"][method]
        print(f"{method:>6}: " + " ".join(f"recall@{k}={r[k]:.4f}" for k in CUTOFFS))
    r = result["recall"]
    print(f"docs: recall20_bm25={r['bm25'][20]:.4f} recall20_vector={r['vector'][20]:.4f} "
          f"recall20_fused={r['fused'][20]:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
