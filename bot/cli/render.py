"""Plain-text rendering of what one seat may see, for the terminal (Italian or English).

Every function that describes a hand in progress reads only an `Observation`
(`bot.engine.observation`), never the full `HandState`, so a hidden card cannot leak: other
players' hands appear only where the observation makes them visible (scoperta §6.1, partners
after the talon §5.2), the chiamata partner only once this seat may know it (§7.6), signals
only between partners (§5.3), card points only when `my_points` / `all_points` are set (§3.7).
The hand and match summaries also read the `HandRecord` / `Match`, which hold results only.

Text is plain (no markup): user-provided names are printed as they are.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.engine import actions as A
from bot.engine.cards import (
    DECK32,
    RANK_NAMES_EN,
    RANK_NAMES_FRENCH_EN,
    RANK_NAMES_FRENCH_IT,
    RANK_NAMES_IT,
    SUIT_NAMES_EN,
    SUIT_NAMES_FRENCH_EN,
    SUIT_NAMES_FRENCH_IT,
    SUIT_NAMES_IT,
    Deck,
    card_id,
)
from bot.engine.match import HandRecord, Match
from bot.engine.observation import Observation
from bot.engine.state import Trick

LANGS = ("it", "en")

_T: dict[str, dict[str, str]] = {
    "it": {
        "of": "di",
        "hand_header": "=== Mano {n} · {variant} · mazziere: {dealer} ===",
        "seats": "Giocatori (in ordine di gioco):",
        "dealer": "mazziere",
        "to_act": "<- tocca a te",
        "to_act_other": "<- di turno",
        "cards_n": "{n} carte",
        "card_1": "1 carta",
        "team": "squadra {x}",
        "caller_tag": "chiamante",
        "partner_tag": "socio",
        "passed_tag": "passa",
        "you_partner_tag": "socio (lo sai solo tu)",
        "briscola": "Briscola: {suit}",
        "briscola_turned": "Briscola: {suit} (carta girata: {card})",
        "turned_drawn": ", pescata da {who}",
        "no_briscola": "Nessuna briscola: si risponde al seme (chi non può, gioca qualsiasi carta)",
        "no_briscola_carichi": "Nessuna briscola (carichi)",
        "briscola_tbd": "Briscola: la sceglie il chiamante a fine asta",
        "talon": "Mazzo: {n} carte (compresa la briscola girata)",
        "talon_plain": "Mazzo: {n} carte",
        "talon_empty": "Mazzo: finito",
        "talon_next": "Prossima carta del mazzo: {card}",
        "table": "In tavola: {plays}",
        "table_empty": "In tavola: nessuna carta",
        "last_trick": "Ultima presa: {plays} -> {winner}",
        "your_hand": "La tua mano: {cards}",
        "your_hand_blind": "La tua mano: {n} carte coperte (non le vedi: scegli per posizione)",
        "your_hand_empty": "La tua mano: vuota",
        "visible_hand": "Carte di {who}: {cards}",
        "points_mine": "I tuoi punti: {n}",
        "points_side": "Punti della tua squadra: {n}",
        "points_all": "Punti presi: {pts}",
        "signals": "Segnali: {items}",
        "signal_item": "{who} ha {sig} di briscola",
        "auction": "Asta: {bids}",
        "auction_none": "Asta: nessuna offerta finora",
        "current_bid": "Offerta più alta: {bid} ({who})",
        "no_bid": "Offerta più alta: nessuna",
        "passed": "Hanno passato: {who}",
        "caller": "Chiamante: {who}",
        "called": "Carta chiamata: {card} (briscola: {suit})",
        "target": "Obiettivo: {n} punti",
        "partner": "Socio: {who}",
        "partner_unknown": "Socio: ancora sconosciuto",
        "partner_you": "Socio: sei tu (nessun altro lo sa)",
        "alone_you": "Hai la carta chiamata: giochi da solo contro tutti",
        "alone": "{who} gioca da solo",
        "carichi_line": "{who} ha chiamato carichi: gioca da solo, senza briscola",
        "choose": "Le tue scelte:",
        "prompt": "Scelta (1-{k}, q per uscire): ",
        "none": "nessuno",
        "and": "e",
        "you": "Tu",
        "player": "Giocatore {n}",
        # events
        "ev_play": "{who} gioca {card}",
        "ev_play_you": "Giochi {card}",
        "ev_trick": "Presa {n}: {plays} -> la prende {who}",
        "ev_trick_you": "Presa {n}: {plays} -> la prendi tu",
        "ev_trick_pts": " ({p} punti)",
        "ev_draw_you": "Peschi {card}",
        "ev_draw_turned": "{who} prende la briscola girata {card}",
        "ev_draw_turned_you": "Prendi la briscola girata {card}",
        "ev_talon": "Tutti pescano: nel mazzo restano {n} carte",
        "ev_talon_done": "Il mazzo è finito: si gioca senza pescare",
        "ev_partner_hand": "Ora vedi le carte di {who}: {cards}",
        "ev_signal": "{who} ti segnala: {sig} di briscola",
        "ev_signal_you": "Segnali al compagno: hai {sig} di briscola",
        "ev_pass": "{who} passa",
        "ev_pass_you": "Passi",
        "ev_call": "{who}: {bid}",
        "ev_call_you": "Tu: {bid}",
        "ev_carichi": "{who} chiama carichi: gioca da solo, senza briscola",
        "ev_carichi_you": "Chiami carichi: giochi da solo, senza briscola",
        "ev_auction_end": "Asta chiusa: chiamante {who}, obiettivo {n} punti",
        "ev_called": "{who} chiama {card}: briscola {suit}",
        "ev_called_you": "Chiami {card}: briscola {suit}",
        "ev_you_partner": "Hai tu {card}: sei il socio di {who} (nessun altro lo sa)",
        "ev_you_alone": "Hai {card} in mano: giochi da solo contro tutti",
        "ev_revealed": "È uscita la carta chiamata, {card}: il socio di {caller} è {who}",
        "ev_revealed_you": (
            "È uscita la carta chiamata, {card}: ora tutti sanno che sei il socio di {caller}"
        ),
        "ev_revealed_alone": "È uscita la carta chiamata, {card}: {who} gioca da solo",
        "ev_all_pass": "Tutti hanno passato",
        # results
        "res_header": "--- Fine della mano {n} ---",
        "res_points": "Punti: {pts}",
        "res_void2": "60 a 60: mano nulla, si rigioca con lo stesso mazziere",
        "res_void3": "Parità in testa: mano nulla, si rigioca con lo stesso mazziere",
        "res_redeal": "Tutti hanno passato: si distribuisce di nuovo (mazziere successivo)",
        "res_win": "Vince la mano: {who}",
        "res_win_you": "Hai vinto la mano: {who}",
        "res_lose_you": "Hai perso la mano: vince {who}",
        "res_caller": "Chiamante: {who} · socio: {partner} · obiettivo: {target}",
        "res_caller_alone": "Chiamante: {who} (da solo) · obiettivo: {target}",
        "res_caller_carichi": "Chiamante: {who} (carichi, da solo) · obiettivo: {target}",
        "res_caller_pts": "Punti del chiamante: {a} · dei difensori: {b}",
        "res_caller_won": "Il chiamante vince",
        "res_caller_lost": "Il chiamante perde",
        "res_cappotto": " (cappotto: punteggio doppio)",
        "res_deltas": "Punteggio della mano: {items}",
        "st_hands": "Mani vinte: {items} (vince chi arriva a {n})",
        "st_points": "Punti totali: {items} (vince chi arriva a {n})",
        "st_fixed": "Mani vinte: {items} (mani giocate {k} su 5)",
        "st_scores": "Classifica: {items} (si vince a {n})",
        "st_scores_open": "Classifica: {items} (lega aperta)",
        "match_over": "=== Partita finita: vince {who} ===",
        "match_over_you": "=== Partita finita: hai vinto! Vince {who} ===",
        "match_over_lost": "=== Partita finita: hai perso. Vince {who} ===",
        "ledger": "Registro: {items}",
    },
    "en": {
        "of": "of",
        "hand_header": "=== Hand {n} · {variant} · dealer: {dealer} ===",
        "seats": "Players (in playing order):",
        "dealer": "dealer",
        "to_act": "<- your turn",
        "to_act_other": "<- to play",
        "cards_n": "{n} cards",
        "card_1": "1 card",
        "team": "team {x}",
        "caller_tag": "caller",
        "partner_tag": "partner",
        "passed_tag": "passed",
        "you_partner_tag": "partner (only you know)",
        "briscola": "Briscola: {suit}",
        "briscola_turned": "Briscola: {suit} (turned card: {card})",
        "turned_drawn": ", drawn by {who}",
        "no_briscola": "No briscola: follow the led suit (if you cannot, play any card)",
        "no_briscola_carichi": "No briscola (carichi)",
        "briscola_tbd": "Briscola: the caller names it after the auction",
        "talon": "Talon: {n} cards (the turned briscola included)",
        "talon_plain": "Talon: {n} cards",
        "talon_empty": "Talon: empty",
        "talon_next": "Next card of the talon: {card}",
        "table": "On the table: {plays}",
        "table_empty": "On the table: no cards",
        "last_trick": "Last trick: {plays} -> {winner}",
        "your_hand": "Your hand: {cards}",
        "your_hand_blind": "Your hand: {n} face-down cards (unseen: pick one by position)",
        "your_hand_empty": "Your hand: empty",
        "visible_hand": "{who}'s cards: {cards}",
        "points_mine": "Your card points: {n}",
        "points_side": "Your team's card points: {n}",
        "points_all": "Card points taken: {pts}",
        "signals": "Signals: {items}",
        "signal_item": "{who} holds the {sig} of briscola",
        "auction": "Auction: {bids}",
        "auction_none": "Auction: no bids yet",
        "current_bid": "Highest bid: {bid} ({who})",
        "no_bid": "Highest bid: none",
        "passed": "Passed: {who}",
        "caller": "Caller: {who}",
        "called": "Called card: {card} (briscola: {suit})",
        "target": "Target: {n} points",
        "partner": "Partner: {who}",
        "partner_unknown": "Partner: not known yet",
        "partner_you": "Partner: you (nobody else knows)",
        "alone_you": "You hold the called card: you play alone against everyone",
        "alone": "{who} plays alone",
        "carichi_line": "{who} called carichi: plays alone, with no briscola",
        "choose": "Your choices:",
        "prompt": "Choice (1-{k}, q to quit): ",
        "none": "nobody",
        "and": "and",
        "you": "You",
        "player": "Player {n}",
        "ev_play": "{who} plays {card}",
        "ev_play_you": "You play {card}",
        "ev_trick": "Trick {n}: {plays} -> taken by {who}",
        "ev_trick_you": "Trick {n}: {plays} -> you take it",
        "ev_trick_pts": " ({p} points)",
        "ev_draw_you": "You draw {card}",
        "ev_draw_turned": "{who} takes the turned briscola {card}",
        "ev_draw_turned_you": "You take the turned briscola {card}",
        "ev_talon": "Everyone draws: {n} cards left in the talon",
        "ev_talon_done": "The talon is empty: no more drawing",
        "ev_partner_hand": "You now see {who}'s cards: {cards}",
        "ev_signal": "{who} signals to you: the {sig} of briscola",
        "ev_signal_you": "You signal to your partner: the {sig} of briscola",
        "ev_pass": "{who} passes",
        "ev_pass_you": "You pass",
        "ev_call": "{who}: {bid}",
        "ev_call_you": "You: {bid}",
        "ev_carichi": "{who} calls carichi: plays alone, with no briscola",
        "ev_carichi_you": "You call carichi: you play alone, with no briscola",
        "ev_auction_end": "Auction closed: {who} is the caller, target {n} points",
        "ev_called": "{who} calls the {card}: briscola is {suit}",
        "ev_called_you": "You call the {card}: briscola is {suit}",
        "ev_you_partner": "You hold the {card}: you are {who}'s partner (nobody else knows)",
        "ev_you_alone": "You hold the {card} yourself: you play alone against everyone",
        "ev_revealed": "The {card} is out: {caller}'s partner is {who}",
        "ev_revealed_you": "The {card} is out: everyone now knows you are {caller}'s partner",
        "ev_revealed_alone": "The {card} is out: {who} plays alone",
        "ev_all_pass": "Everyone passed",
        "res_header": "--- End of hand {n} ---",
        "res_points": "Card points: {pts}",
        "res_void2": "60-60: void hand, replayed with the same dealer",
        "res_void3": "Tie for first: void hand, replayed with the same dealer",
        "res_redeal": "Everyone passed: the next dealer deals again",
        "res_win": "Hand won by {who}",
        "res_win_you": "You win the hand: {who}",
        "res_lose_you": "You lose the hand: {who} wins",
        "res_caller": "Caller: {who} · partner: {partner} · target: {target}",
        "res_caller_alone": "Caller: {who} (alone) · target: {target}",
        "res_caller_carichi": "Caller: {who} (carichi, alone) · target: {target}",
        "res_caller_pts": "Caller's side: {a} points · defenders: {b}",
        "res_caller_won": "The caller wins",
        "res_caller_lost": "The caller loses",
        "res_cappotto": " (cappotto: scores doubled)",
        "res_deltas": "Hand score: {items}",
        "st_hands": "Hands won: {items} (first to {n} wins)",
        "st_points": "Total card points: {items} (first to {n} wins)",
        "st_fixed": "Hands won: {items} (hands played {k} of 5)",
        "st_scores": "Standings: {items} (first to {n} wins)",
        "st_scores_open": "Standings: {items} (open league)",
        "match_over": "=== Match over: {who} wins ===",
        "match_over_you": "=== Match over: you win! Winner: {who} ===",
        "match_over_lost": "=== Match over: you lose. {who} wins ===",
        "ledger": "Ledger: {items}",
    },
}

VARIANT_NAMES: dict[str, dict[str, str]] = {
    "it": {
        "due": "Briscola a due",
        "tre": "Briscola a tre",
        "quattro": "Briscola a quattro (a coppie)",
        "sei": "Briscola a sei",
        "chiamata": "Briscola chiamata",
        "chiamata4": "Briscola chiamata in quattro",
        "briscolone": "Briscolone",
        "scoperta": "Briscola scoperta",
        "coperta": "Briscola coperta",
        "briskula32": "Briškula (32 carte)",
        "doppia": "Briscola doppia",
    },
    "en": {
        "due": "Two-player Briscola",
        "tre": "Three-player Briscola",
        "quattro": "Four-player Briscola (pairs)",
        "sei": "Six-player Briscola",
        "chiamata": "Briscola chiamata",
        "chiamata4": "Four-player Briscola chiamata",
        "briscolone": "Briscolone",
        "scoperta": "Open-hand Briscola (scoperta)",
        "coperta": "Blind Briscola (coperta)",
        "briskula32": "Briškula (32 cards)",
        "doppia": "Double Briscola (doppia)",
    },
}

# 32-card deck rank index 0..7 = A, T, K, Q, J, 9, 8, 7 (§9.1).
_RANKS32_IT = ("Asso", "10", "Re", "Cavallo", "Fante", "9", "8", "7")
_RANKS32_FRENCH_IT = ("Asso", "10", "Re", "Donna", "Fante", "9", "8", "7")
_RANKS32_EN = ("Ace", "10", "King", "Knight", "Jack", "9", "8", "7")
_RANKS32_FRENCH_EN = ("Ace", "10", "King", "Queen", "Jack", "9", "8", "7")

_SIGNAL_NAMES = {
    "it": ("l'Asso", "il Tre", "il Re", "il Cavallo", "il Fante"),
    "en": ("Ace", "Three", "King", "Knight", "Jack"),
}
_SIGNAL_NAMES_FRENCH = {
    "it": ("l'Asso", "il Tre", "il Re", "la Donna", "il Fante"),
    "en": ("Ace", "Three", "King", "Queen", "Jack"),
}


def _lang(lang: str) -> dict[str, str]:
    try:
        return _T[lang]
    except KeyError:
        raise ValueError(f"unknown language {lang!r}; use one of {', '.join(LANGS)}") from None


def _tr(lang: str, key: str, **kw: object) -> str:
    return _lang(lang)[key].format(**kw)


# ---------------------------------------------------------------------- cards and suits


def _french(obs: Observation) -> bool:
    return obs.options.deck == "french"


def suit_name(suit: int, lang: str = "it", *, french: bool = False) -> str:
    """Suit name in lower case: ``denari`` / ``coins``, ``quadri`` / ``diamonds`` (french)."""
    _lang(lang)
    if french:
        return (SUIT_NAMES_FRENCH_IT if lang == "it" else SUIT_NAMES_FRENCH_EN)[suit]
    return (SUIT_NAMES_IT if lang == "it" else SUIT_NAMES_EN)[suit]


def rank_name(card: int, deck: Deck, lang: str = "it", *, french: bool = False) -> str:
    """``Asso``, ``Re``, ``Cavallo`` / ``Donna``, ``Fante``; digits for 2..7 (and 8..10 in the
    32-card deck). English: ``Ace``, ``King``, ``Knight`` / ``Queen``, ``Jack``."""
    _lang(lang)
    number = deck.number[card]
    if deck is DECK32 or deck.size == 32:
        if lang == "it":
            return (_RANKS32_FRENCH_IT if french else _RANKS32_IT)[number]
        return (_RANKS32_FRENCH_EN if french else _RANKS32_EN)[number]
    if number in (1, 8, 9, 10):
        if lang == "it":
            return (RANK_NAMES_FRENCH_IT if french else RANK_NAMES_IT)[number]
        return (RANK_NAMES_FRENCH_EN if french else RANK_NAMES_EN)[number]
    return str(number)


def card_name(card: int, deck: Deck, lang: str = "it", *, french: bool = False) -> str:
    """Full name: ``Asso di denari``, ``Re di spade``, ``3 di bastoni``; ``Ace of coins``."""
    rank = rank_name(card, deck, lang, french=french)
    suit = suit_name(deck.suit[card], lang, french=french)
    return f"{rank} {_tr(lang, 'of')} {suit}"


def card_text(card: int, obs: Observation, lang: str = "it") -> str:
    """Full name plus compact notation: ``Asso di denari (1D)``, ``10 of coins (TD)``."""
    deck = obs.rules.deck
    return f"{card_name(card, deck, lang, french=_french(obs))} ({deck.label(card)})"


def _sorted_cards(cards: Sequence[int], obs: Observation) -> list[int]:
    deck = obs.rules.deck
    return sorted(cards, key=lambda c: (deck.suit[c], -deck.strength[c], c))


def _cards_text(cards: Sequence[int], obs: Observation, lang: str) -> str:
    return ", ".join(card_text(c, obs, lang) for c in _sorted_cards(cards, obs))


def _auction_rank_name(number: int, lang: str, french: bool) -> str:
    """Rank as called in the auction, with its article in Italian: ``l'Asso``, ``il Re``."""
    if lang == "it":
        name = (RANK_NAMES_FRENCH_IT if french else RANK_NAMES_IT)[number]
        if name == "Asso":
            return "l'Asso"
        return f"la {name}" if name == "Donna" else f"il {name}"
    name = (RANK_NAMES_FRENCH_EN if french else RANK_NAMES_EN)[number]
    return f"the {name}"


