"""Card play by estimate: the `normal` player's judgement (and `easy`'s, with its lapses).

Each legal card gets a score: the expected swing of card points in this trick (what my side
wins minus what the others win, from the chance that the trick ends with my side given who
plays after me and what they may hold) minus the value of keeping the card for later (a
briscola's power, a carico's chance to be banked later). Everything comes from `Knowledge`:
cards seen, unseen cards, who may hold what.

That one rule gives the usual good play: lisci are led and thrown, a carico goes on a
partner's trick that will hold, a rich trick is cut with the lowest briscola that takes it, a
cheap trick is not trumped while the talon lasts, a carico is cashed when nothing can beat it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from bot.engine.observation import Observation, trick_order
from bot.engine.tricks import trick_winner
from bot.players.knowledge import Knowledge, friend_probabilities


@dataclass(frozen=True, slots=True)
class Style:
    """Tunable judgement. `easy` uses a careless variant."""

    trump_power_talon: float = 8.0  # value of keeping a briscola while the talon lasts
    trump_power_end: float = 3.0  # ... once it is gone
    trump_strength: float = 0.4  # extra per strength step (Two 1 .. Asso 10)
    plain_strength: float = 0.15  # keeping a high plain card
    feed_factor: float = 0.7  # points a later opponent adds when taking a lead
    caller_trump_lead: float = 3.0  # chiamata: the caller's side draws briscole
    hide_called: float = 3.0  # chiamata: the partner keeps the called card hidden
    # chiamata, a defender's carico: not thrown onto a trick a known opponent
    # is winning unless it wins it; not loaded in last seat onto a trick taken with a
    # briscola by a seat that may be the hidden socio (such a seat mostly is)
    guard_carichi: float = 25.0


NORMAL = Style()
# Chiamata: every card is dealt, so a high briscola kept is worth much more than in
# due, where `trump_strength` was tuned (there 0.6 already loses). Keeping the Asso and the Tre
# of briscola makes cheap briscole the ones spent, the called card among them: the socio keeps
# it hidden more firmly; a defender, never throwing a carico where a high briscola could go
# instead, guards it more firmly too. Measured on 2,000 paired deals against `NORMAL` in
# chiamata: `trump_strength` 1.0 +0.061 a seat-hand, 1.5 +0.069, 2.0 +0.074, 2.5 +0.059.
NORMAL_CHIAMATA = replace(NORMAL, trump_strength=2.0, guard_carichi=40.0, hide_called=25.0)


def style_for(obs: Observation) -> Style:
    """`normal`'s judgement for this table: `NORMAL_CHIAMATA` in chiamata, else `NORMAL`."""
    return NORMAL_CHIAMATA if obs.rules.chiamata else NORMAL


