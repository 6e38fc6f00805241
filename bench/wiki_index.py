"""Benchmark of the local Wikipedia index: retrieval quality on SQuAD v1.1 dev, and speed/memory at scale.

    python bench/wiki_index.py                 # both parts, 1,000,000 vectors for the scale part
    python bench/wiki_index.py --scale 100000  # a smaller scale run while developing
    python bench/wiki_index.py --skip-scale    # quality only
    python bench/wiki_index.py --data DIR      # the SQuAD dev files elsewhere than ../shared/data/wiki_qa

Quality: the 2,067 SQuAD dev paragraphs are indexed with Quarry's real builder (MiniLM embeddings, cached
under bench/out/), each of the 10,570 questions is searched, and recall@1/5/10 of its gold paragraph is
reported for: float32 exact search, binary (Hamming) only, the issue's two-stage design (Hamming top 10x4
rescored with int8), Quarry's sign scan alone, Quarry's search with its stages scaled to this small corpus
(the sign scan passes 40 rows to int8), Quarry's default vector search (which passes 1,000 rows: all of
them here, so that row alone would not exercise the approximate stage), and hybrid (default + FTS5 BM25).

Scale: N vectors (default 1,000,000 x 384) are sampled with a fixed seed from a Gaussian with the mean and
covariance of the real MiniLM embeddings of the SQuAD paragraphs and questions, then normalized: no
near-duplicates make it easy. Queries are real question embeddings, searched one at a time; the median
latency excludes embedding. Every method is timed in the same process, taking turns in blocks of 10
queries: float32 exact search (faiss) with 1 thread, with --threads OpenMP threads, and cut into --threads
shards searched from as many Python threads (the fastest of the three is the baseline every speedup is
measured against); Quarry's default search with 1 and with --threads threads (default: Quarry's own
default, one per CPU up to 8); and the issue's two-stage design for reference. Neighbour recall@10 is
measured against the exact top 10.

The full size (41 million passages, built in bounded memory, opened from the packed-codes cache) is
simulated by bench/wiki_full.py.

Memory: each index is opened and queried in a fresh child process, and its memory is what that process's
resident set (Rss in /proc/self/smaps_rollup) gains: split into anonymous memory (Anonymous) and file-backed
pages (Rss - Anonymous), the latter by index file (/proc/self/smaps). Quarry is measured twice: on a first
open (its packed-codes cache removed before, as after a build or an upgrade: the open packs the codes and
writes the cache) and on a steady-state open (a later one: the cache is mapped), each after searching every
query. Its resident memory is the gain less the int8 file's pages: those are page cache the kernel may drop
(a few hundred random rows per query), shown apart so nothing is hidden; the packed codes' mapped pages count,
since every query reads them all. The `ram_ratio` of the last line is float32's over Quarry's steady state;
`ram_ratio_first_open` the first open's. Disk is the size of the index files.
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

INDEX_FILES = ("faiss-ubinary.index", "faiss-ubinary.fastscan", "usearch-int8.index")


def memory() -> dict[str, int]:
    """Bytes resident in this process: rss and anon from /proc/self/smaps_rollup (Rss, Anonymous), file =
    rss - anon, and the pages mapped from each index file (from /proc/self/smaps), by file name."""
    out = dict.fromkeys(("rss", "anon") + INDEX_FILES, 0)
    for line in Path("/proc/self/smaps_rollup").read_text().splitlines():
        name, _, rest = line.partition(":")
        if name in ("Rss", "Anonymous"):
            out["rss" if name == "Rss" else "anon"] = int(rest.split()[0]) * 1024
    out["file"] = out["rss"] - out["anon"]
    mapped = None
    for line in Path("/proc/self/smaps").read_text().splitlines():
        head = line.split()
        if head and not head[0].endswith(":"):  # a mapping's first line: address perms offset dev inode [path]
            mapped = Path(head[5]).name if len(head) > 5 and Path(head[5]).name in INDEX_FILES else None
        elif mapped and head and head[0] == "Rss:":
            out[mapped] += int(head[1]) * 1024
    return out


def peak_rss() -> int:
    """Bytes: the process's highest resident set so far (VmHWM; read after an open, the open's peak when it
    is higher than anything before)."""
    line = next(x for x in Path("/proc/self/status").read_text().splitlines() if x.startswith("VmHWM"))
    return int(line.split()[1]) * 1024


def growth(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    return {k: after[k] - before.get(k, 0) for k in after}


# ---------------------------------------------------------------- SQuAD data and cached embeddings

def load_squad(data: Path = DATA) -> tuple[list[dict], list[str], np.ndarray]:
    """Paragraphs ({id, title, text}), questions, and each question's gold paragraph index."""
    paragraphs, questions, gold = [], [], []
    for name in SQUAD_FILES:
        for article in json.loads((data / name).read_text(encoding="utf-8"))["data"]:
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


