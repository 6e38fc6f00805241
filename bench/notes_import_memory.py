"""Peak memory of importing hostile notes zips (a zip bomb made of members just under the size cap, and a
member that claims a small size but holds far more), each imported in a fresh interpreter.

    python bench/notes_import_memory.py [--members 24] [--member-mb 49] [--work DIR]
Prints, per zip: its size, the summary line, and the peak resident memory (VmHWM, Linux) after the imports
and at the end of the import (MiB). Last line:
notes_import_memory: bomb_zip=<MiB> bomb_peak_over_base=<MiB> liar_zip=<MiB> liar_peak_over_base=<MiB>
"""
from __future__ import annotations

import argparse
import json
import struct
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = """
import json, sys, time
sys.path.insert(0, sys.argv[1])


def hwm_mib():  # this process's peak resident memory (VmHWM: not inherited across exec, unlike ru_maxrss)
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024


from App_Function_Libraries.DB.notes_io import import_notes
from App_Function_Libraries.DB.notes_store import NotesStore
store = NotesStore(sys.argv[3])
store.count_notes()
base = hwm_mib()
t = time.perf_counter()
try:
    line = import_notes(store, sys.argv[2]).line()
except BaseException as exc:
    line = f"raised {type(exc).__name__}: {' '.join(str(exc).split())[:120]}"
peak = hwm_mib()
print(json.dumps({"base_mib": base, "peak_mib": peak, "seconds": time.perf_counter() - t, "line": line}))
"""


def bomb_zip(path: Path, members: int, member_mb: int) -> None:
    """`members` .json members of `member_mb` MiB each (spaces, then one bad byte: read whole, then refused)."""
    body = b" " * (member_mb * 1024 * 1024 - 1) + b"x"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("notes/good.md", "---\ntitle: \"Good\"\n---\nThe good note.\n")
        for i in range(members):
            archive.writestr(f"notes/bomb-{i:03d}.json", body)


def liar_zip(path: Path, real_mb: int) -> None:
    """One member declaring 1 KiB that holds `real_mb` MiB (sizes in both headers patched), and a good one."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        archive.writestr("notes/good.md", "---\ntitle: \"Good\"\n---\nThe good note.\n")
        with archive.open("notes/liar.md", "w") as member:
            for _ in range(real_mb):
                member.write(b"a" * (1024 * 1024))
    data = bytearray(path.read_bytes())
    for signature, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):  # uncompressed size field
        start = 0
        while (start := data.find(signature, start)) >= 0:
            name_at = start + (30 if signature == b"PK\x03\x04" else 46)
            if data[name_at:name_at + len(b"notes/liar.md")] == b"notes/liar.md":
                data[start + offset:start + offset + 4] = struct.pack("<I", 1024)
            start += 4
    path.write_bytes(bytes(data))


def measure(zip_path: Path, db: Path) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, str(ROOT), str(zip_path), str(db)], capture_output=True,
                         text=True, check=True, timeout=1800)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--members", type=int, default=24)
    parser.add_argument("--member-mb", type=int, default=49)
    parser.add_argument("--liar-mb", type=int, default=1024)
    parser.add_argument("--work", type=Path, default=None)
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="quarry-notes-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    results = {}
    for name, build in (("bomb", lambda p: bomb_zip(p, args.members, args.member_mb)),
                        ("liar", lambda p: liar_zip(p, args.liar_mb))):
        path = work / f"{name}.zip"
        build(path)
        r = measure(path, work / f"{name}.db")
        size = path.stat().st_size / 2 ** 20
        print(f"{name}: zip {size:.2f} MiB; {r['line']}; RSS base {r['base_mib']:.0f} MiB, peak "
              f"{r['peak_mib']:.0f} MiB ({r['peak_mib'] - r['base_mib']:+.0f}); {r['seconds']:.1f} s")
        results[name] = (size, r["peak_mib"] - r["base_mib"])
    print("notes_import_memory: " + " ".join(f"{k}_zip={v[0]:.2f} {k}_peak_over_base={v[1]:.0f}"
                                            for k, v in results.items()))


if __name__ == "__main__":
    main()
