"""User-facing texts of the Telegram bot and of the terminal game, Italian (default) and English.

Every text lives in one gettext catalogue per language,
`bot/i18n/locale/<lang>/LC_MESSAGES/briscola.po`, with symbolic msgids (`ok_option`,
`cli_hand_header`, `variant_due`) and `str.format` placeholders (`{n}`, `{who}`). The catalogues
are read at import with Babel and compiled in memory into `gettext.GNUTranslations`: no build
step, an edited .po file is used as it is. Plural texts carry `msgid_plural` and `msgstr[n]`
(the Plural-Forms header chooses the form): `tn(lang, key, n)`.

Bot texts are HTML (Telegram parse mode). Values put into them with `t()` are escaped unless the
key's placeholder is named with a `_html` suffix (already-built HTML). The terminal's texts are
plain: `plain()` leaves values as they are. The words both fronts share (cards, suits, actions,
bids) are in `bot.i18n.words`.

A new text: add its msgid and msgstr to every language's .po file (tests/test_i18n.py checks
that every language has every msgid, that the placeholders agree, and that every key the code
passes to `t` / `tn` / `plain` exists). A setting of `bot.table.settings.SETTING_CHOICES`
needs `opt_<key>`, `opt_<key>_help` and a name per value, `val_<key>_<value>` or the generic
`val_<value>`. A new language: copy a .po file to `locale/<lang>/LC_MESSAGES/`, set its
`Language` and `Plural-Forms` headers, translate, and add the code to `LANGS`.
"""

from __future__ import annotations

import gettext
import html
from collections.abc import Mapping
from importlib import resources
from io import BytesIO
from typing import Any

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from bot.engine.options import VARIANTS

LANGS = ("it", "en")
DEFAULT_LANG = "it"
DOMAIN = "briscola"


def read_catalog(lang: str) -> Catalog:
    """The catalogue of `lang` as Babel reads it from the package's .po file."""
    po = resources.files(__name__) / "locale" / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
    with po.open("rb") as f:
        return read_po(f, locale=lang, domain=DOMAIN)


def _compile(catalog: Catalog) -> gettext.GNUTranslations:
    mo = BytesIO()
    write_mo(mo, catalog)
    mo.seek(0)
    return gettext.GNUTranslations(mo)


def _msgids(catalog: Catalog) -> tuple[frozenset[str], frozenset[str]]:
    """The catalogue's translated msgids, and those of them that are plural entries."""
    single: set[str] = set()
    plural: set[str] = set()
    for message in catalog:
        if not message.id or message.fuzzy:
            continue
        if isinstance(message.id, str):
            if message.string:
                single.add(message.id)
        elif isinstance(message.string, tuple | list) and all(message.string):
            plural.add(message.id[0])
    return frozenset(single | plural), frozenset(plural)


_CATALOGS = {lang: read_catalog(lang) for lang in LANGS}
_TRANSLATIONS = {lang: _compile(_CATALOGS[lang]) for lang in LANGS}
_KEYS = {lang: _msgids(_CATALOGS[lang])[0] for lang in LANGS}
_PLURAL = {lang: _msgids(_CATALOGS[lang])[1] for lang in LANGS}
for _other in LANGS:  # a text missing in one language falls back to Italian
    if _other != DEFAULT_LANG:
        _TRANSLATIONS[_other].add_fallback(_TRANSLATIONS[DEFAULT_LANG])


def _lang_or_default(lang: str) -> str:
    return lang if lang in _TRANSLATIONS else DEFAULT_LANG


def _raw(lang: str, key: str, kw: Mapping[str, Any]) -> str:
    """The unformatted text of `key` in `lang` (Italian when `lang` lacks it); for a plural
    entry, the form for the count `kw["n"]`. KeyError when no language has `key`."""
    if key not in _KEYS[lang]:
        if key not in _KEYS[DEFAULT_LANG]:
            raise KeyError(key)
        lang = DEFAULT_LANG
    translations = _TRANSLATIONS[lang]
    if key in _PLURAL[lang]:
        if "n" not in kw:
            raise TypeError(f"the text {key!r} has plural forms: give its count n")
        return translations.ngettext(key, key, int(kw["n"]))
    return translations.gettext(key)


def t(lang: str, key: str, **kw: Any) -> str:
    """The bot's text `key` in `lang`, placeholders filled; values escaped unless named
    `*_html`. A plural text takes its form from `n` (see `tn`)."""
    text = _raw(_lang_or_default(lang), key, kw)
    safe = {
        k: (v if k.endswith("_html") else html.escape(str(v), quote=False)) for k, v in kw.items()
    }
    if "{ad}" in text:  # Italian: "tocca ad Anna", "tocca a Mario", "tocca a 🤖 Ada"
        safe["ad"] = _a_or_ad(str(kw.get("who", "")))
    return text.format(**safe) if safe or "{" in text else text


def tn(lang: str, key: str, n: int, **kw: Any) -> str:
    """The plural text `key` in the form `lang` uses for `n` ("1 minuto", "2 minuti"), with
    `{n}` and the other placeholders filled as by `t`."""
    return t(lang, key, n=n, **kw)


def check_lang(lang: str) -> str:
    """`lang` if the catalogue has it, else ValueError (the terminal refuses other languages)."""
    if lang not in _TRANSLATIONS:
        raise ValueError(f"unknown language {lang!r}; use one of {', '.join(LANGS)}")
    return lang


