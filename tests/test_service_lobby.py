"""The table service's lobby without Telegram: what a join costs the database, and a computer
seat stored as what happened (a computer of a level, its first name) and named where it is
shown, in the language it is shown in; tables stored with the older whole names show them as
before."""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from bot.i18n import t
from bot.service import Person, TableService
from bot.service.core import ADMISSION_BACKLOG
from bot.table.table import PLAYING
from bot.view.render import short_name
from tests.support.rig import CHAT, Rig, Timers

ANA = Person(11, "Ana")
EVE = Person(21, "Eve", lang="en")  # her Telegram speaks English; the group Italian


def count_calls(monkeypatch: pytest.MonkeyPatch, part: object, names: list[str]) -> list[str]:
    """Every call of `names` on `part` (one of the database's), in order, from now on."""
    calls: list[str] = []
    for name in names:
        method: Callable[..., Awaitable[Any]] = getattr(part, name)

        def counted(
            *args: Any, _m: Callable[..., Awaitable[Any]] = method, _n: str = name, **kw: Any
        ) -> Awaitable[Any]:
            calls.append(_n)
            return _m(*args, **kw)

        monkeypatch.setattr(part, name, counted)
    return calls


def stored_seats(rig: Rig, tid: int) -> list[dict[str, Any]]:
    conn = sqlite3.connect(rig.db.path)
    try:
        (seats,) = conn.execute(
            "SELECT seats_json FROM tables WHERE table_id = ?", (tid,)
        ).fetchone()
    finally:
        conn.close()
    return list(json.loads(seats)["seats"])


async def first_trick(svc: TableService, person: Person) -> None:
    """`person` plays their first legal card: a trick is then complete, and every hand
    message names who played it and who took it."""
    (table,) = svc.registry.by_id.values()
    assert table.hand is not None
    action = table.hand.legal_actions()[0]
    reply = await svc.play.act(person, table.table_id, table.hand.hand_index, 0, action)
    assert reply.key == "ok_played" and reply.text, reply
    await svc.idle()


async def test_a_join_reads_the_person_once(rig: Rig, monkeypatch: pytest.MonkeyPatch) -> None:
    """/new and /join note the person and read them once (their /lang, whether they opened a
    private chat): the answer is the same as ever."""
    svc = rig.svc
    await rig.db.people.upsert_user(ANA.user_id, ANA.name, can_dm=True)
    await rig.db.people.upsert_user(EVE.user_id, EVE.name, lang="it", can_dm=True)  # /lang it
    calls = count_calls(monkeypatch, rig.db.people, ["upsert_user", "get_user"])
    assert (await svc.lobby.new_table(CHAT, ANA, "tre", True)).text == ""
    assert calls == ["upsert_user", "get_user"]
    calls.clear()
    reply = await svc.lobby.join(CHAT, EVE)
    assert reply.key == "ok_joined" and reply.keyboard is None, reply
    assert calls == ["upsert_user", "get_user"]
    table = rig.table()
    assert table.seats[1].lang == "it"  # what she chose with /lang, over her Telegram's
    # someone who never opened a private chat gets the link that opens it
    calls.clear()
    bob = Person(31, "Bob", lang="en")
    reply = await svc.lobby.join(CHAT, bob)
    assert calls == ["upsert_user", "get_user"]
    assert reply.text == t("it", "need_dm", who="Bob"), reply
    assert reply.keyboard is not None
    (button,) = [b for row in reply.keyboard for b in row]
    assert button.url == f"https://t.me/test_bot?start=t{table.table_id}"
    assert table.seats[2].lang == "en"  # his Telegram's language (no /lang)
    # already seated: refused, and still the link (as before)
    calls.clear()
    again = await svc.lobby.join(CHAT, bob)
    assert calls == ["upsert_user", "get_user"] and again.text == reply.text


async def test_a_computer_seat_stores_its_level_and_is_named_where_shown(rig: Rig) -> None:
    """/addbot difficile stores a computer of level hard with a first name, no words of a
    language: the group reads "🤖 Ada (difficile)", a hand (in any language) "🤖 Ada"."""
    svc = rig.svc
    await rig.db.people.upsert_user(EVE.user_id, EVE.name, can_dm=True)
    await svc.lobby.new_table(CHAT, EVE, "due", True)
    assert (await svc.lobby.add_bot(CHAT, "difficile")).text == ""
    table = rig.table()
    seats = stored_seats(rig, table.table_id)
    assert seats[1] == {"user_id": None, "name": "Ada", "level": "hard"}
    assert "🤖 Ada (difficile)" in rig.out.group[-1].text
    await svc.settings.set_options(CHAT, EVE, [("match", "single")], panel=False)
    assert (await svc.settings.start(CHAT, EVE, is_admin=False)).text == ""
    await svc.idle()
    assert table.status == PLAYING
    await first_trick(svc, EVE)
    assert "🤖 Ada (difficile)" in rig.out.group[-1].text
    hand = rig.out.private[EVE.user_id].text
    assert "🤖 Ada" in hand and "(hard)" not in hand and "difficile" not in hand, hand


