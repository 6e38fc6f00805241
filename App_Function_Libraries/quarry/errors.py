"""The facade's two exceptions: every failure a caller can act on leaves `quarry` as one of them, carrying the
one-line message the CLI prints (the MCP server and the HTTP API show the same line)."""
from __future__ import annotations

import sqlite3


from App_Function_Libraries.errors import QuarryError  # noqa: F401 - the one base: re-exported for callers
# a wrong argument or option (`argument` names it): declared beside the options so the core raises the same one
from App_Function_Libraries.options import BadArgument  # noqa: F401


def one_line(exc: BaseException) -> str:
    """An exception as one line (messages from servers and files may hold newlines)."""
    return " ".join(str(exc).split()) or type(exc).__name__


def database_message(exc: sqlite3.DatabaseError) -> str:
    return f"the database could not be used ({one_line(exc)})"