def _last_rank_call(obs: Observation) -> int:
    """Italian number of the last rank called in the auction, 0 if none."""
    for _, a in reversed(obs.bids):
        if A.CALL_RANK <= a < A.BID_POINTS:
            return a - A.CALL_RANK
    return 0


# ---------------------------------------------------------------------- actions


def action_label(action: int, obs: Observation, lang: str = "it") -> str:
    """Label of any action, as offered to the player whose observation this is."""
    deck = obs.rules.deck
    french = _french(obs)
    it = lang == "it"
    _lang(lang)
    if A.is_card(action):
        return card_text(action, obs, lang)
    if A.BLIND <= action < A.CALL_RANK:
        n = action - A.BLIND + 1
        return f"Carta coperta n.{n}" if it else f"Face-down card #{n}"
    if A.CALL_RANK <= action < A.BID_POINTS:
        called_rank = _auction_rank_name(action - A.CALL_RANK, lang, french)
        return f"Chiama {called_rank}" if it else f"Call {called_rank}"
    if A.BID_POINTS <= action < A.PASS:
        p = action - A.BID_POINTS
        if obs.rules.auction == "points":
            return f"A {p} punti" if it else f"Bid {p} points"
        two = "Due" if it else "Two"
        return f"{two} a {p}" if it else f"{two} at {p}"
    if action == A.PASS:
        return "Passo" if it else "Pass"
    if action == A.CARICHI:
        return "Carichi (da solo, senza briscola)" if it else "Carichi (alone, with no briscola)"
    if A.NAME_SUIT <= action < A.CALL_CARD:
        s = action - A.NAME_SUIT
        sname = suit_name(s, lang, french=french).capitalize()
        rank = _last_rank_call(obs)
        if rank and deck.size == 40:
            return f"{sname}: {card_text(card_id(rank, s), obs, lang)}"
        return sname
    if A.CALL_CARD <= action < A.SIGNAL:
        card = action - A.CALL_CARD
        return (
            f"Chiama {card_text(card, obs, lang)}" if it else f"Call {card_text(card, obs, lang)}"
        )
    if A.SIGNAL <= action < A.SIGNAL + len(A.SIGNAL_NAMES):
        sig = _signal_name(action - A.SIGNAL, obs, lang)
        if it:
            return f"Segnale al compagno: ho {sig} di briscola"
        return f"Signal to your partner: I hold the {sig} of briscola"
    return f"Azione {action}" if it else f"Action {action}"


