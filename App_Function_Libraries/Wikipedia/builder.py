"""Building a local Wikipedia index from passages: stream, embed in batches, quantize, write, resume.

Work happens in `<out>/.build/`: the passage store and two append-only code files (packed bits, int8)
grow one committed batch (CHUNK_ROWS passages) at a time, and `state.json` records how many rows are safely
written. The int8 ranges are calibrated on the first CALIBRATION_ROWS embeddings: until then each batch's
float embeddings are committed to `floats.bin`, and once enough are in, they are calibrated and quantized
in one go. An interrupted build started again with the same input and model resumes from the last
committed batch. The faiss and usearch files, the sign codes packed for the fast scan (packed.py), the FTS
table and the manifest are written at the end, then moved into `<out>`.
"""
from __future__ import annotations

import itertools
import json
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from App_Function_Libraries.Wikipedia import quantize
from App_Function_Libraries.Wikipedia.layout import (BUILD_DIR, FAISS_FILE, MANIFEST_FILE, PACKED_FILE, STORE_FILE,
                                                     USEARCH_FILE, BuildInputError, Manifest, index_files_in,
                                                     library_versions)
from App_Function_Libraries.Wikipedia.packed import load_packed
from App_Function_Libraries.Wikipedia.readers import InputPassage, count_passages, iter_passages
from App_Function_Libraries.Wikipedia.store import NewPassage, PassageStoreWriter
from App_Function_Libraries.Wikipedia.vector_files import map_binary_codes, write_flat_binary, write_usearch_int8

Progress = Callable[[int, int | None], None]  # (rows done, total rows or None)
CHUNK_ROWS = 256  # passages per committed batch (and per progress report)
FLOATS_FILE = "floats.bin"
CALIBRATION_ROWS = 10_000


@dataclass
class BuildReport:
    out_dir: Path
    count: int
    documents: int
    dimension: int
    seconds: float
    resumed_from: int = 0


@dataclass
class _State:
    input: str  # path, size and modification time: a changed input starts over
    model: str
    rows_done: int = 0
    dimension: int = 0
    precomputed: bool = False
    calibration: dict | None = None

    @property
    def needs_calibration(self) -> bool:
        """Embedded here, and the int8 ranges not calibrated yet (the rows' floats wait in floats.bin)."""
        return not self.precomputed and self.calibration is None

    def save(self, work: Path) -> None:
        tmp = work / "state.json.tmp"
        tmp.write_text(json.dumps(self.__dict__), encoding="utf-8")
        tmp.replace(work / "state.json")


class _WorkFiles:
    """The append-only files of a build: packed bits, int8 codes and, until calibration, float embeddings.
    Each append is flushed, so a committed batch is on disk before state.json counts it."""

    def __init__(self, work: Path):
        self.work = work
        self.handles = {name: open(work / name, "ab") for name in ("ubinary.bin", "int8.bin", FLOATS_FILE)}

    def __enter__(self) -> "_WorkFiles":
        return self

    def __exit__(self, *exc) -> None:
        for fh in self.handles.values():
            fh.close()

    def _append(self, name: str, data: np.ndarray) -> None:
        self.handles[name].write(np.ascontiguousarray(data).tobytes())
        self.handles[name].flush()

    def append_codes(self, bits: np.ndarray, int8: np.ndarray) -> None:
        self._append("ubinary.bin", bits)
        self._append("int8.bin", int8)

    def append_floats(self, emb: np.ndarray) -> None:
        self._append(FLOATS_FILE, emb.astype(np.float32, copy=False))

    def floats(self, rows: int, dimension: int) -> np.ndarray:
        return np.fromfile(self.work / FLOATS_FILE, dtype=np.float32, count=rows * dimension).reshape(rows, dimension)

    def drop_floats(self) -> None:
        self.handles[FLOATS_FILE].truncate(0)


