"""Stats at the service (issue 14): the pictures are drawn off the event loop and survive any
name; the ratings /top shows follow new records and undos (§10.4: nothing deleted, an undo
takes the game out), and a game with a computer is not rated (§10.5)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from bot.service import Person, Reply
from bot.service.records import Chart
from bot.view import charts
from storage import Database
from storage.stats import PlayRecord, StoredPlay
from tests.support.history import CHAT, HANDS, MATCHES, NAMES, T0, A, B, C, D, hand, match
from tests.support.rig import Rig

PNG = b"\x89PNG\r\n\x1a\n"
ANA = Person(A, NAMES[A])


def as_record(play: StoredPlay, result: StoredPlay | None = None) -> PlayRecord:
    index = play.hand_index if play.hand_index is not None else 99
    data = result.data if result is not None else None
    return PlayRecord(
        play.chat_id, play.table_id, index, play.variant, play.family, play.finished_at,
        play.data, data,
    )  # fmt: skip


async def history(db: Database) -> None:
    """The scripted history of tests/test_stats.py, as the tables would have written it,
    with the due matches' ledger entries (§10.2)."""
    results = {m.table_id: m for m in MATCHES if m.family != "chiamata"}
    last = {m.table_id: max(h.hand_index or 0 for h in HANDS if h.table_id == m.table_id)
            for m in results.values()}  # fmt: skip
    for h in HANDS:
        done = results.get(h.table_id) if h.hand_index == last.get(h.table_id) else None
        await db.stats.record_play(as_record(h, done))
    for m in results.values():
        deltas = {u: d for u, d in zip(m.data["users"], m.data["counted"], strict=True)}
        names = {u: NAMES[u] for u in deltas}
        assert await db.ledger.record_ledger(
            CHAT, f"t{m.table_id}:match", m.table_id, "due", deltas, names, m.finished_at
        )


def spy(monkeypatch: pytest.MonkeyPatch, name: str) -> list[bool]:
    """Replace `charts.<name>` with a wrapper noting whether it ran off the event loop's
    thread."""
    calls: list[bool] = []
    real: Callable[..., bytes] = getattr(charts, name)

    def wrapped(*args: Any) -> bytes:
        calls.append(threading.current_thread() is not threading.main_thread())
        return real(*args)

    monkeypatch.setattr(charts, name, wrapped)
    return calls


