"""Loaded by a child Python when this folder is on PYTHONPATH: records every outgoing socket connection
and DNS lookup (audit events) to the file named by QUARRY_NETAUDIT_LOG, one per line."""
import os
import sys

_log = os.environ.get("QUARRY_NETAUDIT_LOG")


def _hook(event, args):
    if event == "socket.connect":
        address = args[1]
    elif event == "socket.getaddrinfo":
        address = args[0]
    else:
        return
    with open(_log, "a", encoding="utf-8") as fh:
        fh.write(f"{event}\t{address!r}\n")


if _log:
    sys.addaudithook(_hook)
