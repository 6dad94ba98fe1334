"""What a seat knows about the cards, from its `Observation` alone.

`Knowledge.of(obs)` tracks the cards seen (played, on the table, visible hands, the turned
card, a teammate's signals), the unseen cards, how many unknown cards each location holds (other
hands, the talon, the cards removed from the deck, §1.4) and who cannot hold what:

- Briscolone (§8.2): a player who did not follow suit held none of the led suit then; each card
  drawn since may be one again, so the bound is "at most k cards of that suit".
- The turned card (§3.2, §3.4) is known to be with whoever drew it.
- Scoperta (§6.1) and partners after the talon (§5.2): visible hands.
- Signals (§5.3): a teammate who signalled a briscola holds it until it is played.
- Chiamata (§7.6-7.7): the called card is with the partner when this seat knows the partner;
  otherwise it is in another hand (the caller's too, for a defender: "chiamarsi in mano").
  Auction and play inferences are soft weights only: the caller is likely long in briscola,
  a seat that loads points on the caller's winning tricks is likely the partner.

`sample_world(rng)` deals the unseen cards to the unknown places consistently with the hard
constraints (soft weights bias the deal); `HandState.from_observation(obs, world)` makes the
state of one such deal, for search. Nothing here reads anything but the observation.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

from bot.engine import actions as A
from bot.engine.cards import card_id
from bot.engine.observation import Observation
from bot.engine.state import World
from bot.players.learned import infer
from bot.players.suspicion import suspicion_events

TALON = -2
REMOVED = -3


def friend_probabilities(obs: Observation, suspicion: list[float] | None = None) -> list[float]:
    """Per seat, the probability this seat believes it is on its own side (1.0 for itself)."""
    n = obs.rules.n_players
    me = obs.seat
    out = [0.0] * n
    out[me] = 1.0
    if not obs.rules.chiamata:
        side = obs.rules.side_of
        for s in range(n):
            if side[s] == side[me]:
                out[s] = 1.0
        return out
    caller, partner = obs.caller, obs.partner
    if caller < 0 or obs.carichi:
        return out  # auction, or carichi: everyone for themselves against the caller
    if partner >= 0:  # this seat knows the partner (it is the partner, or it is revealed)
        mine = {caller, partner} if me in (caller, partner) else set(range(n)) - {caller, partner}
        for s in mine:
            out[s] = 1.0
        return out
    # The partner is unknown to this seat: weight the candidates.
    cands = [s for s in range(n) if s not in (me, caller)]
    if me == caller:
        w = [math.exp(suspicion[s]) if suspicion else 1.0 for s in cands]
        tot = sum(w)
        for s, x in zip(cands, w, strict=True):
            out[s] = x / tot
        return out
    # A defender: the caller may be alone (rare); the others are each the partner in turn.
    alone = 0.08
    w = [math.exp(suspicion[s]) if suspicion else 1.0 for s in cands]
    tot = sum(w)
    for s, x in zip(cands, w, strict=True):
        out[s] = 1.0 - (1.0 - alone) * x / tot  # a friend unless it is the partner
    return out


@dataclass(slots=True)
class Knowledge:
    obs: Observation
    n: int
    seat: int
    briscola: int
    hand: tuple[int, ...]
    played: set[int]
    known: dict[int, list[int]]  # seat -> cards known to be in that hand (other seats)
    hidden: list[int]  # per seat: cards in that hand whose identity is unknown
    talon_hidden: int  # unknown cards in the talon (excluding known front/back cards)
    talon_front: list[int]  # known cards at the front of the talon (scoperta's next card)
    talon_back: int  # the turned card while still under the talon, else -1
    removed_known: list[int]
    removed_hidden: int
    unseen: list[int]  # cards whose place is unknown to this seat
    caps: dict[tuple[int, int], int] = field(default_factory=dict)  # (seat, suit) -> max held
    forbid: dict[int, set[int]] = field(default_factory=dict)  # card -> places it cannot be
    weight: dict[tuple[int, int], float] = field(default_factory=dict)  # (place, card) soft
    suspicion: list[float] = field(default_factory=list)  # chiamata: partner likelihood (log)

    # ------------------------------------------------------------------ construction

    @classmethod
    def of(cls, obs: Observation, *, counting: bool = True, learned: bool = False) -> Knowledge:
        """`counting=False` forgets the played cards (a careless player): they count as unseen
        for estimates; never use such a Knowledge to sample worlds. `learned`: in chiamata,
        who holds what comes from the inference network (`learned.infer`) where it applies,
        instead of the hand-fitted weights."""
        rules = obs.rules
        deck = rules.deck
        n = rules.n_players
        me = obs.seat
        played: set[int] = set()
        for t in obs.tricks:
            played.update(t.cards)
        on_table = {c for _, c in obs.trick}
        played |= on_table
        hand = tuple(obs.hand)
        known: dict[int, list[int]] = {s: [] for s in range(n) if s != me}
        located = set(hand) | played
        for s, cards in obs.visible_hands.items():
            known[s] = list(cards)
            located.update(cards)
        talon_back = -1
        if obs.turned >= 0:
            if obs.turned_to < 0:
                talon_back = obs.turned
                located.add(obs.turned)
            elif obs.turned not in located:
                known[obs.turned_to].append(obs.turned)
                located.add(obs.turned)
        talon_front: list[int] = []
        if obs.talon_next >= 0 and obs.talon_next != talon_back:
            talon_front.append(obs.talon_next)
            located.add(obs.talon_next)
        # §5.3 signals from teammates: they hold that briscola until they play it.
        if obs.briscola >= 0 and deck.size == 40:
            for s, k in obs.signals:
                if s == me or s not in known:
                    continue
                c = card_id(A.SIGNAL_NUMBERS[k], obs.briscola)
                if c not in located:
                    known[s].append(c)
                    located.add(c)
        # Chiamata: the called card, when this seat knows who holds it.
        called = obs.called_card
        if called >= 0 and called not in located and obs.partner >= 0 and obs.partner != me:
            known[obs.partner].append(called)
            located.add(called)
        removed_known: list[int] = []
        removed_hidden = 0
        if rules.remove_twos:
            twos = [c for c in range(deck.size) if deck.number[c] == 2]
            if rules.remove_twos >= len(twos):
                removed_known = twos
                located.update(twos)
            else:
                removed_hidden = rules.remove_twos
        hidden = [0] * n
        for s in range(n):
            if s != me:
                hidden[s] = max(0, obs.hand_sizes[s] - len(known[s]))
        talon_hidden = obs.talon_left - len(talon_front) - (talon_back >= 0)
        unseen = [c for c in range(deck.size) if c not in located]
        if rules.blind:  # coperta: own cards unknown too; nothing to search
            hidden[me] = 0
        know = cls(
            obs=obs,
            n=n,
            seat=me,
            briscola=obs.briscola,
            hand=hand,
            played=played,
            known=known,
            hidden=hidden,
            talon_hidden=max(0, talon_hidden),
            talon_front=talon_front,
            talon_back=talon_back,
            removed_known=removed_known,
            removed_hidden=removed_hidden,
            unseen=unseen,
        )
        know._constraints(learned)
        if not counting:
            know.unseen = sorted(set(unseen) | (played - on_table))
        return know

    def _constraints(self, learned: bool = False) -> None:
        obs = self.obs
        rules = obs.rules
        deck = rules.deck
        n = self.n
        unseen = self.unseen
        if self.removed_hidden:  # §1.4: only a Two can have been removed
            for c in unseen:
                if deck.number[c] != 2:
                    self.forbid.setdefault(c, set()).add(REMOVED)
        if rules.follow_suit:
            self._void_caps()
        self.suspicion = [0.0] * n
        called = obs.called_card
        if rules.chiamata and obs.caller >= 0 and not obs.carichi:
            if learned and infer.available(obs):
                self._learned_weights(called)
            else:
                self._chiamata_weights(called)

    def _void_caps(self) -> None:
        """§8.2: not following the led suit shows a void then; every card drawn since may be
        of that suit again, every card of it played since came from those draws."""
        obs = self.obs
        rules = obs.rules
        deck = rules.deck
        n = self.n
        caps: dict[tuple[int, int], int] = {}
        left = deck.size - rules.remove_twos - n * rules.hand_size
        suit = deck.suit

        def note(seat: int, led: int, card: int) -> None:
            if suit[card] != led:
                caps[(seat, led)] = 0
            for s in range(4):
                key = (seat, s)
                if key in caps and suit[card] == s and caps[key] > 0:
                    caps[key] -= 1

        for t in obs.tricks:
            led = suit[t.cards[0]]
            for seat, c in zip(t.seats, t.cards, strict=True):
                note(seat, led, c)
            for _ in range(rules.plays_per_trick):
                for seat in rules.seat_orders[t.winner]:
                    if left <= 0:
                        break
                    left -= 1
                    for s in range(4):
                        if (seat, s) in caps:
                            caps[(seat, s)] += 1
        if obs.trick:
            led = suit[obs.trick[0][1]]
            for seat, c in obs.trick:
                note(seat, led, c)
        self.caps = {k: v for k, v in caps.items() if k[0] != self.seat}

    def _learned_weights(self, called: int) -> None:
        """Chiamata, from the inference network: each unseen card's chance to be in each
        hand, as the soft weight that makes `sample_world` place it so (a place is drawn in
        proportion to its free room times the weight); the socio's likelihood is the called
        card's (`suspicion`, log-odds against the other candidates)."""
        holders = infer.holders(self.obs)
        hidden = {s: self.hidden[s] for s in range(self.n) if s != self.seat and self.hidden[s]}
        room = sum(hidden.values())
        for c in self.unseen:
            for s, p in holders.get(c, {}).items():
                if s in hidden:
                    self.weight[(s, c)] = max(p, 1e-4) * room / hidden[s]
        if called >= 0 and called in holders and self.obs.partner < 0:
            forbid = self.forbid.setdefault(called, set())
            forbid.add(TALON)
            forbid.add(REMOVED)
            chance = holders[called]
            for s in range(self.n):
                if s not in (self.seat, self.obs.caller) and s in chance:
                    self.suspicion[s] = max(
                        -SUSPICION_CAP, min(SUSPICION_CAP, math.log(max(chance[s], 1e-4) * 4))
                    )

    def _chiamata_weights(self, called: int) -> None:
        obs = self.obs
        deck = obs.rules.deck
        n = self.n
        me = self.seat
        caller = obs.caller
        b = obs.briscola
        # Partner inference from play (a defender or the caller, before the reveal).
        if obs.partner < 0:
            self.suspicion = partner_suspicion(obs)
        if called < 0 or called not in self.unseen:
            pass
        else:
            # The called card is in another hand; this seat does not know whose.
            forbid = self.forbid.setdefault(called, set())
            forbid.add(TALON)
            forbid.add(REMOVED)
            if me != caller:
                self.weight[(caller, called)] = 0.08
            for s in range(n):
                if s not in (me, caller):
                    self.weight[(s, called)] = math.exp(self.suspicion[s])
        # The caller is likely long in briscola and holds the ranks above the called one.
        if caller != me and b >= 0 and self.hidden[caller] > 0:
            called_power = deck.strength[called] if called >= 0 else 0
            for c in self.unseen:
                if deck.suit[c] == b and c != called:
                    w = 2.0 if deck.strength[c] < called_power else 3.5
                    self.weight[(caller, c)] = self.weight.get((caller, c), 1.0) * w
        # Bidders who went low showed strength: a slight lean to their high cards.
        for s, bid in obs.bids:
            if s in (me, caller) or bid == A.PASS or self.hidden[s] == 0:
                continue
            for c in self.unseen:
                if deck.points[c] >= 10:
                    self.weight[(s, c)] = self.weight.get((s, c), 1.0) * 1.15

    # ------------------------------------------------------------------ queries

    def places(self) -> list[tuple[int, int]]:
        """(place, number of unknown cards there): other seats, TALON, REMOVED."""
        out = [(s, self.hidden[s]) for s in range(self.n) if s != self.seat and self.hidden[s]]
        if self.talon_hidden:
            out.append((TALON, self.talon_hidden))
        if self.removed_hidden:
            out.append((REMOVED, self.removed_hidden))
        return out

    def fully_known(self) -> bool:
        """Whether only one world is possible: every unseen card's place is determined."""
        places = self.places()
        if not places:
            return True
        if len(places) > 1:
            return False
        place, count = places[0]
        return place >= 0 or count <= 1

    def could_hold(self, seat: int, card: int) -> bool:
        if seat == self.seat:
            return card in self.hand
        if card in self.known.get(seat, ()):
            return True
        if card not in self.unseen or self.hidden[seat] == 0:
            return False
        forbid = self.forbid.get(card)
        if forbid is not None and seat in forbid:
            return False
        return self.caps.get((seat, self.obs.rules.deck.suit[card]), 1) > 0

    # ------------------------------------------------------------------ sampling

    def count_worlds(self) -> int:
        """How many distinct worlds there are (hard constraints aside): the ways to share
        the unseen cards among the places, times the talon's orders."""
        total = 1
        left = len(self.unseen)
        for place, k in self.places():
            total *= math.comb(left, k)
            if place == TALON:
                total *= math.factorial(k)
            left -= k
        return total

    def enumerate_worlds(self) -> list[tuple[World, float]]:
        """Every world with its prior weight (soft weights multiplied; worlds that break a hard
        constraint are left out). Only for small `count_worlds()`."""
        from itertools import combinations, permutations

        deck = self.obs.rules.deck
        places = self.places()
        out: list[tuple[World, float]] = []

        def rec(i: int, pool: list[int], got: dict[int, list[int]]) -> None:
            if i == len(places):
                talon_mids = (
                    [list(p) for p in permutations(got.get(TALON, []))] if TALON in got else [[]]
                )
                w = 1.0
                for place, cards in got.items():
                    for c in cards:
                        forbid = self.forbid.get(c)
                        if forbid is not None and place in forbid:
                            return
                        w *= self.weight.get((place, c), 1.0)
                    if place >= 0:
                        for s in range(4):
                            cap = self.caps.get((place, s))
                            if cap is not None and sum(1 for c in cards if deck.suit[c] == s) > cap:
                                return
                hands = [
                    list(self.hand) if s == self.seat else self.known[s] + got.get(s, [])
                    for s in range(self.n)
                ]
                for mid in talon_mids:
                    out.append(
                        (
                            World(
                                [list(h) for h in hands],
                                self.talon_front + mid,
                                self.removed_known + got.get(REMOVED, []),
                            ),
                            w,
                        )
                    )
                return
            place, k = places[i]
            for combo in combinations(pool, k):
                chosen = set(combo)
                rest = [c for c in pool if c not in chosen]
                got[place] = list(combo)
                rec(i + 1, rest, got)
                del got[place]

        rec(0, list(self.unseen), {})
        return out

    def sample_world(self, rng: random.Random) -> World:
        """One deal of the unseen cards consistent with the constraints (biased by the soft
        weights). Falls back to ignoring the soft bounds if the hard ones cannot be met."""
        for attempt in range(40):
            world = self._try_sample(rng, strict=attempt < 30)
            if world is not None:
                return world
        world = self._try_sample(rng, strict=False, relax=True)
        assert world is not None
        return world

    def _try_sample(self, rng: random.Random, *, strict: bool, relax: bool = False) -> World | None:
        deck = self.obs.rules.deck
        suit = deck.suit
        places = self.places()
        cap_left = {p: k for p, k in places}
        got: dict[int, list[int]] = {p: [] for p, _ in places}
        suit_caps = dict(self.caps) if not relax else {}
        cards = list(self.unseen)
        rand = rng.random
        cards.sort(key=lambda _c: rand())
        if not relax and (self.forbid or suit_caps):
            # Most constrained first.
            capped = {su for (_, su) in suit_caps}
            cards.sort(key=lambda c: -(len(self.forbid.get(c, ())) * 2 + (suit[c] in capped)))
        weight = self.weight
        for c in cards:
            forbid = self.forbid.get(c) if not relax else None
            total = 0.0
            opts: list[tuple[int, float]] = []
            for p, _ in places:
                k = cap_left[p]
                if k <= 0 or (forbid is not None and p in forbid):
                    continue
                if p >= 0 and suit_caps.get((p, suit[c]), 1) <= 0:
                    continue
                w = k * (weight.get((p, c), 1.0) if strict else 1.0)
                if w <= 0:
                    continue
                total += w
                opts.append((p, w))
            if not opts:
                return None
            x = rand() * total
            chosen = opts[-1][0]
            for p, w in opts:
                x -= w
                if x < 0:
                    chosen = p
                    break
            got[chosen].append(c)
            cap_left[chosen] -= 1
            key = (chosen, suit[c])
            if key in suit_caps:
                suit_caps[key] -= 1
        hands: list[list[int]] = []
        for s in range(self.n):
            if s == self.seat:
                hands.append(list(self.hand))
            else:
                hands.append(self.known[s] + got.get(s, []))
        talon_mid = got.get(TALON, [])
        talon_mid.sort(key=lambda _c: rand())
        talon = self.talon_front + talon_mid
        removed = self.removed_known + got.get(REMOVED, [])
        return World(hands, talon, removed)


