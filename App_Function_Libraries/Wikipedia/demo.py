"""The demo encyclopedia shipped with Quarry: a few hundred short passages the team wrote, so the Wikipedia
tab works on first run without downloading anything."""
from __future__ import annotations

from pathlib import Path

from App_Function_Libraries.Wikipedia.builder import BuildReport, Progress, build_index

DEMO_CORPUS = Path(__file__).resolve().parent / "demo_corpus" / "encyclopedia.jsonl"


def build_demo_index(out_dir=None, progress: Progress | None = None, settings=None) -> BuildReport:
    """Build (or rebuild) the demo index with the configured embedding model; default folder: index_dir."""
    from App_Function_Libraries.Retrieval.embeddings import get_embedder
    from App_Function_Libraries.Wikipedia.index import forget_wiki_index
    if settings is None:
        from App_Function_Libraries.config import get_settings
        settings = get_settings()
    out = Path(out_dir) if out_dir else settings.resolve_path(settings.wikipedia.index_dir)
    forget_wiki_index(settings)
    return build_index(DEMO_CORPUS, out, get_embedder(settings), fmt="jsonl", force=True, progress=progress)
