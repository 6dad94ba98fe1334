"""RULES §7.13's fixed number of hands at a table, without Telegram: `/settings hands=5` (the
text form and the panel), refused values naming the allowed ones and changing nothing, the
target set aside while the hands are fixed, and a chiamata match against computers that ends
after its five counted hands with the winner announced, each hand titled "mano k di 5"."""

from __future__ import annotations

import html

import pytest

from bot.i18n import option_name, value_name
from bot.service import Person
from bot.table.settings import setting_values
from bot.table.table import FINISHED, LOBBY
from bot.view.render import (
    Rendered,
    lobby_message,
    option_message,
    options_summary,
    settings_message,
)
from tests.support.rig import CHAT, Rig
from tests.test_service_evening import play_hand_out

ANA = Person(11, "Ana")


async def new_lobby(rig: Rig, variant: str) -> None:
    await rig.db.people.upsert_user(ANA.user_id, ANA.name, can_dm=True)
    await rig.svc.lobby.new_table(CHAT, ANA, variant, True)


async def settings(rig: Rig, *pairs: tuple[str, str]) -> str:
    """What `/settings k=v ...` answers (the text form: not from the panel)."""
    reply = await rig.svc.settings.set_options(CHAT, ANA, list(pairs), panel=False)
    return reply.text


def button_args(screen: Rendered, kind: str, at: int) -> list[str]:
    """The field `at` of the screen's buttons of `kind` (`o:<table>:<key>` opens a
    setting's screen, `s:<table>:<key>:<value>` sets a value)."""
    data = [b.data for row in screen.keyboard for b in row if b.data]
    return [d.split(":")[at] for d in data if d.split(":")[0] == kind]


def panel_keys(rig: Rig) -> list[str]:
    """The settings the panel lists."""
    return button_args(settings_message(rig.table(), "it"), "o", 2)


def panel_values(rig: Rig, key: str) -> list[str]:
    """The values the setting's own screen offers as buttons."""
    table = rig.table()
    return button_args(option_message(table, key, table.lang), "s", 3)


@pytest.mark.parametrize(
    ("variant", "offered"), [("chiamata", ["0", "5", "10"]), ("chiamata4", ["0", "4", "8"])]
)
async def test_s7_13_hands_offered_for_the_seats_in_words(
    rig: Rig, variant: str, offered: list[str]
) -> None:
    """RULES §7.13: the panel offers `hands` with the values the table's seats allow (a
    multiple of the players), each in words in both languages; `target` 7, 11, 21 or open."""
    await new_lobby(rig, variant)
    table = rig.table()
    assert "hands" in panel_keys(rig)
    assert panel_values(rig, "hands") == offered
    assert setting_values(table, "target") == ["7", "11", "21", "0"]
    it = {v: value_name("it", "hands", v) for v in offered}
    en = {v: value_name("en", "hands", v) for v in offered}
    assert it["0"] == "nessuno (si gioca al punteggio)"
    assert en["0"] == "none (play to the target score)"
    once, twice = offered[1:]
    assert it[once] == f"{once} mani (ognuno fa il mazziere una volta)"
    assert it[twice] == f"{twice} mani (ognuno fa il mazziere due volte)"
    assert en[once] == f"{once} hands (everyone deals once)"
    assert en[twice] == f"{twice} hands (everyone deals twice)"
    assert [value_name("it", "target", v) for v in ("7", "11", "21")] == [
        "7 punti",
        "11 punti",
        "21 punti",
    ]
    assert value_name("en", "target", "0") == "none (open league)"


async def test_s7_13_settings_hands_5_in_the_text_form(rig: Rig) -> None:
    """RULES §7.13: `/settings hands=5` sets it; the lobby then gives the match as five hands
    instead of the target, and the target is no longer a setting (it does not apply)."""
    await new_lobby(rig, "chiamata")
    assert await settings(rig, ("target", "21")) == "Impostato."
    assert await settings(rig, ("hands", "5")) == "Impostato."
    table = rig.table()
    assert table.options.hands == 5 and table.options.target == 11  # 21 set aside
    summary = options_summary(table, "it")
    assert summary.startswith("Numero di mani: 5 mani (ognuno fa il mazziere una volta)")
    assert "Obiettivo" not in summary
    assert "Numero di mani: 5 mani" in html.unescape(lobby_message(table, "it").text)
    assert "hands" in panel_keys(rig) and "target" not in panel_keys(rig)
    # the target, asked for while the hands are fixed: why not, and how
    said = await settings(rig, ("target", "21"))
    assert "Obiettivo" in said and "numero fisso di mani" in said and "hands=0" in said
    assert rig.table().options.target == 11
    # all or nothing, in any order: back to a target of 21
    assert await settings(rig, ("target", "21"), ("hands", "0")) == "Impostato."
    assert (rig.table().options.hands, rig.table().options.target) == (0, 21)


