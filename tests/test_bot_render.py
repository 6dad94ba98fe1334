"""Telegram rendering (bot/view/render/) over random games of every variant, without a bot.

Every state of every hand is rendered: the group's table message, each seat's private hand
message, and the lobby, settings panel and variant picker. Each text must be valid Telegram
HTML (the stand-in server's tdlib port parses it) showing hostile names as typed, each
callback data at most 64 bytes and actionable exactly when it should be; no private message
shows another seat's card except where the rules make it public (§5.2, §6.1); card points
appear only where §3.7 allows; and before the called card is played nothing that anyone but
the partner sees depends on who the partner is (§7.6).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

import pytest

from bench.rig.cards import cards_named as named
from bench.rig.telegram import parse_html
from bot.engine import SPECTATOR, VARIANTS, HandState, Options, observe
from bot.engine import actions as A
from bot.engine.state import PLAY
from bot.i18n import t
from bot.table.settings import TABLE_SETTINGS
from bot.table.table import FINISHED, PLAYING, Table, TableError
from bot.view.callback_data import MAX_CALLBACK_BYTES
from bot.view.render import (
    Rendered,
    lobby_message,
    match_end,
    option_message,
    private_message,
    settings_message,
    short_name,
    signed,
    table_message,
    variant_picker,
)
from tests.support.tables import (
    CHAT_ID,
    CONFIGS,
    NAMES,
    TABLE_ID,
    USER_BASE,
    new_table,
    option_sets,
    play_to_the_end,
)


def check(r: Rendered) -> str:
    """Valid Telegram HTML, within the limits; returns the text people see."""
    plain, _ = parse_html(r.text)
    assert plain.strip() and len(plain) <= 4096
    for row in r.keyboard:
        for b in row:
            assert b.text
            if b.url is None:
                assert b.data is not None and 1 <= len(b.data.encode()) <= MAX_CALLBACK_BYTES
    return plain


def buttons(r: Rendered) -> list[tuple[str, str]]:
    return [(b.text, b.data) for row in r.keyboard for b in row if b.data is not None]


def act_actions(r: Rendered) -> list[tuple[int, int, int, str]]:
    """(hand index, stamp, action, label) of the move buttons."""
    out = []
    for text, data in buttons(r):
        parts = data.split(":")
        if parts[0] == "a":
            assert len(parts) == 5 and int(parts[1]) == TABLE_ID
            out.append((int(parts[2]), int(parts[3]), int(parts[4]), text))
    return out


def cards_named(text: str, options: Options, lang: str) -> set[int]:
    """The cards `text` names ("Asso 🪙", or a hand by suit "🪙 Asso, Re")."""
    deck = options.rules().deck
    return named(text, deck, lang, french=options.deck == "french")


def public_cards(hand: HandState) -> set[int]:
    """The cards everybody has seen: those played (taken or on the table), the turned
    briscola and the called card."""
    played = {c for tr in hand.tricks for _, c in tr.plays} | set(hand.trick)
    return played | {hand.turned, hand.called_card}


POINTS_LINE = re.compile(r"^(Punti|Points): ", re.M)
TRICK_POINTS = re.compile(r"\(\d+ (punti|points)\)")


def check_state(table: Table) -> None:
    """Render the group and every seat for the current state and check them."""
    hand = table.hand
    assert hand is not None
    lang = table.lang
    options = table.options
    rules = options.rules()
    group = table_message(table, lang)
    plain = check(group)
    spectator = observe(hand, SPECTATOR)
    terminal = hand.is_terminal()

    number = re.search(r"— (?:mano|hand) (\d+)", plain)
    assert number and int(number[1]) >= 1, plain  # a void hand is not "hand 0"
    for sitting in table.seats:  # names shown as typed (escaped in the HTML)
        assert sitting.name in plain
    if not terminal:
        who = table.seats[hand.current].name
        # Italian: "tocca ad Anna" before the letter a, else "tocca a Mario" (issue 11 §6),
        # "tocca a 🤖 Ada" (issue 49)
        to = "ad" if who[:1] in ("a", "A") else "a"
        if hand.phase == "play":
            assert (f"Tocca {to} {who}." if lang == "it" else f"{who} to play.") in plain
        elif hand.phase == "auction":  # in the auction one bids (issue 38)
            assert (f"Asta: tocca {to} {who}." if lang == "it" else f"{who} to bid.") in plain
        else:  # the caller names the suit, or the card to call
            assert who in plain.splitlines()[-2], plain
    # §3.7: no card points before the end unless show_points
    if not rules.show_points and not terminal:
        assert not POINTS_LINE.search(plain), plain
        assert not TRICK_POINTS.search(plain), plain
    # the group shows only public cards
    played = {c for tr in hand.tricks for _, c in tr.plays} | set(hand.trick)
    public = played | {hand.turned, hand.called_card, spectator.talon_next}
    for cards in spectator.visible_hands.values():
        assert rules.public_hands
        public |= set(cards)
    assert cards_named(plain, options, lang) <= public, plain
    if not rules.public_hands:
        assert "Carte di" not in plain and "'s cards" not in plain
    assert "📶" not in plain  # §5.3 signals go to the partner only
    # the buttons of the group message
    for text, data in buttons(group):
        assert data.startswith(("n:", "l:", "s:", "r:")), (text, data)
        if data.startswith("n:"):
            assert terminal and table.status == PLAYING
            assert data == f"n:{TABLE_ID}:{hand.hand_index}"
        if data.startswith("r:"):  # the rematch, once the match is over (issue 11 §7)
            assert table.status == FINISHED and data == f"r:{TABLE_ID}"

    for seat in range(table.n_players):
        check_private(table, seat)


def check_private(table: Table, seat: int) -> None:
    hand = table.hand
    assert hand is not None
    lang = table.lang
    options = table.options
    rules = options.rules()
    r = private_message(table, seat, lang)
    plain = check(r)
    obs = hand.observation(seat)
    # a phone screen, and Telegram's limit on a message
    assert len(plain) <= 1000 and len(r.text.encode()) <= 4096, (len(plain), plain)
    # no other seat's card, except what the rules make visible to this seat: its own hand,
    # the cards played (this trick and the taken ones), the turned and the called card
    own = set() if rules.blind else set(hand.hands[seat])  # coperta: not even one's own
    allowed = own | public_cards(hand) | {obs.talon_next}
    for other, cards in obs.visible_hands.items():
        assert rules.public_hands or (
            rules.reveal_partners and hand.talon_exhausted() and other in obs.teammates
        )
        allowed |= set(cards)
    assert cards_named(plain, options, lang) <= allowed, (seat, plain)
    # §3.7: no card points before the end unless show_points (one's own pile at the last
    # trick is shown as "I tuoi punti", never as a "Punti:" line)
    if not rules.show_points and not hand.is_terminal():
        assert not POINTS_LINE.search(plain) and not TRICK_POINTS.search(plain), plain
    # the partner alone is told (§7.6)
    told = "socio" in plain or "partner:" in plain.lower() or "the partner" in plain
    assert told == (
        rules.chiamata
        and hand.caller >= 0
        and hand.partner == seat
        and seat != hand.caller
        and not hand.partner_known()
        and not hand.is_terminal()
    ), (seat, plain)

    # §5.3: the signals this seat sent or its partner sent it, and no others
    # (the end-of-hand summary shows no signals any more)
    assert plain.count("📶") == (0 if hand.is_terminal() else len(obs.signals))
    for who, _ in obs.signals:
        assert who == seat or who in obs.teammates
        assert short_name(table.seats[who].name) in plain

    user_id = USER_BASE + seat
    moves = act_actions(r)
    plays = [(h, s, a, label) for h, s, a, label in moves if a < A.CALL_RANK]
    # (a last card that plays itself is no turn: issue 49)
    my_turn = hand.current == seat and not hand.is_terminal() and not table.forced()
    if hand.phase == PLAY and not rules.blind:
        offered = sorted(a for _, _, a, _ in plays)
        if my_turn:
            # §8.2: on one's turn only the cards one may play are buttons; the rest is named
            playable = [c for c in hand.hands[seat] if c in hand.legal_actions()]
            assert offered == sorted(playable)
            unplayable = set(hand.hands[seat]) - set(playable)
            if unplayable:
                line = next(x for x in plain.splitlines() if x.startswith("🚫"))
                assert cards_named(line, options, lang) == unplayable, line
        else:
            # issue 49: out of turn no button (it would only answer "not your turn"); one's
            # cards are named as text
            assert offered == []
            if hand.hands[seat] and not hand.is_terminal():
                assert set(hand.hands[seat]) <= cards_named(plain, options, lang), plain
        for _, _, a, label in plays:
            assert cards_named(label, options, lang) == {a}
    if rules.blind and hand.phase == PLAY:
        assert len(plays) == (len(hand.hands[seat]) if my_turn else 0)
        assert not cards_named(" ".join(label for *_, label in plays), options, lang)
    # every button is actionable exactly when it is this seat's turn, and legal then
    legal = set(hand.legal_actions()) if hand.current == seat else set()
    for hidx, stamp, action, _ in moves:
        assert hidx == hand.hand_index
        if hand.current == seat and not hand.is_terminal():
            if action not in legal:  # §8.2: a card of another suit while one can follow
                assert rules.follow_suit and A.is_card(action)
                with pytest.raises(TableError, match="err_must_follow"):
                    table.check_action(user_id, hidx, stamp, action)
                continue
            assert table.check_action(user_id, hidx, stamp, action) == seat
        else:
            with pytest.raises(TableError):
                table.check_action(user_id, hidx, stamp, action)
    if my_turn:
        offered_now = {a for _, _, a, _ in moves}
        # every legal move is offered, except points bids beyond the quick steps
        missing = {a for a in legal - offered_now if not A.BID_POINTS <= a < A.PASS}
        assert not missing, missing
    else:
        assert all(a < A.CALL_RANK for _, _, a, _ in moves)  # no bid buttons out of turn


def play_random(table: Table, rng: random.Random, hands: int) -> int:
    """Play `hands` hands through the private buttons, checking every state."""
    played = 0
    while True:
        hand = table.hand
        assert hand is not None
        check_state(table)
        if hand.is_terminal():
            played += 1
            if table.status == FINISHED or played >= hands:
                return played
            table.next_hand()
            continue
        seat = hand.current
        forced = hand.forced_action()
        if forced is not None:  # a last card plays itself (the service's move, issue 49)
            action = forced
        else:
            r = private_message(table, seat, table.lang)
            legal = hand.legal_actions()
            moves = [m for m in act_actions(r) if m[2] in legal]
            hidx, stamp, action, _ = rng.choice(moves)
            assert table.check_action(USER_BASE + seat, hidx, stamp, action) == seat
        table.apply(seat, action)
        if hand.is_terminal():
            table.finish_hand()
            if table.status == FINISHED:
                check_state(table)
                return played + 1


@pytest.mark.parametrize(
    ("variant", "opts", "lang"), CONFIGS, ids=[f"{v}-{o}-{lang}" for v, o, lang in CONFIGS]
)
def test_render_random_hands(variant: str, opts: dict[str, str], lang: str) -> None:
    rng = random.Random(f"{variant}:{sorted(opts.items())}")
    table = new_table(variant, opts, lang, seed=f"render:{variant}:{rng.random()}")
    assert play_random(table, rng, hands=2 if opts.get("match") != "single" else 9) >= 1


@pytest.mark.parametrize("variant", ["due", "quattro", "sei"])
def test_render_a_whole_match(variant: str) -> None:
    rng = random.Random(variant)
    table = new_table(variant, {"match": "best3"}, "it", seed=f"match:{variant}")
    play_random(table, rng, hands=50)
    assert table.status == FINISHED
    plain = check(table_message(table, "it"))
    assert "Partita finita" in plain
    # the table message keeps no button; the match's end, a message of its own (issue 38),
    # has the rematch (issue 11 §7): only it is left to tap; once it is taken, nothing
    assert not table_message(table, "it").keyboard
    end = match_end(table, "it", "")
    assert "Partita finita" in check(end)
    assert buttons(end) == [("🔁 Rivincita", f"r:{TABLE_ID}")]
    table.rematch = TABLE_ID + 1
    assert not match_end(table, "it", "").keyboard


@pytest.mark.parametrize("lang", ["it", "en"])
def test_lobby_settings_and_picker(lang: str) -> None:
    plain = check(variant_picker(lang))
    assert plain
    picker = variant_picker(lang)
    assert sorted(d[2:] for _, d in buttons(picker)) == sorted(VARIANTS)
    for variant in VARIANTS:
        for opts in option_sets(variant):
            table = Table(TABLE_ID, CHAT_ID, USER_BASE, Options.parse(variant, opts), lang=lang)
            for i in range(table.n_players - 1):
                table.join(USER_BASE + i, NAMES[i % len(NAMES)])
                lobby = lobby_message(table, lang)
                text = check(lobby)
                assert NAMES[i % len(NAMES)] in text
            table.add_bot("difficile" if lang == "it" else "hard")
            table.timer = 120
            text = check(table_message(table, lang))
            # a computer player has a name and its level in words (issue 11 §6)
            assert ("🤖 Ada (difficile)" if lang == "it" else "🤖 Ada (hard)") in text
            assert table.seats[-1].level == "hard"
            panel = settings_message(table, lang)
            check(panel)
            # the panel opens one screen per setting (issue 11 §5), whose values are buttons
            for _, data in buttons(panel):
                kind, tid, *rest = data.split(":")
                assert int(tid) == TABLE_ID and kind in ("o", "l")
                if kind != "o":
                    continue
                screen = option_message(table, rest[0], lang)
                check(screen)
                for _, value_data in buttons(screen):
                    kind, tid, *rest = value_data.split(":")
                    assert int(tid) == TABLE_ID and kind in ("s", "l")
                    if kind == "s":  # every offered setting is valid for this table
                        key, value = rest
                        if key not in TABLE_SETTINGS:
                            probe = Table(TABLE_ID, CHAT_ID, USER_BASE, table.options)
                            probe.set_option(key, value)


# ------------------------------------------------------------------------------ §7.6


def chiamata_in_play(variant: str, seed: int) -> Table | None:
    """A chiamata table in the play phase with a partner who is not the caller."""
    rng = random.Random(seed)
    table = new_table(variant, {}, "it", seed=f"secret:{seed}")
    hand = table.hand
    assert hand is not None
    while hand.phase != PLAY:
        if hand.is_terminal():
            return None
        legal = hand.legal_actions()
        # bid sometimes, pass mostly, so that auctions end at various ranks
        action = rng.choice(legal) if rng.random() < 0.35 else A.PASS
        if action not in legal:
            action = rng.choice(legal)
        table.apply(hand.current, action)
    if hand.carichi or hand.partner == hand.caller:
        return None
    return table


def chiamata_hands(
    variant: str, seeds: range, offset: int = 0
) -> Iterator[tuple[Table, HandState, random.Random]]:
    """For each seed, `chiamata_in_play(variant, seed + offset)` where there is one, with its
    hand and a random source for the moves (seeded with `seed`)."""
    for seed in seeds:
        table = chiamata_in_play(variant, seed + offset)
        if table is not None:
            assert table.hand is not None
            yield table, table.hand, random.Random(seed)


def swapped(table: Table, a: int, b: int) -> Table:
    """The same table where seats a and b hold each other's (remaining) cards, so the
    called card, and the secret partner, moves from one to the other."""
    assert table.hand is not None
    clone = Table(
        table.table_id,
        table.chat_id,
        table.creator_id,
        table.options,
        seats=table.seats,
        status=table.status,
        lang=table.lang,
        match=table.match,
        hand=table.hand.clone(),
    )
    h = clone.hand
    assert h is not None
    h.hands[a], h.hands[b] = h.hands[b], h.hands[a]
    h.partner = h.holder_of(h.called_card)
    return clone


@pytest.mark.parametrize("variant", ["chiamata", "chiamata4"])
def test_nothing_hints_at_the_partner_before_the_called_card(variant: str) -> None:
    """§7.6: two states that differ only in who holds the called card look the same to the
    group and to every seat but those two, until the called card is played."""
    compared = 0
    for table, hand, rng in chiamata_hands(variant, range(60)):
        n = table.n_players
        while not hand.partner_known() and not hand.is_terminal():
            if not hand.trick:  # a trick's start: every hand has the same size
                p = hand.partner
                for q in range(n):
                    if q in (p, hand.caller):
                        continue
                    other = swapped(table, p, q)
                    assert other.hand is not None and other.hand.partner == q
                    for lang in ("it", "en"):
                        assert table_message(table, lang) == table_message(other, lang)
                        for seat in range(n):
                            if seat not in (p, q):
                                mine = private_message(table, seat, lang)
                                assert mine == private_message(other, seat, lang), seat
                        # and the two seats are told the truth about themselves
                        told = "Sei il socio" if lang == "it" else "You are the partner"
                        assert told in private_message(table, p, lang).text
                        assert told not in private_message(table, q, lang).text
                        assert told in private_message(other, q, lang).text
                    compared += 1
            seat = hand.current
            table.apply(seat, rng.choice(hand.legal_actions()))
        if hand.partner_known() and not hand.is_terminal():
            text = table_message(table, "it").text
            assert "Il socio è" in text
    assert compared > 50


# ------------------------------------------------------------------------------ the hand message

# Names as long as Telegram allows (64), each character costing the most: HTML escapes,
# flags (two code points, 8 bytes), joined emoji.
LONG_NAMES = [
    "<&>" * 21 + "<",
    "🇮🇹" * 32,
    "&amp;" * 12 + "<b>",
    "👩\u200d👩\u200d👧" * 12 + "x",
    "Z" * 64,
    "_*[](){}~`>#+-=|.!" * 3 + "<i>&</i>" * 1 + "ab",
]
HAND_OPTIONS: dict[str, list[dict[str, str]]] = {
    "chiamata": [{"auction": "points"}, {"carichi": "true", "show_points": "true"}],
    "chiamata4": [{}, {"auction": "points"}],
    "quattro": [{"signals": "true", "show_points": "true"}],
    "sei": [{"signals": "true"}, {"teams": "threes"}],
    "briskula32": [{"players": "4", "teams": "pairs"}],
    "doppia": [{"players": "4", "teams": "pairs"}],
    "due": [{"deck": "french", "southern": "true"}],
}


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_hand_message_fits_a_phone_and_shows_only_public_cards(variant: str) -> None:
    """Issue 11 §2, over random hands of every variant with the longest, most hostile names:
    every seat's hand message at every moment (each bid, card, signal, the end of the hand)
    fits in 1,000 characters and 4,096 bytes, is valid HTML, names no card but its own, the
    cards played, the turned and the called card and those the rules show it (§5.2, §6.1),
    and says whose turn it is."""
    longest = 0
    states = 0
    for k, opts in enumerate([{}, *HAND_OPTIONS.get(variant, [])]):
        for seed in range(3):
            rng = random.Random(f"fits:{variant}:{k}:{seed}")
            options = Options.parse(variant, opts)
            table = Table(TABLE_ID, CHAT_ID, USER_BASE, options, lang=("it", "en")[seed % 2])
            for i in range(table.n_players):
                table.join(USER_BASE + i, LONG_NAMES[(i + seed) % len(LONG_NAMES)])
            table.start(f"fits:{variant}:{seed}")
            for _ in range(2):
                hand = table.hand
                assert hand is not None
                while True:
                    for seat in range(table.n_players):
                        r = private_message(table, seat, table.lang)
                        plain, _ = parse_html(r.text)
                        longest = max(longest, len(plain))
                        assert len(plain) <= 1000, (len(plain), plain)
                        assert len(r.text.encode()) <= 4096
                        obs = hand.observation(seat)
                        allowed = public_cards(hand) | {obs.talon_next}
                        if not options.rules().blind:
                            allowed |= set(hand.hands[seat])
                        for cards in obs.visible_hands.values():
                            allowed |= set(cards)
                        assert cards_named(plain, options, table.lang) <= allowed, plain
                        second = plain.splitlines()[1]
                        if hand.is_terminal():
                            assert second.startswith("🏁"), plain
                        elif hand.current == seat and table.forced():  # it plays itself
                            assert second.startswith("🂠"), plain
                        elif hand.current == seat:
                            assert second.startswith("👉"), plain
                        else:
                            assert second.startswith("⏳"), plain
                            assert short_name(table.seats[hand.current].name) in second
                        states += 1
                    if hand.is_terminal():
                        break
                    bids = [a for a in hand.legal_actions() if A.CALL_RANK <= a < A.PASS]
                    if bids and rng.random() < 0.7:  # long auctions: bid more than pass
                        table.apply(hand.current, rng.choice(bids))
                    else:
                        table.apply(hand.current, rng.choice(hand.legal_actions()))
                table.finish_hand()
                if table.status == FINISHED:
                    break
                table.next_hand()
    assert states > 100
    assert longest > 150  # the texts were not trivially short


@pytest.mark.parametrize("lang", ["it", "en"])
def test_each_player_gets_their_own_end_of_hand_summary(lang: str) -> None:
    """Issue 11 §2: at the end of a hand each hand message sums it up for its reader: won or
    lost, everyone's card points, in chiamata the caller's result and the reader's score,
    what the group's ledger receives for them (§10.1, §10.5), and the match standing. Issue
    38: the hand's score and the ledger are one line when they are the same number, named
    apart from the card points ("Punti presi") and the match ("Partita"); the ledger in
    points."""
    won_text, lost_text = ("hai vinto", "hai perso") if lang == "it" else ("you win", "you lose")
    score = "📒 Questa mano" if lang == "it" else "📒 This hand"
    on_tab = "nei conti del gruppo" if lang == "it" else "on the group's tab"
    ledger = "Conti del gruppo" if lang == "it" else "Group's tab"
    unit = {1: "punto", -1: "punto"} if lang == "it" else {1: "point", -1: "point"}
    for seed in range(6):
        rng = random.Random(seed)
        table = new_table("chiamata", {}, lang, seed=f"summary:{seed}")
        hand = play_to_the_end(table, rng)
        res = hand.result()
        for seat in range(5):
            r = private_message(table, seat, lang)
            plain = check(r)
            if res.redeal:
                assert "🏁" in plain and score not in plain
                continue
            won = (seat in (hand.caller, hand.partner)) == (res.winning_sides == (0,))
            assert (won_text if won else lost_text) in plain.splitlines()[1], plain
            delta = f"{res.deltas[seat]:+d}".replace("-", "−")
            line = next(x for x in plain.splitlines() if x.startswith(score))
            assert line.startswith(f"{score}: {delta}") and on_tab in line, plain  # people only
            assert "Classifica" not in plain and "Registro" not in plain
            for s in range(5):
                assert f"{short_name(table.seats[s].name)} {res.card_points[s]}" in plain
            assert not cards_named(plain, table.options, lang) - public_cards(hand)
            # no button: the next hand comes by itself, or by the group's table message's
            # button (issue 49: the summary stays as it is, no edit to take a button away)
            assert r.keyboard == []
    # with a computer seat the ledger gets nothing, unless the table counts (then the
    # computer neither pays nor collects); at a match's end only, outside chiamata (§10.2)
    for counts in (False, True):
        table = Table(TABLE_ID, CHAT_ID, USER_BASE, Options.parse("due", {"match": "single"}))
        table.lang = lang
        table.join(USER_BASE, NAMES[0])
        table.add_bot("normal")
        table.counts = counts
        table.start("summary:due")
        rng = random.Random(1)
        while table.status != FINISHED:
            hand = play_to_the_end(table, rng)
            if table.status != FINISHED:  # a void hand (60-60) is replayed
                assert "🏁" in check(private_message(table, 0, lang))
                table.next_hand()
        plain = check(private_message(table, 0, lang))
        assert table.match is not None and "🏆" in plain
        if counts:
            want = table.counted_deltas(table.match.ledger_deltas())[0]
            units = unit.get(want, "punti" if lang == "it" else "points")
            assert f"{ledger}: {signed(want)} {units}" in plain, plain
        else:
            assert f"{ledger}: " in plain and ("non conta" in plain or "not count" in plain)
        assert not private_message(table, 0, lang).keyboard  # the match is over


# ------------------------------------------------------------------------------ efficiency


@pytest.mark.parametrize("variant", ["chiamata", "chiamata4"])
def test_a_card_play_changes_no_other_players_buttons_in_chiamata(variant: str) -> None:
    """In chiamata's play phase a card play changes the other hand messages only in their
    text (the card now on the table, whose turn it is: issue 11 §2): nobody else's buttons
    change but those of the one whose turn it becomes (issue 49: buttons on one's turn
    only), and everything the others' messages add is what the table shows anyway."""
    changed_text = 0
    for table, hand, rng in chiamata_hands(variant, range(15), offset=100):
        n = table.n_players
        before = [private_message(table, s, "it") for s in range(n)]
        while not hand.is_terminal():
            seat = hand.current
            action = rng.choice(hand.legal_actions())
            table.apply(seat, action)
            after = [private_message(table, s, "it") for s in range(n)]
            for s in range(n):
                if s == seat:
                    continue
                if not hand.is_terminal() and s != hand.current:  # (the end: "next hand")
                    assert after[s].keyboard == before[s].keyboard == [], s
                if after[s].text != before[s].text:
                    changed_text += 1
                    if not hand.is_terminal():  # the card just played is shown to everyone
                        shown = cards_named(after[s].text, hand.options, "it")
                        assert action in shown, (action, after[s].text)
            before = after
    assert changed_text > 0


