"""Issue 16, the Mini App without a browser: Telegram's initData checked as Telegram signs it
(forged, altered, stale, replayed fields refused), the session tokens, and the snapshots a
page receives: built from one seat's observation, so that no card still in another hand
(beyond what RULES.md makes public: §6.1 scoperta, §5.2 partners after the talon) and no hint
of the chiamata socio before the called card is played (§7.6) ever reaches a page; a
spectator sees what the group's table message shows. Every move of random hands of every
variant is checked, from every seat and from the spectator's chair."""

from __future__ import annotations

import json
import random
import re
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.engine import SPECTATOR, VARIANTS, Options, observe
from bot.engine import actions as A
from bot.table.table import Table, TableError
from bot.webapp.auth import (
    AuthError,
    RateLimit,
    TableKeys,
    Tokens,
    Viewer,
    check_init_data,
    sign_init_data,
)
from bot.webapp.snapshot import snapshot, viewer_seat
from tests.support.tables import CONFIGS, NAMES, new_table, play_to_the_end

TOKEN = "7654321:AAE2e-SECRET_t0ken_value_for_tests"


def init_data(user_id: int = 42, name: str = "Ann <&>", **extra: str) -> dict[str, str]:
    user = {"id": user_id, "first_name": name, "language_code": "en"}
    return {
        "query_id": "AAF",
        "user": json.dumps(user, separators=(",", ":")),
        "auth_date": str(int(time.time())),
        "start_param": "t12",
        **extra,
    }


def test_init_data_signed_by_telegram_is_accepted() -> None:
    viewer = check_init_data(sign_init_data(init_data(), TOKEN), TOKEN)
    assert viewer == Viewer(42, "Ann <&>", "en", "t12")


@pytest.mark.parametrize(
    "tamper",
    [
        "other_token",
        "changed_user",
        "no_hash",
        "stale",
        "future",
        "twice",
        "garbage",
        "empty",
        "hash_of_other_fields",
    ],
)
def test_forged_or_stale_init_data_is_refused(tamper: str) -> None:
    fields = init_data()
    raw = sign_init_data(fields, TOKEN)
    if tamper == "other_token":
        raw = sign_init_data(fields, "1111:other-bot-token")
    elif tamper == "changed_user":  # someone else's id under the signature
        raw = raw.replace("%22id%22%3A42", "%22id%22%3A43")
        assert "43" in raw
    elif tamper == "no_hash":
        raw = "&".join(p for p in raw.split("&") if not p.startswith("hash="))
    elif tamper == "stale":  # signed two days ago
        raw = sign_init_data({**fields, "auth_date": str(int(time.time()) - 2 * 86400)}, TOKEN)
    elif tamper == "future":
        raw = sign_init_data({**fields, "auth_date": str(int(time.time()) + 86400)}, TOKEN)
    elif tamper == "twice":  # a second user field after the signed one
        raw += "&user=%7B%22id%22%3A1%7D"
    elif tamper == "garbage":
        raw = "%%%&&=="
    elif tamper == "empty":
        raw = ""
    elif tamper == "hash_of_other_fields":
        other = sign_init_data(init_data(user_id=7), TOKEN)
        raw = raw.split("&hash=")[0] + "&hash=" + other.split("&hash=")[1]
    with pytest.raises(AuthError):
        check_init_data(raw, TOKEN)


def test_tokens_name_their_user_until_they_expire() -> None:
    tokens = Tokens(TOKEN, lifetime=60)
    viewer = Viewer(42, "Ann", "it")
    token, expires = tokens.issue(viewer, now=1000.0)
    assert expires == 1060
    assert tokens.check(token, now=1059.0) == viewer
    with pytest.raises(AuthError):
        tokens.check(token, now=1060.0)
    payload, sig = token.split(".")
    for forged in (f"{payload}x.{sig}", f"{payload}.{sig[:-2]}AA", "", ".", payload):
        with pytest.raises(AuthError):
            tokens.check(forged, now=1000.0)
    with pytest.raises(AuthError):  # another bot's token signs other sessions
        Tokens("1111:other").check(token, now=1000.0)


# ---------------------------------------------------------------------- snapshots