def score_cards(
    obs: Observation, know: Knowledge, cards: list[int], style: Style | None = None
) -> dict[int, float]:
    """Each card's score (higher is better), with `style` or the table's (`style_for`)."""
    style = style or style_for(obs)
    rules = obs.rules
    deck = rules.deck
    suit, strength, points = deck.suit, deck.strength, deck.points
    b = obs.briscola
    me = obs.seat
    order = trick_order(obs)
    pos = len(obs.trick)
    later = list(order[pos + 1 :])
    fp = friend_probabilities(obs, know.suspicion)
    trick_cards = [c for _, c in obs.trick]
    t0 = sum(points[c] for c in trick_cards)
    talon = obs.talon_left
    unseen = know.unseen
    pool = len(unseen)
    unseen_set = set(unseen)
    # Cards other seats might hold: unseen, or known to be in a given hand.
    elsewhere = set(unseen_set)
    for cards_known in know.known.values():
        elsewhere.update(cards_known)
    trumps_out = sum(1 for c in elsewhere if suit[c] == b) if b >= 0 else 0
    follow = rules.follow_suit

    def p_holds(seat: int, group: list[int]) -> float:
        """Probability that `seat` holds at least one card of `group`."""
        if not group:
            return 0.0
        if seat == me:
            return 1.0 if any(c in know.hand for c in group) else 0.0
        known = know.known.get(seat, [])
        if any(c in known for c in group):
            return 1.0
        h = know.hidden[seat]
        if h == 0 or pool == 0:
            return 0.0
        x = sum(1 for c in group if c in unseen_set and know.could_hold(seat, c))
        if x == 0:
            return 0.0
        p_none = 1.0
        for j in range(h):
            if pool - j <= 0:
                return 1.0
            p_none *= max(0.0, (pool - x - j) / (pool - j))
        return 1.0 - p_none

    def beaters(best: int) -> tuple[list[int], list[int]]:
        """Cards elsewhere that beat `best`: (same suit, briscole of another suit)."""
        same = [c for c in elsewhere if suit[c] == suit[best] and strength[c] > strength[best]]
        cut = [] if b < 0 or suit[best] == b else [c for c in elsewhere if suit[c] == b]
        return same, cut

    def master(c: int) -> bool:
        return not any(suit[x] == suit[c] and strength[x] > strength[c] for x in elsewhere)

    def trump_will(total: int) -> float:
        """How readily an opponent cuts a trick worth `total` with a briscola."""
        if total >= 10:
            return 1.0
        if talon > 0:
            return 0.5 if total >= 4 else (0.2 if total > 0 else 0.03)
        return 1.0 if total > 0 else 0.3

    def keep_value(c: int) -> float:
        pc = points[c]
        if suit[c] == b:
            power = style.trump_power_talon if talon > 0 else style.trump_power_end
            q = 1.0 if master(c) else 0.6
            return power + style.trump_strength * strength[c] + (2 * q - 1) * pc
        if pc >= 10:
            m = master(c)
            if m and trumps_out == 0:
                q = 0.95
            else:
                q = 0.5 if m else 0.3
        elif pc > 0:
            q = 0.45
        else:
            q = 0.5
        return (2 * q - 1) * pc + style.plain_strength * strength[c]

    if trick_cards:
        wi = trick_winner(trick_cards, suit, strength, b)
        w_card = trick_cards[wi]
        w_seat = obs.trick[wi][0]
    else:
        w_card, w_seat = -1, -1

    chiamata = rules.chiamata and obs.caller >= 0 and not obs.carichi
    caller_side = chiamata and (me == obs.caller or me == obs.partner)
    # a defender as far as this seat knows, facing a trick an opponent is (likely) winning
    guarded = False
    if chiamata and not caller_side and w_card >= 0:
        known_foe = w_seat == obs.caller or (obs.partner_revealed and w_seat == obs.partner)
        hidden_trumper = (
            not later
            and w_seat != me
            and not obs.partner_revealed
            and b >= 0
            and suit[w_card] == b
            and suit[trick_cards[0]] != b
        )
        guarded = known_foe or hidden_trumper
    my_trumps = sum(1 for c in know.hand if suit[c] == b) if b >= 0 else 0

    scores: dict[int, float] = {}
    for c in cards:
        if w_card < 0:
            best, f_best = c, 1.0
        else:
            beats = trick_winner((w_card, c), suit, strength, b) == 1
            if follow and suit[c] != suit[trick_cards[0]]:
                beats = False
            if beats:
                best, f_best = c, 1.0
            else:
                best, f_best = w_card, fp[w_seat]
        total = t0 + points[c]
        same, cut = beaters(best)
        will = trump_will(total)
        hold_vs_foes = 1.0  # the best card survives the opponents after me
        friends_miss = 1.0  # no friend after me takes it from an opponent
        fed = 0.0
        for s in later:
            if s == me:
                continue
            p_same = p_holds(s, same)
            p_cut = 0.0
            if cut:
                p_cut = p_holds(s, cut)
                if follow:
                    p_cut = 0.0
            p_over = 1.0 - (1.0 - p_same) * (1.0 - will * p_cut)
            foe = 1.0 - fp[s]
            hold_vs_foes *= 1.0 - foe * p_over
            friends_miss *= 1.0 - fp[s] * p_over
            if w_card < 0 and same:
                rich = [points[x] for x in same if points[x] > 0]
                if rich:
                    fed += foe * p_same * sum(rich) / len(same)
        p_mine = f_best * hold_vs_foes + (1.0 - f_best) * (1.0 - friends_miss)
        swing = (2.0 * p_mine - 1.0) * total - style.feed_factor * fed
        score = swing - keep_value(c)
        if guarded and points[c] >= 10 and suit[c] != b and best != c:
            score -= style.guard_carichi
        if chiamata:
            if (
                caller_side
                and w_card < 0
                and suit[c] == b
                and my_trumps >= 3
                and len(obs.tricks) < 4
            ):
                score += style.caller_trump_lead
            if (
                me == obs.partner
                and me != obs.caller
                and c == obs.called_card
                and not obs.partner_revealed
                and total < 15
            ):
                score -= style.hide_called
        scores[c] = score
    return scores
