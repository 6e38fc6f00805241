"""The one base of every error meant for the user.

An error that derives from QuarryError has a message written for a person: `str(exc)` is one line they can
act on (what went wrong, and what to do about it where that is known). The front doors (the UI's warnings,
the CLI's error lines) show such a message as it is; any other exception is a bug, shown with its type and
logged in full. Bottom layer: imports nothing from the project."""
from __future__ import annotations


class QuarryError(Exception):
    """An expected failure whose str() is one line a person can act on."""
