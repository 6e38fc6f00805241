"""Benchmark of the local Wikipedia index: retrieval quality on SQuAD v1.1 dev, and speed/memory at scale.

    python bench/wiki_index.py                 # both parts, 1,000,000 vectors for the scale part
    python bench/wiki_index.py --scale 100000  # a smaller scale run while developing
    python bench/wiki_index.py --skip-scale    # quality only

Quality: the 2,067 SQuAD dev paragraphs are indexed with Quarry's real builder (MiniLM embeddings, cached
under bench/out/), each of the 10,570 questions is searched, and recall@1/5/10 of its gold paragraph is
reported for: float32 exact search, binary (Hamming) only, the original two-stage design (binary top
10x4 rescored with int8), Quarry's default vector search, and hybrid (default + FTS5 BM25 fusion).

Scale: N vectors (default 1,000,000 x 384) are sampled with a fixed seed from a Gaussian with the mean and
covariance of the real MiniLM embeddings of the SQuAD paragraphs and questions, then normalized: no
near-duplicates make it easy. Queries are real question embeddings. Float32 exact search (faiss
IndexFlatIP) and Quarry's staged search are timed in the same process, single-threaded (--threads), one
query at a time, taking turns in blocks of 10 queries; the median latency excludes embedding. Neighbour recall@10 is measured against the exact top 10.

Memory: each index is opened and queried in a fresh child process, and its resident memory is the growth
of that process's anonymous resident memory (RssAnon in /proc/self/status) while the index is opened. Quarry's int8 vectors stay in a memory-mapped file: the
pages a query touches are file-backed page cache that the kernel may drop at any time, so they are not
resident memory the index needs; the script prints that file-backed figure (RssFile growth over all
queries) separately so nothing is hidden. Disk is the size of the index files.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from App_Function_Libraries.Wikipedia import quantize  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "wiki_qa"
OUT = ROOT / "bench" / "out"
SQUAD_FILES = ("squad_v1.1_dev_half_A_bloomsburyai_dev-v1.1.json", "squad_v1.1_dev_half_B_bloomsburyai_test-v1.1.json")
KS = (1, 5, 10)


# ---------------------------------------------------------------- process memory

def rss_kib() -> dict[str, int]:
    values = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(("RssAnon", "RssFile", "VmRSS")):
            name, rest = line.split(":", 1)
            values[name] = int(rest.split()[0])
    return values


# ---------------------------------------------------------------- SQuAD data and cached embeddings

def load_squad() -> tuple[list[dict], list[str], np.ndarray]:
    """Paragraphs ({id, title, text}), questions, and each question's gold paragraph index."""
    paragraphs, questions, gold = [], [], []
    for name in SQUAD_FILES:
        for article in json.loads((DATA / name).read_text(encoding="utf-8"))["data"]:
            for i, para in enumerate(article["paragraphs"]):
                for qa in para["qas"]:
                    questions.append(qa["question"])
                    gold.append(len(paragraphs))
                paragraphs.append({"id": f"{article['title']}#{i}", "title": article["title"].replace("_", " "),
                                   "text": para["context"]})
    return paragraphs, questions, np.asarray(gold)


def text_key(text: str, is_query: bool) -> str:
    return ("Q:" if is_query else "P:") + hashlib.sha1(text.strip().encode("utf-8")).hexdigest()


class CachedEmbedder:
    """The real embedder, with every text it has embedded for this benchmark kept on disk (by SHA-1)."""

    def __init__(self, embedder, cache: Path):
        self.inner, self.cache = embedder, cache
        self.vectors: dict[str, np.ndarray] = {}
        if cache.is_file():
            data = np.load(cache, allow_pickle=False)
            self.vectors = dict(zip(data["keys"].tolist(), data["vectors"]))

    def __getattr__(self, name):  # label, dimension, max_tokens, token_count, query_prompt
        return getattr(self.inner, name)

    def encode(self, texts: list[str], is_query: bool = False, **kw) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if text_key(t, is_query) not in self.vectors]
        if missing:
            for t, v in zip(missing, self.inner.encode(missing, is_query=is_query, show_progress=len(missing) > 500)):
                self.vectors[text_key(t, is_query)] = v
        if not texts:
            return np.zeros((0, self.dimension), np.float32)
        return np.vstack([self.vectors[text_key(t, is_query)] for t in texts])

    def encode_query(self, text: str) -> np.ndarray:
        return self.encode([text], is_query=True)[0]

    def save(self) -> None:
        keys = list(self.vectors)
        np.savez(self.cache, keys=np.asarray(keys), vectors=np.vstack([self.vectors[k] for k in keys]))


