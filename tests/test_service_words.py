"""Issue 38 in the table service, without Telegram: /rules explains a variant in the chat
(38.14), the settings open as a panel of their own and leave the lobby to everyone (38.9),
and a rating reads as a familiar positive number (38.12)."""

from __future__ import annotations

from bot.service import Person
from bot.table.rating import NEWCOMER, PROVISIONAL_GAMES, Rating
from tests.support.rig import CHAT, Rig

ANA = Person(11, "Ana")
EVE = Person(21, "Eve", lang="en")


async def test_rules_explain_a_variant_its_scoring_auction_and_symbols(rig: Rig) -> None:
    svc = rig.svc
    reply = await svc.people.rules(CHAT, "chiamata")
    assert reply.key == "rules_chiamata"
    text = reply.text
    # the scoring (+2 / +1 / −1, alone +4, cappotto), what "Due a 70" commits to, an example
    for words in ("+2", "+1", "−1", "+4", "Cappotto", "Due a 70", "Esempio", "61"):
        assert words in text, (words, text)
    # and the table's symbols
    assert "📣" in text and "🤝" in text and "✖️" in text
    assert "RULES.md" not in text
    # words friends use for a variant; its name in words; an unknown one says what exists
    assert (await svc.people.rules(CHAT, "called")).key == "rules_chiamata"
    assert (await svc.people.rules(CHAT, "Briscolone")).key == "rules_briscolone"
    unknown = await svc.people.rules(CHAT, "poker")
    assert "«poker»" in unknown.text and "chiamata" in unknown.text and not unknown.key
    # without a variant: the group's open table's, else how to ask for one
    assert (await svc.people.rules(CHAT)).key == "rules"
    await rig.db.people.upsert_user(ANA.user_id, ANA.name, can_dm=True)
    await svc.lobby.new_table(CHAT, ANA, "due", True)
    assert (await svc.people.rules(CHAT)).key == "rules_due"
    # in the group's language
    await rig.db.people.set_chat_lang(CHAT, "en")
    english = (await svc.people.rules(CHAT, "chiamata")).text
    assert "Example" in english and "Esempio" not in english


async def test_the_due_is_explained_once_per_group(rig: Rig) -> None:
    """The first time a group's auction reaches the Due, one silent line says what a points
    bid commits to; never again in that group."""
    await rig.svc.play._explain_due(CHAT, "it")
    await rig.svc.play._explain_due(CHAT, "it")
    await rig.svc.play._explain_due(CHAT - 1, "en")
    said = [(chat, c.text, silent) for chat, c, silent in rig.out.announced]
    assert [(chat, silent) for chat, _, silent in said] == [(CHAT, True), (CHAT - 1, True)]
    assert "Due a" in said[0][1] and "Two at" in said[1][1], said


async def test_settings_open_as_a_panel_and_the_lobby_stays(rig: Rig) -> None:
    """The creator's /settings (or the lobby's button) opens a panel of its own, a new
    message; the lobby message keeps showing the lobby with [Entra] for everyone. Anyone
    else is told the settings and who changes them, in their own language."""
    svc = rig.svc
    for p in (ANA, EVE):
        await rig.db.people.upsert_user(p.user_id, p.name, can_dm=True)
    await svc.lobby.new_table(CHAT, ANA, "chiamata", True)
    await svc.idle()
    lobby_shown = len(rig.out.group)
    lobby = rig.out.group[-1]
    reply = await svc.settings.show_settings(CHAT, person=ANA, is_admin=False)
    assert reply.text == ""
    ((chat, panel, silent),) = rig.out.announced
    assert chat == CHAT and silent and panel.text.startswith("⚙️")
    assert len(rig.out.group) == lobby_shown and rig.out.group[-1] is lobby  # untouched
    assert any("Entra" in b.text for row in lobby.keyboard for b in row)
    refused = await svc.settings.show_settings(CHAT, person=EVE, is_admin=False)
    assert refused.key == "settings_not_yours" and refused.alert
    assert "Ana" in refused.text and "⚙️" in refused.text
    assert len(rig.out.announced) == 1  # no panel for her


def test_ratings_read_as_a_positive_number_provisional_at_first() -> None:
    assert NEWCOMER.shown == 1000 and NEWCOMER.provisional
    weak = Rating(NEWCOMER.mu - 20, NEWCOMER.sigma, PROVISIONAL_GAMES)
    assert weak.ordinal < 0 and weak.shown >= 0 and not weak.provisional
    assert weak.shown == max(0, round(1000 + 40 * weak.ordinal))
    strong = Rating(NEWCOMER.mu + 5, NEWCOMER.sigma / 2, PROVISIONAL_GAMES)
    assert strong.shown > 1000
