"""The full-size Wikipedia, simulated: 41 million x 384 vectors built and searched in bounded memory (manual).

    python bench/wiki_full.py --rows 41000000 --dir /work/bigwiki   # ~21 GB on disk, about an hour on 2 cores
    python bench/wiki_full.py --rows 1000000 --dir /tmp/wiki1m      # a quick run
    python bench/wiki_full.py ... --before DIR                      # also time the code in DIR (an older checkout)

Vectors: sampled with a fixed seed from the Gaussian with the mean and covariance of the real MiniLM
embeddings of the SQuAD paragraphs and questions (as bench/wiki_index.py's scale part; needs
../shared/data/wiki_qa/ and its cached embeddings), normalized, 100,000 rows at a time. Each block is
quantized with the calibration of the first 10,000 rows and appended to faiss-ubinary.index and
usearch-int8.index (Wikipedia/vector_files.py): memory holds one block, and the float vectors are never
stored (they would take 63 GB). Queries: real SQuAD question embeddings.

Ground truth, for every query at once:
- int8: the exact top 10 of the score Quarry ranks by (the float query against the dequantized int8
  vectors, quantize.int8_scores) over all rows, in one pass over the int8 file in blocks (an int8 block
  turned into float32, times the matrix of all queries' weights). Neighbour recall@10 against it measures
  what the sign scan's candidates miss.
- float: the exact top 10 of the float vectors, kept while building (each block's float vectors times the
  queries, before they are quantized and dropped).

Measurements, each in a fresh process (opening the index as Quarry does: the faiss codes memory-mapped, the
int8 file memory-mapped, the sign scan's shards; the passage store is left out): opening time, the first
query, then the queries timed one at a time (median and p95 wall time, median CPU time of the process),
neighbour recall@10, and resident memory after opening and after the queries: VmRSS, split into anonymous
memory and the pages mapped from each file (from /proc/self/smaps). "Warm" runs search every query once
untimed before timing it, so the int8 rows it reads are in the page cache (the 17 GB int8 file is not
all cached on most machines; the "int8 file cold" run drops it from the page cache first and times each
query once). Runs: the first open (packs the codes and writes faiss-ubinary.fastscan); the codes packed
in memory (no cache: a read-only folder); warm opens with the cache (one also timing a 1-thread index
beside it, in turns of 10 queries; one with shards of at most 2^20 rows, the cap before the cache); the
int8 file cold; everything cold (the files' pages dropped from the page cache with posix_fadvise); and
with --before DIR the code in DIR (packing the codes at every open), cold and warm.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
BLOCK = 100_000
TRUTH_ROWS = 65_536
SEED, QUERY_SEED = 0, 1
MiB = 1024 * 1024


# ---------------------------------------------------------------- build

def fitted_gaussian() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(mean, Cholesky factor of the covariance, question embeddings) of SQuAD's MiniLM embeddings."""
    sys.path.insert(0, str(ROOT / "bench"))
    import wiki_index
    paragraphs, questions, _ = wiki_index.load_squad()
    _, P, Q = wiki_index.squad_embeddings(paragraphs, questions)
    real = np.vstack([P, Q]).astype(np.float64)
    chol = np.linalg.cholesky(np.cov(real, rowvar=False) + 1e-9 * np.eye(real.shape[1]))
    return real.mean(axis=0), chol, Q


