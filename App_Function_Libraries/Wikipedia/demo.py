"""The demo encyclopedia shipped with Quarry: a few hundred short passages the team wrote, so the Wikipedia
tab works on first run without downloading anything."""
from __future__ import annotations

from pathlib import Path

from App_Function_Libraries.Wikipedia.builder import BuildReport, Progress, build_index
from App_Function_Libraries.Wikipedia.layout import (BuildInputError, IndexCorrupt, Manifest, index_files_in,
                                                     is_quarry_index)

DEMO_CORPUS = Path(__file__).resolve().parent / "demo_corpus" / "encyclopedia.jsonl"


def is_demo_index(folder: Path) -> bool:
    """Whether folder holds a demo index (the manifest says so; older manifests name the demo corpus)."""
    if not is_quarry_index(folder):
        return False
    try:
        manifest = Manifest.load(folder)
    except IndexCorrupt:
        return False
    return manifest.demo or Path(manifest.source).parts[-2:] == DEMO_CORPUS.parts[-2:]


def demo_may_replace(out: Path, force: bool) -> bool:
    """The `force` to build the demo into `out` with: an earlier demo index is replaced without asking; any
    other index only with force (BuildInputError otherwise)."""
    existing = index_files_in(out)
    if force or not existing:
        return force
    if is_demo_index(out):
        return True
    raise BuildInputError(f"{out} holds an index that is not the demo encyclopedia ({', '.join(existing)}); "
                          f"pass --force to replace it, or build the demo elsewhere with --out DIR")


def build_demo_index(out_dir=None, progress: Progress | None = None, settings=None, force: bool = False) -> BuildReport:
    """Build (or rebuild) the demo index with the configured embedding model; default folder: index_dir.
    An index other than the demo is replaced only with force."""
    from App_Function_Libraries.Retrieval.embeddings import get_embedder
    from App_Function_Libraries.Wikipedia.index import forget_wiki_index
    if settings is None:
        from App_Function_Libraries.config import get_settings
        settings = get_settings()
    out = Path(out_dir) if out_dir else settings.resolve_path(settings.wikipedia.index_dir)
    force = demo_may_replace(out, force)
    forget_wiki_index(settings)
    return build_index(DEMO_CORPUS, out, get_embedder(settings), fmt="jsonl", force=force, progress=progress,
                       demo=True)
