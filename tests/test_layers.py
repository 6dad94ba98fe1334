"""The layers point down (issue 40): what each package may import, read from the source with
`ast` (no import runs), so that a new import across a layer fails here, in the quick tier.

    bot.engine   the rules, pure: the standard library and numpy/numba only
    bot.table    a table's life, pure: the engine, players, texts; never storage or Telegram
    bot.players  computer players: the engine (and their own weights)
    storage      all SQL: the table layer's values (statuses, records), nothing above it
    handlers     Telegram updates: the service and rendering, never storage
    bot.service  what handlers call: tables, storage and the view; never Telegram's side
                 (`bot.telegram`: the outbox, pacing, the webhook) nor handlers
    bot.view     messages, keyboards, button data and charts as plain data: the table layer
                 and texts; never the service, storage or Telegram itself
    bot.view.render  the table's messages, its modules in no cycle
    bench        the benches: never the tests (what both need is in `bench.rig`)

And no import cycle between modules: none at all among the modules of `handlers` (each feature
imports `common` and `taps`, never another feature, not even for a type), and none among the
imports that run when a module of `bot`, `handlers` or `storage` is imported (those in
functions and under `if TYPE_CHECKING` aside).

So the packages point one way, with no cycle among them: the composition root (`bot.app`)
registers handlers; handlers and `bot.telegram` (the outbox, pacing, the webhook) call the
service; the service builds messages with `bot.view`, and `bot.view` knows only the table
layer."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
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
    "bot.service": ("bot.telegram", "bot.webapp", "bot.cli", "handlers", "telegram"),
    "bot.view": (
        "bot.service",
        "bot.telegram",
        "bot.webapp",
        "bot.cli",
        "handlers",
        "storage",
        "telegram",
    ),
    "bot.view.render": ("bot.view.render_tournament", "bot.view.charts"),
}


def every_import_in(path: Path) -> set[str]:
    """Every absolute module the file imports, also inside functions (a lazy import is an
    import)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def imports_in(path: Path) -> set[str]:
    """The absolute modules of ours (or telegram) that the file imports, also inside
    functions (a lazy import is an import)."""
    return {n for n in every_import_in(path) if n.split(".")[0] in OURS}


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
    """`bot.view.render`'s modules, one a concern, each import only those below it."""
    package = "bot.view.render"
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


# ------------------------------------------------------------------------ bench without tests

# a string that names a module of the tests, as `python -m` or `importlib` would be handed it
# (a bare "tests" is a directory's name: bench.rig.browser's screenshots go to tests/artifacts)
TESTS_MODULE = re.compile(r"tests(\.\w+)+")


def taken_from_tests(path: Path) -> list[str]:
    """What the file takes from `tests`: the modules it imports (inside functions too) and
    the strings in its code that name one (`python -m tests.test_e2e`), sorted."""
    imported = {n for n in every_import_in(path) if n == "tests" or n.startswith("tests.")}
    named = {
        node.value
        for node in ast.walk(ast.parse(path.read_text("utf-8")))
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and TESTS_MODULE.fullmatch(node.value)
    }
    return sorted(imported | named)


def test_bench_imports_nothing_from_tests() -> None:
    """The benches run from `bench/` alone: the helpers they share with the tests (the
    stand-in Bot API, the bot as a process, the scripted people, the browser, the storage
    backends) live in `bench/rig/`, and no module of `bench/` imports `tests`, not even
    inside a function, nor names one of its modules for a process to run."""
    modules = {
        str(path.relative_to(ROOT)): taken_from_tests(path)
        for path in sorted((ROOT / "bench").rglob("*.py"))
    }
    assert {"bench/rig/telegram/__init__.py", "bench/rig/bot_process.py"} <= set(modules)
    wrong = [f"{path} takes {name}" for path, names in modules.items() for name in names]
    assert wrong == [], wrong


def test_the_check_sees_tests_imported_by_bench_even_inside_a_function(tmp_path: Path) -> None:
    """The check itself: `tests` imported at the top, in a function, or named as a module to
    run, is reported; the word in a text or a path is not."""
    module = tmp_path / "m.py"
    module.write_text(
        '"""What the tests share."""\nimport tests.test_e2e\nimport bench.rig\n\n'
        "def f():\n    from tests import conftest\n"
        '    return ["-m", "tests.support.rig", "the tests", Path("tests") / "artifacts"]\n',
        "utf-8",
    )
    assert taken_from_tests(module) == ["tests", "tests.support.rig", "tests.test_e2e"]


# ------------------------------------------------------------------------------ import cycles