def cards_in(snap: dict[str, Any]) -> set[int]:
    """Every card a snapshot names, but the cards one may call (§7.5: any card)."""
    found: set[int] = set()

    def walk(x: Any, key: str = "") -> None:
        if key == "choices":
            for c in x:
                assert (c["card"] is not None) == (c["kind"] == "call"), c
            return
        if isinstance(x, dict):
            if {"id", "r", "s", "name"} <= set(x):
                found.add(x["id"])
            for k, v in x.items():
                walk(v, k)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(snap)
    return found


def hidden_from(table: Table, seat: int) -> set[int]:
    """The cards `seat` (or the spectator) may not see: other hands but what the rules make
    public, and the talon but the face-up cards."""
    hand = table.hand
    assert hand is not None
    obs = hand.observation(seat) if seat >= 0 else observe(hand, SPECTATOR)
    public = {c for cards in obs.visible_hands.values() for c in cards}
    public |= {obs.turned, obs.talon_next, obs.called_card}  # §7.5: the call is heard by all
    hidden = {c for s, cards in enumerate(hand.hands) if s != seat for c in cards}
    hidden |= set(hand.talon[hand.talon_pos :])
    return hidden - public


def check_secrets(table: Table) -> None:
    hand = table.hand
    assert hand is not None
    for seat in [SPECTATOR, *range(table.n_players)]:
        for lang in ("it", "en"):
            snap = snapshot(table, seat, lang)
            json.dumps(snap)  # plain JSON
            leaked = cards_in(snap) & hidden_from(table, seat)
            assert not leaked, (seat, leaked, snap)
            if seat >= 0 and table.options.rules().blind:  # §6.2: one's own cards unseen
                assert snap["hand"] == [] and snap["blind"] == len(hand.hands[seat])
            elif seat >= 0:
                assert sorted(c["id"] for c in snap["hand"]) == sorted(hand.hands[seat])
            else:
                assert snap["hand"] == [] and snap["choices"] == [] and snap["playable"] == []
            if not table.options.rules().chiamata or hand.caller < 0:
                continue
            # §7.6: nothing tells who the socio is before the called card is played
            auction = snap["auction"]
            revealed = hand.reveal_trick >= 0 or hand.is_terminal() or hand.carichi
            knows = revealed or seat == hand.partner
            if not knows:
                assert auction["socio"] == -1 and not auction["you_are_socio"], auction
                assert not any(s["socio"] for s in snap["seats"])
                text = json.dumps(snap, ensure_ascii=False).lower()
                assert "socio" not in text.replace('"socio"', "").replace('"you_are_socio"', ""), (
                    text
                )
            called = hand.called_card >= 0
            if called and seat == hand.partner and seat != hand.caller and not revealed:
                assert auction["you_are_socio"], (hand.phase, auction)


def random_play(table: Table, rng: random.Random, every: int = 1) -> None:
    """Play the hand to its end at random, checking the secrets after every `every` moves."""
    hand = table.hand
    assert hand is not None
    step = 0
    while not hand.is_terminal():
        if step % every == 0:
            check_secrets(table)
        legal = hand.legal_actions()
        table.apply(hand.current, rng.choice(legal))
        table.move_no += 1
        step += 1
    table.finish_hand()
    check_secrets(table)


@pytest.mark.parametrize("variant", VARIANTS)
def test_no_snapshot_shows_a_hidden_card_or_the_socio(variant: str) -> None:
    configs = [c for c in CONFIGS if c[0] == variant]
    for i, (_, opts, lang) in enumerate(configs[:6]):
        table = new_table(variant, opts, lang, f"miniapp:{variant}:{i}")
        random_play(table, random.Random(i), every=2)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), config=st.sampled_from(CONFIGS))
def test_snapshot_secrets_property(seed: int, config: tuple[str, dict[str, str], str]) -> None:
    variant, opts, lang = config
    table = new_table(variant, opts, lang, f"prop:{seed}")
    random_play(table, random.Random(seed), every=3)


