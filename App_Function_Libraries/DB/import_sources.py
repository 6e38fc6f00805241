"""The files of a notes import, read one at a time: from a folder, a zip or a single file.

Hostile input in mind (a zip or a folder from someone else):
- every file is read in chunks and refused once more than MAX_IMPORT_FILE_BYTES have really been read (a zip
  member's declared size is checked first but not trusted), and only the file being imported is held in
  memory, never the whole archive;
- an import reads at most MAX_IMPORT_TOTAL_BYTES in all (counted as read, partial reads included): files
  after that are refused one by one, so a small zip naming one big member many times cannot fill the disk;
- a zip member that cannot be read (bad CRC, damaged data, encrypted, unknown compression) is an error for that
  member alone; the others are still read;
- a folder is walked without following symbolic links: a link (to a file or a folder, inside or outside) is
  reported, never read, and a file swapped for another between listing and reading is refused.
"""
from __future__ import annotations

import os
import stat
import time
import zipfile
import zlib
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from App_Function_Libraries.DB.connection import StoreError

MAX_IMPORT_FILE_BYTES = 50 * 1024 * 1024
MAX_IMPORT_TOTAL_BYTES = 10 * MAX_IMPORT_FILE_BYTES  # all files of one import together (Docs/notes.md)
CHUNK_BYTES = 1024 * 1024
NOTE_SUFFIXES = (".md", ".markdown", ".json")
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


class UnreadableFileError(StoreError):
    """One file of an import that cannot be read (too large, damaged, a link, ...); str() says why."""


class TooLargeError(UnreadableFileError):
    """Over `limit` bytes, found after `read` bytes were really read (0: by the size a zip member claims)."""

    def __init__(self, message: str, limit: int, read: int):
        super().__init__(message)
        self.limit, self.read = limit, read


def wanted(name: str) -> bool:
    """A note or report file by its name (not a hidden one)."""
    return name.lower().endswith(NOTE_SUFFIXES) and not PurePosixPath(name).name.startswith(".")


def read_capped(stream: BinaryIO, limit: int | None = None) -> bytes:
    """All of `stream`, read in chunks; UnreadableFileError as soon as more than `limit` bytes (by default
    MAX_IMPORT_FILE_BYTES) have come, whatever size the file or zip member claims."""
    limit = MAX_IMPORT_FILE_BYTES if limit is None else limit
    data = bytearray()
    while True:
        chunk = stream.read(min(CHUNK_BYTES, limit + 1 - len(data)))
        if not chunk:
            return bytes(data)
        data += chunk
        if len(data) > limit:
            raise too_large(limit, len(data))


def too_large(limit: int, read: int = 0) -> TooLargeError:
    return TooLargeError(f"larger than {_size(limit)}; not imported", limit, read)


def _size(limit: int) -> str:
    return f"{limit // (1024 * 1024)} MB" if limit >= 1024 * 1024 else f"{limit} bytes"


def over_total(limit: int) -> UnreadableFileError:
    return UnreadableFileError(f"over the {_size(limit)} one import may read in all; not imported "
                               "(import it on its own)")


class ImportSource:
    """names: the wanted files, as relative POSIX paths; problems: (name, why) of entries left out while
    listing; read(name) -> (bytes, mtime) raises UnreadableFileError; bytes_read: all read so far, never
    more than MAX_IMPORT_TOTAL_BYTES (+1)."""

    names: list[str]
    problems: list[tuple[str, str]]
    bytes_read: int = 0

    def read(self, name: str) -> tuple[bytes, float | None]:
        total = MAX_IMPORT_TOTAL_BYTES
        left = total - self.bytes_read
        if left <= 0:
            raise over_total(total)
        per_file = MAX_IMPORT_FILE_BYTES
        try:
            data, mtime = self._read(name, min(per_file, left))
        except TooLargeError as exc:
            self.bytes_read += exc.read
            if left >= per_file:
                raise
            raise over_total(total) from None
        self.bytes_read += len(data)
        return data, mtime

    def _read(self, name: str, limit: int) -> tuple[bytes, float | None]:
        raise NotImplementedError

    def close(self) -> None:
        pass

    def __enter__(self) -> "ImportSource":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def open_source(path: Path) -> ImportSource:
    """The folder, zip or file at `path` (StoreError when a zip's directory cannot be read at all)."""
    if path.is_dir():
        return FolderSource(path)
    if zipfile.is_zipfile(path):
        return ZipSource(path)
    return FileSource(path)


