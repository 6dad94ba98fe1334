"""Issue 39 §1: a person whose Mini App page of the table is open and visible gets no
private-chat traffic for that table (the page shows the turn); when the page hides or closes,
the chat takes over at once: their turn as a new message, else their hand as it is."""

from __future__ import annotations

from typing import Any

import pytest

from bot.service import Person
from bot.service.types import TableRef
from bot.table.table import Table
from tests.support.rig import CHAT, Rig

ANA = Person(11, "Ana")
BEA = Person(12, "Bea <&>")


class Pages:
    """The Mini App's hub as the service sees it: who has a visible page of which table."""

    def __init__(self) -> None:
        self.shown: set[tuple[int, int]] = set()
        self.published = 0

    def publish(self, table: Table) -> None:
        self.published += 1

    def visible(self, table_id: int, user_id: int) -> bool:
        return (table_id, user_id) in self.shown


async def test_a_visible_page_keeps_the_chat_quiet_until_it_hides(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    svc = rig.svc
    sent: list[tuple[int, str | None]] = []  # (user, turn key) of every private show
    show = rig.out.show_private

    def recorded(table: TableRef, user_id: int, content: Any, **flags: Any) -> None:
        sent.append((user_id, flags.get("turn")))
        show(table, user_id, content, **flags)

    monkeypatch.setattr(rig.out, "show_private", recorded)
    pages = Pages()
    svc.shown.live = pages
    for p in (ANA, BEA):
        await rig.db.people.upsert_user(p.user_id, p.name, can_dm=True)
    await svc.lobby.new_table(CHAT, ANA, "due", True)
    await svc.lobby.join(CHAT, BEA)
    table = rig.table()
    pages.shown.add((table.table_id, BEA.user_id))  # Bea opened the table in the Mini App
    await svc.settings.start(CHAT, ANA, is_admin=False)
    people = {ANA.user_id: ANA, BEA.user_id: BEA}
    bea_turns = 0
    for _ in range(8):  # four tricks, each person on turn in them
        table = rig.table()
        assert table.hand is not None
        uid = table.seats[table.hand.current].user_id
        assert uid is not None
        bea_turns += uid == BEA.user_id
        action = table.hand.legal_actions()[0]
        reply = await svc.play.act(people[uid], table.table_id, table.hand.hand_index, 0, action)
        assert reply.key == "ok_played", reply
        await svc.idle()
    assert bea_turns >= 3 and pages.published > 8  # her page was told of every move
    assert [u for u, _ in sent if u == BEA.user_id] == []  # ... her chat of none
    assert any(u == ANA.user_id and turn for u, turn in sent)  # Ana's turns as usual
    # her page goes to the background: her chat shows the table as it is, at once
    sent.clear()
    pages.shown.clear()
    svc.shown.page_visibility(table.table_id, BEA.user_id, False)
    await svc.idle()
    table = rig.table()
    assert table.hand is not None
    hers = [turn for u, turn in sent if u == BEA.user_id]
    assert len(hers) == 1, sent
    on_turn = table.seats[table.hand.current].user_id == BEA.user_id
    assert (hers[0] is not None) == on_turn  # her turn: a new, notifying message
    # a visible page again: the chat goes quiet again; "visible" alone sends nothing
    sent.clear()
    pages.shown.add((table.table_id, BEA.user_id))
    svc.shown.page_visibility(table.table_id, BEA.user_id, True)
    await svc.idle()
    assert sent == []