def test_snapshot_offers_what_the_dm_buttons_offer() -> None:
    """The page's cards and choices are the seat's legal actions, each with the stamp a DM
    button of this turn carries; names come as text (the page never reads markup)."""
    rng = random.Random(3)
    for variant in ("chiamata", "due", "coperta"):
        table = new_table(variant, {}, "it", f"offer:{variant}")
        hand = table.hand
        assert hand is not None
        while not hand.is_terminal():
            seat = hand.current
            snap = snapshot(table, seat, "it")
            offered = set(snap["playable"]) | {c["action"] for c in snap["choices"]}
            assert offered == set(hand.legal_actions())
            for c in snap["choices"]:
                blind = A.BLIND <= c["action"] < A.CALL_RANK
                assert c["stamp"] == (table.plays_by(seat) if blind else table.turn_start())
            other = snapshot(table, (seat + 1) % table.n_players, "it")
            assert other["playable"] == [] and other["choices"] == []
            assert [s["name"] for s in snap["seats"]] == [
                NAMES[i % len(NAMES)] for i in range(table.n_players)
            ]
            assert "<b>" not in snap["message"] and "&amp;" not in snap["message"]
            table.apply(seat, rng.choice(hand.legal_actions()))


def test_a_seat_left_to_the_computer_is_watched_as_a_spectator() -> None:
    table = new_table("due", {}, "it", "left")
    assert viewer_seat(table, 7_000_000_000) == 0
    table.seats[0].level, table.seats[0].away = "normal", "left"
    assert viewer_seat(table, 7_000_000_000) == SPECTATOR
    assert viewer_seat(table, 1) == SPECTATOR


def test_options_of_every_variant_parse() -> None:  # the configs above cover every variant
    assert {c[0] for c in CONFIGS} == set(VARIANTS)
    assert all(isinstance(Options.parse(v, o), Options) for v, o, _ in CONFIGS)


async def test_hub_sends_each_page_its_own_view_and_polls_other_workers() -> None:
    """`LiveHub`: each page gets the snapshot of its viewer; one that fell behind gets the
    newest only; with other workers, a table moved on elsewhere is published by polling;
    closing ends every page."""
    import asyncio

    from bot.webapp.hub import LiveHub

    table = new_table("due", {}, "it", "hub")
    hub = LiveHub()
    seated = hub.open(table, Viewer(7_000_000_000, "A", "it"), "it")
    watcher = hub.open(table, Viewer(5, "W", None), "en")
    first = await seated.next(0.1)
    assert first is not None and first["me"] == 0 and first["hand"]
    spectator = await watcher.next(0.1)
    assert spectator is not None and spectator["me"] == -1 and spectator["lang"] == "en"
    assert await seated.next(0.01) is None  # nothing new: time for a keepalive
    hand = table.hand
    assert hand is not None
    for _ in range(3):  # three moves while the page is busy: it gets the last one
        table.apply(hand.current, hand.legal_actions()[0])
        table.move_no += 1
        hub.publish(table)
    latest = await seated.next(0.1)
    assert latest is not None and latest["move"] == table.move_no
    assert await seated.next(0.01) is None
    await watcher.next(0.1)

    stored = {"move": table.move_no}

    async def version(table_id: int) -> int | None:
        return stored["move"]

    async def load(table_id: int) -> Table | None:
        return table

    hub.poll(version, load, interval=0.01)
    table.apply(hand.current, hand.legal_actions()[0])
    table.move_no += 1
    stored["move"] = table.move_no  # another worker stored a move
    polled = await seated.next(2.0)
    assert polled is not None and polled["move"] == table.move_no
    hub.leave(watcher)
    assert hub.watching(table.table_id) == 1
    await hub.close()
    assert await seated.next(1.0) is None and seated.closed
    await asyncio.sleep(0)


# ---------------------------------------------------------------------- issue 37


def test_a_table_is_opened_by_an_unguessable_key() -> None:
    """Point 8: the link's start parameter is the table id with an HMAC of it under a secret
    derived from the bot token: 132 bits, another for every table and every bot."""
    keys = TableKeys(TOKEN)
    param = keys.param(12)
    tid, _, key = param.partition("_")
    assert tid == "t12" and len(key) == 22 and re.fullmatch(r"[A-Za-z0-9_-]+", key)
    assert len(param) <= 64  # Telegram allows 512 characters, A-Z a-z 0-9 _ -
    assert keys.check(12, key)
    assert not keys.check(13, key) and not keys.check(12, key[:-1] + "A" * (key[-1] != "A"))
    assert not keys.check(12, "") and not keys.check(12, key + "x")
    assert TableKeys("1111:other").key(12) != key
    assert len({keys.key(i) for i in range(1, 2001)}) == 2000


