"""Start `python app.py` as a child process on a free port and wait for its first HTTP 200."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_app(args: list[str] | None = None, env: dict | None = None, port: int | None = None,
              timeout: float = 60.0, root: Path = ROOT) -> tuple[subprocess.Popen, str, float]:
    """Returns (process, base URL, seconds until the first HTTP 200). `root`: the checkout whose app.py runs
    (a benchmark compares another one)."""
    port = port or free_port()
    full_env = {**os.environ, "GRADIO_ANALYTICS_ENABLED": "False", **(env or {})}
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "app.py", "--port", str(port), *(args or [])], cwd=root,
                            env=full_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}/"
    while time.perf_counter() - t0 < timeout:
        if proc.poll() is not None:
            raise RuntimeError(f"app exited with {proc.returncode}: {proc.stdout.read()[-2000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:
                if resp.status == 200:
                    return proc, url, time.perf_counter() - t0
        except OSError:
            time.sleep(0.05)
    stop_app(proc)
    raise TimeoutError(f"app did not answer on {url} within {timeout} s")


def stop_app(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