def test_blind_buttons_are_stamped_per_seat() -> None:
    """Coperta (§6.2): a button names a position, so a repeated tap must be stale."""
    table = new_table("coperta", {}, "it", seed="blind")
    hand = table.hand
    assert hand is not None
    seat = hand.current
    hidx, stamp, action, _ = act_actions(private_message(table, seat, "it"))[0]
    assert table.check_action(USER_BASE + seat, hidx, stamp, action) == seat
    table.apply(seat, action)
    # the opponent plays; whoever leads next, the old button is refused
    other = hand.current
    h2, s2, a2, _ = act_actions(private_message(table, other, "it"))[0]
    assert table.check_action(USER_BASE + other, h2, s2, a2) == other
    table.apply(other, a2)
    with pytest.raises(TableError) as err:
        table.check_action(USER_BASE + seat, hidx, stamp, action)
    assert err.value.key in ("err_stale", "err_not_your_turn")
    if hand.current == seat:  # the same seat leads again: the fresh button works
        h3, s3, a3, _ = act_actions(private_message(table, seat, "it"))[0]
        assert table.check_action(USER_BASE + seat, h3, s3, a3) == seat


def test_signals_reach_the_partner_only() -> None:
    """§5.3: with signals on, a signal shows in the partner's hand message only."""
    sent = 0
    for seed in range(20):
        rng = random.Random(seed)
        table = new_table("quattro", {"signals": "true"}, "it", seed=f"signals:{seed}")
        hand = table.hand
        assert hand is not None
        while not hand.is_terminal():
            legal = hand.legal_actions()
            signals = [a for a in legal if a >= A.SIGNAL]
            seat = hand.current
            if signals:
                table.apply(seat, signals[0])
                sent += 1
                partner = (seat + 2) % 4
                name = table.seats[seat].name
                seen = check(private_message(table, partner, "it"))
                assert f"📶 Segnale di {name}: " in seen
                for other in (seat + 1) % 4, (seat + 3) % 4:  # the opponents
                    # (they see the name elsewhere: the cards on the table, whose turn)
                    assert f"Segnale di {name}" not in check(private_message(table, other, "it"))
                assert "📶" not in check(table_message(table, "it"))
            else:
                table.apply(seat, rng.choice(legal))
    assert sent > 5


