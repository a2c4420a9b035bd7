"""The import rules of the architecture, checked on the source: no upward import, no cycle.

Layers, top to bottom (a module may import its own layer and the ones below):

    interfaces → services → graph / agent / engine → answering / retrieval / ingest / chunking
    → stores / embeddings / llm → text / types / settings / errors / prompts / data

``geungeo.testing`` (test doubles and helpers) stands outside the layers: it may import anything.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "src" / "geungeo"

LAYERS: tuple[tuple[str, ...], ...] = (
    ("interfaces",),
    ("services", "evaluation"),
    ("graph", "agent", "engine"),
    ("answering", "retrieval", "ingest", "chunking"),
    ("stores", "embeddings", "llm"),
    ("text", "types", "settings", "errors", "filters", "sqlite", "prompts", "data"),
)
OUTSIDE = {"testing", "__init__", "__main__"}
RANK = {part: rank for rank, parts in enumerate(LAYERS) for part in parts}
# Within a layer: the graph and the agent are two answer modes that share ``answering``, not each other.
FORBIDDEN: tuple[tuple[str, str], ...] = (
    ("geungeo.graph", "geungeo.agent"),
    ("geungeo.agent", "geungeo.graph.nodes"),
)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    """Every ``geungeo.*`` module ``path`` imports, at module level or inside functions."""
    tree = ast.parse(path.read_text("utf-8"))
    package = _module_name(path) if path.name == "__init__.py" else _module_name(path).rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("geungeo"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            if not module.startswith("geungeo"):
                continue
            found.add(module)
            # ``from geungeo.graph import runner`` imports the submodule geungeo.graph.runner.
            for alias in node.names:
                if (ROOT.parent / Path(*f"{module}.{alias.name}".split("."))).with_suffix(".py").exists():
                    found.add(f"{module}.{alias.name}")
    return found


def _graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in ROOT.rglob("*.py")}
    return {name: {m for m in _imports(path) if m in modules} - {name} for name, path in modules.items()}


def _part(module: str) -> str:
    return module.split(".")[1] if "." in module else "__init__"


def test_every_top_level_part_has_a_layer() -> None:
    parts = {p.stem if p.is_file() else p.name for p in ROOT.iterdir() if p.suffix == ".py" or p.is_dir()}
    parts -= {"__pycache__"}
    assert parts - OUTSIDE - set(RANK) == set(), "a new part of geungeo needs a place in LAYERS"


def test_no_import_runs_upward() -> None:
    upward = []
    for module, targets in _graph().items():
        source = _part(module)
        if source in OUTSIDE:
            continue
        for target in targets:
            dest = _part(target)
            if dest == "testing" and source in {"embeddings", "llm"}:
                continue  # the ``fake`` providers are looked up in geungeo.testing, lazily
            if dest in OUTSIDE and dest != "testing":
                continue
            if dest == "testing" or RANK[dest] < RANK[source]:
                upward.append(f"{module} → {target}")
    assert upward == [], "imports against the layers:\n" + "\n".join(sorted(upward))


def test_answer_modes_do_not_import_each_other() -> None:
    found = [
        f"{module} → {target}"
        for module, targets in _graph().items()
        for target in targets
        for source, dest in FORBIDDEN
        if _within(module, source) and _within(target, dest)
    ]
    assert found == [], "imports between the answer modes:\n" + "\n".join(sorted(found))


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_import_graph_has_no_cycle() -> None:
    graph = _graph()
    # Package __init__ re-exports are not dependencies of the package's own modules.
    state: dict[str, int] = defaultdict(int)  # 0 new, 1 on the stack, 2 done
    cycles: list[str] = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if _is_reexport(node, nxt):
                continue
            if state[nxt] == 1:
                cycles.append(" → ".join([*stack[stack.index(nxt) :], nxt]))
            elif state[nxt] == 0:
                visit(nxt, stack)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if state[node] == 0:
            visit(node, [])
    assert cycles == [], "import cycles:\n" + "\n".join(cycles)


def _is_reexport(source: str, target: str) -> bool:
    """An edge into a package's own ``__init__`` from inside it, or from ``__init__`` down to its modules."""
    return target.startswith(source + ".") or source.startswith(target + ".")