def plain(lang: str, key: str, **kw: Any) -> str:
    """A plain-text (terminal) text: placeholders filled as they are, nothing escaped; a plural
    text takes its form from `n`. ValueError for a language the catalogue lacks."""
    text = _raw(check_lang(lang), key, kw)
    return text.format(**kw) if kw or "{" in text else text


def has_text(lang: str, key: str) -> bool:
    return key in _KEYS.get(lang, frozenset())


def keys(lang: str = DEFAULT_LANG) -> frozenset[str]:
    """Every msgid the catalogue of `lang` translates."""
    return _KEYS[lang]


# ---------------------------------------------------------------------------------------------
# names of variants, levels and commands (mappings kept for the callers that iterate them)

VARIANT_KEYS = VARIANTS  # the engine's list, one source of truth
LEVEL_KEYS = ("easy", "normal", "hard")
COMMAND_KEYS = (
    "new",
    "join",
    "leave",
    "addbot",
    "go",
    "cancel",
    "table",
    "settings",
    "score",
    "rules",
    "help",
    "lang",
    "torneo",  # and /tournament (RULES §11)
    "season",  # and /stagione (§10.4)
    "export",
    "undo",
    "beer",  # and /birra
    "stats",  # and /statistiche
    "top",  # and /classifica
    "h2h",  # and /scontri
)

VARIANT_NAMES: dict[str, dict[str, str]] = {
    lang: {v: t(lang, f"variant_{v}") for v in VARIANT_KEYS} for lang in LANGS
}
LEVEL_NAMES: dict[str, dict[str, str]] = {
    lang: {lv: t(lang, f"level_{lv}") for lv in LEVEL_KEYS} for lang in LANGS
}
COMMANDS: dict[str, list[tuple[str, str]]] = {
    lang: [(c, t(lang, f"cmd_{c}")) for c in COMMAND_KEYS] for lang in LANGS
}

# Words for a setting that override its `opt_<key>` / `val_<key>_<value>` texts ("" the name),
# per language. Empty: every setting is named by `opt_` / `val_` texts of the catalogue.
SETTING_WORDS: dict[str, dict[str, dict[str, str]]] = {"it": {}, "en": {}}


def level_name(lang: str, level: str) -> str:
    """A computer player's level as people call it (`simple` and `random` keep their names)."""
    return LEVEL_NAMES.get(lang, LEVEL_NAMES["it"]).get(level, level)


def parse_level(text: str) -> str | None:
    """The level named by `text` in either language (`difficile`, `Hard`, ...), else None."""
    key = text.strip().lower()
    for names in LEVEL_NAMES.values():
        for level, name in names.items():
            if key in (level, name):
                return level
    return None


def variant_name(lang: str, variant: str) -> str:
    """A variant's name, spelled the same by the bot and the terminal."""
    return VARIANT_NAMES.get(lang, VARIANT_NAMES["it"]).get(variant, variant)


# ---------------------------------------------------------------------------------------------
# helper "group": names of settings and values, lists of names, a person's language


def _a_or_ad(name: str) -> str:
    """The Italian preposition before `name`: "ad" when the name begins with the letter a
    (the euphonic d: "tocca ad Anna"), else "a" ("a Mario", "a Elena"); a name that begins
    with anything but a letter, an emoji or a symbol, takes "a" whatever follows ("tocca a
    🤖 Ada", never "ad 🤖 Ada": the d is said before the vowel, and none is said there)."""
    first = name.lstrip()[:1]
    return "ad" if first.lower() in ("a", "à", "á") else "a"


def _words(lang: str, key: str) -> dict[str, str]:
    return SETTING_WORDS.get(lang, SETTING_WORDS["it"]).get(key, {})


def _text_or_none(lang: str, key: str) -> str | None:
    """The text `key` in `lang` (Italian for an unknown language), None when it has none."""
    lang = _lang_or_default(lang)
    return t(lang, key) if has_text(lang, key) else None


def option_text(lang: str, key: str) -> str | None:
    """A setting's name as people say it ("Formato"), from `SETTING_WORDS` or `opt_<key>`."""
    return _words(lang, key).get("") or _text_or_none(lang, f"opt_{key}")


def option_name(lang: str, key: str) -> str:
    """`option_text`, else (a setting nobody named yet) the key itself."""
    return option_text(lang, key) or option_text("it", key) or key


def option_help(lang: str, key: str) -> str:
    return _text_or_none(lang, f"opt_{key}_help") or ""


def value_text(lang: str, key: str, value: str) -> str | None:
    """A setting's value in words ("al meglio delle 5 mani"), or None if it has no name. The
    turn timer's values are durations, named by their length."""
    if value in _words(lang, key):
        return _words(lang, key)[value]
    if key == "timer" and value.isdigit():
        n = int(value)
        if n == 0:
            return t(lang, "timer_off")
        if n % 60 == 0:
            return tn(lang, "timer_minutes", n // 60)
        return tn(lang, "timer_seconds", n)
    return _text_or_none(lang, f"val_{key}_{value}") or _text_or_none(lang, f"val_{value}")


def value_name(lang: str, key: str, value: str) -> str:
    return value_text(lang, key, value) or value


def join_names(lang: str, names: list[str]) -> str:
    """ "Mario e Luigi", "Ana, Mario e Luigi" (plain text: escape it where it goes)."""
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} {t(lang, 'and')} {names[-1]}"


def lang_of(code: str | None) -> str | None:
    """The bot's language for a Telegram `language_code` (it, it-CH → it; any other → en),
    None when Telegram gives none."""
    if not code:
        return None
    return "it" if code.lower().startswith("it") else "en"
