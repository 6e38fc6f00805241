"""Streaming readers of encyclopedia passages: JSONL, Parquet, a `datasets` folder saved to disk, SQuAD JSON.

Each yields `InputPassage`s in file order (id, title, url, text, and the precomputed `emb_ubinary` /
`emb_int8` vectors when the input has those columns, as the public mxbai int8-binary dataset does).
Parquet and Arrow need pyarrow, imported only when such an input is read.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator
from urllib.parse import quote

import numpy as np

from App_Function_Libraries.valid_unicode import loads_json
from App_Function_Libraries.Wikipedia.layout import BuildInputError

FORMATS = ("auto", "jsonl", "parquet", "datasets", "squad")
ID_COLUMNS = ("id", "_id")
ARROW_BATCH_ROWS = 4096


@dataclass
class InputPassage:
    pid: str
    title: str
    url: str
    text: str
    ubinary: np.ndarray | None = None  # packed sign bits, uint8
    int8: np.ndarray | None = None


def wiki_url(title: str) -> str:
    return "https://en.wikipedia.org/wiki/" + quote(title.replace(" ", "_"), safe="_()',-.")


def detect_format(path: Path) -> str:
    if path.is_dir():
        names = {p.name for p in path.iterdir()}
        if names & {"state.json", "dataset_dict.json", "dataset_info.json"} or any(n.endswith(".arrow") for n in names):
            return "datasets"
        if any(n.endswith(".parquet") for n in names):
            return "parquet"
        raise BuildInputError(f"{path}: a folder with neither .parquet files nor a saved `datasets` dataset")
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        return "jsonl"
    if suffix == ".parquet":
        return "parquet"
    if suffix == ".json":
        with path.open("rb") as fh:
            head = fh.read(4096).lstrip()
        return "squad" if head.startswith(b"{") and b'"data"' in head else "jsonl"
    raise BuildInputError(f"{path}: unknown input format; use --format with one of {', '.join(FORMATS[1:])}")


def iter_passages(path: Path, fmt: str = "auto") -> Iterator[InputPassage]:
    path = Path(path)
    if not path.exists():
        raise BuildInputError(f"{path}: no such file or folder")
    fmt = detect_format(path) if fmt == "auto" else fmt
    readers = {"jsonl": _read_jsonl, "parquet": _read_parquet, "datasets": _read_datasets, "squad": _read_squad}
    if fmt not in readers:
        raise BuildInputError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
    return readers[fmt](path)


def record_to_passage(rec: dict, where: str, position: int) -> InputPassage:
    text = rec.get("text")
    if not isinstance(text, str) or not text.strip():
        raise BuildInputError(f"{where}: the passage has no `text`")
    title = str(rec.get("title") or "").strip() or f"Passage {position}"
    pid = next((str(rec[c]) for c in ID_COLUMNS if rec.get(c) not in (None, "")), str(position))
    url = str(rec.get("url") or "").strip() or wiki_url(title)
    ub, i8 = rec.get("emb_ubinary"), rec.get("emb_int8")
    return InputPassage(pid, title, url, text.strip(),
                        None if ub is None else np.asarray(ub, dtype=np.uint8),
                        None if i8 is None else np.asarray(i8, dtype=np.int8))


# ---------------------------------------------------------------- JSONL

def _read_jsonl(path: Path) -> Iterator[InputPassage]:
    position = 0
    with path.open("r", encoding="utf-8") as fh:
        for line_no, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                rec = loads_json(line)
            except ValueError as exc:
                raise BuildInputError(f"{path}:{line_no}: not valid JSON ({exc.args[0]})") from None
            if not isinstance(rec, dict):
                raise BuildInputError(f"{path}:{line_no}: expected a JSON object per line")
            yield record_to_passage(rec, f"{path}:{line_no}", position)
            position += 1


# ---------------------------------------------------------------- SQuAD

def _read_squad(path: Path) -> Iterator[InputPassage]:
    try:
        data = loads_json(path.read_text(encoding="utf-8"))["data"]
    except (ValueError, KeyError, TypeError) as exc:
        raise BuildInputError(f"{path}: not a SQuAD file (expected {{\"data\": [articles]}}): {exc}") from None
    position = 0
    for article in data:
        title = str(article.get("title", "")).replace("_", " ")
        for i, para in enumerate(article.get("paragraphs", [])):
            rec = {"id": f"{article.get('title', '')}#{i}", "title": title, "text": para.get("context", "")}
            yield record_to_passage(rec, f"{path}: {title} paragraph {i}", position)
            position += 1


# ---------------------------------------------------------------- Parquet and Arrow (pyarrow)

def _pyarrow():
    try:
        import pyarrow
        import pyarrow.ipc  # noqa: F401
        import pyarrow.parquet  # noqa: F401
    except ImportError as exc:
        raise BuildInputError("reading Parquet or a `datasets` folder needs pyarrow (pip install pyarrow)") from exc
    return pyarrow


def _batch_rows(batch, where: str, start: int) -> Iterator[InputPassage]:
    """Rows of one Arrow record batch; embedding columns are converted once per batch."""
    names = batch.schema.names
    if "text" not in names:
        raise BuildInputError(f"{where}: no `text` column (columns: {', '.join(names)})")
    plain = {n: batch.column(n).to_pylist() for n in names if n not in ("emb_ubinary", "emb_int8")}
    vectors = {n: _list_column(batch.column(n), dtype, where) for n, dtype in
               (("emb_ubinary", np.uint8), ("emb_int8", np.int8)) if n in names}
    for i in range(batch.num_rows):
        rec = {n: values[i] for n, values in plain.items()}
        p = record_to_passage(rec, f"{where} row {start + i}", start + i)
        p.ubinary = vectors["emb_ubinary"][i] if "emb_ubinary" in vectors else None
        p.int8 = vectors["emb_int8"][i] if "emb_int8" in vectors else None
        yield p


def _list_column(column, dtype, where: str) -> np.ndarray:
    if column.null_count:
        raise BuildInputError(f"{where}: an embedding column has empty values")
    flat = np.asarray(column.flatten().to_numpy(zero_copy_only=False), dtype=dtype)
    if len(column) and flat.size % len(column):
        raise BuildInputError(f"{where}: embedding rows of unequal length")
    return flat.reshape(len(column), -1) if len(column) else flat.reshape(0, 0)


def _read_parquet(path: Path) -> Iterator[InputPassage]:
    pa = _pyarrow()
    files = sorted(path.glob("*.parquet")) if path.is_dir() else [path]
    position = 0
    for f in files:
        try:
            pf = pa.parquet.ParquetFile(str(f))
            batches = pf.iter_batches(batch_size=ARROW_BATCH_ROWS)
            for batch in batches:
                yield from _batch_rows(batch, str(f), position)
                position += batch.num_rows
        except pa.ArrowException as exc:
            raise BuildInputError(f"{f}: not a readable Parquet file ({exc})") from None


def arrow_files(folder: Path) -> list[Path]:
    """The .arrow files of a dataset saved with `save_to_disk` (a DatasetDict: its train split, else the first)."""
    if (folder / "dataset_dict.json").is_file():
        try:
            splits = json.loads((folder / "dataset_dict.json").read_text(encoding="utf-8"))["splits"]
        except (ValueError, KeyError) as exc:
            raise BuildInputError(f"{folder}/dataset_dict.json: unreadable ({exc})") from None
        split = "train" if "train" in splits else splits[0]
        return arrow_files(folder / split)
    state = folder / "state.json"
    if state.is_file():
        try:
            names = [d["filename"] for d in json.loads(state.read_text(encoding="utf-8"))["_data_files"]]
        except (ValueError, KeyError, TypeError) as exc:
            raise BuildInputError(f"{state}: unreadable ({exc})") from None
        return [folder / n for n in names]
    return sorted(folder.glob("*.arrow"))


def open_arrow_table(path: Path):
    """A memory-mapped Arrow table (stream format as `datasets` writes it, or the file format)."""
    pa = _pyarrow()
    try:
        source = pa.memory_map(str(path), "r")
        try:
            return pa.ipc.open_stream(source).read_all()
        except pa.ArrowInvalid:
            return pa.ipc.open_file(pa.memory_map(str(path), "r")).read_all()
    except (OSError, pa.ArrowException) as exc:
        raise BuildInputError(f"{path}: not a readable Arrow file ({exc})") from None


def _read_datasets(path: Path) -> Iterator[InputPassage]:
    files = arrow_files(path)
    if not files:
        raise BuildInputError(f"{path}: no .arrow data files found")
    position = 0
    for f in files:
        for batch in open_arrow_table(f).to_batches(max_chunksize=ARROW_BATCH_ROWS):
            yield from _batch_rows(batch, str(f), position)
            position += batch.num_rows


def count_passages(path: Path, fmt: str = "auto") -> int | None:
    """How many passages the input holds, when that is cheap to know (for progress bars); else None."""
    path = Path(path)
    fmt = detect_format(path) if fmt == "auto" else fmt
    try:
        if fmt == "jsonl":
            with path.open("rb") as fh:
                return sum(1 for line in fh if line.strip())
        if fmt == "squad":
            data = json.loads(path.read_text(encoding="utf-8"))["data"]
            return sum(len(a.get("paragraphs", [])) for a in data)
        if fmt == "parquet":
            pa = _pyarrow()
            files = sorted(path.glob("*.parquet")) if path.is_dir() else [path]
            return sum(pa.parquet.ParquetFile(str(f)).metadata.num_rows for f in files)
        if fmt == "datasets":
            return sum(open_arrow_table(f).num_rows for f in arrow_files(path))
    except (OSError, ValueError, KeyError, TypeError, BuildInputError):
        return None
    return None
