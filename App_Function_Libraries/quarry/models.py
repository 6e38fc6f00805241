"""The models Quarry loads on first use, loaded ahead of it where a front door wants them ready (the UI warms the
embedding model while the page opens)."""
from __future__ import annotations

from App_Function_Libraries.quarry._common import settings_or_current


def load_embedder(settings=None) -> None:
    """Load the configured embedding model into the process's cache (the one every search and run uses);
    QuarryError (an EmbeddingError) when it cannot be loaded."""
    from App_Function_Libraries.Retrieval.embeddings import get_embedder
    get_embedder(settings_or_current(settings)).load()
