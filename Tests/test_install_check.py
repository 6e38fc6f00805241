"""The README's install takes the CPU build of torch, and .ci/install_check.py (which CI runs) proves it against
the public index: it fails on a resolution with CUDA packages and skips cleanly where the index is unreachable."""
from __future__ import annotations

import importlib.util
import socket
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent
TORCH_PAGE = "https://download.pytorch.org/whl/cpu/torch/"


def install_check():
    spec = importlib.util.spec_from_file_location("install_check", ROOT / ".ci" / "install_check.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def torch_pins(platform: str) -> list[str]:
    lines = (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines()
    reqs = [Requirement(line) for line in lines if line.strip() and not line.startswith(("#", "-"))]
    env = {"sys_platform": platform, "platform_system": {"linux": "Linux", "darwin": "Darwin"}[platform]}
    return [str(r.specifier) for r in reqs if r.name == "torch" and (r.marker is None or r.marker.evaluate(env))]


def test_requirements_pin_the_cpu_build_of_torch_from_pytorchs_page():
    assert torch_pins("linux") == ["==2.13.0+cpu"]  # PyPI's plain 2.13.0 on Linux is the CUDA build
    assert torch_pins("darwin") == ["==2.13.0"]  # macOS wheels are CPU builds, named without +cpu
    assert install_check().named_locations(ROOT / "requirements-dev.txt") == [TORCH_PAGE]  # through -r


def test_a_resolution_with_cuda_packages_fails_and_a_cpu_one_passes():
    check = install_check()

    def report(*names):
        return {"install": [{"metadata": {"name": n, "version": "1"}} for n in names]}
    assert check.cuda_packages(report("torch", "nvidia-cublas", "triton", "cuda-toolkit", "numpy")) == [
        "cuda-toolkit", "nvidia-cublas", "triton"]
    assert check.cuda_packages(report("torch", "numpy", "sympy", "tritonclient")) == []


def test_an_unreachable_index_is_skipped_with_a_clear_line(tmp_path, capsys, monkeypatch):
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{s.getsockname()[1]}/"
    check = install_check()
    monkeypatch.setattr(check, "PUBLIC_INDEX", closed)
    assert check.main(["--requirements", str(ROOT / "requirements.txt")]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"install check: skipped, {closed}pip/ cannot be reached"), out


def test_the_check_reads_no_pip_configuration_of_this_machine(monkeypatch):
    """The local wheel mirror (PIP_FIND_LINKS, pip.conf) would hide the CUDA build: the dry run leaves it out."""
    import os
    monkeypatch.setenv("PIP_FIND_LINKS", "/opt/wheels")
    env = install_check().public_env()
    assert not any(k.startswith("PIP_") and k not in ("PIP_CONFIG_FILE", "PIP_DISABLE_PIP_VERSION_CHECK") for k in env)
    assert env["PIP_CONFIG_FILE"] == os.devnull
