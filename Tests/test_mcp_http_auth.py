"""The MCP HTTP server's guard: no listening beyond loopback without a token; a token, once set, is required
(no header or a wrong one: 401; the right one: the tools answer)."""
from __future__ import annotations

import asyncio
import subprocess
import sys

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from Tests.support.app_process import ROOT
from Tests.support.mcp_world import start_mcp_http

TOKEN = "s3cret-token-for-the-test-0123456789"


@pytest.fixture
def config(tmp_path):
    path = tmp_path / "config.txt"
    path.write_text(f"[databases]\nresearch_db = {tmp_path / 'q.db'}\nnotes_db = {tmp_path / 'q.db'}\n"
                    "[llm]\nprovider = none\n", encoding="utf-8")
    return path


def test_a_non_loopback_bind_without_a_token_is_refused(config):
    done = subprocess.run([sys.executable, "app.py", "--config", str(config), "mcp", "--http", "--host", "0.0.0.0",
                           "--port", "1"], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          env={"PATH": "", "QUARRY_MCP_TOKEN": ""})
    assert done.returncode == 2
    assert done.stderr.strip() == ("mcp: refusing to listen on 0.0.0.0 without a token: set [mcp] token (or "
                                   "QUARRY_MCP_TOKEN), or listen on 127.0.0.1")


def test_a_short_token_is_a_config_error(config):
    done = subprocess.run([sys.executable, "app.py", "--config", str(config), "mcp", "--http"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60, env={"QUARRY_MCP_TOKEN": "zq9-tiny"})
    assert done.returncode == 2 and "[mcp] token" in done.stderr and "at least 16 characters" in done.stderr
    assert "zq9-tiny" not in done.stderr  # a secret's value is never echoed


def test_requests_need_the_bearer_token(config):
    proc, url = start_mcp_http(config, env={"QUARRY_MCP_TOKEN": TOKEN})
    try:
        probe = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        headers = {"Accept": "application/json, text/event-stream"}
        assert httpx.post(url, json=probe, headers=headers, timeout=10).status_code == 401
        wrong = httpx.post(url, json=probe, headers={**headers, "Authorization": f"Bearer {TOKEN}x"}, timeout=10)
        assert wrong.status_code == 401 and TOKEN not in wrong.text

        async def with_token():
            async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30) as http:
                async with Client(streamable_http_client(url, http_client=http)) as client:
                    return {t.name for t in (await client.list_tools()).tools}
        assert "research" in asyncio.run(with_token())
    finally:
        proc.terminate()
        proc.wait(10)
