"""The layers point down (issue 40): what each package may import, read from the source with
`ast` (no import runs), so that a new import across a layer fails here, in the quick tier.

    bot.engine   the rules, pure: the standard library and numpy/numba only
    bot.table    a table's life, pure: the engine, players, texts; never storage or Telegram
    bot.players  computer players: the engine (and their own weights)
    storage      all SQL: the table layer's values (statuses, records), nothing above it
    handlers     Telegram updates: the service and rendering, never storage
    bot.telegram.render  messages as plain data: the table layer, texts and button data;
                 never the service, storage or Telegram itself; its modules in no cycle

Known and left (issue 40): `bot.service` and `bot.telegram` still import each other (the
service builds messages with `bot.telegram.render`)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
OURS = ("bot", "handlers", "storage", "telegram")

# package -> the packages of ours (or telegram) it must never import
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "bot.engine": (
        "bot.table",
        "bot.players",
        "bot.service",
        "bot.telegram",
        "bot.webapp",
        "bot.i18n",
        "bot.cli",
        "handlers",
        "storage",
        "telegram",
    ),
    "bot.table": ("bot.service", "bot.telegram", "bot.webapp", "bot.cli", "handlers", "storage"),
    "bot.players": (
        "bot.table",
        "bot.service",
        "bot.telegram",
        "bot.webapp",
        "handlers",
        "storage",
        "telegram",
    ),
    "storage": (
        "bot.engine",
        "bot.players",
        "bot.service",
        "bot.telegram",
        "bot.webapp",
        "bot.cli",
        "handlers",
        "telegram",
    ),
    "handlers": ("storage",),
    "bot.telegram.render": (
        "bot.service",
        "bot.webapp",
        "bot.cli",
        "bot.telegram.app",
        "bot.telegram.outbox",
        "bot.telegram.render_tournament",
        "handlers",
        "storage",
        "telegram",
    ),
}


def imports_in(path: Path) -> set[str]:
    """The absolute modules of ours (or telegram) that the file imports, also inside
    functions (a lazy import is an import)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return {n for n in names if n.split(".")[0] in OURS}


def imports_of(package: str) -> dict[str, set[str]]:
    """Each module of `package` and what it imports of ours."""
    return {
        str(path.relative_to(ROOT)): imports_in(path)
        for path in sorted((ROOT / package.replace(".", "/")).rglob("*.py"))
    }


def within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_a_layer_imports_nothing_above_it(package: str) -> None:
    modules = imports_of(package)
    assert modules, package  # the package is where the test thinks it is
    wrong = [
        f"{path} imports {name}"
        for path, names in modules.items()
        for name in sorted(names)
        if any(within(name, banned) for banned in FORBIDDEN[package])
    ]
    assert wrong == [], wrong


def test_the_render_modules_import_each_other_in_no_cycle() -> None:
    """`bot.telegram.render`'s modules, one a concern, each import only those below it."""
    package = "bot.telegram.render"
    graph = {
        path.removesuffix(".py").replace("/", ".").removesuffix(".__init__"): {
            name for name in names if within(name, package) and name != package
        }
        for path, names in imports_of(package).items()
    }
    assert len(graph) > 5, graph
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> None:
        assert module not in path, " -> ".join((*path, module))
        if module not in done:
            for name in sorted(graph.get(module, ())):
                visit(name, (*path, module))
            done.add(module)

    for module in sorted(graph):
        visit(module, ())


def test_the_check_sees_a_forbidden_import_even_inside_a_function(tmp_path: Path) -> None:
    """The check itself: a module importing upwards, lazily too, is reported."""
    module = tmp_path / "m.py"
    module.write_text(
        "from bot.engine import cards\n\ndef f():\n    from storage.db import Database\n"
        "    import telegram.ext\n",
        "utf-8",
    )
    names = imports_in(module)
    assert names == {"bot.engine", "storage.db", "telegram.ext"}
    assert [n for n in sorted(names) if any(within(n, b) for b in FORBIDDEN["bot.engine"])] == [
        "storage.db",
        "telegram.ext",
    ]