def module_of(path: Path, root: Path) -> str:
    """The dotted name of the module in `path` (a package's `__init__.py` is the package)."""
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _on_import(node: ast.AST) -> Iterator[ast.AST]:
    """The nodes under `node` that run when the module is imported: not the bodies of
    functions, not what is under `if TYPE_CHECKING` (its `else` runs)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        if isinstance(child, ast.If) and _type_checking(child.test):
            for stmt in child.orelse:
                yield stmt
                yield from _on_import(stmt)
            continue
        yield child
        yield from _on_import(child)


def module_graph(
    packages: tuple[str, ...], *, root: Path = ROOT, every_import: bool
) -> dict[str, set[str]]:
    """Module -> the modules of `packages` it imports: `every_import`, also in functions and
    under `if TYPE_CHECKING`; else only those that run when it is imported. `from a import b`
    is an import of the module `a.b` when there is one, else of `a`."""
    paths = {
        module_of(path, root): path
        for package in packages
        for path in sorted((root / package.replace(".", "/")).rglob("*.py"))
    }
    graph: dict[str, set[str]] = {}
    for module, path in paths.items():
        tree = ast.parse(path.read_text("utf-8"))
        nodes = ast.walk(tree) if every_import else _on_import(tree)
        names: set[str] = set()
        for node in nodes:
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.update(
                    f"{node.module}.{alias.name}"
                    if f"{node.module}.{alias.name}" in paths
                    else node.module
                    for alias in node.names
                )
            elif isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
        graph[module] = {name for name in names if name in paths and name != module}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles: each set of modules that import one another, round (the strongly
    connected components of more than one module, Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for imported in sorted(graph[module]):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            component = []
            while (top := stack.pop()) != module:
                component.append(top)
            if component:
                found.append(sorted([module, *component]))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return sorted(found)


def test_no_import_cycle_between_the_modules_of_handlers() -> None:
    graph = module_graph(("handlers",), every_import=True)
    assert {"handlers.taps", "handlers.league", "handlers.callbacks"} <= set(graph)
    assert cycles(graph) == []


def test_no_module_level_import_cycle_in_bot_handlers_storage() -> None:
    graph = module_graph(("bot", "handlers", "storage"), every_import=False)
    assert "bot.service.core" in graph and "storage.db" in graph["storage"]
    assert cycles(graph) == []


def package_of(module: str) -> str:
    """The package a module counts in: `bot`'s subpackages each on their own (`bot.engine`,
    `bot.service`), a top-level module of `bot` on its own too (`bot.app`)."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "bot" and len(parts) > 1 else parts[0]


def test_no_import_cycle_between_packages() -> None:
    """Every import counted, lazy ones and those for a type too."""
    graph: dict[str, set[str]] = {}
    for module, names in module_graph(("bot", "handlers", "storage"), every_import=True).items():
        mine = package_of(module)
        graph.setdefault(mine, set()).update(
            package_of(name) for name in names if package_of(name) != mine
        )
    assert {"bot.service", "bot.view", "bot.telegram", "handlers"} <= set(graph)
    assert "bot.view" in graph["bot.service"] and "handlers" in graph["bot.app"]
    assert cycles(graph) == []


def test_the_check_sees_a_cycle_for_a_type_and_not_one_of_lazy_imports(tmp_path: Path) -> None:
    """The check itself: a, b and c import each other round, one of them only for a type
    (a cycle of every import, not one of those that run); d and e only in a function."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("from pkg import a\n", "utf-8")
    (package / "a.py").write_text("from pkg.b import B\n", "utf-8")
    (package / "b.py").write_text("import pkg.c\n", "utf-8")
    (package / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import a\n"
        "else:\n    import pkg.d\n",
        "utf-8",
    )
    (package / "d.py").write_text("def f():\n    from pkg import e\n", "utf-8")
    (package / "e.py").write_text("import pkg.d\n", "utf-8")
    every = module_graph(("pkg",), root=tmp_path, every_import=True)
    assert every["pkg.c"] == {"pkg.a", "pkg.d"}
    assert cycles(every) == [["pkg.a", "pkg.b", "pkg.c"], ["pkg.d", "pkg.e"]]
    on_import = module_graph(("pkg",), root=tmp_path, every_import=False)
    assert on_import["pkg.c"] == {"pkg.d"} and on_import["pkg.d"] == set()
    assert cycles(on_import) == []


def test_no_import_cycle_between_the_modules_of_bot_handlers_storage_bench() -> None:
    """Issue 53.5: every import counted (lazy ones in a function, and those for a type),
    module by module: the last ones closed by an import inside a function are gone
    (`bot.players.knowledge` and the learned players' features: `bot.players.suspicion`;
    `bench.strength` and `bench.diagnose`: `bench.hard_variants`)."""
    graph = module_graph(("bot", "handlers", "storage", "bench"), every_import=True)
    assert {"bot.players.knowledge", "bot.players.learned.features", "bench.strength"} <= set(graph)
    assert "bot.players.suspicion" in graph["bot.players.learned.features"]
    assert cycles(graph) == []