# ------------------------------------------------------------------------------ levels


@pytest.mark.parametrize("lang", ["it", "en"])
def test_computer_levels_in_the_lobby(lang: str) -> None:
    """/addbot takes easy/normal/hard in either language (normal when none is given); a
    garbage level is refused with the list and seats nobody; each level has its button."""
    table = Table(TABLE_ID, CHAT_ID, USER_BASE, Options.parse("chiamata"), lang=lang)
    table.join(USER_BASE, NAMES[0])
    for word, level in [("Facile", "easy"), ("normal", "normal"), (" DIFFICILE ", "hard")]:
        table.add_bot(word)
        assert table.seats[-1].level == level and table.seats[-1].user_id is None
    table.add_bot()
    assert table.seats[-1].level == "normal"
    before = [s.to_json() for s in table.seats]
    for garbage in ("", "grandmaster", "simple", "<b>x</b>", "hard hard"):
        with pytest.raises(TableError) as err:
            table.add_bot(garbage)
        assert err.value.key == "err_bad_level"
        assert err.value.kw["levels"] == (
            "facile, normale, difficile" if lang == "it" else "easy, normal, hard"
        )
    assert [s.to_json() for s in table.seats] == before
    lobby = lobby_message(table, lang)
    # the table is full (five seats): no button offers a seat (issue 11 §5) ...
    assert not [d for _, d in buttons(lobby) if d.endswith((":join", ":fill")) or ":bot" in d]
    with pytest.raises(TableError):
        table.add_bot("hard")
    # ... and with a free seat each level has its button
    free = table.seats.pop()
    bot_buttons = [d for _, d in buttons(lobby_message(table, lang)) if ":bot" in d]
    assert bot_buttons == [f"l:{TABLE_ID}:bot:{lv}" for lv in ("easy", "normal", "hard")]
    table.seats.append(free)
    # the ledger ids of computer players are fixed per level
    assert {s.ledger_id() for s in table.seats if s.is_bot} == {-1002, -1003, -1004}


