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


def run_and_kill(db: Path, tag: str, rng: random.Random) -> int:
    """Start the writer, let it finish a couple of saves, kill -9 it at a random moment; its last finished i."""
    proc = subprocess.Popen([sys.executable, str(WRITER), str(db), tag], stdout=subprocess.PIPE, text=True)
    try:
        finished = [int(proc.stdout.readline()) for _ in range(2)]
        time.sleep(rng.uniform(0.0, 0.15))
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        rest = proc.communicate(timeout=30)[0]
    assert proc.returncode == -signal.SIGKILL
    return max(finished + [int(line) for line in rest.split()])


def test_sigkill_mid_save_leaves_no_partial_note_or_report(tmp_path):
    db = tmp_path / "quarry.db"
    rng = random.Random(20240601)
    last_finished = {f"r{round_}": run_and_kill(db, f"r{round_}", rng) for round_ in range(4)}

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