# Chiamata, before the reveal: how much each public play around the caller's tricks says
# about a non-caller being the socio, as log-odds added per play (`partner_suspicion`).
# Fitted (a conditional logit over the four non-callers, `python -m bench.suspicion`) on
# 68,000 positions of 2,000 hands of five `normal` players keeping their high briscole
# (`NORMAL_CHIAMATA`): on held-out positions the log-loss of who is the socio is 1.128, against
# 1.17 for the weights fitted on the earlier play (`SUSPICION_FOUR`) and 1.386 for no
# inference. A non-caller cutting the caller's trick is now mostly a defender:
# the socio keeps its briscole for later.
SUSPICION = {
    # on the caller's trick, not taking it: a plain carico; other points (a figura, or a
    # briscola with points: defenders shed them there); a liscio on the caller's briscola
    "loads_caller": 2.75,
    "points_caller": -1.0,
    "liscio_caller_trump": -0.35,
    # the caller's trick (4+ points) taken: by a higher card of the suit taking it (over-
    # trumping too), or by cutting a plain trick with a briscola
    "takes_caller": -1.35,
    "trumps_caller": -1.25,
    # a non-caller's trick: a plain carico put on it, not taking it; its plain trick cut
    "carico_other": 0.3,
    "trumps_other": 1.2,
    "leads_briscola": 0.85,
}
# Four players (§7.12), where the three non-callers read each other differently: the weights
# fitted on the earlier five-player play. The refit weights measured worse there (chiamata4
# against `normal1126`, 2,000 paired deals: +0.102 a seat-hand, against +0.141 with these).
SUSPICION_FOUR = {
    "loads_caller": 3.4,
    "points_caller": -0.8,
    "liscio_caller_trump": -0.7,
    "takes_caller": -1.4,
    "trumps_caller": 0.6,
    "carico_other": 0.35,
    "trumps_other": 0.35,
    "leads_briscola": 1.0,
}
SUSPICION_CAP = 6.0


def partner_suspicion(obs: Observation) -> list[float]:
    """Chiamata, before the reveal: log-odds-like score per seat of being the partner, from
    how it played around the caller's tricks and others' (`SUSPICION`, `SUSPICION_FOUR` with
    four players), this trick too."""
    n = obs.rules.n_players
    weights = SUSPICION if n >= 5 else SUSPICION_FOUR
    score = [0.0] * n
    for seat, event in suspicion_events(obs):
        score[seat] += weights[event]
    score[obs.caller] = 0.0
    score[obs.seat] = 0.0
    cap = SUSPICION_CAP
    return [max(-cap, min(cap, x)) for x in score]