class IndexBuilder:
    def __init__(self, input_path: Path, out_dir: Path, embedder=None, fmt: str = "auto", model_label: str = "",
                 query_prompt: str = "", progress: Progress | None = None, chunk_rows: int = CHUNK_ROWS,
                 calibration_rows: int = CALIBRATION_ROWS, fts: bool = True, demo: bool = False):
        self.input, self.out, self.fmt = Path(input_path), Path(out_dir), fmt
        self.embedder = embedder
        self.model_label = model_label or (embedder.label if embedder is not None else "")
        self.query_prompt = query_prompt if query_prompt or embedder is None else embedder.query_prompt
        self.progress = progress or (lambda done, total: None)
        self.chunk_rows, self.calibration_rows, self.fts, self.demo = chunk_rows, calibration_rows, fts, demo
        self.work = self.out / BUILD_DIR

    # ------------------------------------------------------------ driver
    def build(self, force: bool = False) -> BuildReport:
        start = time.time()
        existing = index_files_in(self.out)
        if existing and not force:
            raise BuildInputError(f"{self.out} already holds an index ({', '.join(existing)}); pass --force to "
                                  f"replace it")
        records = iter_passages(self.input, self.fmt)
        state = self._open_state()
        resumed_from = state.rows_done
        total = count_passages(self.input, self.fmt)
        self._prepare_files(state)
        store = PassageStoreWriter(self.work / STORE_FILE)
        store.truncate(state.rows_done)
        remaining = itertools.islice(records, state.rows_done, None)
        with _WorkFiles(self.work) as files:
            while chunk := list(itertools.islice(remaining, self.chunk_rows)):
                self._write_chunk(chunk, state, store, files)
                self.progress(state.rows_done, total)
            if state.rows_done and state.needs_calibration:  # fewer passages than CALIBRATION_ROWS
                self._calibrate(state, files)
        if state.rows_done == 0:
            store.finish(fts=False)
            shutil.rmtree(self.work, ignore_errors=True)
            raise BuildInputError(f"{self.input}: no passages found; nothing to index")
        documents = store.finish(fts=self.fts)
        self._write_vector_indexes(state)
        self._install(state, documents)
        return BuildReport(self.out, state.rows_done, documents, state.dimension, time.time() - start, resumed_from)

    def _open_state(self) -> _State:
        stat = self.input.stat()
        fresh = _State(input=f"{self.input.resolve()}|{stat.st_size}|{stat.st_mtime_ns}", model=self.model_label)
        path = self.work / "state.json"
        if path.is_file():
            try:
                old = _State(**json.loads(path.read_text(encoding="utf-8")))
                if old.input == fresh.input and old.model == fresh.model:
                    return old
            except (ValueError, TypeError):
                pass
        shutil.rmtree(self.work, ignore_errors=True)
        self.work.mkdir(parents=True)
        fresh.save(self.work)
        return fresh

    def _prepare_files(self, state: _State) -> None:
        """Cut the work files back to the last committed row (an interruption may have left a partial batch)."""
        coded = 0 if state.needs_calibration else state.rows_done
        floats = state.rows_done if state.needs_calibration else 0
        sizes = (("ubinary.bin", state.dimension // 8, coded), ("int8.bin", state.dimension, coded),
                 (FLOATS_FILE, state.dimension * 4, floats))
        for name, row_bytes, rows in sizes:
            path = self.work / name
            path.touch()
            with path.open("r+b") as fh:
                fh.truncate(rows * row_bytes)

    # ------------------------------------------------------------ batches
    def _write_chunk(self, chunk: list[InputPassage], state: _State, store: PassageStoreWriter,
                     files: "_WorkFiles") -> None:
        if state.rows_done == 0:
            state.precomputed = chunk[0].int8 is not None and chunk[0].ubinary is not None
        if state.precomputed:
            files.append_codes(*self._precomputed_codes(chunk, state))
        else:
            self._embed_chunk(chunk, state, files)
        store.add(state.rows_done, [NewPassage(p.pid, p.title, p.url, p.text) for p in chunk])
        store.commit()
        state.rows_done += len(chunk)
        state.save(self.work)
        if state.needs_calibration and state.rows_done >= self.calibration_rows:
            self._calibrate(state, files)

    def _embed_chunk(self, chunk: list[InputPassage], state: _State, files: "_WorkFiles") -> None:
        """Embed a batch: quantized once the int8 ranges are calibrated, kept as floats until then."""
        if self.embedder is None:
            raise BuildInputError("the input has no emb_ubinary/emb_int8 columns and no embedding model was given")
        emb = self.embedder.encode([p.text for p in chunk])
        if state.rows_done == 0:
            state.dimension = int(emb.shape[1])
        if state.needs_calibration:
            files.append_floats(emb)
        else:
            calib = quantize.Calibration.from_dict(state.calibration)
            files.append_codes(quantize.to_ubinary(emb), quantize.to_int8(emb, calib))

    def _calibrate(self, state: _State, files: "_WorkFiles") -> None:
        """Calibrate the int8 ranges on the embeddings committed so far and quantize them."""
        emb = files.floats(state.rows_done, state.dimension)
        calib = quantize.calibrate(emb)
        files.append_codes(quantize.to_ubinary(emb), quantize.to_int8(emb, calib))
        state.calibration = calib.to_dict()
        state.save(self.work)
        files.drop_floats()

    def _precomputed_codes(self, chunk: list[InputPassage], state: _State) -> tuple[np.ndarray, np.ndarray]:
        if any(p.int8 is None or p.ubinary is None for p in chunk):
            raise BuildInputError(f"{self.input}: some rows lack emb_ubinary/emb_int8 while others have them")
        if state.rows_done == 0:
            state.dimension = int(chunk[0].int8.size)
            self._check_precomputed_dimension(state.dimension)
        for i, p in enumerate(chunk):
            if p.int8.size != state.dimension or p.ubinary.size * 8 != state.dimension:
                raise BuildInputError(f"{self.input}: passage {state.rows_done + i} ({p.pid}) has {p.int8.size} "
                                      f"emb_int8 values and {p.ubinary.size * 8} emb_ubinary bits; expected "
                                      f"{state.dimension} for both")
        return (np.vstack([p.ubinary for p in chunk]).astype(np.uint8, copy=False),
                np.vstack([p.int8 for p in chunk]).astype(np.int8, copy=False))

    def _check_precomputed_dimension(self, dimension: int) -> None:
        """Precomputed vectors are labelled with the model given for the build: it must make vectors of their
        dimension (questions are embedded with it), so a mismatch is refused before anything is written."""
        if self.embedder is None:
            return
        if self.embedder.dimension != dimension:
            raise BuildInputError(f"{self.input}: the precomputed vectors (emb_ubinary/emb_int8) have {dimension} "
                                  f"dimensions, but the embedding model {self.model_label!r} makes "
                                  f"{self.embedder.dimension}; name the model that made them with --model")

    # ------------------------------------------------------------ final files
    def _write_vector_indexes(self, state: _State) -> None:
        n, dim = state.rows_done, state.dimension
        bits = np.memmap(self.work / "ubinary.bin", dtype=np.uint8, mode="r", shape=(n, dim // 8))
        int8 = np.memmap(self.work / "int8.bin", dtype=np.int8, mode="r", shape=(n, dim))
        write_vector_indexes(self.work, bits, int8)
        load_packed(map_binary_codes(self.work / FAISS_FILE), self.work / FAISS_FILE)  # the first open reads it

    def _install(self, state: _State, documents: int) -> None:
        (self.out / MANIFEST_FILE).unlink(missing_ok=True)  # an old manifest must not describe new files
        (self.out / PACKED_FILE).unlink(missing_ok=True)  # nor an old index's packed codes take the disk
        for name in (FAISS_FILE, USEARCH_FILE, STORE_FILE):
            (self.work / name).replace(self.out / name)
        if (self.work / PACKED_FILE).exists():  # absent where it could not be written
            (self.work / PACKED_FILE).replace(self.out / PACKED_FILE)
        Manifest(model=self.model_label, dimension=state.dimension, count=state.rows_done, documents=documents,
                 query_prompt=self.query_prompt, calibration=state.calibration, int8_rows_in_key_order=True,
                 fts=self.fts, source=str(self.input), demo=self.demo, versions=library_versions()).save(self.out)
        shutil.rmtree(self.work, ignore_errors=True)


def write_vector_indexes(folder: Path, bits: np.ndarray, int8: np.ndarray) -> None:
    """faiss-ubinary.index (row id = row) and usearch-int8.index (key = row, slots in key order) in folder,
    from (n, dim/8) packed bits and (n, dim) int8 codes (arrays or memory maps), written block by block."""
    write_flat_binary(folder / FAISS_FILE, bits)
    write_usearch_int8(folder / USEARCH_FILE, int8)


def build_index(input_path, out_dir, embedder=None, fmt: str = "auto", force: bool = False, **kwargs) -> BuildReport:
    return IndexBuilder(Path(input_path), Path(out_dir), embedder=embedder, fmt=fmt, **kwargs).build(force=force)