async def test_charts_are_drawn_in_a_worker_thread(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    await history(rig.db)
    balance, rating = spy(monkeypatch, "balance_chart"), spy(monkeypatch, "rating_chart")
    shot = await rig.svc.rankings.score_chart(CHAT, ["chart"])
    assert isinstance(shot, Chart) and shot.png.startswith(PNG)
    assert "stagione 1" in shot.caption
    shot = await rig.svc.stats.stats(CHAT, ANA, ["grafico"])
    assert isinstance(shot, Chart) and shot.png.startswith(PNG)
    assert balance == [True] and rating == [True]
    # nobody rated, nothing in the ledger: a clear answer, no picture
    stranger = Person(77, "Zed")
    none = await rig.svc.stats.stats(CHAT, stranger, ["chart"])
    assert isinstance(none, Reply) and none.key == "st_err_no_rating"
    empty = await rig.svc.rankings.score_chart(CHAT - 1, ["chart"])
    assert isinstance(empty, Reply) and empty.key == "lg_season_empty"
    assert rating == [True]


@pytest.mark.filterwarnings("ignore:Glyph")  # an emoji the font lacks is drawn as a box
def test_any_name_draws() -> None:
    """Names are drawn as they are: a "$" (matplotlib's mathtext), markup, emoji."""
    names = ["$x", "a$b$c", "<b>&amp;", "🍕 Pino", "x" * 80]
    png = charts.balance_chart({n: [1, -1, 2] for n in names}, "$ title", "x $", "y")
    assert png.startswith(PNG)
    points = [(T0, 1.0), (T0, -2.5)]
    assert charts.rating_chart({"$": points}, "a $ b", "x", "y").startswith(PNG)


async def test_top_follows_new_records_and_undos(rig: Rig) -> None:
    svc = rig.svc
    assert (await svc.rankings.top(CHAT, [])).key == "st_top_empty"
    await history(rig.db)
    top = await svc.rankings.top(CHAT, [])
    assert top.key == "st_top"
    # due is one against one, not "due squadre" (issue 54.8)
    assert "uno contro uno" in top.text and "chiamata" in top.text
    assert "due squadre" not in top.text
    two = await svc.rankings.top(CHAT, ["due"])
    assert "chiamata" not in two.text.split("\n")[0] and "1 partita" not in two.text
    assert "2 partite" in two.text  # Ana and Bea played both due matches
    # a match with a computer is recorded (counts on) but not rated
    bot_match = match(30, [A, None], winners=[0], counted=[0, 0], minute=50)
    bot_hand = hand(30, 0, [A, None], side_of=[0, 1], winning=[0], points=[70, 50],
                    variant="due", minute=50)  # fmt: skip
    await rig.db.stats.record_play(as_record(bot_hand, bot_match))
    assert "2 partite" in (await svc.rankings.top(CHAT, ["due"])).text
    # /undo of the last due match (§10.4: a compensating entry): it is rated no more
    entries = await rig.db.ledger.season_entries(CHAT)
    last = next(e for e in entries if e.hand_key == "t21:match")
    outcome, _ = await rig.db.ledger.undo_entry(CHAT, last.hand_id, A, "Ana", T0)
    assert outcome == "done"
    after = await svc.rankings.top(CHAT, ["two"])
    assert "1 partita" in after.text and "2 partite" not in after.text
    stats = await svc.stats.stats(CHAT, ANA, [])
    # the stats still count the computer's table (it wrote the ledger), not the undone match
    assert isinstance(stats, Reply) and "Partite: 2, vinte 2 (100%)" in stats.text


async def test_stats_names_and_refusals(rig: Rig) -> None:
    svc = rig.svc
    await history(rig.db)
    bea = await svc.stats.stats(CHAT, ANA, ["bea"])
    assert isinstance(bea, Reply) and "📊 <b>Bea</b>" in bea.text
    await svc.records.note_username(B, "Bea", "bea_b")
    await svc.records.note_username(B, "Bea", "bea_b")  # noted once per run
    by_username = await svc.stats.stats(CHAT, ANA, ["@Bea_B"])
    assert isinstance(by_username, Reply) and "📊 <b>Bea</b>" in by_username.text
    by_id = await svc.stats.stats(CHAT, ANA, [], [B])
    assert isinstance(by_id, Reply) and by_id.text == by_username.text
    for words, key in (
        (["@nobody"], "st_err_unknown"),
        (["bea", "ana"], "st_err_usage"),
        (["5"], "lg_err_no_season"),
        (["last"], "lg_err_no_previous"),
    ):
        reply = await svc.stats.stats(CHAT, ANA, words)
        assert isinstance(reply, Reply) and reply.key == key, (words, reply)
    assert (await svc.rankings.h2h(CHAT, ANA, ["@bea_b"])).key == "st_h2h"
    assert (await svc.rankings.h2h(CHAT, ANA, ["bea", "bea"])).key == "st_err_h2h_same"
    assert (await svc.rankings.top(CHAT, ["x"])).key == "st_err_top_usage"


async def test_stats_in_a_private_chat_are_ones_own_in_every_group(rig: Rig) -> None:
    """Issue 49: /stats in a private chat shows the sender's own numbers, per group they play
    in (titles escaped) and across groups, not a refusal; nobody's else."""
    svc = rig.svc
    nobody = await svc.stats.mine(Person(77, "Zed"))
    assert nobody.key == "st_me_none" and "non hai ancora partite" in nobody.text
    assert "Zed" in nobody.text
    await history(rig.db)
    await rig.db.people.update_chat_settings(CHAT, title="<Lega> & co")
    one = await svc.stats.mine(ANA)
    assert one.key == "st_mine", one
    text = one.text
    assert "📊 <b>Ana</b>" in text and "👥 <b>&lt;Lega&gt; &amp; co</b>" in text, text
    assert "In tutti i gruppi" not in text  # one group: the same numbers twice would say nothing
    assert "Briscola a due: 2 partite, vinte 1 (50%)" in text, text
    assert "Rating uno contro uno:" in text and "Rating chiamata:" in text
    assert "due squadre" not in text  # due is one against one (issue 54.8)
    assert "Conti della stagione 1: saldo" in text
    assert "Bea" not in text  # her numbers, nobody else's
    # a second group, without a name known yet: both, and the sum across groups
    other = CHAT - 5
    due = match(40, [A, C], winners=[0], counted=[1, -1], minute=60)
    due_hand = hand(40, 0, [A, C], side_of=[0, 1], winning=[0], points=[80, 40],
                    variant="due", minute=60)  # fmt: skip
    record = as_record(due_hand, due)
    await rig.db.stats.record_play(
        PlayRecord(other, 40, 0, "due", "two", record.finished_at, record.hand, record.match)
    )
    two = (await svc.stats.mine(ANA)).text
    assert "🌍 <b>In tutti i gruppi</b>" in two, two
    assert "Briscola a due: 3 partite, vinte 2 (67%)" in two  # across groups
    assert "👥 <b>Gruppo senza nome</b>" in two
    assert "Briscola a due: 1 partita, vinte 1 (100%)" in two  # the new group alone
    # the latest played in first
    assert two.index("Gruppo senza nome") < two.index("&lt;Lega&gt;")
    # in their own language
    english = (await svc.stats.mine(Person(A, "Ana", "en"))).text
    assert "📊 <b>Ana</b> — your numbers" in english and "Across groups" in english
    assert "Two-player Briscola: 3 games, won 2 (67%)" in english, english


async def test_someone_whose_only_match_was_undone_is_known_by_name(rig: Rig) -> None:
    """Issue 54.4: `/stats Zia` answered "Non conosco «Zia»" when her only match had been
    undone (§10.4): people who played in the group are known by name whatever the ledger
    holds; her numbers are then empty, and /h2h finds her too."""
    svc = rig.svc
    await history(rig.db)
    zia = 6  # nobody else's records name her
    zia_match = match(40, [A, zia], winners=[1], counted=[-1, 1], minute=90)
    zia_hand = hand(40, 0, [A, zia], side_of=[0, 1], winning=[1], points=[50, 70],
                    variant="due", minute=90)  # fmt: skip
    zia_match.data["names"] = ["Ana", "Zia"]
    zia_hand.data["players"] = ["Ana", "Zia"]
    await rig.db.stats.record_play(as_record(zia_hand, zia_match))
    assert await rig.db.ledger.record_ledger(
        CHAT, "t40:match", 40, "due", {A: -1, zia: 1}, {A: "Ana", zia: "Zia"}, T0
    )
    found = await svc.stats.stats(CHAT, ANA, ["Zia"])
    assert isinstance(found, Reply) and "📊 <b>Zia</b>" in found.text, found
    entry = next(e for e in await rig.db.ledger.season_entries(CHAT) if e.hand_key == "t40:match")
    outcome, _ = await rig.db.ledger.undo_entry(CHAT, entry.hand_id, A, "Ana", T0)
    assert outcome == "done"
    after = await svc.stats.stats(CHAT, ANA, ["Zia"])
    assert isinstance(after, Reply) and after.key != "st_err_unknown", after
    assert "📊 <b>Zia</b>" in after.text and "Partite:" not in after.text, after.text
    assert (await svc.rankings.h2h(CHAT, ANA, ["zia"])).key == "st_h2h"
    unknown = await svc.stats.stats(CHAT, ANA, ["Zoe"])
    assert isinstance(unknown, Reply) and unknown.key == "st_err_unknown"


def test_the_balance_chart_puts_every_point_where_it_is() -> None:
    """Issue 54.2: `/score grafico` drew each line nudged by up to 0.17 point so that equal
    balances showed (a 0 at -0.15, +1 at 1.08) and wrote "+0 +0 +0" and an ASCII "-1" at the
    ends with no names. Every plotted value is the balance; the legend names each person with
    their final balance, a real minus sign; lines that run together differ in dash and marker."""
    series = {"Ana": [1, 0, -1], "Bea": [1, 0, 2], "Ciro": [-2, 0, -1], "Dario": [0, 0, 0]}
    fig = charts.balance_figure(series, "t", "x", "y")
    ax = fig.axes[0]
    lines = [ln for ln in ax.get_lines() if not str(ln.get_label()).startswith("_")]
    plotted = {str(ln.get_label()): [float(y) for y in np.asarray(ln.get_ydata())] for ln in lines}
    assert plotted == {
        "Ana (\u22121)": [0, 1, 0, -1],
        "Bea (+2)": [0, 1, 0, 2],
        "Ciro (\u22121)": [0, -2, 0, -1],
        "Dario (0)": [0, 0, 0, 0],
    }
    legend = ax.get_legend()
    assert legend is not None
    assert [t.get_text() for t in legend.get_texts()] == list(plotted)
    assert len({(ln.get_linestyle(), ln.get_marker()) for ln in lines}) == len(lines)
    assert not ax.texts  # no bare numbers at the lines' ends
    assert charts.balance_chart(series, "t", "x", "y").startswith(PNG)


async def test_one_against_one_and_two_teams_are_apart_and_named_so(rig: Rig) -> None:
    """Issue 54.8: a due match (one against one) was rated and shown under "due squadre"
    (two teams). Now one against one has its own leaderboard and rating ("uno contro uno",
    "one-on-one"); "due squadre" is only for pairs (a quattro match here); /top uno,
    /top squadre name one, /top due (two sides, as before) both; in English too."""
    svc = rig.svc
    await history(rig.db)  # due matches between Ana and Bea
    # a quattro match: Ana and Ciro (seats 0 and 2) beat Bea and Dario
    four = [A, B, C, D]
    quattro = match(30, four, winners=[0], counted=[1, -1, 1, -1], minute=50,
                    variant="quattro", side_of=[0, 1, 0, 1])  # fmt: skip
    last = hand(30, 0, four, side_of=[0, 1, 0, 1], winning=[0], points=[40, 20, 30, 30],
                variant="quattro", minute=50)  # fmt: skip
    await rig.db.stats.record_play(as_record(last, quattro))
    top = (await svc.rankings.top(CHAT, [])).text
    assert "🏆 <b>Classifica — uno contro uno</b>" in top, top
    assert "🏆 <b>Classifica — due squadre</b>" in top
    boards = top.split("🏆")
    one = next(b for b in boards if "uno contro uno" in b)
    teams = next(b for b in boards if "due squadre" in b)
    assert "Ana" in one and "Bea" in one and "Ciro" not in one and "Dario" not in one
    assert all(name in teams for name in ("Ana", "Bea", "Ciro", "Dario"))
    assert "2 partite" in one and "1 partita" in teams
    only_one = (await svc.rankings.top(CHAT, ["uno"])).text
    assert "uno contro uno" in only_one and "due squadre" not in only_one
    only_teams = (await svc.rankings.top(CHAT, ["squadre"])).text
    assert "due squadre" in only_teams and "uno contro uno" not in only_teams
    both = (await svc.rankings.top(CHAT, ["due"])).text
    assert "uno contro uno" in both and "due squadre" in both
    assert "Classifica — chiamata" not in both
    stats = await svc.stats.stats(CHAT, ANA, [])
    assert isinstance(stats, Reply)
    assert "Rating uno contro uno:" in stats.text and "Rating due squadre:" in stats.text
    h2h = (await svc.rankings.h2h(CHAT, ANA, ["Ciro"])).text
    assert "<b>due squadre</b>" in h2h and "uno contro uno" not in h2h, h2h
    refused = await svc.rankings.top(CHAT, ["boh"])
    assert refused.key == "st_err_top_usage" and "/top [uno|squadre|tre|chiamata]" in refused.text
    await rig.db.people.set_chat_lang(CHAT, "en")
    top = (await svc.rankings.top(CHAT, ["two"])).text
    assert "Leaderboard — one-on-one" in top and "Leaderboard — two teams" in top, top
    assert "sides" not in top
    assert "two teams" not in (await svc.rankings.top(CHAT, ["one"])).text