SCALED_INT8_ROWS = 40  # the quality run's "scaled" setting: the sign scan passes 40 of 2,067 rows to int8


def hamming_then_int8(binary, int8, calib):
    """The issue's original two-stage design, for reference: Hamming top `candidates`, int8 rescoring."""
    def search(q: np.ndarray, top_k: int, candidates: int) -> np.ndarray:
        binary.use_heap = candidates < 256  # faiss's counting selection is faster for large k
        rows = binary.search(quantize.to_ubinary(q), candidates)[1][0]
        rows = rows[rows >= 0]
        scores = quantize.int8_scores(quantize.int8_weights(q, calib), int8.get(rows))
        return rows[np.argsort(-scores, kind="stable")[:top_k]]
    return search


def sign_scan_only(v, q: np.ndarray, k: int) -> np.ndarray:
    rows, scores = v.scan.search(q, k)
    return rows[np.argsort(-scores, kind="stable")]


def quality(emb, paragraphs, questions, gold, P, Q) -> dict[str, dict[int, float]]:
    import faiss

    from App_Function_Libraries.Wikipedia.builder import build_index
    from App_Function_Libraries.Wikipedia.index import SearchParams, WikiIndex
    from App_Function_Libraries.Wikipedia.layout import FAISS_FILE
    corpus = OUT / "wiki_squad_paragraphs.jsonl"
    with corpus.open("w", encoding="utf-8") as fh:
        for p in paragraphs:
            fh.write(json.dumps(p) + "\n")
    folder = OUT / "wiki_squad_index"
    build_index(corpus, folder, emb, fmt="jsonl", force=True)
    index = WikiIndex.open(folder, emb)
    v, binary = index.vectors, faiss.read_index_binary(str(folder / FAISS_FILE))
    design = hamming_then_int8(binary, v.int8, v.calib)
    defaults = SearchParams()
    runs = {"float32 exact": lambda q: np.argsort(-(P @ q))[:10],
            "binary only (Hamming)": lambda q: binary.search(quantize.to_ubinary(q), 10)[1][0],
            "two-stage 10x4 (design)": lambda q: design(q, 10, 40),
            "sign scan only": lambda q: sign_scan_only(v, q, 10),
            f"quarry, scaled ({SCALED_INT8_ROWS} to int8)": lambda q: v.search(q, 10, SCALED_INT8_ROWS)[0],
            "quarry default": lambda q: v.search(q, defaults.top_k, defaults.int8_rows(defaults.top_k))[0][:10]}
    results: dict[str, list[np.ndarray]] = {name: [] for name in list(runs) + ["hybrid"]}
    for question, q in zip(questions, Q):
        for name, fn in runs.items():
            results[name].append(fn(q))
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


