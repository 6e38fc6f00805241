"""A writer process killed with SIGKILL in the middle of saving leaves a sound database with no partial saves."""
from __future__ import annotations

import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from App_Function_Libraries.DB.connection import close_thread_connections
from App_Function_Libraries.DB.notes_store import NotesStore

WRITER = Path(__file__).resolve().parent / "support" / "db_crash_writer.py"

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL (POSIX)")


def run_and_kill(db: Path, tags: list[str], rng: random.Random) -> dict[str, int]:
    """Start one writer per tag (all at once, on the same file), let each finish a couple of saves, then kill -9
    them one by one at random moments. Returns each writer's last finished save."""
    procs = {tag: subprocess.Popen([sys.executable, str(WRITER), str(db), tag], stdout=subprocess.PIPE, text=True)
             for tag in tags}
    finished: dict[str, list[int]] = {}
    try:
        for tag, proc in procs.items():
            finished[tag] = [int(proc.stdout.readline()) for _ in range(2)]
        for proc in procs.values():
            time.sleep(rng.uniform(0.0, 0.15))
            os.kill(proc.pid, signal.SIGKILL)
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                os.kill(proc.pid, signal.SIGKILL)
    last = {}
    for tag, proc in procs.items():
        rest = proc.communicate(timeout=30)[0]
        assert proc.returncode == -signal.SIGKILL
        last[tag] = max(finished[tag] + [int(line) for line in rest.split()])
    return last


def test_sigkill_mid_save_leaves_no_partial_note_or_report(tmp_path):
    db = tmp_path / "quarry.db"
    last_finished = run_and_kill(db, ["a", "b", "c", "d"], random.Random(20240601))

    conn = sqlite3.connect(str(db))
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert conn.execute("PRAGMA foreign_key_check").fetchall() == []

    reports = conn.execute("SELECT s.id, s.question, r.source_count, r.citation_count, length(r.markdown) "
                           "FROM searches s LEFT JOIN reports r ON r.id = s.id").fetchall()
    for report_id, question, sources, citations, markdown_length in reports:
        i = int(question.split()[-1])
        assert sources == 3 + i % 7, f"{question}: report row missing or wrong"
        assert conn.execute("SELECT count(*) FROM results WHERE search_id = ?", [report_id]).fetchone()[0] == sources
        assert conn.execute("SELECT count(*) FROM citations WHERE report_id = ?", [report_id]).fetchone()[0] \
            == citations == sources
        assert markdown_length == len("report words " * 1500)
    assert conn.execute("SELECT count(*) FROM results WHERE search_id NOT IN (SELECT id FROM searches)"
                        ).fetchone()[0] == 0

    store = NotesStore(db)
    store.check_index()
    notes = store.all_notes()
    for note in notes:
        tag, i = re.fullmatch(r"note (\w+) (\d+)", note.title).groups()
        assert len(note.keywords) == 1 + int(i) % 4
        assert note.content == f"marker{tag}x{i} " + "body text " * 2500
        assert [h.note.id for h in store.search_notes(f'"marker{tag}x{i}"')] == [note.id]
    for tag, last in last_finished.items():  # every save reported finished is there
        titles = {n.title for n in notes if n.title.startswith(f"note {tag} ")}
        assert {f"note {tag} {i}" for i in range(last + 1)} <= titles
    close_thread_connections()
