"""`python app.py`: help, start-up on loopback with no outside connection, --share needs --auth."""
import ast
import ipaddress
import subprocess
import sys

from Tests.support.app_process import ROOT, start_app, stop_app


def test_help_lists_subcommands():
    proc = subprocess.run([sys.executable, "app.py", "--help"], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0
    assert "check" in proc.stdout and "--share" in proc.stdout


def test_share_requires_auth():
    proc = subprocess.run([sys.executable, "app.py", "--share"], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 2 and "requires --auth" in proc.stderr


def test_ui_answers_200_and_touches_only_loopback(tmp_path):
    log = tmp_path / "net.log"
    env = {"PYTHONPATH": str(ROOT / "Tests" / "support" / "netaudit"), "QUARRY_NETAUDIT_LOG": str(log)}
    proc, url, seconds = start_app(env=env)
    try:
        assert seconds < 60
    finally:
        stop_app(proc)
    assert log.exists(), "the network audit hook did not run in the app process"
    events = [line.split("\t") for line in log.read_text().splitlines()]
    binds = [ast.literal_eval(address) for event, address in events if event == "socket.bind"]
    assert any(isinstance(b, tuple) and b[0] == "127.0.0.1" for b in binds), f"no loopback server bind: {binds}"
    for event, address in events:
        line = f"{event} {address}"
        host = ast.literal_eval(address)  # written with repr() by our own audit hook
        host = host[0] if isinstance(host, tuple) else host
        if isinstance(host, bytes):
            host = host.decode()
        if host in ("localhost", None) or str(host).startswith("/"):
            continue
        assert ipaddress.ip_address(host).is_loopback, f"connection outside loopback: {line}"
