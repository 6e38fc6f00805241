"""Install check: does the README's install (`pip install -r requirements.txt`) stay free of the CUDA build of
torch on a standard machine?

A dry run of pip against the public index, with this machine's own pip configuration (local mirrors, caps,
find-links) left out, that fails when any nvidia-*, cuda-* or triton package would be installed. It resolves for
the interpreter and platform it runs on (Linux x86_64 is where PyPI's torch is the CUDA build). Where the public
index or a page that the requirements name cannot be reached, it says so and exits 0: there is nothing to check.

    python .ci/install_check.py [--requirements requirements.txt] [--report FILE]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

PUBLIC_INDEX = "https://pypi.org/simple/"
LOCATION_OPTIONS = ("--find-links", "-f", "--index-url", "-i", "--extra-index-url")
ROOT = Path(__file__).resolve().parent.parent


def named_locations(requirements: Path) -> list[str]:
    """The index and find-links locations a requirements file (and the files it includes with -r) names."""
    out: list[str] = []
    for raw in requirements.read_text(encoding="utf-8").splitlines():
        line = raw.split(" #")[0].strip()
        option, _, value = line.replace("=", " ", 1).partition(" ") if line.startswith("-") else ("", "", "")
        value = value.strip()
        if option in LOCATION_OPTIONS and value:
            out.append(value)
        elif option in ("-r", "--requirement") and value:
            out += named_locations(requirements.parent / value)
    return out


def unreachable(location: str, timeout: float = 15.0) -> str | None:
    """Why `location` (a URL or a local folder) cannot be read from here, or None when it can."""
    if "://" not in location or location.startswith("file:"):
        path = Path(location.removeprefix("file://"))
        return None if path.exists() else f"{location} does not exist"
    try:
        with urllib.request.urlopen(urllib.request.Request(location, method="GET"), timeout=timeout) as response:
            response.read(1)
        return None
    except urllib.error.HTTPError as exc:
        return f"{location} answers HTTP {exc.code}"
    except (urllib.error.URLError, OSError) as exc:
        return f"{location} cannot be reached ({getattr(exc, 'reason', exc)})"


def cuda_packages(report: dict) -> list[str]:
    """The packages of a pip installation report (pip install --report) that belong to a CUDA build."""
    names = [item["metadata"]["name"] for item in report.get("install", [])]
    return sorted(n for n in names if n.lower().startswith(("nvidia-", "cuda-")) or n.lower() == "triton")


def resolved_version(report: dict, name: str) -> str:
    for item in report.get("install", []):
        if item["metadata"]["name"].lower() == name:
            return item["metadata"]["version"]
    return "(not installed)"


def public_env() -> dict[str, str]:
    """The environment without this machine's pip settings: no PIP_* variables, no pip config files."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env["PIP_CONFIG_FILE"] = os.devnull  # pip then reads no configuration file at all
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def dry_run(requirements: Path, report_path: Path) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
           "--index-url", PUBLIC_INDEX, "--report", str(report_path), "-r", str(requirements)]
    return subprocess.run(cmd, env=public_env(), capture_output=True, text=True, timeout=3000, check=False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requirements", type=Path, default=ROOT / "requirements.txt")
    parser.add_argument("--report", type=Path, help="keep pip's installation report here")
    args = parser.parse_args(argv)
    for location in [PUBLIC_INDEX + "pip/"] + named_locations(args.requirements):  # one small page of the index
        problem = unreachable(location)
        if problem:
            print(f"install check: skipped, {problem}")
            return 0
    with tempfile.TemporaryDirectory() as tmp:
        report_path = args.report or Path(tmp) / "report.json"
        done = dry_run(args.requirements, report_path)
        if done.returncode != 0:
            print(f"install check: FAILED, pip could not resolve {args.requirements.name}:")
            print("\n".join((done.stderr or done.stdout).strip().splitlines()[-15:]))
            return 1
        report = json.loads(report_path.read_text(encoding="utf-8"))
    bad = cuda_packages(report)
    torch = resolved_version(report, "torch")
    if bad:
        print(f"install check: FAILED, {args.requirements.name} installs torch {torch} with {len(bad)} CUDA "
              f"packages: {', '.join(bad)}")
        return 1
    print(f"install check: ok, {args.requirements.name} installs torch {torch} and {len(report['install'])} "
          f"packages, none of them nvidia-*, cuda-* or triton")
    return 0


if __name__ == "__main__":
    sys.exit(main())
