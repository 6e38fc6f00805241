"""Loaded by a child Python when this folder is on PYTHONPATH: records every outgoing socket connection,
DNS lookup and bound address (audit events) to the file named by QUARRY_NETAUDIT_LOG, one per line. The
bind of the app's own server shows that the hook ran, so an empty log cannot pass for a clean one."""
import os
import sys

_log = os.environ.get("QUARRY_NETAUDIT_LOG")


def _hook(event, args):
    if event in ("socket.connect", "socket.bind"):
        address = args[1]
    elif event == "socket.getaddrinfo":
        address = args[0]
    else:
        return
    with open(_log, "a", encoding="utf-8") as fh:
        fh.write(f"{event}\t{address!r}\n")


if _log:
    sys.addaudithook(_hook)
