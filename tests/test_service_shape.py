"""The service is composed, not stacked (issue 40): no class of `bot/service` inherits a class
of ours (each part is given the parts it uses), and none has more than `MOST_PUBLIC` public
methods. Nor is the database (issue 53.2): `storage.Database` and its parts in `storage/db`
inherit no class of ours, and no module there is over `MOST_LINES` lines. Read from the
source with `ast`, like `test_layers`."""

from __future__ import annotations

import ast
from dataclasses import FrozenInstanceError, fields
from pathlib import Path

import pytest

from bot.service.types import TableRef

ROOT = Path(__file__).resolve().parent.parent
SERVICE = ROOT / "bot" / "service"
DATABASE = ROOT / "storage" / "db"
OURS = ("bot", "handlers", "storage", "tests")
MOST_PUBLIC = 30
MOST_LINES = 700


def classes(source: str) -> list[tuple[str, list[str], int]]:
    """Each class of the module: its name, the bases of ours it names (imported from a
        module of ours, or defined in the module), its number of public methods (those of its own
    body: with no base of ours, all it has)."""
    tree = ast.parse(source)
    ours: set[str] = {n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] in OURS:
                ours.update(alias.asname or alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            ours.update(
                (alias.asname or alias.name).split(".")[0]
                for alias in node.names
                if alias.name.split(".")[0] in OURS
            )
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        bases = []
        for base in node.bases:
            root = base
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and root.id in ours:
                bases.append(ast.unparse(base))
        public = [
            f.name
            for f in node.body
            if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef) and not f.name.startswith("_")
        ]
        found.append((node.name, bases, len(public)))
    return found


def service_classes() -> dict[str, tuple[list[str], int]]:
    return {
        f"{path.relative_to(ROOT)}:{name}": (bases, public)
        for path in sorted(SERVICE.glob("*.py"))
        for name, bases, public in classes(path.read_text("utf-8"))
    }


def test_no_class_of_the_service_inherits_one_of_ours() -> None:
    found = service_classes()
    assert "bot/service/__init__.py:TableService" in found and len(found) > 10, found
    stacked = {name: bases for name, (bases, _) in found.items() if bases}
    assert stacked == {}


def test_no_class_of_the_service_has_more_than_30_public_methods() -> None:
    found = service_classes()
    big = {name: public for name, (_, public) in found.items() if public > MOST_PUBLIC}
    assert big == {}
    assert found["bot/service/__init__.py:TableService"][1] <= MOST_PUBLIC


def test_the_database_is_composed_of_parts_that_inherit_nothing_of_ours() -> None:
    modules = sorted(DATABASE.glob("*.py"))
    found = {
        f"{path.relative_to(ROOT)}:{name}": bases
        for path in modules
        for name, bases, _ in classes(path.read_text("utf-8"))
    }
    assert "storage/db/__init__.py:Database" in found, found
    assert "storage/db/tables.py:TableStore" in found, found
    assert {name: bases for name, bases in found.items() if bases} == {}
    lines = {
        str(path.relative_to(ROOT)): len(path.read_text("utf-8").splitlines()) for path in modules
    }
    assert {path: n for path, n in lines.items() if n > MOST_LINES} == {}


def test_the_check_sees_a_mixin_and_counts_public_methods() -> None:
    """The check itself: bases of ours however imported, others not; public methods only."""
    source = (
        "import bot.service.registry\n"
        "from typing import Protocol\n"
        "from bot.service.lobby import Lobby as L\n"
        "class A:\n"
        "    def one(self): ...\n"
        "    async def two(self): ...\n"
        "    def _three(self): ...\n"
        "class B(L, A, bot.service.registry.Registry, Protocol): ...\n"
    )
    assert classes(source) == [
        ("A", [], 2),
        ("B", ["L", "A", "bot.service.registry.Registry"], 0),
    ]


