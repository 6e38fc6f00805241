"""One base for the errors meant for the user: errors.QuarryError. The UI shows such an error's own message and
calls anything else unexpected; it decides by type, not by the module an exception happens to live in."""
from __future__ import annotations

import importlib
import pkgutil

import App_Function_Libraries
from App_Function_Libraries.errors import QuarryError


def project_exceptions() -> list[type]:
    """Every exception class defined in App_Function_Libraries (all of its modules imported)."""
    found = {}
    for info in pkgutil.walk_packages(App_Function_Libraries.__path__, App_Function_Libraries.__name__ + "."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if (isinstance(value, type) and issubclass(value, BaseException)
                    and value.__module__.startswith(App_Function_Libraries.__name__)):
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return [found[name] for name in sorted(found)]


def test_every_error_the_project_defines_is_a_quarry_error():
    classes = project_exceptions()
    assert len(classes) > 30  # the walk really found them (LLM, search, store, documents, wiki, fetch…)
    assert [f"{c.__module__}.{c.__qualname__}" for c in classes if not issubclass(c, QuarryError)] == []


def test_roots_keep_the_builtin_bases_callers_catch():
    from App_Function_Libraries.config import ConfigError
    from App_Function_Libraries.Retrieval.embeddings import EmbeddingError
    from App_Function_Libraries.Wikipedia.layout import WikiIndexError
    assert issubclass(ConfigError, ValueError) and issubclass(EmbeddingError, RuntimeError)
    assert issubclass(WikiIndexError, RuntimeError)


class OutsideError(QuarryError):
    """A user-facing error defined outside the package (a plug-in, a test): still ours by type."""


class Broken(RuntimeError):
    pass


def test_the_ui_shows_a_quarry_errors_message_as_it_is_and_names_anything_else():
    from App_Function_Libraries.Gradio_UI.ui_common import short_message
    assert short_message(OutsideError("the index is missing: run `app.py wiki build`")) == (
        "the index is missing: run `app.py wiki build`")
    assert short_message(Broken("x is None")) == "unexpected Broken: x is None"
