"""Helpers every tab shares: the current settings, and errors turned into short messages for the user.

A callback wrapped with `@user_errors` never shows a traceback: an expected failure (bad input, a store or
config error, an unreachable service) becomes a one-line gr.Warning and the outputs stay as they were; an
unexpected one is logged in full on the terminal and the user sees its kind in one line.
"""
from __future__ import annotations

import functools
import html
import inspect
import logging
from typing import Any, Callable

import gradio as gr

from App_Function_Libraries.errors import QuarryError

log = logging.getLogger("quarry.ui")

MAX_MESSAGE_CHARS = 300


def current_settings():
    """The settings as they are now (the Settings tab may have reloaded them since the UI was built)."""
    from App_Function_Libraries.config import get_settings
    return get_settings()


def short_message(exc: BaseException) -> str:
    """An exception as one line a user can act on (its own message for our typed errors)."""
    from App_Function_Libraries.quarry.render import database_file_error
    text = " ".join(str(exc).split()) or type(exc).__name__
    if database_file_error(exc) and not _is_ours(exc):
        text = f"a database file could not be used ({text}); see the terminal for which one"
    elif not _is_expected(exc):
        text = f"unexpected {type(exc).__name__}: {text}"
    return text if len(text) <= MAX_MESSAGE_CHARS else text[:MAX_MESSAGE_CHARS - 1] + "…"


def _is_expected(exc: BaseException) -> bool:
    """Errors whose message is written for the user: our typed errors, bad values, I/O and network."""
    if isinstance(exc, (ValueError, OSError, TimeoutError, LookupError)):
        return not isinstance(exc, (KeyError, IndexError))
    return _is_ours(exc)


def _is_ours(exc: BaseException) -> bool:
    """An error Quarry raised for the user (errors.QuarryError): its message is shown as it is."""
    return isinstance(exc, QuarryError)


def toast_text(text: str) -> str:
    """Text for gr.Info/gr.Warning, which render their message as HTML: an error can quote what a server or a
    page sent (an `<img>` there would be loaded), so it is shown as text."""
    return html.escape(text, quote=False)


def warn(exc: BaseException) -> None:
    if not _is_expected(exc):
        log.exception("UI callback failed", exc_info=exc)
    gr.Warning(toast_text(short_message(exc)))


def user_errors(fn: Callable) -> Callable:
    """Wrap a Gradio callback (function or generator) so that errors become a short warning.

    A failing function leaves every output unchanged (gr.skip()); a failing generator stops after what it
    has already shown."""
    if inspect.isgeneratorfunction(fn):
        @functools.wraps(fn)
        def gen_wrapper(*args, **kwargs):
            try:
                yield from fn(*args, **kwargs)
            except gr.Error:
                raise
            except Exception as exc:  # noqa: BLE001 - the edge where errors become messages
                warn(exc)
        return gen_wrapper

    @functools.wraps(fn)
    def wrapper(*args, **kwargs) -> Any:
        try:
            return fn(*args, **kwargs)
        except gr.Error:
            raise
        except Exception as exc:  # noqa: BLE001 - the edge where errors become messages
            warn(exc)
            return gr.skip()
    return wrapper


def one_line(text: Any, limit: int = 200) -> str:
    text = " ".join(str(text or "").split())
    return text if len(text) <= limit else text[:limit - 1] + "…"
