"""The catalogue of texts (bot/i18n/locale/<lang>/LC_MESSAGES/briscola.po): one for the bot and
the terminal, complete in every language, placeholders that agree, plural forms as the
Plural-Forms header says, every key the code names present, one spelling per variant."""

from __future__ import annotations

import ast
import fnmatch
import string
import tomllib
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog, Message

from bot import i18n
from bot.cli import render as R
from bot.cli.play import run_play
from bot.engine import VARIANTS, Options
from bot.engine.match import Match
from bot.i18n import LANGS, plain, t, tn, variant_name
from bot.players import LEVELS
from bot.view.render import lobby_message, variant_picker

ROOT = Path(__file__).resolve().parent.parent
LOCALE = ROOT / "bot" / "i18n" / "locale"
SOURCES = sorted(
    p for d in ("bot", "handlers", "storage") for p in (ROOT / d).rglob("*.py") if p.is_file()
)
# Functions whose second argument is a catalogue key: the bot's `t` / `tn`, the terminal's
# `plain` and its local wrappers. `_ev(lang, key, you)` also names `key + "_you"`.
KEY_FUNCTIONS = {"t", "tn", "plain", "_tr", "_msg", "_ev", "has_text"}


def catalogs() -> dict[str, Catalog]:
    return {lang: i18n.read_catalog(lang) for lang in LANGS}


def messages(catalog: Catalog) -> dict[str, Message]:
    out: dict[str, Message] = {}
    for m in catalog:
        if m.id:
            out[m.id if isinstance(m.id, str) else m.id[0]] = m
    return out


def forms(m: Message) -> list[str]:
    return list(m.string) if isinstance(m.string, tuple | list) else [m.string or ""]


# Fields `t()` fills itself, for one language's grammar: Italian "tocca {ad} {who}" (a / ad).
GRAMMAR_FIELDS = {"ad"}


def fields(text: str) -> set[str]:
    """The `str.format` fields of `text` (`{who}`, `{text!r}` → who, text), but for the ones
    `t()` fills for a language's grammar."""
    found = {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}
    return found - GRAMMAR_FIELDS


def test_every_language_has_a_catalogue_with_plural_forms() -> None:
    for lang in LANGS:
        po = LOCALE / lang / "LC_MESSAGES" / "briscola.po"
        assert po.is_file(), po
        text = po.read_text(encoding="utf-8")
        assert '"Plural-Forms: nplurals=' in text, lang
        assert f'"Language: {lang}\\n"' in text, lang
    # and no other language lies there unlisted
    assert sorted(p.name for p in LOCALE.iterdir() if p.is_dir()) == sorted(LANGS)


def test_every_message_exists_in_every_language_and_is_not_empty() -> None:
    cats = catalogs()
    ids = {lang: set(messages(c)) for lang, c in cats.items()}
    every = set().union(*ids.values())
    for lang, c in cats.items():
        assert every - ids[lang] == set(), f"{lang} lacks {sorted(every - ids[lang])}"
        for key, m in messages(c).items():
            assert not m.fuzzy, (lang, key)
            assert all(f.strip() for f in forms(m)), f"{lang}: {key} is empty"
    # a plural entry is one in every language
    plural = {
        lang: {k for k, m in messages(c).items() if m.pluralizable} for lang, c in cats.items()
    }
    assert all(p == plural["it"] for p in plural.values())


def test_placeholders_agree_across_languages() -> None:
    cats = {lang: messages(c) for lang, c in catalogs().items()}
    for key, m in cats["it"].items():
        expected = set().union(*(fields(f) for f in forms(m)))
        for lang in LANGS:
            texts = forms(cats[lang][key])
            got = set().union(*(fields(f) for f in texts))
            assert got == expected, f"{key}: {lang} has {sorted(got)}, it has {sorted(expected)}"
            for text in texts:  # a singular may say "un minuto": only the count may be left out
                assert expected - fields(text) <= {"n"}, (lang, key, text)
                # every text formats with its fields (no stray or unbalanced brace)
                text.format(**dict.fromkeys(fields(text) | GRAMMAR_FIELDS, 1))


def test_plural_entries_have_the_forms_the_header_says() -> None:
    for lang, c in catalogs().items():
        assert c.num_plurals >= 1
        plural = [m for m in messages(c).values() if m.pluralizable]
        assert plural, lang  # the hand-made plurals are catalogue plurals now
        for m in plural:
            assert len(forms(m)) == c.num_plurals, (lang, m.id)


def test_plural_helper_picks_the_form() -> None:
    assert tn("it", "timer_minutes", 1) == "1 minuto"
    assert tn("it", "timer_minutes", 5) == "5 minuti"
    assert tn("en", "timer_seconds", 1) == "1 second"
    assert tn("en", "timer_seconds", 30) == "30 seconds"
    assert plain("it", "cli_cards", n=1) == "1 carta"
    assert plain("it", "cli_cards", n=0) == "0 carte"
    assert plain("en", "cli_cards", n=3) == "3 cards"
    assert t("it", "blind_hand", n=2) == "Hai 2 carte coperte: scegline una a caso."
    assert i18n.value_name("it", "timer", "60") == "1 minuto"
    assert i18n.value_name("en", "timer", "120") == "2 minutes"
    with pytest.raises(TypeError):
        t("it", "timer_minutes")