def open_quarry(folder: Path, n: int, dim: int, threads: int):
    """The vector part of the index as WikiIndex.open opens it: the packed codes mapped from the cache next to
    the faiss file (packed and written there first when it is missing or stale)."""
    from App_Function_Libraries.Wikipedia.layout import FAISS_FILE, USEARCH_FILE
    from App_Function_Libraries.Wikipedia.vector_files import map_binary_codes
    from App_Function_Libraries.Wikipedia.vectors import PositionalInt8Store, VectorIndex
    calib = quantize.Calibration.from_dict(json.loads((folder / "calibration.json").read_text()))
    int8 = PositionalInt8Store(folder / USEARCH_FILE, n, dim)
    return VectorIndex(map_binary_codes(folder / FAISS_FILE), int8, calib, threads, folder / FAISS_FILE)


def open_float(folder: Path, n: int, dim: int):
    import faiss
    index = faiss.IndexFlatIP(dim)
    data = np.load(folder / "float32.npy", mmap_mode="r")
    for start in range(0, n, 100_000):
        index.add(np.ascontiguousarray(data[start:start + 100_000]))
    return index


def float_runs(index, threads: int) -> dict:
    """Exact float32 search three ways, so the baseline is the best this machine gives with up to `threads`
    threads: faiss with 1 OpenMP thread, with `threads` OpenMP threads, and the rows cut into `threads`
    shards searched from as many Python threads (faiss releases the GIL), merged exactly."""
    import faiss
    from concurrent.futures import ThreadPoolExecutor
    n, dim = index.ntotal, index.d
    data = faiss.rev_swig_ptr(index.get_xb(), n * dim).reshape(n, dim)  # the index's own memory, no copy
    step = -(-n // threads)
    bounds = [(start, min(start + step, n)) for start in range(0, n, step)]
    pool = ThreadPoolExecutor(threads, initializer=faiss.omp_set_num_threads, initargs=(1,))

    def shard(q, bound):
        scores, rows = faiss.knn(q[None, :], data[bound[0]:bound[1]], 10, metric=faiss.METRIC_INNER_PRODUCT)
        return scores[0], rows[0] + bound[0]

    def sharded(q):
        parts = list(pool.map(lambda b: shard(q, b), bounds))
        scores, rows = np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
        return rows[np.argsort(-scores, kind="stable")[:10]]

    def with_omp(count):
        def search(q):
            faiss.omp_set_num_threads(count)
            return index.search(q[None, :], 10)[1][0]
        return search

    runs = {"float32 exact, 1 thread": with_omp(1)}
    if threads > 1:
        runs[f"float32 exact, {threads} OpenMP threads"] = with_omp(threads)
        runs[f"float32 exact, {threads} shards in threads"] = sharded
    return runs


SCAN_ONLY = "quarry sign scan only, {} threads"


def quarry_runs(folder: Path, n: int, dim: int, threads: int) -> dict:
    """Quarry's default search with 1 and with `threads` sign-scan threads, its sign scan alone with `threads`
    threads (the profile: the rest of a query is the int8 stage and the merge), and the issue's two-stage
    design (Hamming top 10 x 4 or 100 x 4, int8 rescoring), single-threaded, for reference."""
    import faiss

    from App_Function_Libraries.Wikipedia.index import SearchParams
    from App_Function_Libraries.Wikipedia.layout import FAISS_FILE
    d = SearchParams()
    int8_rows = d.int8_rows(d.top_k)
    runs = {}
    for count in sorted({1, threads}):
        vectors = open_quarry(folder, n, dim, count)
        runs[f"quarry default, {count} thread{'s' if count > 1 else ''}"] = \
            lambda q, v=vectors: v.search(q, d.top_k, int8_rows)[0]
    runs[SCAN_ONLY.format(threads)] = lambda q, v=vectors: sign_scan_only(v, q, int8_rows)
    design = hamming_then_int8(faiss.read_index_binary(str(folder / FAISS_FILE)), vectors.int8, vectors.calib)
    runs["two-stage 10x4 (design)"] = lambda q: design(q, 10, 40)
    runs["two-stage 100x4 (design)"] = lambda q: design(q, 100, 400)
    return runs


def measure(kind: str, folder: Path, threads: int) -> dict:
    """Run in a fresh process. "first": the first open of the index, its packed-codes cache removed before
    (as after a build of the vector files or an upgrade): it packs the sign codes and writes the cache.
    "steady": a later open, which maps the cache. Both search every query with the default settings and
    report the resident memory the process gained by the open and by the open and the searches (see
    memory()), its peak, and the opening time. "float": the float32 index's memory; that child then opens
    Quarry's index again (steady state) and times every method on the same queries, interleaved."""
    from App_Function_Libraries.Wikipedia.index import SearchParams
    from App_Function_Libraries.Wikipedia.layout import FAISS_FILE
    from App_Function_Libraries.Wikipedia.packed import packed_path
    queries = np.load(folder / "queries.npy")
    n, dim = json.loads((folder / "done.json").read_text())["n"], queries.shape[1]
    if kind == "first":
        packed_path(folder / FAISS_FILE).unlink(missing_ok=True)
    before = memory()
    t = time.perf_counter()
    index = open_float(folder, n, dim) if kind == "float" else open_quarry(folder, n, dim, threads)
    out = {"open_s": time.perf_counter() - t, "opened": growth(before, memory()), "peak": peak_rss() - before["rss"]}
    if kind != "float":
        d = SearchParams()
        for q in queries:
            index.search(q, d.top_k, d.int8_rows(d.top_k))
        out.update(origin=index.scan.packed.origin, searched=growth(before, memory()))
        return out
    runs = {**float_runs(index, threads), **quarry_runs(folder, n, dim, threads)}
    timed = time_interleaved(runs, queries)
    exact = timed["float32 exact, 1 thread"][1]
    out["runs"] = {name: {"ms": median * 1000, "neighbour_recall10": neighbour_recall(rows, exact)}
                   for name, (median, rows) in timed.items()}
    return out


def resident(m: dict) -> int:
    """The memory an index holds: the anonymous memory its process gained, and the pages it maps of its sign
    codes (the packed-codes cache; the faiss file, which only an open that packs reads). Every query reads
    all the packed codes, so their pages count though they are page cache. Not counted, and shown apart:
    the int8 file's pages (page cache the kernel may drop; a few hundred random rows per query) and other
    file pages (the libraries' code that searching pages in, in any process that searches)."""
    return m["anon"] + m["faiss-ubinary.fastscan"] + m["faiss-ubinary.index"]


def other_file(m: dict) -> int:
    return m["file"] - sum(m[name] for name in INDEX_FILES)


def scale(P, Q, n: int, n_queries: int, threads: int) -> dict:
    import subprocess

    from App_Function_Libraries.Wikipedia.index import SearchParams
    from App_Function_Libraries.Wikipedia.layout import FAISS_FILE, PACKED_FILE, USEARCH_FILE
    folder = OUT / f"wiki_scale_{n}"
    t = time.time()
    path = sample_gaussian(P, Q, n, folder)
    print(f"scale: {n:,} vectors ready in {folder} ({time.time() - t:.0f} s)")
    np.save(folder / "queries.npy", Q[np.random.default_rng(1).choice(len(Q), n_queries, replace=False)])
    results = {}
    for kind in ("first", "steady", "float"):  # each in a fresh process, so memory growth is that index's alone
        cmd = [sys.executable, str(Path(__file__).resolve()), "--measure", kind, "--scale", str(n),
               "--threads", str(threads)]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
        results[kind] = json.loads(proc.stdout.strip().splitlines()[-1])
    runs = results["float"]["runs"]
    baseline = min((r["ms"], name) for name, r in runs.items() if name.startswith("float32"))
    for r in runs.values():
        r["speedup"] = baseline[0] / r["ms"]
    d = SearchParams()
    return {"n": n, "queries": n_queries, "threads": threads, "baseline": baseline[1], "baseline_ms": baseline[0],
            "float_ram": results["float"]["opened"]["anon"], "float_rss": results["float"]["opened"]["rss"], "first": results["first"], "steady": results["steady"],
            "float_disk": path.stat().st_size,
            "quarry_disk": sum((folder / name).stat().st_size for name in (FAISS_FILE, USEARCH_FILE, PACKED_FILE)),
            "stage_sizes": {"int8": d.int8_rows(d.top_k), "top_k": d.top_k}, "runs": runs}


# ---------------------------------------------------------------- report

def print_quality(q: dict, paragraphs: int, questions: int) -> None:
    print(f"\nQuality, SQuAD v1.1 dev ({paragraphs:,} paragraphs, {questions:,} questions), recall of the gold "
          f"paragraph (scaled: the sign scan passes {SCALED_INT8_ROWS} rows, {SCALED_INT8_ROWS / paragraphs:.1%} "
          f"of the corpus, to int8; the default passes 1,000, i.e. all of it here and 0.1% at 1M):")
    print(f"  {'method':32} " + " ".join(f"R@{k:<5}" for k in KS) + " retained@10")
    for name, r in q.items():
        kept = r[10] / q["float32 exact"][10] * 100
        print(f"  {name:32} " + " ".join(f"{r[k]:.4f}" for k in KS) + f"  {kept:6.2f}%")


def print_scale(s: dict, dim: int) -> None:
    mib = 1024 * 1024
    print(f"\nScale: {s['n']:,} x {dim} Gaussian vectors, {s['queries']} real queries one at a time; stages "
          f"{s['stage_sizes']}; speedups against the fastest float32 run ({s['baseline']})")
    for name, r in s["runs"].items():
        print(f"  {name:38} {r['ms']:8.2f} ms/query  speedup {r['speedup']:6.1f}x  "
              f"neighbour recall@10 {r['neighbour_recall10']:.3f}")
    print(f"  resident memory gained, each open in a fresh process ({s['threads']} shards), MiB: float32 anon "
          f"{s['float_ram'] / mib:.1f} (rss {s['float_rss'] / mib:.1f}, opened)")
    for kind in ("first", "steady"):
        m = s[kind]
        opened, searched = m["opened"], m["searched"]
        print(f"  quarry, {kind + ' open':11} (codes: {m['origin']}, {m['open_s']:.2f} s): opened rss "
              f"{opened['rss'] / mib:.1f} = anon {opened['anon'] / mib:.1f} + file {opened['file'] / mib:.1f}; "
              f"after the searches rss {searched['rss'] / mib:.1f} = anon {searched['anon'] / mib:.1f} + file "
              f"{searched['file'] / mib:.1f} (packed codes {searched['faiss-ubinary.fastscan'] / mib:.1f}, faiss file "
              f"{searched['faiss-ubinary.index'] / mib:.1f}, int8 pages {searched['usearch-int8.index'] / mib:.1f}, other "
              f"{other_file(searched) / mib:.1f}); peak rss while opening {m['peak'] / mib:.1f}; index resident (anon + "
              f"sign codes' pages) {resident(searched) / mib:.1f}, "
              f"ratio {s['float_ram'] / max(resident(searched), 1):.1f}x")
    print_profile(s, dim)
    print(f"  disk: float32 {s['float_disk'] / mib:.1f} MiB, quarry {s['quarry_disk'] / mib:.1f} MiB "
          f"(faiss, usearch and packed-codes files)")


def print_profile(s: dict, dim: int) -> None:
    """Where a query's time goes at `threads` threads, and the sign scan against the memory-bandwidth limit:
    the float32 baseline's read rate (its rows' bytes over its time: it streams them, so at least the
    bandwidth this machine gave it) applied to the packed codes' bytes."""
    threads, runs = s["threads"], s["runs"]
    full = runs[f"quarry default, {threads} thread{'s' if threads > 1 else ''}"]["ms"]
    scan = runs[SCAN_ONLY.format(threads)]["ms"] if threads > 1 else None
    if scan is None:
        return
    rate = s["n"] * dim * 4 / s["baseline_ms"]  # bytes per ms
    codes = s["n"] * dim / 8
    print(f"  profile, {threads} threads: sign scan {scan:.2f} ms of {full:.2f} ms ({scan / full:.0%}), int8 "
          f"stage and merge {full - scan:.2f} ms; float32 baseline read {rate / 1e6:.1f} GB/s, at which one "
          f"scan of the {codes / 1e6:.0f} MB of codes takes {codes / rate:.2f} ms: the scan runs at "
          f"{codes / rate / scan:.0%} of that bandwidth limit, a whole query at {codes / rate / full:.0%}")


def summary(q: dict, s: dict) -> str:
    fields = []
    if q:
        fields += [f"recall10_float={q['float32 exact'][10]:.4f}", f"recall10_quarry={q['quarry default'][10]:.4f}",
                   f"retained={q['quarry default'][10] / q['float32 exact'][10] * 100:.2f}%"]
    if s:
        runs, threads = s["runs"], s["threads"]
        best = runs[f"quarry default, {threads} thread{'s' if threads > 1 else ''}"]
        single = runs["quarry default, 1 thread"]["ms"]
        steady, first = (s["float_ram"] / max(resident(s[k]["searched"]), 1) for k in ("steady", "first"))
        fields += [f"speedup={best['speedup']:.1f}x", f"ram_ratio={steady:.1f}x", "ram_ratio_of=steady_state_open",
                   f"ram_ratio_first_open={first:.1f}x", f"neighbour_recall10={best['neighbour_recall10']:.3f}",
                   f"threads={threads}", f"speedup_1thread={runs['float32 exact, 1 thread']['ms'] / single:.1f}x"]
    if q:
        scaled = next(r for name, r in q.items() if name.startswith("quarry, scaled"))
        fields.append(f"retained_scaled={scaled[10] / q['float32 exact'][10] * 100:.2f}%")
    return "wiki: " + " ".join(fields)


def main(argv=None) -> int:
    from App_Function_Libraries.Wikipedia.signscan import auto_threads
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scale", type=int, default=1_000_000, help="vectors in the scale part (default 1,000,000)")
    ap.add_argument("--queries", type=int, default=200, help="queries timed in the scale part")
    ap.add_argument("--threads", type=int, default=auto_threads(),
                    help="threads for Quarry's sign scan and the best float32 baseline (default: "
                         "Quarry's own default, one per CPU up to 8)")
    ap.add_argument("--data", type=Path, default=DATA, help=f"the SQuAD dev files (default {DATA})")
    ap.add_argument("--skip-quality", action="store_true")
    ap.add_argument("--skip-scale", action="store_true")
    ap.add_argument("--measure", choices=("first", "steady", "float"), help=argparse.SUPPRESS)  # the child processes
    args = ap.parse_args(argv)
    import faiss
    faiss.omp_set_num_threads(1)  # idle OpenMP workers spin; the float runs set their own count
    if args.measure:
        print(json.dumps(measure(args.measure, OUT / f"wiki_scale_{args.scale}", args.threads)))
        return 0
    if not all((args.data / f).is_file() for f in SQUAD_FILES):
        print(f"SKIP: SQuAD dev files not found in {args.data}")
        return 0
    paragraphs, questions, gold = load_squad(args.data)
    emb, P, Q = squad_embeddings(paragraphs, questions)
    q = {} if args.skip_quality else quality(emb, paragraphs, questions, gold, P, Q)
    if q:
        print_quality(q, len(paragraphs), len(questions))
    s = {} if args.skip_scale else scale(P, Q, args.scale, args.queries, args.threads)
    if s:
        print_scale(s, Q.shape[1])
    print(summary(q, s))
    return 0


if __name__ == "__main__":
    sys.exit(main())
