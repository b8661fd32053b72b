"""The code's shape, as a newcomer relies on it: no import circles in harness/ (function-level imports included),
each layer imports only the layers below it, and the log schema reads without the engine."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "harness"

# Top to bottom. A module may import its own layer and the layers below it, never one above.
LAYERS = [
    ["cli"],
    ["session", "web"],  # web: the pages (the game viewer), readers above the report (they read its tables' inputs)
    # readers of runs, RL environments over the same scaffolds and rewards, and the Inspect AI task over the same play
    ["report", "export", "rl", "inspect", "analysis"],  # analysis: the judge and move values, offline
    ["run"],
    ["play"],
    ["strategies"],
    ["models"],
    ["bots", "formats"],
    ["view"],
    ["engine"],
    ["schema"],
]
RANK = {name: depth for depth, names in enumerate(LAYERS) for name in names}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> set[str]:
    """Every harness module a file imports, wherever the import statement stands."""
    found: set[str] = set()
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("harness"))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            if base.startswith("harness"):
                for alias in node.names:  # `from package import module` imports that module; a name, its package
                    module = f"{base}.{alias.name}"
                    found.add(module if module in MODULES else base)
    return found


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py")}


def graph() -> dict[str, set[str]]:
    return {name: {m for m in imports_of(path) if m in MODULES and m != name} for name, path in MODULES.items()}


def layer_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def test_harness_has_no_import_circles() -> None:
    edges = graph()
    circles: list[list[str]] = []
    state: dict[str, int] = {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(edges[node]):
            if state.get(nxt) == 1:
                circles.append([*trail[trail.index(nxt):], nxt])
            elif nxt not in state:
                visit(nxt, [*trail, nxt])
        state[node] = 2

    for start in sorted(edges):
        if start not in state:
            visit(start, [start])
    assert not circles, "import circles: " + "; ".join(" -> ".join(c) for c in circles)


def test_every_import_points_down_the_layers() -> None:
    upward = []
    for module, targets in graph().items():
        here = layer_of(module)
        if here is None:
            continue
        assert here in RANK, f"{module}: folder {here!r} is not a known layer"
        for target in targets:
            there = layer_of(target)
            if there is not None and there != here and RANK[there] < RANK[here]:
                upward.append(f"{module} -> {target}")
    assert not upward, "imports that point up the layers: " + ", ".join(sorted(upward))


def test_harness_holds_only_layer_folders() -> None:
    loose = sorted(p.name for p in PACKAGE.glob("*.py") if p.name != "__init__.py")
    assert loose == []
    folders = sorted(p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists())
    assert folders == sorted(RANK)


def test_the_log_schema_reads_without_the_engine() -> None:
    code = (
        "import sys; import harness.schema.records, harness.schema.moves;"
        "bad = [m for m in sys.modules if m.startswith(('hanabi_learning_environment', 'harness.engine'))];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_model_layer_knows_nothing_of_the_game() -> None:
    # models/ answers a seat's prompts for any model, the offline players included (their reply is written above it,
    # in strategies/offline_reply.py): it imports no bot, reply format, seat view or engine.
    game_layers = {"bots", "formats", "view", "engine"}
    reaching = sorted(
        f"{module} -> {target}"
        for module, targets in graph().items()
        if layer_of(module) == "models"
        for target in targets
        if layer_of(target) in game_layers
    )
    assert not reaching, "models/ imports the game: " + ", ".join(reaching)