def build(folder: Path, rows: int, n_queries: int) -> dict:
    """Write the index files, the queries and the float ground truth into folder (skipped when done)."""
    done = folder / "build.json"
    if done.is_file() and json.loads(done.read_text())["rows"] == rows:
        return json.loads(done.read_text())
    from App_Function_Libraries.Wikipedia import quantize
    from App_Function_Libraries.Wikipedia.layout import FAISS_FILE, USEARCH_FILE
    from App_Function_Libraries.Wikipedia.vector_files import FlatBinaryWriter, UsearchInt8Writer
    folder.mkdir(parents=True, exist_ok=True)
    mean, chol, Q = fitted_gaussian()
    queries = Q[np.random.default_rng(QUERY_SEED).choice(len(Q), n_queries, replace=False)].astype(np.float32)
    dim = len(mean)
    rng = np.random.default_rng(SEED)
    chol32, mean32 = chol.T.astype(np.float32), mean.astype(np.float32)
    start_time = time.time()
    bits = FlatBinaryWriter(folder / FAISS_FILE, rows, dim // 8)
    int8 = UsearchInt8Writer(folder / USEARCH_FILE, rows, dim)
    truth = TopK(len(queries))
    calib = None
    for start in range(0, rows, BLOCK):
        block = rng.standard_normal((min(BLOCK, rows - start), dim), dtype=np.float32) @ chol32 + mean32
        block /= np.linalg.norm(block, axis=1, keepdims=True)
        if calib is None:
            calib = quantize.calibrate(block[:10_000])
        bits.append(quantize.to_ubinary(block))
        int8.append(quantize.to_int8(block, calib))
        truth.add(queries @ block.T, start)
        if (start // BLOCK) % 50 == 0:
            print(f"  build: {start + len(block):,} rows ({time.time() - start_time:.0f} s)", flush=True)
    bits.close()
    int8.close()
    np.save(folder / "queries.npy", queries)
    np.save(folder / "truth_float.npy", truth.rows())
    (folder / "calibration.json").write_text(json.dumps(calib.to_dict()))
    info = {"rows": rows, "dim": dim, "seed": SEED, "build_s": time.time() - start_time,
            "disk": {name: (folder / name).stat().st_size for name in (FAISS_FILE, USEARCH_FILE)}}
    done.write_text(json.dumps(info))
    return info


class TopK:
    """The running top 10 rows per query over blocks of scores (queries x block rows)."""

    def __init__(self, queries: int, k: int = 10):
        self.k = k
        self.scores = np.full((queries, 0), -np.inf, np.float32)
        self.ids = np.zeros((queries, 0), np.int64)

    def add(self, scores: np.ndarray, start: int) -> None:
        k = min(self.k, scores.shape[1])
        part = np.argpartition(-scores, k - 1, axis=1)[:, :k]
        self.scores = np.hstack([self.scores, np.take_along_axis(scores, part, axis=1)])
        self.ids = np.hstack([self.ids, part + start])
        keep = np.argsort(-self.scores, axis=1, kind="stable")[:, :self.k]
        self.scores = np.take_along_axis(self.scores, keep, axis=1)
        self.ids = np.take_along_axis(self.ids, keep, axis=1)

    def rows(self) -> np.ndarray:
        return self.ids


def int8_truth(folder: Path) -> np.ndarray:
    """Exact top 10 by Quarry's int8 score for every query, in one pass over the int8 file (cached)."""
    path = folder / "truth_int8.npy"
    if path.is_file():
        return np.load(path)
    from App_Function_Libraries.Wikipedia import quantize
    from App_Function_Libraries.Wikipedia.layout import USEARCH_FILE
    info = json.loads((folder / "build.json").read_text())
    rows, dim = info["rows"], info["dim"]
    calib = quantize.Calibration.from_dict(json.loads((folder / "calibration.json").read_text()))
    queries = np.load(folder / "queries.npy")
    weights = [quantize.int8_weights(q, calib) for q in queries]
    W = np.stack([w for w, _ in weights], axis=1)  # (dim, queries)
    bias = np.array([b for _, b in weights], np.float32)
    matrix = np.memmap(folder / USEARCH_FILE, np.int8, mode="r", offset=8, shape=(rows, dim))
    truth = TopK(len(queries))
    t = time.time()
    for start in range(0, rows, TRUTH_ROWS):
        block = np.asarray(matrix[start:start + TRUTH_ROWS], dtype=np.float32)
        truth.add((block @ W + bias).T, start)
    np.save(path, truth.rows())
    info["int8_truth_s"] = time.time() - t
    (folder / "build.json").write_text(json.dumps(info))
    return truth.rows()


# ---------------------------------------------------------------- measuring (child process)

def memory() -> dict:
    """MiB resident: VmRSS, anonymous, and mapped from each index file."""
    out = {"rss": 0.0, "anon": 0.0}
    name = None
    for line in Path("/proc/self/smaps").read_text().splitlines():
        head = line.split()
        if head and not head[0].endswith(":"):  # a mapping's first line: address perms offset dev inode [path]
            name = Path(head[5]).name if len(head) > 5 and head[5].startswith("/") else None
        elif head and head[0] == "Rss:":
            kib = int(head[1]) / 1024
            out["rss"] += kib
            if name in ("faiss-ubinary.index", "faiss-ubinary.fastscan", "usearch-int8.index"):
                out[name] = out.get(name, 0.0) + kib
        elif head and head[0] == "Anonymous:":
            out["anon"] += int(head[1]) / 1024
    return {k: round(v, 1) for k, v in out.items()}


def open_vectors(folder: Path, threads: int, cached: bool):
    from App_Function_Libraries.Wikipedia import quantize
    from App_Function_Libraries.Wikipedia.layout import FAISS_FILE, USEARCH_FILE
    from App_Function_Libraries.Wikipedia.vectors import PositionalInt8Store, VectorIndex
    try:
        from App_Function_Libraries.Wikipedia.vector_files import map_binary_codes
    except ImportError:  # code before the packed cache
        from App_Function_Libraries.Wikipedia.signscan import map_binary_codes
    info = json.loads((folder / "build.json").read_text())
    calib = quantize.Calibration.from_dict(json.loads((folder / "calibration.json").read_text()))
    codes = map_binary_codes(folder / FAISS_FILE)
    int8 = PositionalInt8Store(folder / USEARCH_FILE, info["rows"], info["dim"])
    if "source" in VectorIndex.__init__.__code__.co_varnames:
        return VectorIndex(codes, int8, calib, threads, folder / FAISS_FILE if cached else None)
    return VectorIndex(codes, int8, calib, threads)


def recall(found: list[np.ndarray], truth: np.ndarray) -> float:
    return float(np.mean([len(set(f[:10].tolist()) & set(t.tolist())) / 10 for f, t in zip(found, truth)]))


def measure(folder: Path, threads: int, cached: bool, n_queries: int, one_thread: bool, warm: bool) -> dict:
    """Open, query, report (run in a fresh process). warm: every query is searched once untimed first, so the
    int8 rows it reads are in the page cache when it is timed."""
    from App_Function_Libraries.Wikipedia.index import SearchParams
    from App_Function_Libraries.Wikipedia.signscan import auto_threads
    threads = threads or auto_threads()
    queries = np.load(folder / "queries.npy")[:n_queries]
    truths = {"int8": np.load(folder / "truth_int8.npy"), "float": np.load(folder / "truth_float.npy")}
    params = SearchParams()
    int8_rows = params.int8_rows(params.top_k)
    at_start = memory()
    t = time.perf_counter()
    index = open_vectors(folder, threads, cached)
    out = {"open_s": time.perf_counter() - t, "origin": getattr(getattr(index.scan, "packed", None), "origin", "-"),
           "shards": len(index.scan.shards), "threads": index.threads, "mem_start": at_start,
           "mem_open": memory()}
    t = time.perf_counter()
    index.search(queries[0], params.top_k, int8_rows)
    out["first_query_ms"] = (time.perf_counter() - t) * 1000
    runs = {f"{index.threads} threads": index}
    if one_thread and index.threads > 1:
        runs["1 thread"] = open_vectors(folder, 1, cached)
    for q in queries if warm else ():
        index.search(q, params.top_k, int8_rows)
    timed = {name: {"wall": [], "cpu": [], "rows": []} for name in runs}
    for start in range(0, len(queries), 10):  # the runs take turns in blocks of 10 queries
        for name, vectors in runs.items():
            for q in queries[start:start + 10]:
                wall, cpu = time.perf_counter(), time.process_time()
                rows = vectors.search(q, params.top_k, int8_rows)[0]
                timed[name]["wall"].append(time.perf_counter() - wall)
                timed[name]["cpu"].append(time.process_time() - cpu)
                timed[name]["rows"].append(rows)
    for name, r in timed.items():
        out[name] = {"median_ms": statistics.median(r["wall"]) * 1000,
                     "p95_ms": float(np.percentile(r["wall"], 95)) * 1000,
                     "cpu_median_ms": statistics.median(r["cpu"]) * 1000,
                     **{f"recall10_{kind}": recall(r["rows"], truth[:len(queries)]) for kind, truth in truths.items()}}
    out["mem_queried"] = memory()
    return out


# ---------------------------------------------------------------- driver

def drop_page_cache(folder: Path, names: tuple[str, ...] = ()) -> None:
    """Evict the index files' pages (or those of the files named) from the page cache (no process may have
    them mapped)."""
    for path in folder.iterdir():
        if path.name in names if names else path.suffix in (".index", ".fastscan"):
            fd = os.open(path, os.O_RDONLY)
            try:
                os.fsync(fd)
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)


def child(folder: Path, args, cached: bool = True, one_thread: bool = False, code: Path | None = None,
          queries: int | None = None, shard_rows: int = 0, warm: bool = True) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--dir", str(folder), "--measure",
           "cached" if cached else "memory", "--queries", str(queries or args.queries), "--threads", str(args.threads),
           "--shard-rows", str(shard_rows)]
    if one_thread:
        cmd.append("--one-thread")
    if warm:
        cmd.append("--warm")
    env = dict(os.environ, PYTHONPATH=str(code or ROOT))
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run_all(args) -> dict:
    from App_Function_Libraries.Wikipedia.layout import PACKED_FILE, USEARCH_FILE
    folder = args.dir
    info = build(folder, args.rows, args.pool)
    print(f"built: {info['rows']:,} rows in {info['build_s']:.0f} s; disk {sum(info['disk'].values()) / MiB:,.0f} MiB")
    int8_truth(folder)
    if args.build_only:
        return {}
    results: dict = {"build": json.loads((folder / "build.json").read_text())}
    if args.before:
        drop_page_cache(folder)  # as the first open after a build that no longer has the files in cache
        results["before, cold"] = child(folder, args, code=args.before, queries=args.before_queries, warm=False)
        results["before, warm"] = child(folder, args, code=args.before, queries=args.before_queries)
    (folder / PACKED_FILE).unlink(missing_ok=True)
    results["first open (writes the cache)"] = child(folder, args, queries=20)
    results["disk_packed"] = (folder / PACKED_FILE).stat().st_size
    results["no cache (packed in memory)"] = child(folder, args, cached=False, queries=20)
    results["cache, warm"] = child(folder, args)
    results["cache, warm, with a 1-thread index beside it"] = child(folder, args, one_thread=True)
    results["cache, warm, shards of at most 2^20 rows"] = child(folder, args, shard_rows=1 << 20, queries=100)
    drop_page_cache(folder, (USEARCH_FILE,))
    results["cache, int8 file cold"] = child(folder, args, warm=False)
    drop_page_cache(folder)
    results["cache, cold"] = child(folder, args, queries=20, warm=False)
    return results