def _signal_name(k: int, obs: Observation, lang: str) -> str:
    return (_SIGNAL_NAMES_FRENCH if _french(obs) else _SIGNAL_NAMES)[lang][k]


def bid_label(action: int, obs: Observation, lang: str = "it") -> str:
    """A bid as recorded in the auction history: ``Re``, ``Due a 64``, ``passo``, ``carichi``."""
    if A.CALL_RANK <= action < A.BID_POINTS:
        number = action - A.CALL_RANK
        if lang == "it":
            return (RANK_NAMES_FRENCH_IT if _french(obs) else RANK_NAMES_IT)[number]
        return (RANK_NAMES_FRENCH_EN if _french(obs) else RANK_NAMES_EN)[number]
    if action == A.PASS:
        return "passo" if lang == "it" else "pass"
    if action == A.CARICHI:
        return "carichi"
    if A.BID_POINTS <= action < A.PASS and obs.rules.auction == "points":
        p = action - A.BID_POINTS
        return f"{p} punti" if lang == "it" else f"{p} points"
    return action_label(action, obs, lang)


def legal_choices(obs: Observation, lang: str = "it") -> list[tuple[int, str]]:
    """This seat's legal actions in the order they are offered (numbered 1..k), with labels.
    Cards (to play or to call) are sorted by suit and strength; blind positions, bids and
    suits keep the engine's order."""
    legal = list(obs.legal)
    cards = _sorted_cards([a for a in legal if A.is_card(a)], obs)
    called = [a for a in legal if A.CALL_CARD <= a < A.SIGNAL]
    called = [A.CALL_CARD + c for c in _sorted_cards([a - A.CALL_CARD for a in called], obs)]
    others = [a for a in legal if not A.is_card(a) and not A.CALL_CARD <= a < A.SIGNAL]
    return [(a, action_label(a, obs, lang)) for a in cards + called + others]


