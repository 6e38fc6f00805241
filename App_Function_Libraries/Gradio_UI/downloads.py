"""Files the UI offers for download: written once to a private temporary folder of this process."""
from __future__ import annotations

import tempfile
import threading
import uuid
from pathlib import Path

_lock = threading.Lock()
_root: Path | None = None


def download_root() -> Path:
    global _root
    with _lock:
        if _root is None:
            _root = Path(tempfile.mkdtemp(prefix="quarry-ui-"))
        return _root


def write_download(text: str, filename: str) -> str:
    """Write `text` as `filename` in a folder of its own (names never collide) and return its path."""
    folder = download_root() / uuid.uuid4().hex
    folder.mkdir()
    path = folder / filename
    path.write_text(text, encoding="utf-8")
    return str(path)


def new_download_path(filename: str) -> Path:
    """A path for a file a backend writes itself (e.g. a zip of notes)."""
    folder = download_root() / uuid.uuid4().hex
    folder.mkdir()
    return folder / filename