@pytest.mark.parametrize(("age", "ok"), [(0, True), (3500, True), (3700, False), (86000, False)])
def test_init_data_older_than_an_hour_opens_no_session(age: int, ok: bool) -> None:
    raw = sign_init_data(init_data(auth_date=str(int(time.time()) - age)), TOKEN)
    if ok:
        assert check_init_data(raw, TOKEN).auth_date == int(time.time()) - age
    else:
        with pytest.raises(AuthError):
            check_init_data(raw, TOKEN)


def test_a_session_is_renewed_by_its_token_for_a_day() -> None:
    tokens = Tokens(TOKEN, lifetime=3600)
    viewer = Viewer(42, "Ann", "it", auth_date=1_000_000)
    token, _ = tokens.issue(viewer, now=1_000_100.0)
    again, token2, expires = tokens.renew(token, now=1_003_000.0)
    assert again == viewer and again.auth_date == 1_000_000 and expires == 1_006_600
    _, token3, _ = tokens.renew(token2, now=1_006_000.0)  # on and on, within the day
    assert tokens.check(token3, now=1_008_000.0).auth_date == 1_000_000
    late = tokens.issue(viewer, now=1_000_000.0 + 86_000)[0]
    with pytest.raises(AuthError):  # a day after Telegram signed the initData: no more
        tokens.renew(late, now=1_000_000.0 + 86_500)
    with pytest.raises(AuthError):  # an expired token renews nothing
        tokens.renew(token, now=1_004_000.0)


def test_rate_limit_lets_a_burst_through_then_one_at_a_time() -> None:
    limit = RateLimit(3, 2.0, keys=2)
    assert [limit.take("a", now=0.0) for _ in range(3)] == [0.0, 0.0, 0.0]
    assert limit.take("a", now=0.0) == pytest.approx(2.0)
    assert limit.take("a", now=1.0) == pytest.approx(1.0)  # half a token came back
    assert limit.take("a", now=2.0) == 0.0
    assert limit.take("b", now=2.0) == 0.0  # another key has its own bucket
    limit.take("c", now=2.0)  # a third key: the least recent one ("a") is forgotten
    assert limit.take("a", now=2.0) == 0.0


def test_a_tap_made_for_a_ply_the_hand_moved_past_is_refused_quietly() -> None:
    """Point 2: a move names the ply it was made on; once the hand moved on, whatever it
    names (a card still held, a seat whose turn it is again), it is `err_moved_on`."""
    table = new_table("due", {}, "it", "ply")
    hand = table.hand
    assert hand is not None
    seat = hand.current
    user = table.seats[seat].user_id
    assert user is not None
    ply = table.ply()
    card = hand.legal_actions()[0]
    assert table.check_action(user, hand.hand_index, 0, card, ply) == seat
    table.apply(seat, card)
    other = hand.current
    table.apply(other, hand.legal_actions()[0])
    if hand.current == seat:  # their turn again, the same card gone, others held
        for again in hand.legal_actions():
            with pytest.raises(TableError) as err:
                table.check_action(user, hand.hand_index, 0, again, ply)
            assert err.value.key == "err_moved_on"
            assert table.check_action(user, hand.hand_index, 0, again, table.ply()) == seat
    with pytest.raises(TableError) as err:
        table.check_action(user, hand.hand_index + 1, 0, card, table.ply())
    assert err.value.key == "err_moved_on"


def test_snapshot_draws_the_briscola_once_and_shows_the_trick_count() -> None:
    """Point 5 (§3.4): the turned card lies on the table until someone draws it; then the
    table has only its suit. The snapshot counts the tricks done and the ply, which the page
    uses to show a completed trick and to name the turn a tap was made for."""
    table = new_table("due", {}, "it", "turned")
    hand = table.hand
    assert hand is not None
    rng = random.Random(5)
    seen_drawn = False
    while not hand.is_terminal():
        snap = snapshot(table, 0, "it")
        assert snap["ply"] == len(hand.actions) and snap["tricks_done"] == len(hand.tricks)
        assert snap["briscola"]["suit"] == hand.briscola
        if hand.turned_to < 0:
            assert snap["turned"]["id"] == hand.turned
        else:
            seen_drawn = True
            assert snap["turned"] is None
            ids = [c["id"] for c in snap["hand"]]
            assert ids.count(hand.turned) == int(hand.turned in hand.hands[0])
        table.apply(hand.current, rng.choice(hand.legal_actions()))
    assert seen_drawn