@pytest.mark.parametrize("old", ["🤖 Ada (difficile)", "🤖 difficile 1"])
async def test_a_table_stored_with_the_whole_name_shows_it_as_before(
    rig: Rig, old: str, tmp_path: Path
) -> None:
    """A table stored when a computer seat kept its whole (Italian) name loads and shows that
    name as it is, in the group and in an English hand."""
    svc = rig.svc
    await rig.db.people.upsert_user(EVE.user_id, EVE.name, can_dm=True)
    await svc.lobby.new_table(CHAT, EVE, "due", True)
    await svc.lobby.add_bot(CHAT, "hard")
    await svc.settings.start(CHAT, EVE, is_admin=False)
    await svc.idle()
    tid = rig.table().table_id
    await svc.close()
    conn = sqlite3.connect(rig.db.path)
    try:
        (raw,) = conn.execute("SELECT seats_json FROM tables WHERE table_id = ?", (tid,)).fetchone()
        extra = json.loads(raw)
        extra["seats"][1]["name"] = old
        conn.execute(
            "UPDATE tables SET seats_json = ? WHERE table_id = ?", (json.dumps(extra), tid)
        )
        conn.commit()
    finally:
        conn.close()
    rig.out.group.clear()
    rig.out.private.clear()
    svc2 = TableService(rig.db, rig.out, Timers(), "test_bot")
    try:
        assert await svc2.restore() == 1
        await svc2.idle()
        await first_trick(svc2, EVE)
        (table,) = svc2.registry.by_id.values()
        assert table.seats[1].name == old and table.seats[1].level == "hard"
        group = rig.out.group[-1].text
        assert old in group and "🤖 🤖" not in group and "(hard)" not in group, group
        hand = rig.out.private[EVE.user_id].text
        assert short_name(old) in hand and "🤖 🤖" not in hand and "(hard)" not in hand, hand
    finally:
        await svc2.close()


async def test_new_over_an_empty_lobby_changes_its_variant_once_anyone_joined_not(
    rig: Rig,
) -> None:
    """Issue 38: /new due over one's own chiamata lobby nobody joined turns it into a due
    lobby (no /cancel first); the same variant again, or a lobby someone joined, is refused
    as before ("there is a table already", the table shown again below)."""
    svc = rig.svc
    await rig.db.people.upsert_user(ANA.user_id, ANA.name, can_dm=True)
    await rig.db.people.upsert_user(EVE.user_id, EVE.name, can_dm=True)
    assert (await svc.lobby.new_table(CHAT, ANA, "chiamata", True)).text == ""
    tid = rig.table().table_id
    changed = await svc.lobby.new_table(CHAT, ANA, "due", True)
    assert changed.key == "ok_variant_changed" and changed.repost == tid, changed
    assert "Briscola a due" in changed.text
    table = rig.table()
    assert table.table_id == tid and table.options.variant == "due" and table.n_players == 2
    same = await svc.lobby.new_table(CHAT, ANA, "due", True)
    assert same.key != "ok_variant_changed" and same.repost == tid
    assert (await svc.lobby.join(CHAT, EVE)).key == "ok_joined"
    refused = await svc.lobby.new_table(CHAT, ANA, "chiamata", True)
    assert refused.key != "ok_variant_changed" and rig.table().options.variant == "due"
    # someone else's /new never changes the lobby
    assert (await svc.lobby.new_table(CHAT, EVE, "tre", True)).key != "ok_variant_changed"


async def test_new_table_refused_while_telegram_budget_is_far_behind(rig: Rig) -> None:
    """Issue 39 §2: with more than ADMISSION_BACKLOG seconds of calls queued for Telegram,
    /new answers that the bot is busy (in the group's language, with when to retry) and opens
    nothing; once the queue is short again, it opens the table."""
    svc = rig.svc
    await rig.db.people.upsert_user(ANA.user_id, ANA.name, can_dm=True)
    svc.registry.backlog = lambda: ADMISSION_BACKLOG + 21.0  # rounded up to ten seconds
    wait = 10 * math.ceil((ADMISSION_BACKLOG + 21.0) / 10)
    reply = await svc.lobby.new_table(CHAT, ANA, "tre", True)
    assert (
        reply.text == t("it", "err_bot_busy", seconds=wait) and f"tra {wait} secondi" in reply.text
    )
    assert await rig.db.tables.active_table(CHAT) is None
    svc.registry.backlog = lambda: 500.0  # however far behind, a retry within two minutes
    reply = await svc.lobby.new_table(CHAT, ANA, "tre", True)
    assert "tra 120 secondi" in reply.text
    svc.registry.backlog = lambda: ADMISSION_BACKLOG - 5.0
    assert (await svc.lobby.new_table(CHAT, ANA, "tre", True)).text == ""
    assert await rig.db.tables.active_table(CHAT) is not None


async def test_start_refused_while_telegram_budget_is_far_behind(rig: Rig) -> None:
    """Issue 50.1: "Inizia" deals to every seat, which the budget cannot carry while it is
    far behind: the start is refused with when to retry, and the lobby stays as it was
    (the running tables keep the budget); once the queue is short, the table starts."""
    svc = rig.svc
    await rig.db.people.upsert_user(ANA.user_id, ANA.name, can_dm=True)
    await rig.db.people.upsert_user(EVE.user_id, EVE.name, can_dm=True)
    assert (await svc.lobby.new_table(CHAT, ANA, "due", True)).text == ""
    assert (await svc.lobby.join(CHAT, EVE)).key == "ok_joined"
    svc.registry.backlog = lambda: ADMISSION_BACKLOG + 1.0
    reply = await svc.settings.start(CHAT, ANA, is_admin=True)
    assert f"tra {10 * math.ceil((ADMISSION_BACKLOG + 1.0) / 10)} secondi" in reply.text, reply
    assert rig.table().status == "lobby" and rig.table().hand is None
    svc.registry.backlog = lambda: 0.0
    assert (await svc.settings.start(CHAT, ANA, is_admin=True)).text == ""
    assert rig.table().hand is not None