@pytest.mark.parametrize("lang", ["it", "en"])
async def test_s7_13_settings_refuse_hands_the_seats_do_not_allow(rig: Rig, lang: str) -> None:
    """RULES §7.13: `hands=3` (no such value) and `hands=4` (four players' value, at a table
    of five) are refused naming the values allowed, in words, and change nothing; a
    variant other than chiamata has no `hands`."""
    await rig.db.people.set_chat_lang(CHAT, lang)  # /lang in the group, before the table
    await new_lobby(rig, "chiamata")
    table = rig.table()
    assert table.lang == lang
    before = table.options
    allowed = [f"{v} ({value_name(lang, 'hands', v)})" for v in ("0", "5", "10")]
    for bad in ("3", "4"):
        said = html.unescape(await settings(rig, ("hands", bad), ("timer", "30")))
        assert option_name(lang, "hands") in said and ", ".join(allowed) in said, said
        assert "4 (" not in said  # four players' value is not offered to five
        table = rig.table()
        assert table.options == before and table.timer == 60  # nothing changed


async def test_s7_13_hands_is_chiamata_only(rig: Rig) -> None:
    """RULES §7.13: `hands` is chiamata's: at a table of Briscola a due it is refused."""
    await new_lobby(rig, "due")
    said = await settings(rig, ("hands", "5"))
    assert "Numero di mani" in said and said != "Impostato."
    assert rig.table().options.hands == 0 and rig.table().status == LOBBY


async def test_s7_13_five_hands_against_computers_end_with_the_winner(rig: Rig) -> None:
    """RULES §7.13: a chiamata table with hands=5 (one person, four computers) plays exactly
    five counted hands (all-pass redeals aside; one more while the highest scores are equal),
    each titled "mano k di 5"; the highest score wins and the match's end names the winner."""
    await rig.db.people.upsert_user(ANA.user_id, ANA.name, can_dm=True)
    await rig.svc.lobby.new_table(CHAT, ANA, "chiamata", True)
    assert await settings(rig, ("hands", "5"), ("timer", "0")) == "Impostato."
    reply = await rig.svc.settings.start(CHAT, ANA, is_admin=False, fill=True)
    assert reply.text == "", reply
    await rig.svc.idle()
    tid = rig.table().table_id
    titles: list[str] = []
    for _ in range(40):
        table = await play_hand_out(rig, [ANA])
        await rig.svc.idle()
        assert table.hand is not None
        titles.append(rig.out.group[-1].text.splitlines()[0])
        if table.status == FINISHED:
            break
        reply = await rig.svc.play.next_hand(ANA, tid, table.hand.hand_index)
        assert reply.key == "ok_played", reply
        await rig.svc.idle()
    match = table.match
    assert table.status == FINISHED and match is not None and match.over
    counted = [r for r in match.records if not r.void]
    scores = [0] * 5
    for r in counted[:5]:
        scores = [s + d for s, d in zip(scores, r.deltas, strict=True)]
    tied_after_five = scores.count(max(scores)) > 1
    assert len(counted) == 5 or (len(counted) > 5 and tied_after_five)
    assert match.scores.count(max(match.scores)) == 1
    assert match.winner == match.scores.index(max(match.scores))
    k = 0
    for rec, title in zip(match.records, titles, strict=True):
        if not rec.void:
            k += 1
        shown = k if not rec.void else k + 1  # a redeal keeps its number (§4.4)
        want = f"mano {shown} di 5" if shown <= 5 else f"mano {shown} (spareggio)"
        assert title.endswith(want), (title, want)
    assert any(w in rig.out.private[ANA.user_id].text for w in ("di 5", "spareggio"))
    winner = table.seats[match.winner].name
    ends = [
        c.text for chat, c, _ in rig.out.announced if chat == CHAT and "Partita finita" in c.text
    ]
    assert len(ends) == 1 and winner in html.unescape(ends[0])


@pytest.mark.parametrize(
    ("word", "stored"),
    [("yes", True), ("sì", True), ("si", True), ("on", True), ("TRUE", True), ("no", False)],
)
async def test_a_switch_takes_the_words_people_type(rig: Rig, word: str, stored: bool) -> None:
    """Issue 54.8: `/settings counts=yes` was refused (only true/false were): a switch takes
    sì/no, yes/no, on/off, true/false (§10.5's `counts`, at a table with computer seats);
    a word that is none of them is refused, naming the values, and changes nothing."""
    await new_lobby(rig, "due")
    await rig.svc.lobby.add_bot(CHAT)
    assert rig.table().computer_seats()
    assert await settings(rig, ("counts", word)) == "Impostato."
    assert rig.table().counts is stored
    said = await settings(rig, ("counts", "forse"))
    assert "forse" in said and "true" in said, said
    assert rig.table().counts is stored
