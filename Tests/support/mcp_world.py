"""One test world for the MCP and HTTP API tests: the mini web, a config file pointing at it (no LLM, so
research is extractive), fresh databases, and the demo Wikipedia index built into it."""
from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

from Tests.support.app_process import ROOT, free_port
from Tests.support.mini_web import MiniWeb, research_config
from Tests.support.testworld import TestWorld

QUESTION = "How do honey bees communicate the location of food?"


def write_config(folder: Path, web: MiniWeb, extra: dict | None = None) -> Path:
    values = research_config(web)
    values.update({"databases": {"research_db": str(folder / "quarry.db"), "notes_db": str(folder / "quarry.db")},
                   "wikipedia": {"index_dir": str(folder / "wiki")}, "documents": {"index_dir": str(folder / "docs"),
                                                                 "kept_sources_dir": str(folder / "kept")}})
    for section, kv in (extra or {}).items():
        values.setdefault(section, {}).update(kv)
    text = "".join(f"[{s}]\n" + "".join(f"{k} = {v}\n" for k, v in kv.items()) for s, kv in values.items())
    path = folder / "config.txt"
    path.write_text(text, encoding="utf-8")
    return path


def start_world(folder: Path, demo_wiki: bool = True):
    """(world, config path); the demo encyclopedia built into the config's index_dir when demo_wiki."""
    from App_Function_Libraries import config as config_mod
    world = TestWorld().start()
    web = MiniWeb(world, timeout_delay=5).install()
    path = write_config(folder, web)
    if demo_wiki:
        from App_Function_Libraries.Wikipedia.demo import build_demo_index
        build_demo_index(settings=config_mod.load_settings(path, env={}), progress=lambda done, total: None)
    return world, path


def start_mcp_http(config: Path, host: str = "127.0.0.1", env: dict | None = None, timeout: float = 60.0):
    """`python app.py mcp --http` on a free port: (process, URL of /mcp)."""
    import os
    port = free_port()
    proc = subprocess.Popen([sys.executable, "app.py", "--config", str(config), "mcp", "--http", "--host", host,
                             "--port", str(port)], cwd=ROOT, env={**os.environ, **(env or {})},
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + timeout
    address = host.strip("[]") if host not in ("0.0.0.0", "::") else "127.0.0.1"
    authority = f"[{address}]" if ":" in address else address
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"mcp server exited with {proc.returncode}: {proc.stderr.read()[-2000:]}")
        try:
            with socket.create_connection((address, port), timeout=1):
                return proc, f"http://{authority}:{port}/mcp"
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise TimeoutError("mcp server did not listen in time")