def test_snapshot_offers_the_overbid_as_values() -> None:
    table = new_table("chiamata", {}, "it", "overbid")
    hand = table.hand
    assert hand is not None
    table.apply(hand.current, A.CALL_RANK + 2)  # the Two
    snap = snapshot(table, hand.current, "it")
    points = [c for c in snap["choices"] if c["kind"] == "points"]
    assert [c["value"] for c in points] == list(range(62, 121))
    assert all(c["action"] == A.BID_POINTS + c["value"] for c in points)
    assert points[0]["label"] == "Due a 62"
    ranks = snapshot(new_table("chiamata", {}, "en", "ranks"), 0, "en")
    for c in ranks["choices"]:
        if c["kind"] == "bid":
            assert len(c["short"]) < len(c["label"])  # "King" in a small button


@pytest.mark.parametrize("variant", ["due", "quattro", "chiamata"])
def test_end_of_hand_snapshot_is_a_table_with_the_standing(variant: str) -> None:
    """Point 9: per player the role, the card points and what the hand gave them; the
    match's standing labelled by its kind and target."""
    table = new_table(variant, {}, "it", f"end:{variant}")
    res = play_to_the_end(table, random.Random(9)).result()
    for seat in (SPECTATOR, 0):
        snap = snapshot(table, seat, "it")
        out = snap["outcome"]
        assert out["headline"]
        rows = out["rows"]
        assert [r["seat"] for r in rows] == list(range(table.n_players))
        assert [r["points"] for r in rows] == list(res.card_points)
        assert sum(r["points"] for r in rows) == 120
        st = snap["standing"]
        if variant == "chiamata":
            assert [r["delta"] for r in rows] == list(res.deltas)
            assert sum(r["delta"] for r in rows) == 0
            assert {r["role"] for r in rows} <= {"caller", "socio", "other"}
            assert st["kind"] == "score" and st["target"] == 11
            assert [r["value"] for r in st["rows"]] == list(res.deltas)
        else:
            assert st["kind"] == "hands" and st["target"] == 3
            won = [r for r in rows if r["won"]]
            assert won and all(r["delta"] == 1 for r in won)
            assert sum(r["value"] for r in st["rows"]) == 1
        if variant == "quattro":
            assert {r["role"] for r in rows} == {"team:A", "team:B"}
            assert [len(r["seats"]) for r in st["rows"]] == [2, 2]


@pytest.mark.parametrize("lang", ["it", "en"])
def test_s7_13_snapshot_of_a_fixed_number_of_hands(lang: str) -> None:
    """RULES §7.13: with hands=5 the Mini App's title says which of the five hands this is
    and the standing names the five hands, not a target (which does not apply)."""
    table = new_table("chiamata", {"hands": "5"}, lang, "fixed-hands")
    snap = snapshot(table, 0, lang)
    assert snap["title"].endswith("mano 1 di 5" if lang == "it" else "hand 1 of 5")
    st = snap["standing"]
    assert st["kind"] == "score" and st["target"] is None and st["fixed_hands"] == 5
    assert st["hands"] == 0
    plain = snapshot(new_table("chiamata", {}, lang, "target"), 0, lang)
    assert plain["standing"]["target"] == 11 and plain["standing"]["fixed_hands"] is None
    assert plain["title"].endswith("mano 1" if lang == "it" else "hand 1")


