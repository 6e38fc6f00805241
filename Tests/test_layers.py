"""Imports point down only: front doors -> the Python facade -> features -> search -> local sources (Wikipedia,
Documents) -> DB -> LLM / Retrieval -> bottom.

Every import in App_Function_Libraries and app.py is read: those inside functions too (a lazy import is still a
dependency), relative ones, and module names written as strings for importlib (CLI subcommands, UI tabs). An
import may go to its own package or to a lower layer; app.py runs the CLI, and the CLI may start the UI or the
MCP server. A new top-level module or package must be given a layer here first.

The facade is the one door: a front door imports nothing below it but DOOR_MAY_IMPORT (the bottom records,
settings and option table it shows, and the reachability verdicts).
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PKG = "App_Function_Libraries"
FRONT_DOOR, FACADE, RESEARCH, FEATURE, SEARCH, LOCAL, STORE, SERVICES, BOTTOM = 6, 5.5, 5.2, 5, 4, 3.5, 3, 2, 1
LAYERS: dict[str, float] = {  # top-level module or package of App_Function_Libraries (and app.py) -> its layer
    "app": FRONT_DOOR, "CLI": FRONT_DOOR, "Gradio_UI": FRONT_DOOR, "mcp_server": FRONT_DOOR, "MCP": FRONT_DOOR,
    "quarry": FACADE,  # the Python facade: front doors call it, it calls the features (may not exist yet)
    "Research": RESEARCH,  # one research across every source: it searches the local sources too
    "status": FEATURE,
    "Search": SEARCH,  # search on every engine (web, scholarly, local), usable without the research pipeline
    "Wikipedia": LOCAL, "Documents": LOCAL,  # the local sources: Search's local engines call their search
    "DB": STORE,
    "LLM": SERVICES, "Retrieval": SERVICES,
    "config": BOTTOM, "records": BOTTOM, "errors": BOTTOM, "codes": BOTTOM, "retry": BOTTOM,
    "parse_sandbox": BOTTOM, "download_deadline": BOTTOM, "valid_unicode": BOTTOM, "options": BOTTOM,
    "__init__": BOTTOM,
}
SIDEWAYS = {("app", "CLI"), ("CLI", "Gradio_UI"), ("CLI", "mcp_server"), ("CLI", "MCP")}  # front door starts one
FRONT_DOORS = {unit for unit, layer in LAYERS.items() if layer == FRONT_DOOR}
# the one door: what a front door may import besides the front doors (the facade, then the bottom records and
# codes, the settings, the option table, and the reachability verdicts); nothing from DB/, Research/, Search/,
# Wikipedia/, Documents/, Retrieval/, LLM/
DOOR_MAY_IMPORT = {"quarry", "records", "errors", "config", "options", "codes", "status"}
MODULE_NAME = re.compile(rf"{PKG}(\.\w+)+")
PLACE_IT = "give it a layer in LAYERS in Tests/test_layers.py (see Docs/architecture.md, Layers)"


def unit(module: str) -> str:
    """The layer unit of a dotted module name: app -> app, App_Function_Libraries.X[.…] -> X."""
    parts = module.split(".")
    return "app" if parts[0] == "app" else parts[1]


def module_name(path: Path, root: Path) -> str:
    return ".".join(path.relative_to(root).with_suffix("").parts)


def imports(path: Path, module: str) -> list[tuple[int, str]]:
    """(line, imported module) for every import of the package in a file, lazy, relative and by string too."""
    out = []
    package = module.split(".")[:-1]  # X.Y.z and X.Y.__init__ are both in package X.Y
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[:len(package) - node.level + 1] + ([base] if base else []))
            names = [f"{base}.{a.name}" for a in node.names] if base == PKG else [base]
            out += [(node.lineno, n) for n in names if n.startswith(PKG + ".")]
        elif isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names if a.name.startswith(PKG + ".")]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and MODULE_NAME.fullmatch(node.value):
            out.append((node.lineno, node.value))  # a module named for importlib.import_module
    return out


def sources(root: Path) -> list[Path]:
    app = [root / "app.py"] if (root / "app.py").exists() else []
    return app + sorted((root / PKG).rglob("*.py"))


def unplaced(root: Path = ROOT) -> list[str]:
    """Top-level modules and packages of the tree that have no layer."""
    names = {unit(module_name(p, root)) if p.name != "app.py" else "app" for p in sources(root)}
    return [f"{PKG}/{name}: {PLACE_IT}" for name in sorted(names - set(LAYERS))]


def violations(root: Path = ROOT) -> list[str]:
    found = []
    for path in sources(root):
        module = module_name(path, root)
        source = unit(module)
        for line, target_module in imports(path, module):
            target = unit(target_module)
            where = f"{path.relative_to(root)}:{line}"
            if target == source:
                continue
            if source not in LAYERS or target not in LAYERS:
                new = source if source not in LAYERS else target
                found.append(f"{where}: imports {target_module}, but {new} has no layer: {PLACE_IT}")
                continue
            down = LAYERS[target] < LAYERS[source]
            both_bottom = LAYERS[source] == LAYERS[target] == BOTTOM
            if not (down or both_bottom or (source, target) in SIDEWAYS):
                found.append(f"{where}: {source} (layer {LAYERS[source]:g}) imports {target_module} (layer "
                             f"{LAYERS[target]:g}); an import may only point down")
    return found


def door_violations(root: Path = ROOT) -> list[str]:
    """Every import of a front door (app.py, CLI/, Gradio_UI/, MCP/; lazy, relative and by name too) that goes
    below the facade to anything but DOOR_MAY_IMPORT."""
    found = []
    for path in sources(root):
        module = module_name(path, root)
        rel = path.relative_to(root).as_posix()
        if unit(module) not in FRONT_DOORS:
            continue
        for line, target_module in imports(path, module):
            target = unit(target_module)
            if target not in FRONT_DOORS and target not in DOOR_MAY_IMPORT:
                found.append(f"{rel}:{line}: imports {target_module}; a front door calls the facade "
                             f"(App_Function_Libraries.quarry) and reads only {', '.join(sorted(DOOR_MAY_IMPORT))}")
    return found


def test_imports_point_down_only():
    assert violations() == []


def test_the_facade_is_the_only_door():
    assert door_violations() == []


# ---------------------------------------------------------------- controls: the check can fail

def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_an_upward_import_is_reported_lazy_relative_or_by_name(tmp_path):
    write(tmp_path, f"{PKG}/DB/store.py", "def f():\n    from App_Function_Libraries.Research.pipeline import Run\n")
    write(tmp_path, f"{PKG}/Retrieval/x.py", "from ..Search import engine\n")
    write(tmp_path, f"{PKG}/Search/y.py", "TABS = ['App_Function_Libraries.Gradio_UI.notes_tab']\n")
    write(tmp_path, f"{PKG}/config.py", "import App_Function_Libraries.LLM.base\n")
    write(tmp_path, f"{PKG}/Research/ok.py", "from App_Function_Libraries import records, codes\n"
                                             "from App_Function_Libraries.Search.many import search_many\n")
    found = violations(tmp_path)
    assert [line.split(":")[0:2] for line in found] == [
        [f"{PKG}/DB/store.py", "2"], [f"{PKG}/Retrieval/x.py", "1"], [f"{PKG}/Search/y.py", "1"],
        [f"{PKG}/config.py", "1"]]
    assert "DB (layer 3) imports App_Function_Libraries.Research.pipeline (layer 5.2)" in found[0]
    assert "Retrieval (layer 2) imports App_Function_Libraries.Search (layer 4)" in found[1]


def test_the_facade_sits_between_front_doors_and_features(tmp_path):
    write(tmp_path, f"{PKG}/MCP/server.py", "from App_Function_Libraries.quarry import research\n")
    write(tmp_path, f"{PKG}/quarry.py", "from App_Function_Libraries.Research.pipeline import process_question\n")
    assert violations(tmp_path) == []
    write(tmp_path, f"{PKG}/Documents/answer.py", "from App_Function_Libraries.quarry import research\n")
    write(tmp_path, f"{PKG}/quarry.py", "from App_Function_Libraries.CLI.main import main\n")
    assert [line.split(":")[0] for line in violations(tmp_path)] == [f"{PKG}/Documents/answer.py", f"{PKG}/quarry.py"]


def test_a_new_top_level_package_must_be_placed(tmp_path):
    write(tmp_path, f"{PKG}/Plugins/__init__.py", '"""New."""\n')
    write(tmp_path, f"{PKG}/Research/uses.py", "from App_Function_Libraries.Plugins import thing\n")
    assert unplaced(tmp_path) == [f"{PKG}/Plugins: {PLACE_IT}"]
    assert violations(tmp_path) == [f"{PKG}/Research/uses.py:1: imports App_Function_Libraries.Plugins, "
                                    f"but Plugins has no layer: {PLACE_IT}"]


def test_a_door_that_goes_below_the_facade_is_reported_lazy_relative_by_name_or_from_app(tmp_path):
    write(tmp_path, "app.py", "from App_Function_Libraries.CLI.main import main\n"
                              "import App_Function_Libraries.Search.many\n")
    write(tmp_path, f"{PKG}/CLI/notes_command.py",
          "from App_Function_Libraries import quarry, records, errors, config, codes, status\n"
          "from App_Function_Libraries.quarry.render import format_epoch\n"
          "def run(args):\n    from App_Function_Libraries.DB.notes_store import get_notes_store\n")
    write(tmp_path, f"{PKG}/Gradio_UI/notes_tab.py", "from ..Research import pipeline\n"
                                                     "from .ui_common import user_errors\n"
                                                     "TABS = ['App_Function_Libraries.Gradio_UI.wiki_tab']\n")
    write(tmp_path, f"{PKG}/MCP/tools.py", "from App_Function_Libraries import Documents\n")
    write(tmp_path, f"{PKG}/quarry/notes.py", "from App_Function_Libraries.DB.notes_store import get_notes_store\n")
    found = door_violations(tmp_path)
    assert [line.split(": imports ")[0] for line in found] == [
        "app.py:2", f"{PKG}/CLI/notes_command.py:4", f"{PKG}/Gradio_UI/notes_tab.py:1", f"{PKG}/MCP/tools.py:1"]
    assert "imports App_Function_Libraries.DB.notes_store; a front door calls the facade" in found[1]
