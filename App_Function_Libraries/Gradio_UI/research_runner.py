"""Running a research pipeline call in a worker thread and streaming its progress to a Gradio generator.

    for update in stream_run(lambda on_progress, cancel, on_delta: process_question(...)):
        ...  # update.board (stage progress), update.partial (report text so far), then update.result

`cancel_run(run_id)` sets the run's cancel event: the pipeline stops promptly and returns what it has done.
Closing the page closes the generator, which cancels the run too, so no work outlives its viewer.
"""
from __future__ import annotations

import queue
import threading
import uuid
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from App_Function_Libraries.Gradio_UI.web_search_view import StageBoard

POLL_SECONDS = 0.25
Work = Callable[[Callable[[Any], None], threading.Event, Callable[[str], None]], Any]

_runs: dict[str, threading.Event] = {}
_runs_lock = threading.Lock()


@dataclass
class RunUpdate:
    run_id: str
    board: StageBoard
    partial: str  # the report as streamed so far (LLM mode)
    cancelled: bool
    result: Any = None  # set on the last update when the work returned
    error: BaseException | None = None  # set on the last update when it raised
    final: bool = False


def cancel_run(run_id: str | None) -> bool:
    """Ask a running search to stop; False when there is no such run (it already finished)."""
    with _runs_lock:
        event = _runs.get(run_id or "")
    if event is None:
        return False
    event.set()
    return True


def stream_run(work: Work, poll: float = POLL_SECONDS) -> Iterator[RunUpdate]:
    """Start `work(on_progress, cancel, on_delta)` in a thread; yield an update whenever something changed,
    then one final update carrying the result or the error."""
    run_id, cancel = uuid.uuid4().hex, threading.Event()
    events: queue.Queue = queue.Queue()
    deltas: list[str] = []
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["result"] = work(events.put, cancel, deltas.append)
        except BaseException as exc:  # noqa: BLE001 - handed to the generator, shown as one line
            box["error"] = exc

    with _runs_lock:
        _runs[run_id] = cancel
    thread = threading.Thread(target=target, name=f"research-{run_id[:8]}", daemon=True)
    board = StageBoard()
    try:
        thread.start()
        yield RunUpdate(run_id, board, "", False)
        seen_deltas = 0
        while True:
            alive = thread.is_alive()
            changed = _drain(events, board)
            if changed or len(deltas) != seen_deltas:
                seen_deltas = len(deltas)
                yield RunUpdate(run_id, board, "".join(deltas), cancel.is_set())
            if not alive:
                break
            thread.join(poll)
        yield RunUpdate(run_id, board, "".join(deltas), cancel.is_set(), box.get("result"), box.get("error"),
                        final=True)
    finally:
        cancel.set()  # the viewer left (or the run ended): nothing keeps working
        with _runs_lock:
            _runs.pop(run_id, None)


def _drain(events: queue.Queue, board: StageBoard) -> bool:
    changed = False
    while True:
        try:
            board.apply(events.get_nowait())
        except queue.Empty:
            return changed
        changed = True