def imports_of(path: Path) -> set[str]:
    """The modules of `bot.service` the module imports."""
    tree = ast.parse(path.read_text("utf-8"))
    return {
        node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        and node.module
        and node.module.startswith("bot.service.")
    }


def test_the_tables_state_is_three_parts_without_a_cycle() -> None:
    """What a table's life shares (issue 53.2) is three plain classes, not one hub: the tables
    in memory and their locks (`Registry`), what a table shows (`Shown`), its deadlines
    (`Deadlines`). `Shown` and `Deadlines` each use the registry, the registry neither of them;
    what the registry and `Shown` share (the moments shown) is in `core.py`, which uses none."""
    found = service_classes()
    for name in (
        "bot/service/registry.py:Registry",
        "bot/service/shown.py:Shown",
        "bot/service/deadlines.py:Deadlines",
    ):
        assert found[name] == ([], found[name][1]), name
    assert not any(name.endswith(":Tables") for name in found)
    core = imports_of(SERVICE / "core.py")
    registry = imports_of(SERVICE / "registry.py")
    shown = imports_of(SERVICE / "shown.py")
    deadlines = imports_of(SERVICE / "deadlines.py")
    parts = {"bot.service.registry", "bot.service.shown", "bot.service.deadlines"}
    assert core & parts == set()
    assert registry & parts == set()
    assert "bot.service.registry" in shown and "bot.service.deadlines" not in shown
    assert "bot.service.registry" in deadlines and "bot.service.shown" not in deadlines


def test_the_parts_are_given_what_they_use_not_a_hub() -> None:
    """No part of the service reaches the tables' state through one object (`self.tables`)."""
    hubs = {
        str(path.relative_to(ROOT))
        for path in sorted(SERVICE.glob("*.py"))
        if "self.tables" in path.read_text("utf-8")
    }
    assert hubs == set()


def test_the_outbox_is_given_plain_data_never_the_table() -> None:
    """Issue 53: the outbox (`bot/telegram/outbox.py`, its message slots, what it stores and
    sweeps) works on what the service gives it, what to show and where (`TableRef`, frozen),
    never on the service's `Table`: it does not import it, and writes into no table (a new
    table message goes back to the service through `on_table_message`)."""
    telegram = ROOT / "bot" / "telegram"
    for name in ("outbox.py", "slot.py", "replaced.py", "stored.py"):
        tree = ast.parse((telegram / name).read_text("utf-8"))
        modules = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        modules |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        assert "bot.table.table" not in modules, name
        written = [
            ast.unparse(target)
            for node in ast.walk(tree)
            if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign)
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
            if isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Attribute)
            and target.value.attr == "table"
        ]
        assert written == [], name  # `slot.table.x = ...`: the slot replaces its own copy
    ref = TableRef(1, -100, "it", 3, False, False, None)
    with pytest.raises(FrozenInstanceError):
        ref.table_message_id = 5  # type: ignore[misc]
    assert {f.name for f in fields(TableRef)} >= {"table_id", "chat_id", "version"}


def test_the_context_variables_are_two_and_in_one_place() -> None:
    """Issue 53: what an update's handling carries implicitly is `APPLYING_UPDATE` and
    `REPLY_LANG`, both in `bot/service/types.py` (whose docstring says why); everything else
    is passed where it is used."""
    found = {}
    for top in ("bot", "handlers", "storage"):
        for path in sorted((ROOT / top).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text("utf-8"))):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Name | ast.Attribute)
                    and ast.unparse(node.func).split(".")[-1] == "ContextVar"
                ):
                    found[ast.unparse(node.args[0])] = str(path.relative_to(ROOT))
    assert found == {
        "'applying_update'": "bot/service/types.py",
        "'reply_lang'": "bot/service/types.py",
    }
    doc = ast.get_docstring(ast.parse((SERVICE / "types.py").read_text("utf-8"))) or ""
    assert "APPLYING_UPDATE" in doc and "REPLY_LANG" in doc and "only" in doc