class FileSource(ImportSource):
    def __init__(self, path: Path):
        self.path, self.names, self.problems = path, [path.name], []

    def _read(self, name: str, limit: int) -> tuple[bytes, float | None]:
        flags = _OPEN_FLAGS & ~getattr(os, "O_NOFOLLOW", 0)  # the file the user named: a link is fine
        try:
            handle = os.fdopen(os.open(self.path, flags), "rb")
        except OSError as exc:
            raise UnreadableFileError(f"cannot be opened ({exc.strerror or exc})") from None
        with handle:
            now = os.fstat(handle.fileno())
            if not stat.S_ISREG(now.st_mode):
                raise UnreadableFileError("not a regular file")
            return read_capped(handle, limit), now.st_mtime


class ZipSource(ImportSource):
    def __init__(self, path: Path):
        try:
            self.archive = zipfile.ZipFile(path)
        except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError) as exc:
            raise StoreError(f"{path}: not a readable zip file ({exc})") from None
        self.infos = {i.filename: i for i in self.archive.infolist() if not i.is_dir() and wanted(i.filename)}
        self.names, self.problems = list(self.infos), []

    def _read(self, name: str, limit: int) -> tuple[bytes, float | None]:
        info = self.infos[name]
        if info.file_size > limit:
            raise too_large(limit)
        try:
            with self.archive.open(info) as member:
                data = read_capped(member, limit)
        except (zipfile.BadZipFile, zlib.error, EOFError, RuntimeError, NotImplementedError, ValueError,
                OSError) as exc:  # bad CRC, damaged data, encrypted, unsupported compression
            raise UnreadableFileError(f"cannot be read from the zip ({' '.join(str(exc).split())})") from None
        try:
            return data, time.mktime(info.date_time + (0, 0, -1))
        except (OverflowError, ValueError):
            return data, None

    def close(self) -> None:
        self.archive.close()


class FolderSource(ImportSource):
    def __init__(self, root: Path):
        self.root, self.names, self.problems = root, [], []
        self._stats: dict[str, os.stat_result] = {}
        for directory, folders, files in os.walk(root, followlinks=False):
            base = Path(directory)
            for folder in list(folders):
                if (base / folder).is_symlink():
                    self.problems.append((self._name(base / folder), "a link to a folder; not followed"))
            for file in files:
                self._add(base / file)
        self.names.sort()

    def _name(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def _add(self, path: Path) -> None:
        if not wanted(path.name):
            return
        try:
            info = os.lstat(path)
        except OSError as exc:
            self.problems.append((self._name(path), exc.strerror or str(exc)))
            return
        if stat.S_ISLNK(info.st_mode):
            self.problems.append((self._name(path), "a symbolic link; not followed"))
        elif stat.S_ISREG(info.st_mode):
            self.names.append(self._name(path))
            self._stats[self._name(path)] = info

    def _read(self, name: str, limit: int) -> tuple[bytes, float | None]:
        listed = self._stats[name]
        try:
            handle = os.fdopen(os.open(self.root / name, _OPEN_FLAGS), "rb")
        except OSError as exc:
            raise UnreadableFileError(f"cannot be opened ({exc.strerror or exc})") from None
        with handle:
            now = os.fstat(handle.fileno())
            if not stat.S_ISREG(now.st_mode) or (now.st_dev, now.st_ino) != (listed.st_dev, listed.st_ino):
                raise UnreadableFileError("was replaced while importing; not followed")
            return read_capped(handle, limit), now.st_mtime