@pytest.mark.parametrize("lang", ["it", "en"])
def test_first_must_call_prompt_offers_no_pass(lang: str) -> None:
    """§7.2 `first_must_call`: the first to speak may not pass, and the prompt does not invite
    them to; the next one may pass again, and is told so."""
    table = new_table("chiamata", {"first_must_call": "true"}, lang, "seed-fmc")
    assert table.hand is not None
    first = table.hand.current
    r = private_message(table, first, lang)
    assert A.PASS not in [a for _, _, a, _ in act_actions(r)]
    assert t(lang, "your_bid_no_pass") in r.text
    assert "oppure passa" not in r.text and "or pass" not in r.text
    table.apply(first, next(a for a in table.hand.legal_actions() if a != A.PASS))
    second = table.hand.current
    r2 = private_message(table, second, lang)
    assert A.PASS in [a for _, _, a, _ in act_actions(r2)]
    assert ("oppure passa" if lang == "it" else "or pass") in r2.text


@pytest.mark.parametrize("variant", ["due", "chiamata"])
def test_s3_5_a_last_card_that_plays_itself_is_offered_to_nobody(variant: str) -> None:
    """RULES §3.5: in the hand's last trick each one's last card is their one legal move,
    played for them (issue 49): the hand message of the one to act then says so, with their
    card as text and no button (a button would only race the card playing itself)."""
    rng = random.Random(5)
    table = new_table(variant, {}, "it", "last-card")
    hand = table.hand
    assert hand is not None
    while hand.forced_action() is None:
        assert not hand.is_terminal()
        table.apply(hand.current, rng.choice(hand.legal_actions()))
    assert table.forced() and len(hand.hands[hand.current]) == 1
    for lang, words in (("it", "si gioca da sola"), ("en", "plays itself")):
        msg = private_message(table, hand.current, lang)
        assert words in msg.text and "👉" not in msg.text, msg.text
        assert not msg.keyboard, msg.keyboard
    other = (hand.current + 1) % table.n_players  # the others' messages are as before
    assert "si gioca da sola" not in private_message(table, other, "it").text
