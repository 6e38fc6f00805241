"""Functions the tests run in a parse worker (App_Function_Libraries/parse_sandbox.py): they must be importable
by name in the worker process."""
from __future__ import annotations

import os
from pathlib import Path


def spin(pid_file: str) -> None:
    """Write this process's id, then burn CPU for ever (a parser that never returns)."""
    Path(pid_file).write_text(str(os.getpid()), encoding="utf-8")
    n = 0
    while True:
        n += 1


def hold_memory(megabytes: int) -> int:
    """Allocate and touch that many MB; returns the number of MB held."""
    blocks = [bytearray(2 ** 20) for _ in range(megabytes)]
    return len(blocks)


_KEPT: list[bytearray] = []


def keep_memory(megabytes: int) -> int:
    """Allocate, touch and keep that many MB in the worker (a parser that leaves its heap grown); returns the
    worker's process id."""
    _KEPT.extend(bytearray(b"x" * 2 ** 20) for _ in range(megabytes))
    return os.getpid()


def pid() -> int:
    return os.getpid()


def fail(message: str) -> None:
    raise ValueError(message)


def exhaust_then_fail() -> None:
    """Allocate 1 MB blocks until the memory cap stops it, then fail with some other error, as a C library
    whose malloc failed does (fontconfig under a PDF renderer: "SystemError: error return without exception
    set")."""
    blocks = []
    try:
        while True:
            blocks.append(bytearray(2 ** 20))
    except MemoryError:
        pass
    blocks.clear()
    raise SystemError("error return without exception set")


def fail_system(message: str) -> None:
    raise SystemError(message)
