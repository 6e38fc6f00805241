"""The files of a local Wikipedia index, its manifest, and the errors every part of the package raises.

A Quarry index folder holds:
  faiss-ubinary.index   faiss IndexBinaryFlat of packed sign bits; row id = passage row
  usearch-int8.index    usearch index of int8 vectors; key = passage row (stored in key order)
  passages.sqlite       passage text, documents (title, url) and an FTS5 table
  manifest.json         model, dimension, count, quantization calibration, query prompt, versions
  faiss-ubinary.fastscan  the sign bits in faiss's fast-scan layout, a cache checked against the faiss file
                        (packed.py): written by the build or at the first open, rebuilt when stale
A folder laid out like the public wikipedia-2023-11-en-index (no manifest, document-url-mappings.sqlite and
a text dataset instead of passages.sqlite) is read by compat.py.
"""
from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from App_Function_Libraries.errors import QuarryError

FAISS_FILE = "faiss-ubinary.index"
USEARCH_FILE = "usearch-int8.index"
PACKED_FILE = "faiss-ubinary.fastscan"  # packed.packed_path(FAISS_FILE)
STORE_FILE = "passages.sqlite"
MANIFEST_FILE = "manifest.json"
COMPAT_MAPPING_FILE = "document-url-mappings.sqlite"
COMPAT_TEXT_DIRS = ("wikipedia-en-text", "wikipedia-2023-11-en-text", "text")
BUILD_DIR = ".build"
FORMAT_VERSION = 1
INDEX_FILES = (MANIFEST_FILE, FAISS_FILE, USEARCH_FILE, STORE_FILE, COMPAT_MAPPING_FILE)  # either layout


class WikiIndexError(QuarryError, RuntimeError):
    """Base of the package's errors; str() is a one-line message a person can act on."""


class IndexMissing(WikiIndexError):
    pass


class IndexCorrupt(WikiIndexError):
    pass


class ModelMismatch(WikiIndexError):
    pass


class BuildInputError(WikiIndexError):
    pass


class QueryError(WikiIndexError):
    pass


@dataclass
class Manifest:
    model: str
    dimension: int
    count: int
    documents: int = 0
    query_prompt: str = ""
    calibration: dict | None = None  # quantize.Calibration.to_dict(); None for precomputed public vectors
    int8_rows_in_key_order: bool = True  # usearch slots == keys: int8 rows can be read by position
    fts: bool = True
    source: str = ""
    demo: bool = False  # built from the demo encyclopedia shipped with Quarry
    versions: dict = field(default_factory=dict)
    created_at: float = field(default_factory=time.time)
    format_version: int = FORMAT_VERSION

    def save(self, folder: Path) -> None:
        tmp = folder / (MANIFEST_FILE + ".tmp")
        tmp.write_text(json.dumps(asdict(self), separators=(",", ":")), encoding="utf-8")
        tmp.replace(folder / MANIFEST_FILE)

    @classmethod
    def load(cls, folder: Path) -> "Manifest":
        path = folder / MANIFEST_FILE
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            known = set(cls.__dataclass_fields__)
            manifest = cls(**{k: v for k, v in data.items() if k in known})
        except (OSError, ValueError, TypeError) as exc:
            raise IndexCorrupt(f"{path}: unreadable manifest ({exc}); rebuild with: python app.py wiki build") from exc
        if manifest.format_version > FORMAT_VERSION:
            raise IndexCorrupt(f"{path}: made by a newer Quarry (format {manifest.format_version}); update Quarry")
        if manifest.dimension <= 0 or manifest.dimension % 8 or manifest.count < 0:
            raise IndexCorrupt(f"{path}: dimension {manifest.dimension} / count {manifest.count} are not valid")
        return manifest


def library_versions() -> dict:
    import faiss
    import numpy
    import usearch
    return {"faiss": faiss.__version__, "usearch": usearch.__version__, "numpy": numpy.__version__}


def is_quarry_index(folder: Path) -> bool:
    return (folder / MANIFEST_FILE).is_file()


def index_files_in(folder: Path) -> list[str]:
    """The index files (of either layout) that folder holds."""
    return [name for name in INDEX_FILES if (folder / name).exists()]


def is_compat_index(folder: Path) -> bool:
    return not is_quarry_index(folder) and (folder / COMPAT_MAPPING_FILE).is_file() and (folder / FAISS_FILE).is_file()
