"""Property (hypothesis): after any sequence of hands, undos, settlements (payments marked
paid, some tapped twice or stale) and new seasons, driven through the service as the buttons
drive it, every entry and every season's ledger sums to zero (RULES §10.1), the balances are
what a model of the operations says, no entry is undone twice nor an undo undone, and the
export (CSV and JSON) equals the stored entries, season by season."""

from __future__ import annotations

import asyncio
import csv
import io
import json
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from bot.service import Person
from bot.service.league import Document
from bot.table.ledger import settle
from storage import Database
from storage.league import PAYMENT, UNDO
from tests.support.rig import CHAT, Rig

PLAYERS = (1, 2, 3, 4, 5)
ADMIN = Person(99, "Admin")
WHEN = "2026-11-20T21:00:00+00:00"


@st.composite
def zero_sum(draw: st.DrawFn) -> dict[int, int]:
    """A zero-sum entry among 2-5 players, none at zero."""
    who = draw(st.lists(st.sampled_from(PLAYERS), min_size=2, max_size=5, unique=True))
    deltas = [draw(st.sampled_from((-4, -3, -2, -1, 1, 2, 3, 4))) for _ in who[:-1]]
    last = -sum(deltas)
    if last == 0:
        deltas[0] += 1
        last = -1
    return dict(zip(who, [*deltas, last], strict=True))


OPS = st.lists(
    st.one_of(
        st.tuples(st.just("hand"), zero_sum()),
        st.tuples(st.just("undo"), st.booleans()),  # True: tapped twice
        st.tuples(st.just("pay"), st.integers(0, 9), st.booleans()),  # which, an admin taps
        st.tuples(st.just("stale_pay"), st.integers(0, 9)),  # a hand came in between
        st.tuples(st.just("season"), st.booleans()),
    ),
    max_size=14,
)


@dataclass
class Model:
    epoch: int = 0
    balances: dict[int, Counter[int]] = field(default_factory=lambda: {0: Counter()})

    def add(self, deltas: dict[int, int], sign: int = 1) -> None:
        self.balances.setdefault(self.epoch, Counter()).update(
            {u: sign * d for u, d in deltas.items()}
        )


