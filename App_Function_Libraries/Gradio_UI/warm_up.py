"""Work the UI starts in the background when it opens, so the first research does not wait for it: the
embedding model (a few seconds to load; the relevance check, ranking and the extractive brief use it).

A daemon thread: it never delays the page or keeps the process alive, and a model that cannot load is left
to the run that needs it, which says so in its notes.
"""
from __future__ import annotations

import logging
import threading

log = logging.getLogger("quarry.ui")


def load_embedder(settings) -> None:
    from App_Function_Libraries import quarry
    try:
        quarry.models.load_embedder(settings)
    except Exception as exc:  # noqa: BLE001 - the run that needs the model reports it
        log.warning("the embedding model could not be loaded in the background: %s", exc)


def start_warm_up(settings) -> threading.Thread | None:
    """Load the embedding model in a daemon thread (None when embeddings are turned off)."""
    if not settings.research.use_embeddings:
        return None
    thread = threading.Thread(target=load_embedder, args=(settings,), name="embedder-warm-up", daemon=True)
    thread.start()
    return thread
