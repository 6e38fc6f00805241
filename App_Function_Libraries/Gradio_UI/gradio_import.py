"""Gradio without its stub writer, for a faster start.

Every `import gradio` re-reads the source of each of its ~80 component classes with `ast` and rewrites a `.pyi`
type stub beside it in site-packages (`gradio.component_meta.create_or_modify_pyi`, a tool for Gradio's own
developers). That is about 1.5 s of a 4 s import on a laptop-class CPU, and writes into the installed package.
`skip_stub_writing()` installs an import hook that, once `gradio.component_meta` has loaded, replaces that one
function with a no-op; everything else in Gradio is untouched. Call it before the first `import gradio` (the
package's `__init__` does). If a Gradio release renames the function, the hook changes nothing.
"""
from __future__ import annotations

import importlib.abc
import importlib.util
import sys

MODULE = "gradio.component_meta"
FUNCTION = "create_or_modify_pyi"


def _no_stubs(*_args, **_kwargs) -> None:
    return None


class _SkipStubWriting(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != MODULE:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        load = spec.loader.exec_module

        def exec_module(module) -> None:
            load(module)
            if callable(getattr(module, FUNCTION, None)):
                setattr(module, FUNCTION, _no_stubs)

        spec.loader.exec_module = exec_module
        return spec


def skip_stub_writing() -> None:
    """Idempotent; does nothing once Gradio is already imported."""
    if MODULE in sys.modules or any(isinstance(f, _SkipStubWriting) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, _SkipStubWriting())