def squad_embeddings(paragraphs, questions) -> tuple[CachedEmbedder, np.ndarray, np.ndarray]:
    from App_Function_Libraries.Retrieval.embeddings import Embedder
    OUT.mkdir(parents=True, exist_ok=True)
    emb = CachedEmbedder(Embedder(), OUT / "wiki_squad_minilm_cache.npz")
    t = time.time()
    if not emb.vectors:
        print("embedding the SQuAD paragraphs and questions once (a few minutes on 2 cores) ...")
    P = emb.encode([p["text"] for p in paragraphs])
    Q = emb.encode(questions, is_query=True)
    emb.save()
    print(f"embeddings: {len(P)} paragraphs, {len(Q)} questions ({time.time() - t:.0f} s, cached in {emb.cache})")
    return emb, P, Q


# ---------------------------------------------------------------- part 1: quality

def recall_at(ranked_rows: list[np.ndarray], gold: np.ndarray) -> dict[int, float]:
    return {k: float(np.mean([g in r[:k] for r, g in zip(ranked_rows, gold)])) for k in KS}


def quality(emb, paragraphs, questions, gold, P, Q) -> dict[str, dict[int, float]]:
    from App_Function_Libraries.Wikipedia.builder import build_index
    from App_Function_Libraries.Wikipedia.index import SearchParams, WikiIndex
    corpus = OUT / "wiki_squad_paragraphs.jsonl"
    with corpus.open("w", encoding="utf-8") as fh:
        for p in paragraphs:
            fh.write(json.dumps(p) + "\n")
    folder = OUT / "wiki_squad_index"
    build_index(corpus, folder, emb, fmt="jsonl", force=True)
    index = WikiIndex.open(folder, emb)
    v = index.vectors
    defaults = SearchParams()
    hamming, int8 = defaults.stage_sizes(defaults.top_k)
    results: dict[str, list[np.ndarray]] = {name: [] for name in
                                            ("float32 exact", "binary only", "two-stage 10x4 (design)",
                                             "quarry default", "hybrid")}
    for question, q in zip(questions, Q):
        results["float32 exact"].append(np.argsort(-(P @ q))[:10])
        results["binary only"].append(v.binary.search(quantize.to_ubinary(q), 10)[1][0])
        results["two-stage 10x4 (design)"].append(v.search(q, 10, 40, 0)[0])
        results["quarry default"].append(v.search(q, defaults.top_k, int8, hamming)[0][:10])
        results["hybrid"].append(np.asarray([h.row for h in index.search(question, defaults)[:10]]))
    index.close()
    emb.save()
    return {name: recall_at(rows, gold) for name, rows in results.items()}


# ---------------------------------------------------------------- part 2: scale