async def test_hub_knows_whether_a_visible_page_is_connected() -> None:
    """Issue 39's interface: per (table, user), whether a page of theirs is open and
    visible now; told to whoever registered, once per change."""
    import asyncio

    from bot.webapp.hub import LiveHub

    table = new_table("due", {}, "it", "visible")
    hub = LiveHub(lease=0.2)
    changes: list[tuple[int, int, bool]] = []

    def broken(t: int, u: int, v: bool) -> None:
        raise RuntimeError("a callback's failure stays its own")

    hub.on_visibility(broken)
    stop = hub.on_visibility(lambda t, u, v: changes.append((t, u, v)))
    tid, ann = table.table_id, 7_000_000_000
    first = hub.open(table, Viewer(ann, "A", "it"), "it", "p1", visible=True)
    assert hub.visible(tid, ann) and changes == [(tid, ann, True)]
    second = hub.open(table, Viewer(ann, "A", "it"), "it", "p2", visible=False)
    assert not hub.report(tid, ann, "nope", True)  # no such page here
    assert not hub.report(tid, 5, "p2", True)  # someone else's page
    assert hub.report(tid, ann, "p2", True)
    assert hub.report(tid, ann, "p1", False)
    assert hub.visible(tid, ann) and changes == [(tid, ann, True)]  # p2 still looks
    hub.leave(second)  # its stream closed
    assert not hub.visible(tid, ann) and changes[-1] == (tid, ann, False)
    assert hub.report(tid, ann, "p1", True)
    await asyncio.sleep(0.35)  # no heartbeat within the lease
    assert not hub.visible(tid, ann) and changes[-1] == (tid, ann, False)
    hub.report(tid, ann, "p1", True)
    assert not hub.visible(tid, 5) and not hub.visible(tid + 1, ann)
    await hub.close()  # the bot stops: nobody looks any more
    assert not hub.visible(tid, ann) and changes[-1] == (tid, ann, False)
    assert [v for _, _, v in changes] == [True, False, True, False, True, False]
    stop()
    assert first.closed


async def test_an_older_visibility_report_overtaken_on_the_way_changes_nothing() -> None:
    """Two reports sent close together (a heartbeat, then the page hides) may arrive in
    either order: the hub keeps the newest by its number, for every stream of that page."""
    from bot.webapp.hub import LiveHub

    table = new_table("due", {}, "it", "order")
    hub = LiveHub()
    tid, ann = table.table_id, 7_000_000_001
    viewer = Viewer(ann, "A", "it")
    first = hub.open(table, viewer, "it", "p1", visible=True, seq=1)
    assert hub.report(tid, ann, "p1", False, seq=3)  # hidden, sent last, arrives first
    assert hub.report(tid, ann, "p1", True, seq=2)  # the heartbeat before it, late
    assert not hub.visible(tid, ann)
    assert hub.report(tid, ann, "p1", True, seq=3)  # the same number again: a replay
    assert not hub.visible(tid, ann)
    # the stream reopened while the old one lingers: a report reaches both
    second = hub.open(table, viewer, "it", "p1", visible=False, seq=4)
    assert hub.report(tid, ann, "p1", True, seq=5)
    assert first.visible and second.visible and hub.visible(tid, ann)
    hub.leave(second)
    assert hub.report(tid, ann, "p1", False, seq=6)
    assert not hub.visible(tid, ann)
    assert hub.report(tid, ann, "p1", True)  # a page that does not number its reports
    assert hub.visible(tid, ann)
    await hub.close()


async def test_static_files_are_compressed_versioned_and_cached() -> None:
    """The page names each file with its version; a versioned file is cached for a year,
    gzip-compressed when the browser accepts it; 304 for a file the browser has; a favicon."""
    from aiohttp import web
    from aiohttp.test_utils import TestClient, TestServer

    from bot.webapp.hub import LiveHub
    from bot.webapp.server import MiniApp

    app = web.Application()
    MiniApp(lambda: None, TOKEN, LiveHub()).add_routes(app)
    async with TestClient(TestServer(app)) as client:
        page = await client.get("/app/", headers={"Accept-Encoding": "gzip"})
        assert page.status == 200 and page.headers["Content-Encoding"] == "gzip"
        assert page.headers["Cache-Control"] == "no-cache"
        html_text = await page.text()
        assert "telegram-web-app.js" in html_text
        versions = dict(re.findall(r"static/([a-z]+\.[a-z]+)\?v=([0-9a-f]{12})", html_text))
        assert set(versions) == {"app.js", "app.css", "favicon.svg", "replay.js"}
        total = 0
        for name, v in versions.items():
            r = await client.get(f"/app/static/{name}?v={v}", headers={"Accept-Encoding": "gzip"})
            assert r.status == 200 and r.headers["Content-Encoding"] == "gzip"
            assert r.headers["Cache-Control"] == "public, max-age=31536000, immutable"
            assert r.headers["ETag"] == f'"{v}"'
            total += int(r.headers["Content-Length"])
            plain_r = await client.get(f"/app/static/{name}", headers={"Accept-Encoding": ""})
            assert "Content-Encoding" not in plain_r.headers
            assert plain_r.headers["Cache-Control"] == "no-cache"
            assert int(plain_r.headers["Content-Length"]) > int(r.headers["Content-Length"])
            again = await client.get(f"/app/static/{name}", headers={"If-None-Match": f'"{v}"'})
            assert again.status == 304
        assert total < 40_000  # the whole page, compressed
        assert (await client.get("/favicon.ico")).status == 200
        assert (await client.get("/app/static/nope.js")).status == 404


