"""The facade's two exceptions: every failure a caller can act on leaves `quarry` as one of them, carrying the
one-line message the CLI prints (the MCP server and the HTTP API show the same line)."""
from __future__ import annotations

import sqlite3


from App_Function_Libraries.errors import QuarryError  # noqa: F401 - the one base: re-exported for callers


class BadArgument(QuarryError, ValueError):
    """An argument the caller gave is wrong; `argument` names it (None when the fault spans several)."""

    def __init__(self, argument: str | None, reason: str) -> None:
        self.argument, self.reason = argument, reason
        super().__init__(f"{argument} {reason}" if argument else reason)

    def cli_text(self) -> str:
        """The message with the argument spelled as a command-line option (pages -> --pages)."""
        return f"--{self.argument.replace('_', '-')} {self.reason}" if self.argument else self.reason


def one_line(exc: BaseException) -> str:
    """An exception as one line (messages from servers and files may hold newlines)."""
    return " ".join(str(exc).split()) or type(exc).__name__


def database_message(exc: sqlite3.DatabaseError) -> str:
    return f"the database could not be used ({one_line(exc)})"
