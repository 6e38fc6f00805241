"""No two modules of App_Function_Libraries import each other, directly or round a longer loop (lazy imports
inside functions count: they are dependencies too, and they were how DB/export.py and DB/notes_io.py hid theirs)."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PKG = "App_Function_Libraries"


def module_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """module -> the modules of the package it imports (lazy imports included)."""
    mods = {".".join(p.relative_to(root).with_suffix("").parts).removesuffix(".__init__"): p
            for p in sorted((root / PKG).rglob("*.py"))}
    graph: dict[str, set[str]] = {name: set() for name in mods}
    for name, path in mods.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in mods else node.module
                           for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            graph[name] |= {t for t in targets if t in mods and t != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[str]:
    done: set[str] = set()
    found: list[str] = []

    def visit(node: str, path: list[str]) -> None:
        if node in path:
            found.append(" -> ".join(path[path.index(node):] + [node]))
            return
        if node in done:
            return
        for nxt in sorted(graph[node]):
            visit(nxt, path + [node])
        done.add(node)

    for start in sorted(graph):
        visit(start, [])
    return found


def test_no_two_modules_import_each_other():
    assert cycles(module_graph()) == []


def test_a_loop_is_found():
    """Control: a -> b -> c -> a is reported."""
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a -> b -> c -> a"]