def test_lookups() -> None:
    assert t("xx", "ok_option") == t("it", "ok_option")  # an unknown language: Italian
    assert t("en", "turn_line", who="<Ann>") == "<b>&lt;Ann&gt;</b> to play."
    assert t("it", "turn_line", who="Anna") == "Tocca ad <b>Anna</b>."
    with pytest.raises(KeyError):
        t("it", "no_such_text")
    with pytest.raises(ValueError, match="language"):
        plain("fr", "cli_seats")


def _literals(node: ast.expr) -> list[ast.Constant]:
    """The whole string constants of an expression (not the pieces of an f-string, which
    build a key at run time)."""
    if isinstance(node, ast.Constant):
        return [node]
    if isinstance(node, ast.IfExp):
        return _literals(node.body) + _literals(node.orelse)
    if isinstance(node, ast.BoolOp):
        return [c for v in node.values for c in _literals(v)]
    return []


def _key_calls(path: Path) -> list[tuple[int, str, str]]:
    """(line, function, key) for every literal key passed to a function of KEY_FUNCTIONS."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: list[tuple[int, str, str]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or len(node.args) < 2:
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        if name not in KEY_FUNCTIONS:
            continue
        for sub in _literals(node.args[1]):  # "a" if x else "b" names both
            if isinstance(sub.value, str):
                out.append((node.lineno, name, sub.value))
                if name == "_ev":
                    out.append((node.lineno, name, sub.value + "_you"))
    return out


def test_every_key_the_code_names_is_in_the_catalogue() -> None:
    known = i18n.keys("it")
    calls = [(p, *c) for p in SOURCES for c in _key_calls(p)]
    assert len(calls) > 300  # the scan sees the call sites
    missing = [
        f"{p.relative_to(ROOT)}:{line} {fn}({key!r})"
        for p, line, fn, key in calls
        if key not in known
    ]
    assert missing == []


def test_names_built_from_keys_exist() -> None:
    for lang in LANGS:
        for v in VARIANTS:
            assert i18n.has_text(lang, f"variant_{v}"), (lang, v)
        for lv in ("easy", "normal", "hard"):
            assert lv in LEVELS
            assert i18n.has_text(lang, f"level_{lv}")
        for cmd, words in i18n.COMMANDS[lang]:
            assert words == t(lang, f"cmd_{cmd}")


def test_variant_names_are_spelled_alike_by_the_terminal_and_the_bot() -> None:
    for lang in LANGS:
        picker = [b.text for row in variant_picker(lang).keyboard for b in row]
        assert picker == [variant_name(lang, v) for v in VARIANTS]
        assert len(set(picker)) == len(VARIANTS)
        for v in VARIANTS:
            name = variant_name(lang, v)
            assert name != v or v == "briscolone"
            match = Match(Options.parse(v, {}), 1)
            state = match.deal()
            header = R.render_hand_header(state.observation(0), None, lang)
            assert f" · {name} · " in header
            out: list[str] = []
            run_play(v, 1, {}, lang=lang, input_fn=_eof, output_fn=out.append)
            assert out[0].startswith(f"{name} · "), out[0]
    # the bot shows the same name in its lobby
    from bot.table.table import Table

    for lang in LANGS:
        table = Table(1, -1, 7, Options.parse("sei", {}), lang=lang)
        assert variant_name(lang, "sei") in lobby_message(table, lang).text


def _eof(prompt: str) -> str:
    raise EOFError


def test_no_second_dictionary_of_texts() -> None:
    """The terminal keeps no texts of its own, and the bot's rendering no longer borrows the
    terminal's words (both use bot.i18n)."""
    for module in ("render", "play"):
        src = (ROOT / "bot" / "cli" / f"{module}.py").read_text(encoding="utf-8")
        assert "_T: dict" not in src and "_MSG" not in src and "VARIANT_NAMES" not in src
    for p in (ROOT / "bot" / "telegram").rglob("*.py"):
        tree = ast.parse(p.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                assert not (node.module or "").startswith("bot.cli"), p
            elif isinstance(node, ast.Import):
                assert all(not a.name.startswith("bot.cli") for a in node.names), p


def test_catalogues_are_package_data() -> None:
    """An installed wheel carries the .po files (they are read at import)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["bot.i18n"]
    assert "babel>=2.14" in config["project"]["dependencies"]
    base = ROOT / "bot" / "i18n"
    for po in base.rglob("*.po"):
        rel = po.relative_to(base).as_posix()
        assert any(fnmatch.fnmatch(rel, pat) for pat in patterns), rel