def render_choices(obs: Observation, lang: str = "it", width: int = 100) -> str:
    """Numbered list of the legal choices; laid out in columns when there are many."""
    choices = legal_choices(obs, lang)
    items = [f"{i:>2}) {label}" for i, (_, label) in enumerate(choices, 1)]
    lines = [_tr(lang, "choose")]
    if len(items) <= 12:
        lines += [f"  {item}" for item in items]
        return "\n".join(lines)
    col = max(len(item) for item in items) + 3
    per_row = max(1, width // col)
    for i in range(0, len(items), per_row):
        lines.append("  " + "".join(item.ljust(col) for item in items[i : i + per_row]).rstrip())
    return "\n".join(lines)


def prompt_text(k: int, lang: str = "it") -> str:
    """The input prompt for a choice among 1..k."""
    return _tr(lang, "prompt", k=k)


# ---------------------------------------------------------------------- names


def default_names(n_players: int, seat: int, lang: str = "it") -> list[str]:
    """``Tu`` / ``You`` for `seat`, ``Giocatore k`` / ``Player k`` for the others."""
    return [
        _tr(lang, "you") if s == seat else _tr(lang, "player", n=s + 1) for s in range(n_players)
    ]


def _names(obs: Observation, names: Sequence[str] | None, lang: str) -> Sequence[str]:
    if names is None:
        return default_names(obs.rules.n_players, obs.seat, lang)
    if len(names) != obs.rules.n_players:
        raise ValueError(f"expected {obs.rules.n_players} names, got {len(names)}")
    return names


def _join(items: Sequence[str], lang: str) -> str:
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {_tr(lang, 'and')} {items[-1]}"


def _ev(lang: str, key: str, you: bool, **kw: object) -> str:
    return _tr(lang, f"{key}_you" if you else key, **kw)


def _plays_text(
    plays: Sequence[tuple[int, int]], obs: Observation, names: Sequence[str], lang: str
) -> str:
    return ", ".join(f"{names[s]}: {card_text(c, obs, lang)}" for s, c in plays)


# ---------------------------------------------------------------------- the table


def render_hand_header(
    obs: Observation, names: Sequence[str] | None = None, lang: str = "it"
) -> str:
    nm = _names(obs, names, lang)
    return _tr(
        lang,
        "hand_header",
        n=obs.hand_index + 1,
        variant=VARIANT_NAMES[lang][obs.rules.variant],
        dealer=nm[obs.dealer],
    )


def _seat_lines(obs: Observation, nm: Sequence[str], lang: str) -> list[str]:
    rules = obs.rules
    n = rules.n_players
    width = max(len(x) for x in nm)
    lines = [_tr(lang, "seats")]
    for s in range(n):
        tags: list[str] = []
        if rules.has_teams:
            tags.append(_tr(lang, "team", x="ABC"[rules.side_of[s]]))
        if s == obs.dealer:
            tags.append(_tr(lang, "dealer"))
        if rules.chiamata:
            if obs.caller < 0 and obs.phase == "auction" and obs.passed[s]:
                tags.append(_tr(lang, "passed_tag"))
            if s == obs.caller:
                tags.append(_tr(lang, "caller_tag"))
            if obs.partner >= 0 and s == obs.partner and obs.partner != obs.caller:
                if obs.partner_revealed or obs.phase == "over":
                    tags.append(_tr(lang, "partner_tag"))
                elif s == obs.seat:
                    tags.append(_tr(lang, "you_partner_tag"))
        size = obs.hand_sizes[s]
        cards = _tr(lang, "card_1") if size == 1 else _tr(lang, "cards_n", n=size)
        line = f"  {s + 1}. {nm[s].ljust(width)}  {cards}"
        if tags:
            line += f"  [{', '.join(tags)}]"
        if s == obs.current:
            line += "  " + _tr(lang, "to_act" if s == obs.seat else "to_act_other")
        lines.append(line)
    return lines


def _briscola_line(obs: Observation, nm: Sequence[str], lang: str) -> str:
    rules = obs.rules
    french = _french(obs)
    if rules.no_briscola:
        return _tr(lang, "no_briscola")
    if rules.chiamata:
        if obs.carichi:
            return _tr(lang, "no_briscola_carichi")
        if obs.briscola < 0:
            return _tr(lang, "briscola_tbd")
        return _tr(lang, "briscola", suit=suit_name(obs.briscola, lang, french=french))
    if obs.turned >= 0:
        line = _tr(
            lang,
            "briscola_turned",
            suit=suit_name(obs.briscola, lang, french=french),
            card=card_text(obs.turned, obs, lang),
        )
        if obs.turned_to >= 0:
            line += _tr(lang, "turned_drawn", who=nm[obs.turned_to])
        return line
    if obs.briscola >= 0:
        return _tr(lang, "briscola", suit=suit_name(obs.briscola, lang, french=french))
    return _tr(lang, "no_briscola")


def _talon_line(obs: Observation, lang: str) -> str | None:
    rules = obs.rules
    if rules.chiamata:
        return None
    if obs.talon_left == 0:
        return _tr(lang, "talon_empty")
    key = "talon" if obs.turned >= 0 and obs.turned_to < 0 else "talon_plain"
    return _tr(lang, key, n=obs.talon_left)


def render_hand(obs: Observation, lang: str = "it") -> str:
    """The 'your hand' line: only this seat's own cards (none in coperta, §6.2)."""
    if obs.rules.blind:
        n = obs.hand_sizes[obs.seat]
        return _tr(lang, "your_hand_blind", n=n) if n else _tr(lang, "your_hand_empty")
    if not obs.hand:
        return _tr(lang, "your_hand_empty")
    return _tr(lang, "your_hand", cards=_cards_text(obs.hand, obs, lang))


def _bid_text(seat: int, action: int, obs: Observation, nm: Sequence[str], lang: str) -> str:
    return f"{nm[seat]}: {bid_label(action, obs, lang)}"


def render_auction(obs: Observation, names: Sequence[str] | None = None, lang: str = "it") -> str:
    """Chiamata auction state: bids so far, who passed, the highest bid, the caller, the called
    card, the target and the partner as far as this seat may know it. Empty for other variants."""
    rules = obs.rules
    if not rules.chiamata:
        return ""
    nm = _names(obs, names, lang)
    lines: list[str] = []
    if obs.caller < 0:
        if obs.bids:
            bids = " · ".join(_bid_text(s, a, obs, nm, lang) for s, a in obs.bids)
            lines.append(_tr(lang, "auction", bids=bids))
        else:
            lines.append(_tr(lang, "auction_none"))
        top = next(((s, a) for s, a in reversed(obs.bids) if a != A.PASS), None)
        if top is None:
            lines.append(_tr(lang, "no_bid"))
        else:
            lines.append(_tr(lang, "current_bid", bid=bid_label(top[1], obs, lang), who=nm[top[0]]))
        passed = [nm[s] for s in range(rules.n_players) if obs.passed[s]]
        if passed:
            lines.append(_tr(lang, "passed", who=", ".join(passed)))
        return "\n".join(lines)
    if obs.carichi:
        lines.append(_tr(lang, "carichi_line", who=nm[obs.caller]))
        return "\n".join(lines)
    lines.append(_tr(lang, "caller", who=nm[obs.caller]))
    lines.append(_tr(lang, "target", n=obs.target))
    if obs.called_card >= 0:
        suit = suit_name(rules.deck.suit[obs.called_card], lang, french=_french(obs))
        lines.append(_tr(lang, "called", card=card_text(obs.called_card, obs, lang), suit=suit))
        lines.append(_partner_line(obs, nm, lang))
    return "\n".join(lines)


def _partner_line(obs: Observation, nm: Sequence[str], lang: str) -> str:
    known = obs.partner >= 0
    if not known:
        return _tr(lang, "partner_unknown")
    if obs.partner == obs.caller:
        if obs.seat == obs.caller and not (obs.partner_revealed or obs.phase == "over"):
            return _tr(lang, "alone_you")
        return _tr(lang, "alone", who=nm[obs.caller])
    if obs.partner == obs.seat and not (obs.partner_revealed or obs.phase == "over"):
        return _tr(lang, "partner_you")
    return _tr(lang, "partner", who=nm[obs.partner])


def render_table(obs: Observation, names: Sequence[str] | None = None, lang: str = "it") -> str:
    """The whole table as this seat sees it."""
    nm = _names(obs, names, lang)
    rules = obs.rules
    lines = _seat_lines(obs, nm, lang)
    lines.append(_briscola_line(obs, nm, lang))
    talon = _talon_line(obs, lang)
    if talon is not None:
        lines.append(talon)
    if obs.talon_next >= 0:
        lines.append(_tr(lang, "talon_next", card=card_text(obs.talon_next, obs, lang)))
    if rules.chiamata:
        lines.append(render_auction(obs, nm, lang))
    if obs.phase == "play":
        if obs.trick:
            lines.append(_tr(lang, "table", plays=_plays_text(obs.trick, obs, nm, lang)))
        else:
            lines.append(_tr(lang, "table_empty"))
            if obs.tricks:
                t = obs.tricks[-1]
                lines.append(
                    _tr(
                        lang,
                        "last_trick",
                        plays=_plays_text(t.plays, obs, nm, lang),
                        winner=nm[t.winner],
                    )
                )
    if obs.signals:
        items = [
            _tr(lang, "signal_item", who=nm[s], sig=_signal_name(k, obs, lang))
            for s, k in obs.signals
        ]
        lines.append(_tr(lang, "signals", items="; ".join(items)))
    for s in sorted(obs.visible_hands):
        cards = obs.visible_hands[s]
        shown = _cards_text(cards, obs, lang) if cards else "-"
        lines.append(_tr(lang, "visible_hand", who=nm[s], cards=shown))
    if obs.all_points is not None:
        pts = " · ".join(f"{nm[s]}: {p}" for s, p in enumerate(obs.all_points))
        lines.append(_tr(lang, "points_all", pts=pts))
    elif obs.my_points is not None:
        key = "points_side" if obs.teammates else "points_mine"
        lines.append(_tr(lang, key, n=obs.my_points))
    lines.append(render_hand(obs, lang))
    return "\n".join(lines)


# ---------------------------------------------------------------------- events


def _all_plays(obs: Observation) -> list[tuple[int, int]]:
    out = [p for t in obs.tricks for p in t.plays]
    out.extend(obs.trick)
    return out


def render_trick(
    trick: Trick,
    number: int,
    obs: Observation,
    names: Sequence[str] | None = None,
    lang: str = "it",
) -> str:
    """A completed trick and its winner. Its points only with ``show_points`` (§3.7)."""
    nm = _names(obs, names, lang)
    text = _ev(
        lang,
        "ev_trick",
        trick.winner == obs.seat,
        n=number,
        plays=_plays_text(trick.plays, obs, nm, lang),
        who=nm[trick.winner],
    )
    if obs.all_points is not None:
        text += _tr(lang, "ev_trick_pts", p=trick.points)
    return text


def describe_events(
    prev: Observation, obs: Observation, names: Sequence[str] | None = None, lang: str = "it"
) -> list[str]:
    """What this seat saw happen between two of its observations of the same hand: bids, the
    call, cards played, tricks taken, its own draws, the partner revealed, signals received."""
    if prev.seat != obs.seat or prev.hand_index != obs.hand_index:
        raise ValueError("both observations must be of the same seat and hand")
    nm = _names(obs, names, lang)
    me = obs.seat
    rules = obs.rules
    french = _french(obs)
    out: list[str] = []

    # Auction (§7.2-7.4, §7.8, §7.9).
    for seat, a in obs.bids[len(prev.bids) :]:
        you = seat == me
        if a == A.PASS:
            out.append(_ev(lang, "ev_pass", you, who=nm[seat]))
        elif a == A.CARICHI:
            out.append(_ev(lang, "ev_carichi", you, who=nm[seat]))
        else:
            out.append(_ev(lang, "ev_call", you, who=nm[seat], bid=action_label(a, obs, lang)))
    if rules.chiamata and obs.phase == "over" and obs.caller < 0 and prev.phase != "over":
        out.append(_tr(lang, "ev_all_pass"))
    if prev.caller < 0 <= obs.caller and not obs.carichi:
        out.append(_tr(lang, "ev_auction_end", who=nm[obs.caller], n=obs.target))
    if prev.called_card < 0 <= obs.called_card:
        called = card_text(obs.called_card, obs, lang)
        suit = suit_name(rules.deck.suit[obs.called_card], lang, french=french)
        out.append(
            _ev(lang, "ev_called", obs.caller == me, who=nm[obs.caller], card=called, suit=suit)
        )
        if obs.partner == me and not obs.partner_revealed:
            if me == obs.caller:
                out.append(_tr(lang, "ev_you_alone", card=called))
            else:
                out.append(_tr(lang, "ev_you_partner", card=called, who=nm[obs.caller]))

    # Signals sent or received (§5.3): the observation holds only this pair's.
    for seat, k in obs.signals[len(prev.signals) :]:
        out.append(_ev(lang, "ev_signal", seat == me, who=nm[seat], sig=_signal_name(k, obs, lang)))

    # Cards played, then completed tricks.
    before = _all_plays(prev)
    after = _all_plays(obs)
    for seat, card in after[len(before) :]:
        out.append(_ev(lang, "ev_play", seat == me, who=nm[seat], card=card_text(card, obs, lang)))
        if card == obs.called_card and obs.partner_revealed and not prev.partner_revealed:
            ctext = card_text(card, obs, lang)
            if obs.partner == obs.caller:
                out.append(_tr(lang, "ev_revealed_alone", card=ctext, who=nm[obs.caller]))
            elif obs.partner == me:
                out.append(_tr(lang, "ev_revealed_you", card=ctext, caller=nm[obs.caller]))
            else:
                out.append(
                    _tr(
                        lang,
                        "ev_revealed",
                        card=ctext,
                        caller=nm[obs.caller],
                        who=nm[obs.partner],
                    )
                )
    for i in range(len(prev.tricks), len(obs.tricks)):
        out.append(render_trick(obs.tricks[i], i + 1, obs, nm, lang))

    # Draws (§3.4): own cards only; the turned briscola is public.
    if len(obs.tricks) > len(prev.tricks) and not rules.chiamata:
        turned_drawn = prev.turned_to < 0 <= obs.turned_to
        if not rules.blind:
            for c in obs.hand:
                if c in prev.hand or c == obs.turned:
                    continue
                out.append(_tr(lang, "ev_draw_you", card=card_text(c, obs, lang)))
        if turned_drawn:
            out.append(
                _ev(
                    lang,
                    "ev_draw_turned",
                    obs.turned_to == me,
                    who=nm[obs.turned_to],
                    card=card_text(obs.turned, obs, lang),
                )
            )
        if prev.talon_left > 0:
            if obs.talon_left > 0:
                out.append(_tr(lang, "ev_talon", n=obs.talon_left))
            else:
                out.append(_tr(lang, "ev_talon_done"))
    for s in sorted(obs.visible_hands):
        if s not in prev.visible_hands and not rules.public_hands and obs.phase == "play":
            cards = _cards_text(obs.visible_hands[s], obs, lang)
            out.append(_tr(lang, "ev_partner_hand", who=nm[s], cards=cards))
    return out


# ---------------------------------------------------------------------- results


def _side_seats(side: int, side_of: Sequence[int]) -> list[int]:
    return [s for s, x in enumerate(side_of) if x == side]


def _side_name(side: int, side_of: Sequence[int], nm: Sequence[str], lang: str) -> str:
    """A player's name, or ``squadra A (Tu e Giocatore 3)`` for a team."""
    seats = _side_seats(side, side_of)
    if len(seats) == 1:
        return nm[seats[0]]
    members = _join([nm[s] for s in seats], lang)
    return f"{_tr(lang, 'team', x='ABC'[side])} ({members})"


def _signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)


