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


@pytest.mark.parametrize("header, sent", [(b"Bearer abc", b"abc"), (b"bearer abc", b"abc"), (b"BEARER abc", b"abc"),
                                          (b"BeArEr   abc ", b"abc"), (b"Basic abc", b""), (b"Bearerabc", b""),
                                          (b"", b""), (b"Bearer", b"")])
def test_the_bearer_scheme_is_matched_without_regard_to_case(header, sent):
    from App_Function_Libraries.MCP.server import bearer_token
    assert bearer_token(header) == sent


def test_a_lower_case_bearer_scheme_is_accepted(config):
    proc, url = start_mcp_http(config, env={"QUARRY_MCP_TOKEN": TOKEN})
    try:
        probe = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        headers = {"Accept": "application/json, text/event-stream"}
        basic = httpx.post(url, json=probe, headers={**headers, "Authorization": f"Basic {TOKEN}"}, timeout=10)
        assert basic.status_code == 401

        async def with_token(scheme):
            async with httpx2.AsyncClient(headers={"Authorization": f"{scheme} {TOKEN}"}, timeout=30) as http:
                async with Client(streamable_http_client(url, http_client=http)) as client:
                    return {t.name for t in (await client.list_tools()).tools}
        assert "research" in asyncio.run(with_token("bearer"))
        assert "research" in asyncio.run(with_token("BEARER"))
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.mark.parametrize("host", ["127.0.0.2", "::1"])
def test_without_a_token_any_loopback_address_refuses_rebinding(config, host):
    """A DNS-rebound page names its own host (and origin); the server on 127.0.0.2 or ::1 refuses it."""
    proc, url = start_mcp_http(config, host=host, env={"QUARRY_MCP_TOKEN": ""})
    try:
        port = url.rsplit(":", 1)[1].split("/")[0]
        probe = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "page", "version": "1"}}}
        headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
        rebound = httpx.post(url, json=probe, headers={**headers, "Host": f"evil.example:{port}"}, timeout=10)
        assert rebound.status_code == 421, (rebound.status_code, rebound.text[:200])
        cross = httpx.post(url, json=probe, headers={**headers, "Origin": "http://evil.example"}, timeout=10)
        assert cross.status_code == 403, (cross.status_code, cross.text[:200])

        async def tools():
            async with Client(url) as client:  # its own address in Host: served
                return {t.name for t in (await client.list_tools()).tools}
        assert "research" in asyncio.run(tools())
        own_origin = httpx.post(url, json=probe, headers={**headers, "Origin": url.rsplit("/", 1)[0]}, timeout=10)
        assert own_origin.status_code == 200, own_origin.text[:200]
    finally:
        proc.terminate()
        proc.wait(10)
    assert proc.poll() is not None