@pytest.mark.parametrize(
    ("trusted", "forwarded", "refused"),
    [
        ("127.0.0.1", True, False),  # behind the trusted proxy: each player is their own
        ("", True, True),  # no proxy trusted: X-Forwarded-For is not believed
        ("10.0.0.0/8", True, True),  # a connection from elsewhere cannot pose as others
        ("127.0.0.0/8, ::1", False, True),  # the proxy forwards nothing: its own address
    ],
)
async def test_sessions_behind_a_trusted_proxy_count_per_player(
    trusted: str, forwarded: bool, refused: bool
) -> None:
    """Issue 52.3: 80 players open the Mini App within a minute through the reverse proxy that
    docs/operating.md asks for (every connection from its address): with the proxy trusted
    (`TRUSTED_PROXIES`) none is refused, each counted at the address it forwards; otherwise
    X-Forwarded-For is ignored and the one address's burst of 60 ends in 429s."""
    from aiohttp import web
    from aiohttp.test_utils import TestClient, TestServer

    from bench.rig.browser import signed_init_data
    from bench.rig.telegram import FakeUser
    from bot.config import Settings
    from bot.webapp.hub import LiveHub
    from bot.webapp.server import SESSIONS_PER_ADDRESS, MiniApp

    networks = Settings(bot_token=TOKEN, trusted_proxies=trusted).trusted_proxy_networks()
    app = web.Application()
    MiniApp(lambda: None, TOKEN, LiveHub(), trusted_proxies=networks).add_routes(app)
    codes = []
    async with TestClient(TestServer(app, host="127.0.0.1")) as client:
        for i in range(80):
            user = FakeUser(id=5000 + i, first_name=f"P{i}", language_code="it")
            # what a client wrote itself stands left of what the proxy adds
            headers = {"X-Forwarded-For": f"6.6.6.6, 203.0.113.{i}"} if forwarded else {}
            body = {"init_data": signed_init_data(user, None, token=TOKEN)}
            r = await client.post("/api/session", json=body, headers=headers)
            codes.append(r.status)
    burst = SESSIONS_PER_ADDRESS[0]
    if refused:
        assert codes[:burst] == [200] * burst and set(codes[burst:]) == {429}, codes
    else:
        assert codes == [200] * 80, codes


# ---------------------------------------------------------------------- no group (issue 52)


@pytest.mark.parametrize(("variant", "opts"), [("due", {"match": "single"}), ("chiamata", {})])
@pytest.mark.parametrize("lang", ["it", "en"])
def test_a_table_with_no_group_has_no_ledger_in_its_results(
    variant: str, opts: dict[str, str], lang: str
) -> None:
    """Issue 52 point 4: `python -m bot play --web` plays with no group (`group=False`), so
    its results say nothing of a group's ledger; a group's table says what its ledger got
    (chiamata: every hand, §10.1; the other variants: at the match's end, §10.2)."""
    table = new_table(variant, opts, lang, f"no-group:{variant}")
    res = play_to_the_end(table, random.Random(52)).result()
    assert not res.redeal and not res.void
    assert table.match is not None and (variant == "chiamata" or table.match.over)
    word = "grupp" if lang == "it" else "group"
    for seat in (SPECTATOR, *range(table.n_players)):
        grouped = snapshot(table, seat, lang)
        alone = snapshot(table, seat, lang, group=False)
        assert alone["outcome"]["ledger"] == ""
        text = json.dumps(alone, ensure_ascii=False).lower()
        assert word not in text, (seat, text)
        if seat >= 0:  # the group's own table speaks of its ledger, in the result's lines too
            assert word in grouped["outcome"]["ledger"].lower()
            assert any(word in line.lower() for line in grouped["result"]), grouped["result"]
        # the rest is the same
        for key in ("headline", "rows", "caller", "match_over"):
            assert alone["outcome"][key] == grouped["outcome"][key]