def render_hand_result(
    obs: Observation, record: HandRecord, names: Sequence[str] | None = None, lang: str = "it"
) -> str:
    """Summary of a finished hand: `obs` is this seat's observation of the finished hand
    (everything is public then), `record` what `Match.record` returned for it."""
    nm = _names(obs, names, lang)
    rules = obs.rules
    me = obs.seat
    lines = [_tr(lang, "res_header", n=record.hand_index + 1)]
    if rules.chiamata:
        if record.redeal:
            lines.append(_tr(lang, "res_redeal"))
            return "\n".join(lines)
        caller = obs.caller
        if obs.carichi:
            lines.append(_tr(lang, "res_caller_carichi", who=nm[caller], target=obs.target))
        elif obs.partner == caller:
            lines.append(_tr(lang, "res_caller_alone", who=nm[caller], target=obs.target))
        else:
            lines.append(
                _tr(lang, "res_caller", who=nm[caller], partner=nm[obs.partner], target=obs.target)
            )
        a, b = record.side_points
        lines.append(_tr(lang, "res_caller_pts", a=a, b=b))
        won = record.winning_sides == (0,)
        text = _tr(lang, "res_caller_won" if won else "res_caller_lost")
        if _cappotto(record, obs):
            text += _tr(lang, "res_cappotto")
        lines.append(text)
        items = " · ".join(f"{nm[s]}: {_signed(d)}" for s, d in enumerate(record.deltas))
        lines.append(_tr(lang, "res_deltas", items=items))
        return "\n".join(lines)
    side_of = rules.side_of
    pts = " · ".join(
        f"{_side_name(side, side_of, nm, lang)}: {p}" for side, p in enumerate(record.side_points)
    )
    lines.append(_tr(lang, "res_points", pts=pts))
    if record.void:
        lines.append(_tr(lang, "res_void2" if rules.n_sides == 2 else "res_void3"))
        return "\n".join(lines)
    win = record.winning_sides[0]
    who = _side_name(win, side_of, nm, lang)
    if side_of[me] == win:
        lines.append(_tr(lang, "res_win_you", who=who))
    else:
        lines.append(_tr(lang, "res_lose_you", who=who))
    return "\n".join(lines)


