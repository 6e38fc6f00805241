"""Files the UI offers for download: written once to a temporary folder of this process,
<tmp>/quarry-ui-<pid>-<random>/<random>/<name>.

Nothing piles up in the temporary directory:
- the folder is removed when the process exits normally (atexit);
- when the UI starts, and when a process makes its folder, the folders of processes that are gone (killed,
  so no exit handler ran) are removed, and so is any quarry-ui-* folder with nothing newer than a day in it;
- every new file removes this process's own files older than a day (Gradio copies a file into its own cache
  when it offers it, so by then ours is no longer read).
Only folders of the current user are touched.
"""
from __future__ import annotations

import atexit
import os
import re
import shutil
import tempfile
import threading
import time
import uuid
from pathlib import Path

PREFIX = "quarry-ui-"
MAX_AGE_SECONDS = 24 * 3600
_OWNER = re.compile(re.escape(PREFIX) + r"(\d+)-")

_lock = threading.Lock()
_root: Path | None = None


def download_root() -> Path:
    """This process's folder (made on first use, after clearing away stale ones)."""
    global _root
    with _lock:
        if _root is None:
            prune_stale_roots()
            _root = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-"))
            atexit.register(shutil.rmtree, _root, ignore_errors=True)
        return _root


def _new_folder() -> Path:
    root = download_root()
    prune_old_files(root)
    folder = root / uuid.uuid4().hex
    folder.mkdir(parents=True)  # parents: the root may have been cleared away by a temp cleaner
    return folder


def write_download(content: str | bytes, filename: str) -> str:
    """Write `content` (text as UTF-8, or bytes: a PDF, a .docx) as `filename` in a folder of its own (names
    never collide) and return its path."""
    path = _new_folder() / filename
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return str(path)


def new_download_path(filename: str) -> Path:
    """A path for a file a backend writes itself (e.g. a zip of notes)."""
    return _new_folder() / filename


# ---------------------------------------------------------------- cleaning up

def prune_stale_roots(base: Path | None = None, now: float | None = None) -> list[Path]:
    """Remove quarry-ui-* folders (of this user) whose process is gone, or with nothing newer than a day.
    Returns the folders removed."""
    base = Path(base or tempfile.gettempdir())
    now = time.time() if now is None else now
    removed = []
    for path in base.glob(PREFIX + "*"):
        try:
            if path.is_symlink() or not path.is_dir() or path.stat().st_uid != os.getuid() or path == _root:
                continue
            owner = _OWNER.match(path.name)
            gone = owner is not None and not _alive(int(owner.group(1)))
            if gone or now - _newest_mtime(path) > MAX_AGE_SECONDS:
                shutil.rmtree(path, ignore_errors=True)
                removed.append(path)
        except OSError:
            continue  # removed by someone else meanwhile, or not ours to read
    return removed


def prune_old_files(root: Path, now: float | None = None) -> None:
    """Remove the entries of `root` (one folder per download) not changed for a day."""
    now = time.time() if now is None else now
    try:
        entries = list(root.iterdir())
    except OSError:
        return
    for entry in entries:
        try:
            if now - _newest_mtime(entry) <= MAX_AGE_SECONDS:
                continue
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink()
        except OSError:
            continue


def _newest_mtime(path: Path) -> float:
    newest = path.lstat().st_mtime
    if path.is_dir() and not path.is_symlink():
        for dirpath, dirnames, filenames in os.walk(path):
            for name in dirnames + filenames:
                try:
                    newest = max(newest, os.lstat(os.path.join(dirpath, name)).st_mtime)
                except OSError:
                    continue
    return newest


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True
