"""`finishes_within(seconds, fn)`: run fn in a thread and fail the test when it has not returned in time, so a
regression that hangs (a lost exception, a wait that never ends) fails instead of hanging the whole suite."""
from __future__ import annotations

import threading
from typing import Any, Callable


def finishes_within(seconds: float, fn: Callable[[], Any]) -> Any:
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - re-raised in the test's thread below
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True, name="finishes-within")
    thread.start()
    thread.join(seconds)
    if "error" in box:
        raise box["error"]
    assert "value" in box, f"still running after {seconds:g} s (hung?)"
    return box["value"]