def report(results: dict) -> None:
    b = results["build"]
    disk = sum(b["disk"].values()) + results["disk_packed"]
    print(f"\n{b['rows']:,} x {b['dim']} vectors: build {b['build_s'] / 60:.1f} min, exact int8 ground truth "
          f"{b.get('int8_truth_s', 0):.0f} s; disk {disk / 2 ** 30:.2f} GiB (faiss "
          f"{b['disk']['faiss-ubinary.index'] / 2 ** 30:.2f}, usearch {b['disk']['usearch-int8.index'] / 2 ** 30:.2f}, "
          f"packed cache {results['disk_packed'] / 2 ** 30:.2f})")
    for name, r in results.items():
        if not isinstance(r, dict) or "open_s" not in r:
            continue
        print(f"\n{name}: open {r['open_s']:.2f} s ({r['origin']}, {r['shards']} shards), first query "
              f"{r['first_query_ms']:.0f} ms; memory after open {r['mem_open']}, after the queries {r['mem_queried']}")
        for run in (k for k in r if k.endswith(("threads", "thread")) and isinstance(r[k], dict)):
            x = r[run]
            print(f"  {run:10} median {x['median_ms']:7.1f} ms  p95 {x['p95_ms']:7.1f} ms  cpu {x['cpu_median_ms']:7.1f} ms"
                  f"  recall@10 int8 {x['recall10_int8']:.3f} float {x['recall10_float']:.3f}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=41_000_000)
    ap.add_argument("--dir", type=Path, default=Path("/work/bigwiki"))
    ap.add_argument("--queries", type=int, default=200, help="queries timed in the main run (at most --pool)")
    ap.add_argument("--pool", type=int, default=200, help="queries with ground truth, fixed at build time")
    ap.add_argument("--threads", type=int, default=0, help="sign-scan threads (0: Quarry's default)")
    ap.add_argument("--before", type=Path, help="a checkout of older code to time the same way")
    ap.add_argument("--before-queries", type=int, default=50)
    ap.add_argument("--build-only", action="store_true", help="build and compute the ground truth, measure nothing")
    ap.add_argument("--measure", choices=("cached", "memory"), help=argparse.SUPPRESS)
    ap.add_argument("--one-thread", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--warm", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--shard-rows", type=int, default=0, help=argparse.SUPPRESS)  # 0: signscan.MAX_SHARD_ROWS
    args = ap.parse_args(argv)
    if args.measure:
        import faiss
        faiss.omp_set_num_threads(1)
        if args.shard_rows:
            from App_Function_Libraries.Wikipedia import signscan
            signscan.MAX_SHARD_ROWS = args.shard_rows
        print(json.dumps(measure(args.dir, args.threads, args.measure == "cached", args.queries, args.one_thread,
                                 args.warm)))
        return 0
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    results = run_all(args)
    if results:
        (args.dir / "results.json").write_text(json.dumps(results, indent=1))
        report(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
