"""The table service without Telegram: restore after a crash (issue 3: nothing is lost)."""

from __future__ import annotations

from pathlib import Path

from bot.service import Person, TableService
from bot.table.table import FINISHED
from storage import Database
from tests.support.rig import Out, Timers

CHAT = -100555


async def test_a_finished_match_is_announced_again_after_a_restart(tmp_path: Path) -> None:
    """A crash right after the last move is stored must not swallow the final message:
    restore() renders the tables that ended recently once more."""
    url = f"sqlite:///{tmp_path / 'b.db'}"
    db = await Database.open(url)
    out = Out()
    svc = TableService(db, out, Timers(), "test_bot")
    ana = Person(7, "Ana_Maria*")
    await svc.lobby.new_table(CHAT, ana, "due", True)
    await svc.settings.set_options(CHAT, ana, [("match", "single")])
    await svc.settings.start(CHAT, ana, is_admin=False, fill=True)
    await svc.idle()  # the computer players move after the start is answered
    table = next(iter(svc.registry.by_id.values()))
    tid = table.table_id
    for _ in range(200):  # void 60-60 hands need "next hand"; a single match ends otherwise
        assert table.hand is not None
        if table.status == FINISHED:
            break
        if table.hand.is_terminal():
            await svc.play.next_hand(ana, tid, table.hand.hand_index)
            await svc.idle()
            continue
        action = table.hand.legal_actions()[0]
        stamp = 0 if action < 100 else table.turn_start()
        await svc.play.act(ana, tid, table.hand.hand_index, stamp, action)
        await svc.idle()
    assert table.status == FINISHED
    final = out.group[-1].text
    await db.close()

    db2 = await Database.open(url)
    out2 = Out()
    assert await TableService(db2, out2, Timers(), "test_bot").restore() == 0  # none active
    assert [c.text for c in out2.group] == [final]  # the result is shown again, exactly as it was
    await db2.close()