def sample_gaussian(P: np.ndarray, Q: np.ndarray, n: int, folder: Path, seed: int = 0) -> Path:
    """float32.npy with n normalized Gaussian vectors (cached), plus Quarry's index files for them."""
    from App_Function_Libraries.Wikipedia.builder import write_vector_indexes
    path = folder / "float32.npy"
    if (folder / "done.json").is_file():
        return path
    folder.mkdir(parents=True, exist_ok=True)
    real = np.vstack([P, Q]).astype(np.float64)
    mean, chol = real.mean(axis=0), np.linalg.cholesky(np.cov(real, rowvar=False) + 1e-9 * np.eye(real.shape[1]))
    rng = np.random.default_rng(seed)
    vecs = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(n, real.shape[1]))
    for start in range(0, n, 100_000):
        block = rng.standard_normal((min(100_000, n - start), real.shape[1])) @ chol.T + mean
        vecs[start:start + len(block)] = block / np.linalg.norm(block, axis=1, keepdims=True)
    vecs.flush()
    calib = quantize.calibrate(vecs[:10_000])
    bits = np.lib.format.open_memmap(folder / "bits.npy", mode="w+", dtype=np.uint8, shape=(n, vecs.shape[1] // 8))
    int8 = np.lib.format.open_memmap(folder / "int8.npy", mode="w+", dtype=np.int8, shape=vecs.shape)
    for start in range(0, n, 100_000):
        bits[start:start + 100_000] = quantize.to_ubinary(vecs[start:start + 100_000])
        int8[start:start + 100_000] = quantize.to_int8(vecs[start:start + 100_000], calib)
    write_vector_indexes(folder, bits, int8)
    del bits, int8
    (folder / "bits.npy").unlink()
    (folder / "int8.npy").unlink()
    (folder / "calibration.json").write_text(json.dumps(calib.to_dict()))
    (folder / "done.json").write_text(json.dumps({"n": n, "seed": seed}))
    return path


def time_interleaved(runs: dict, queries: np.ndarray, block: int = 10) -> dict[str, tuple[float, np.ndarray]]:
    """Median latency and top-10 rows per search function. The functions take turns in blocks of queries, so
    load from other processes on a shared machine weighs on all of them alike, while within a block each runs
    as it would alone (a float scan between two Quarry queries would evict Quarry's codes from the CPU cache)."""
    times: dict[str, list[float]] = {name: [] for name in runs}
    rows: dict[str, list[np.ndarray]] = {name: [] for name in runs}
    for start in range(0, len(queries), block):
        for name, fn in runs.items():
            fn(queries[start])  # warm-up, not timed
            for q in queries[start:start + block]:
                t = time.perf_counter()
                found = fn(q)
                times[name].append(time.perf_counter() - t)
                rows[name].append(np.asarray(found)[:10])
    return {name: (statistics.median(times[name]), np.vstack(rows[name])) for name in runs}


def neighbour_recall(found: np.ndarray, exact: np.ndarray) -> float:
    return float(np.mean([len(set(f[:10].tolist()) & set(e[:10].tolist())) / 10 for f, e in zip(found, exact)]))


def open_quarry(folder: Path, n: int, dim: int):
    from App_Function_Libraries.Wikipedia.layout import FAISS_FILE, USEARCH_FILE
    from App_Function_Libraries.Wikipedia.vectors import PositionalInt8Store, VectorIndex, read_binary_index
    calib = quantize.Calibration.from_dict(json.loads((folder / "calibration.json").read_text()))
    return VectorIndex(read_binary_index(folder / FAISS_FILE), PositionalInt8Store(folder / USEARCH_FILE, n, dim), calib)


def open_float(folder: Path, n: int, dim: int):
    import faiss
    index = faiss.IndexFlatIP(dim)
    data = np.load(folder / "float32.npy", mmap_mode="r")
    for start in range(0, n, 100_000):
        index.add(np.ascontiguousarray(data[start:start + 100_000]))
    return index


def measure(kind: str, folder: Path) -> dict:
    """Run in a fresh process: the resident memory one index adds when opened. The "float" child then also
    opens Quarry's index and times both on the same queries, interleaved."""
    from App_Function_Libraries.Wikipedia.index import SearchParams
    queries = np.load(folder / "queries.npy")
    n, dim = json.loads((folder / "done.json").read_text())["n"], queries.shape[1]
    before = rss_kib()
    index = (open_float if kind == "float" else open_quarry)(folder, n, dim)
    opened = rss_kib()
    out = {"ram": (opened["RssAnon"] - before["RssAnon"]) * 1024}
    if kind == "quarry":  # the int8 pages all default searches touch: file-backed page cache, shown apart
        d = SearchParams()
        hamming, int8 = d.stage_sizes(d.top_k)
        for q in queries:
            index.search(q, d.top_k, int8, hamming)
        out["page_cache"] = (rss_kib()["RssFile"] - opened["RssFile"]) * 1024
        return out
    vectors = open_quarry(folder, n, dim)
    d = SearchParams()
    hamming, int8 = d.stage_sizes(d.top_k)
    runs = {"float32 exact": lambda q: index.search(q[None, :], 10)[1][0],
            "quarry default": lambda q: vectors.search(q, d.top_k, int8, hamming)[0],
            "two-stage 10x4 (design)": lambda q: vectors.search(q, 10, 40, 0)[0],
            "two-stage 100x4 (design)": lambda q: vectors.search(q, 100, 400, 0)[0]}
    out["runs"] = {}
    for name, (median, rows) in time_interleaved(runs, queries).items():
        np.save(folder / f"rows_{name.replace(' ', '_')}.npy", rows)
        out["runs"][name] = median * 1000
    return out


def scale(P, Q, n: int, n_queries: int, threads: int) -> dict:
    import subprocess

    from App_Function_Libraries.Wikipedia.index import SearchParams
    from App_Function_Libraries.Wikipedia.layout import FAISS_FILE, USEARCH_FILE
    folder = OUT / f"wiki_scale_{n}"
    t = time.time()
    path = sample_gaussian(P, Q, n, folder)
    print(f"scale: {n:,} vectors ready in {folder} ({time.time() - t:.0f} s)")
    np.save(folder / "queries.npy", Q[np.random.default_rng(1).choice(len(Q), n_queries, replace=False)])
    results = {}
    for kind in ("quarry", "float"):  # each in a fresh process, so memory growth is that index's alone
        cmd = [sys.executable, str(Path(__file__).resolve()), "--measure", kind, "--scale", str(n),
               "--threads", str(threads)]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
        results[kind] = json.loads(proc.stdout.strip().splitlines()[-1])
    exact = np.load(folder / "rows_float32_exact.npy")
    float_ms = results["float"]["runs"].pop("float32 exact")
    d = SearchParams()
    hamming, int8 = d.stage_sizes(d.top_k)
    out = {"n": n, "queries": n_queries, "threads": threads, "float_ms": float_ms,
           "float_ram": results["float"]["ram"], "quarry_ram": results["quarry"]["ram"],
           "quarry_page_cache": results["quarry"]["page_cache"], "float_disk": path.stat().st_size,
           "quarry_disk": (folder / FAISS_FILE).stat().st_size + (folder / USEARCH_FILE).stat().st_size,
           "stage_sizes": {"hamming": hamming, "int8": int8, "top_k": d.top_k}, "runs": {}}
    for name, ms in results["float"]["runs"].items():
        rows = np.load(folder / f"rows_{name.replace(' ', '_')}.npy")
        out["runs"][name] = {"ms": ms, "neighbour_recall10": neighbour_recall(rows, exact), "speedup": float_ms / ms}
    return out


# ---------------------------------------------------------------- report

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scale", type=int, default=1_000_000, help="vectors in the scale part (default 1,000,000)")
    ap.add_argument("--queries", type=int, default=200, help="queries timed in the scale part")
    ap.add_argument("--threads", type=int, default=1, help="faiss threads for both searches (default 1)")
    ap.add_argument("--skip-quality", action="store_true")
    ap.add_argument("--skip-scale", action="store_true")
    ap.add_argument("--measure", choices=("quarry", "float"), help=argparse.SUPPRESS)  # the child processes
    args = ap.parse_args(argv)
    if args.measure:
        import faiss
        faiss.omp_set_num_threads(args.threads)
        print(json.dumps(measure(args.measure, OUT / f"wiki_scale_{args.scale}")))
        return 0
    import faiss
    import torch
    faiss.omp_set_num_threads(args.threads)  # idle OpenMP workers spin; on a shared machine that costs a lot
    torch.set_num_threads(max(1, args.threads))
    if not all((DATA / f).is_file() for f in SQUAD_FILES):
        print(f"SKIP: SQuAD dev files not found in {DATA}")
        return 0
    paragraphs, questions, gold = load_squad()
    emb, P, Q = squad_embeddings(paragraphs, questions)
    q = {}
    if not args.skip_quality:
        q = quality(emb, paragraphs, questions, gold, P, Q)
        print(f"\nQuality, SQuAD v1.1 dev ({len(paragraphs):,} paragraphs, {len(questions):,} questions), "
              f"recall of the gold paragraph:")
        print(f"  {'method':28} " + " ".join(f"R@{k:<5}" for k in KS) + " retained@10")
        for name, r in q.items():
            kept = r[10] / q["float32 exact"][10] * 100
            print(f"  {name:28} " + " ".join(f"{r[k]:.4f}" for k in KS) + f"  {kept:6.2f}%")
    s = {}
    if not args.skip_scale:
        s = scale(P, Q, args.scale, args.queries, args.threads)
        mib = 1024 * 1024
        print(f"\nScale: {s['n']:,} x {Q.shape[1]} Gaussian vectors, {s['queries']} real queries, "
              f"{s['threads']} thread(s); stages {s['stage_sizes']}")
        print(f"  float32 exact (IndexFlatIP)   {s['float_ms']:8.2f} ms/query  RAM {s['float_ram'] / mib:8.1f} MiB  "
              f"disk {s['float_disk'] / mib:8.1f} MiB")
        for name, r in s["runs"].items():
            print(f"  {name:28}  {r['ms']:8.2f} ms/query  speedup {r['speedup']:6.1f}x  "
                  f"neighbour recall@10 {r['neighbour_recall10']:.3f}")
        print(f"  quarry RAM (anonymous, opened) {s['quarry_ram'] / mib:.1f} MiB, ratio "
              f"{s['float_ram'] / max(s['quarry_ram'], 1):.1f}x; int8 file pages touched by all queries "
              f"(page cache) {s['quarry_page_cache'] / mib:.1f} MiB; disk {s['quarry_disk'] / mib:.1f} MiB")
    fields = []
    if q:
        fields += [f"recall10_float={q['float32 exact'][10]:.4f}", f"recall10_quarry={q['quarry default'][10]:.4f}",
                   f"retained={q['quarry default'][10] / q['float32 exact'][10] * 100:.2f}%"]
    if s:
        d = s["runs"]["quarry default"]
        fields += [f"speedup={d['speedup']:.1f}x", f"ram_ratio={s['float_ram'] / max(s['quarry_ram'], 1):.1f}x",
                   f"neighbour_recall10={d['neighbour_recall10']:.3f}"]
    print("wiki: " + " ".join(fields))
    return 0


if __name__ == "__main__":
    sys.exit(main())