def _cappotto(record: HandRecord, obs: Observation) -> bool:
    """Whether the chiamata hand ended in cappotto: a defender's score is doubled (§7.12)."""
    side = (obs.caller, obs.partner)
    return any(abs(d) == 2 for s, d in enumerate(record.deltas) if s not in side)


def render_match_status(match: Match, names: Sequence[str], lang: str = "it") -> str:
    """Running score of the match after a hand."""
    rules = match.rules
    side_of = rules.side_of
    if rules.chiamata:
        items = " · ".join(f"{names[s]}: {_signed(v)}" for s, v in enumerate(match.scores))
        if rules.target > 0:
            return _tr(lang, "st_scores", items=items, n=rules.target)
        return _tr(lang, "st_scores_open", items=items)
    fmt = rules.match
    if fmt.startswith("points"):
        items = " · ".join(
            f"{_side_name(i, side_of, names, lang)}: {p}" for i, p in enumerate(match.side_points)
        )
        return _tr(lang, "st_points", items=items, n=int(fmt.removeprefix("points")))
    items = " · ".join(
        f"{_side_name(i, side_of, names, lang)}: {w}" for i, w in enumerate(match.hands_won)
    )
    if fmt == "fixed5":
        return _tr(lang, "st_fixed", items=items, k=match.counted_hands())
    need = {"single": 1, "best3": 2, "best5": 3}[fmt]
    return _tr(lang, "st_hands", items=items, n=need)


def render_match_result(match: Match, names: Sequence[str], seat: int, lang: str = "it") -> str:
    """The winner of a finished match and the ledger deltas (§10.1-10.2), seen by `seat`."""
    rules = match.rules
    if rules.chiamata:
        winners = [match.winner]
        who = names[match.winner]
    else:  # §4.3 fixed5: with three or more sides, tied sides are all winners
        winners = [s for side in match.winners for s in _side_seats(side, rules.side_of)]
        who = _join([_side_name(side, rules.side_of, names, lang) for side in match.winners], lang)
    if seat in winners:
        head = _tr(lang, "match_over_you", who=who)
    elif winners:
        head = _tr(lang, "match_over_lost", who=who)
    else:
        head = _tr(lang, "match_over", who=who)
    deltas = match.ledger_deltas()
    items = " · ".join(f"{names[s]}: {_signed(d)}" for s, d in enumerate(deltas))
    return "\n".join(
        [render_match_status(match, names, lang), head, _tr(lang, "ledger", items=items)]
    )