async def run(ops: list[tuple[object, ...]]) -> None:
    db = await Database.open("sqlite:///:memory:")
    rig = Rig(db, "sqlite:///:memory:")
    svc, model, n = rig.svc, Model(), 0
    try:

        async def hand(deltas: dict[int, int]) -> None:
            nonlocal n
            n += 1
            names = {u: f"P{u}" for u in deltas}
            when = datetime.fromisoformat(WHEN)
            assert await db.ledger.record_ledger(
                CHAT, f"t1:h{n}", 1, "chiamata", deltas, names, when
            )
            model.add(deltas)

        for op in ops:
            kind = op[0]
            if kind == "hand":
                assert isinstance(op[1], dict)
                await hand(op[1])
            elif kind == "undo":
                last = await db.ledger.last_undoable(CHAT)
                if last is None:
                    continue
                reply = await svc.league.confirm_undo(
                    CHAT, 1, ADMIN, last.hand_id, True, is_admin=True
                )
                assert reply.key == "lg_undone", reply
                model.add(last.deltas, -1)
                event("an entry undone")
                if op[1]:
                    again = await svc.league.confirm_undo(
                        CHAT, 1, ADMIN, last.hand_id, True, is_admin=True
                    )
                    assert again.key == "lg_err_undone_already"
            elif kind in ("pay", "stale_pay"):
                version = await db.ledger.ledger_version(CHAT)
                payments = settle(await db.ledger.balances_at(CHAT, model.epoch, version))
                if not payments:
                    continue
                payment = payments[int(str(op[1])) % len(payments)]
                if kind == "stale_pay":
                    await hand({1: 1, 2: -1})
                    reply = await svc.league.mark_paid(
                        CHAT, 2, ADMIN, model.epoch, version, payment, is_admin=True
                    )
                    assert reply.key == "lg_err_beer_stale", reply
                    continue
                who = ADMIN if op[2] else Person(payment[0], f"P{payment[0]}")
                for tap in range(2):
                    reply = await svc.league.mark_paid(
                        CHAT, 2, who, model.epoch, version, payment, is_admin=bool(op[2])
                    )
                    assert reply.key == ("lg_ok_paid" if tap == 0 else "lg_err_paid_already")
                debtor, creditor, amount = payment
                model.add({debtor: amount, creditor: -amount})
                event("a payment marked paid")
            elif kind == "season":
                reply = await svc.league.confirm_new_season(
                    CHAT, 3, ADMIN, model.epoch, True, is_admin=True
                )
                assert reply.key == "lg_season_started"
                if op[1]:  # a double tap
                    again = await svc.league.confirm_new_season(
                        CHAT, 3, ADMIN, model.epoch, True, is_admin=True
                    )
                    assert again.key == "lg_err_season_stale"
                model.epoch += 1

        assert await db.people.league_epoch(CHAT) == model.epoch
        for epoch in range(model.epoch + 1):
            entries = await db.ledger.season_entries(CHAT, epoch)
            for e in entries:
                assert sum(e.deltas.values()) == 0 and e.epoch == epoch
                if e.kind == UNDO:
                    assert e.undone_by is None
                    (target,) = [x for x in entries if x.undone_by == e.hand_key]
                    assert e.deltas == {u: -d for u, d in target.deltas.items()}
                if e.kind == PAYMENT:
                    assert len(e.deltas) == 2
            undone = [e.undone_by for e in entries if e.undone_by]
            assert len(undone) == len(set(undone))
            balances = {b.user_id: b.balance for b in await db.ledger.balances(CHAT, epoch)}
            expected = {u: b for u, b in model.balances.get(epoch, Counter()).items()}
            assert balances == {u: expected.get(u, 0) for u in balances}
            assert all(b == 0 for u, b in expected.items() if u not in balances)
            assert sum(balances.values()) == 0
            # the export equals the stored entries
            stored = {e.hand_key: e.deltas for e in entries}
            season = str(epoch + 1)
            doc = await svc.league.export_season(CHAT, [season])
            if not entries:
                assert not isinstance(doc, Document)
                continue
            assert isinstance(doc, Document)
            # a spreadsheet's rows, in the entries' order: who and how many points, each entry
            # named in words (an undo says so), no internal key
            text = doc.data.decode("utf-8-sig")
            assert "pay:" not in text and ":h" not in text
            rows = list(csv.DictReader(io.StringIO(text), delimiter=";"))
            got = [(r["Giocatore"], int(r["Punti"])) for r in rows if r["Punti"]]
            assert got == [(e.names[u], d) for e in entries for u, d in e.deltas.items()]
            what = [r["Voce"] for r in rows if r["Punti"]]
            kinds = [e.kind for e in entries for _ in e.deltas]
            assert [w.startswith("Annulla") for w in what] == [k == UNDO for k in kinds]
            assert [w == "Pagamento" for w in what] == [k == PAYMENT for k in kinds]
            seasons = [r["Voce"] for r in rows if not r["Punti"]]
            assert all(v == f"Inizia la stagione {season}" for v in seasons)
            # the new season's row where it began: before its entries (issue 54.7)
            assert [bool(r["Punti"]) for r in rows] == sorted(bool(r["Punti"]) for r in rows)
            doc = await svc.league.export_season(CHAT, ["json", season])
            assert isinstance(doc, Document)
            data = json.loads(doc.data)
            assert [(h["hand_key"], h["kind"]) for h in data["hands"]] == [
                (e.hand_key, e.kind) for e in entries
            ]
            assert {
                h["hand_key"]: {int(u): d for u, d in h["deltas"].items()} for h in data["hands"]
            } == stored
            audited = sorted(a["hand_key"] for a in data["audit"] if a["hand_key"])
            assert audited == sorted(e.hand_key for e in entries if e.kind != "game")
    finally:
        await svc.close()
        await db.close()


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(OPS)
def test_s10_every_season_sums_to_zero_and_exports_as_stored(ops: list[tuple[object, ...]]) -> None:
    asyncio.run(run(ops))
