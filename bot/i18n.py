"""User-facing texts of the Telegram bot, Italian (default) and English.

Texts are HTML (Telegram parse mode). Values put into them with `t()` are escaped unless the
key's placeholder is named with a `_html` suffix (already-built HTML).
"""

from __future__ import annotations

import html
from typing import Any

LANGS = ("it", "en")

VARIANT_NAMES = {
    "it": {
        "due": "Briscola a due",
        "tre": "Briscola a tre",
        "quattro": "Briscola a quattro (coppie)",
        "sei": "Briscola a sei",
        "chiamata": "Briscola chiamata (5)",
        "chiamata4": "Briscola chiamata a quattro",
        "briscolone": "Briscolone",
        "scoperta": "Briscola scoperta",
        "coperta": "Briscola coperta",
        "briskula32": "Briškula (32 carte)",
        "doppia": "Briškula doppia",
    },
    "en": {
        "due": "Two-player Briscola",
        "tre": "Three-player Briscola",
        "quattro": "Four-player Briscola (pairs)",
        "sei": "Six-player Briscola",
        "chiamata": "Briscola chiamata (5)",
        "chiamata4": "Four-player Briscola chiamata",
        "briscolone": "Briscolone",
        "scoperta": "Open-hand Briscola",
        "coperta": "Blind Briscola",
        "briskula32": "Briškula (32 cards)",
        "doppia": "Double Briškula",
    },
}

LEVEL_NAMES = {
    "it": {"easy": "facile", "normal": "normale", "hard": "difficile"},
    "en": {"easy": "easy", "normal": "normal", "hard": "hard"},
}

_T: dict[str, dict[str, str]] = {
    "it": {
        # errors and short callback answers
        "err_started": "La partita è già iniziata.",
        "err_already_seated": "Sei già seduto al tavolo.",
        "err_full": "Il tavolo è pieno ({n} posti).",
        "err_not_seated": "Non sei seduto a questo tavolo.",
        "err_already_left": "Al tuo posto gioca già il computer.",
        "err_bad_level": "Livello sconosciuto. Livelli: {levels}.",
        "err_too_many_seated": "Con queste regole i posti sono {n}: troppi giocatori seduti.",
        "err_option": "Opzione non valida: {reason}",
        "err_not_enough": "Servono {n} giocatori (seduti: {have}). Aggiungi computer con /addbot.",
        "err_hand_over": "Quella mano è finita.",
        "err_not_your_table": "Non giochi a questo tavolo.",
        "err_not_your_turn": "Non è il tuo turno.",
        "err_stale": "Pulsante scaduto: usa quelli aggiornati.",
        "err_illegal": "Mossa non valida: {reason}",
        "err_must_follow": "Devi rispondere al seme di uscita.",
        "err_no_next": "Non c'è una mano da iniziare.",
        "err_no_table": "Non c'è un tavolo aperto in questo gruppo. Aprilo con /new.",
        "err_table_exists": "C'è già un tavolo aperto in questo gruppo.",
        "err_group_only": "Questo comando si usa in un gruppo.",
        "err_bad_variant": "Variante sconosciuta: {given}. Varianti: {variants}.",
        "err_not_allowed": "Solo chi ha aperto il tavolo o un amministratore può farlo.",
        "err_bad_data": "Pulsante non valido.",
        "err_bad_lang": "Lingue: it, en. Esempio: /lang en",
        "err_busy": "Un momento, riprova.",
        "err_failed": "Qualcosa è andato storto: riprova tra poco.",
        "err_no_ledger": "Nessuna partita registrata finora in questo gruppo.",
        "err_bad_args": "Argomenti non validi. {usage}",
        "ok_played": "Fatto.",
        "ok_joined": "Sei seduto al tavolo.",
        "ok_left": "Hai lasciato il tavolo.",
        "ok_left_playing": "Hai lasciato il tavolo: al tuo posto gioca il computer.",
        "ok_lang": "Lingua impostata: italiano.",
        "ok_option": "Impostato.",
        # lobby
        "lobby_title": "🃏 <b>{variant}</b> — tavolo aperto",
        "lobby_seats": "Posti ({have}/{n}):",
        "lobby_empty_seat": "— libero —",
        "lobby_options": "Regole: {options}",
        "lobby_hint": "Entra con /join o col pulsante. Chi ha aperto il tavolo avvia con /go.",
        "btn_join": "Entra",
        "btn_leave": "Esci",
        "btn_addbot": "+ 🤖 {level}",
        "btn_settings": "Impostazioni",
        "btn_go": "Inizia",
        "btn_fill_go": "Riempi con computer e inizia",
        "btn_cancel": "Annulla tavolo",
        "btn_next": "Prossima mano",
        "btn_open_chat": "Apri la chat con me",
        "btn_back": "« Indietro",
        "choose_variant": "Che cosa giochiamo? Scegli la variante:",
        "cancelled": "Tavolo annullato.",
        "settings_title": "⚙️ Impostazioni ({variant}). Tocca un'opzione per cambiarla.",
        "timer_label": "timer",
        "timer_off": "nessun timer",
        # game
        "hand_title": "🃏 <b>{variant}</b> — mano {n}",
        "seat_turn": "👉",
        "dealer_tag": "(mazziere)",
        "briscola_line": "Briscola: <b>{suit}</b>{card_html}",
        "no_briscola": "Nessuna briscola",
        "briscola_pending": "Briscola: la sceglie il chiamante",
        "talon_line": "Mazzo: {n}",
        "table_line": "In tavola: {plays_html}",
        "last_trick": "Ultima presa: {plays_html} → <b>{winner}</b>",
        "last_trick_points": "Ultima presa: {plays_html} → <b>{winner}</b> ({points} punti)",
        "auction_line": "Asta: {bids_html}",
        "caller_line": "Chiamante: <b>{who}</b> chiama {card_html}{target_html}",
        "carichi_line": "<b>{who}</b> chiama carichi: gioca da solo, senza briscola",
        "partner_revealed": "🤝 Il socio è <b>{who}</b>!",
        "alone_revealed": "🤝 <b>{who}</b> si era chiamato in mano: gioca da solo!",
        "target": " (obiettivo {n} punti)",
        "turn_line": "Tocca a <b>{who}</b>.",
        "points_line": "Punti: {points_html}",
        "score_line": "Partita: {score_html}",
        "hand_result": "Mano finita. {summary_html}",
        "hand_void": "Mano nulla ({points_html}): si ripete con lo stesso mazziere.",
        "hand_redeal": "Tutti hanno passato: nuova distribuzione col mazziere successivo.",
        "side_won": "Vince <b>{who}</b> con {points} punti.",
        "caller_won": "Il chiamante <b>{who}</b> vince: {points} punti su {target}.",
        "caller_lost": "Il chiamante <b>{who}</b> perde: {points} punti su {target}.",
        "cappotto": "Cappotto! Punteggi raddoppiati.",
        "deltas_line": "Classifica: {deltas_html}",
        "match_over": "🏆 Partita finita: vince <b>{who}</b>.",
        "private_title": "🃏 {variant} — mano {n} — {group}",
        "your_hand": "Le tue carte:",
        "your_cards": "Le tue carte: {cards_html}",
        "your_turn": "👉 Tocca a te.",
        "your_bid": "👉 Tocca a te: chiama un valore più basso, oppure passa.",
        "your_overbid": "👉 Tocca a te: rilancia sui punti (Due a …) oppure passa.",
        "your_points_bid": "👉 Tocca a te: offri più punti oppure passa.",
        "your_suit": "👉 Hai vinto l'asta col {rank}: scegli il seme.",
        "your_card_call": "👉 Hai vinto l'asta a {n}: scegli la carta da chiamare.",
        "you_are_partner": "🤫 Sei il socio: hai tu la carta chiamata. Non dirlo a nessuno.",
        "you_are_alone": "Ti sei chiamato in mano: giochi da solo.",
        "visible_hand": "Carte di {who}: {cards_html}",
        "signal_line": "📶 Segnale di {who}: {rank} di briscola",
        "talon_next": "Prossima carta del mazzo: {card_html}",
        "blind_hand": "Hai {n} carte coperte: scegline una a caso.",
        "bid_pass": "Passo",
        "bid_carichi": "Carichi",
        "dm_blocked": "{who}, non posso scriverti in privato: apri la chat con me e premi Avvia.",
        "dm_sent": "Le tue carte sono nella chat privata con me.",
        "need_dm": (
            "{who}, sei seduto al tavolo: apri la chat privata con me, ti mando lì le tue carte."
        ),
        "start_private": (
            "Ciao! Sono il bot della Briscola. Aggiungimi a un gruppo e scrivi /new per aprire un"
            " tavolo. Le tue carte arriveranno qui."
        ),
        "start_seated": "Sei al tavolo nel gruppo. Le tue carte arrivano qui.",
        "score_title": "📒 Classifica del gruppo",
        "score_row": "{name}: {balance}",
        "settle_title": "🍺 Chi offre da bere:",
        "settle_row": "{debtor} → {creditor}: {amount}",
        "settle_none": "Tutti pari.",
        "help": (
            "<b>Briscola</b>\n"
            "/new [variante] — apre un tavolo\n/join — entra\n/leave — esce\n"
            "/addbot [facile|normale|difficile] — aggiunge un computer (normale)\n"
            "/go — inizia\n/cancel — annulla\n"
            "/settings — regole e formato\n/score — classifica e birre\n"
            "/rules — le regole\n/lang it|en — lingua\n\nVarianti: {variants}"
        ),
        "rules": (
            "<b>Regole in breve</b>\n"
            "Asso 11, Tre 10, Re 4, Cavallo 3, Fante 2: 120 punti in tutto; vince chi ne fa"
            " almeno 61. Non c'è obbligo di rispondere al seme (tranne nel Briscolone): prende"
            " la briscola più alta, altrimenti la carta più alta del seme di uscita.\n"
            "Chiamata: asta al ribasso sul valore, poi Due a 62…120; il chiamante sceglie il"
            " seme, chi ha la carta chiamata è il socio segreto.\nIl testo completo è nelle"
            " regole del progetto (RULES.md)."
        ),
    },
    "en": {
        "err_started": "The game has already started.",
        "err_already_seated": "You are already seated.",
        "err_full": "The table is full ({n} seats).",
        "err_not_seated": "You are not seated at this table.",
        "err_already_left": "The computer already plays your seat.",
        "err_bad_level": "Unknown level. Levels: {levels}.",
        "err_too_many_seated": "These rules seat {n}: too many players are seated.",
        "err_option": "Invalid option: {reason}",
        "err_not_enough": "{n} players needed ({have} seated). Add computers with /addbot.",
        "err_hand_over": "That hand is over.",
        "err_not_your_table": "You are not playing at this table.",
        "err_not_your_turn": "Not your turn.",
        "err_stale": "That button is out of date: use the current ones.",
        "err_illegal": "Not a legal move: {reason}",
        "err_must_follow": "You must follow the suit led.",
        "err_no_next": "There is no hand to start.",
        "err_no_table": "No open table in this group. Open one with /new.",
        "err_table_exists": "There is already an open table in this group.",
        "err_group_only": "Use this command in a group.",
        "err_bad_variant": "Unknown variant: {given}. Variants: {variants}.",
        "err_not_allowed": "Only the table's creator or a group admin can do that.",
        "err_bad_data": "Invalid button.",
        "err_bad_lang": "Languages: it, en. Example: /lang it",
        "err_busy": "One moment, try again.",
        "err_failed": "Something went wrong: try again in a moment.",
        "err_no_ledger": "No games recorded in this group yet.",
        "err_bad_args": "Invalid arguments. {usage}",
        "ok_played": "Done.",
        "ok_joined": "You are seated.",
        "ok_left": "You left the table.",
        "ok_left_playing": "You left the table: the computer plays your seat.",
        "ok_lang": "Language set: English.",
        "ok_option": "Set.",
        "lobby_title": "🃏 <b>{variant}</b> — table open",
        "lobby_seats": "Seats ({have}/{n}):",
        "lobby_empty_seat": "— free —",
        "lobby_options": "Rules: {options}",
        "lobby_hint": "Join with /join or the button. The table's creator starts with /go.",
        "btn_join": "Join",
        "btn_leave": "Leave",
        "btn_addbot": "+ 🤖 {level}",
        "btn_settings": "Settings",
        "btn_go": "Start",
        "btn_fill_go": "Fill with computers and start",
        "btn_cancel": "Cancel table",
        "btn_next": "Next hand",
        "btn_open_chat": "Open a chat with me",
        "btn_back": "« Back",
        "choose_variant": "What shall we play? Pick a variant:",
        "cancelled": "Table cancelled.",
        "settings_title": "⚙️ Settings ({variant}). Tap an option to change it.",
        "timer_label": "timer",
        "timer_off": "no timer",
        "hand_title": "🃏 <b>{variant}</b> — hand {n}",
        "seat_turn": "👉",
        "dealer_tag": "(dealer)",
        "briscola_line": "Briscola: <b>{suit}</b>{card_html}",
        "no_briscola": "No briscola",
        "briscola_pending": "Briscola: the caller names it",
        "talon_line": "Talon: {n}",
        "table_line": "On the table: {plays_html}",
        "last_trick": "Last trick: {plays_html} → <b>{winner}</b>",
        "last_trick_points": "Last trick: {plays_html} → <b>{winner}</b> ({points} points)",
        "auction_line": "Auction: {bids_html}",
        "caller_line": "Caller: <b>{who}</b> calls {card_html}{target_html}",
        "carichi_line": "<b>{who}</b> calls carichi: plays alone, no briscola",
        "partner_revealed": "🤝 The partner is <b>{who}</b>!",
        "alone_revealed": "🤝 <b>{who}</b> called their own card: playing alone!",
        "target": " (target {n} points)",
        "turn_line": "<b>{who}</b> to play.",
        "points_line": "Points: {points_html}",
        "score_line": "Match: {score_html}",
        "hand_result": "Hand over. {summary_html}",
        "hand_void": "Void hand ({points_html}): replayed with the same dealer.",
        "hand_redeal": "Everybody passed: a new deal by the next dealer.",
        "side_won": "<b>{who}</b> win with {points} points.",
        "caller_won": "The caller <b>{who}</b> wins: {points} points of {target}.",
        "caller_lost": "The caller <b>{who}</b> loses: {points} points of {target}.",
        "cappotto": "Cappotto! Scores doubled.",
        "deltas_line": "Standings: {deltas_html}",
        "match_over": "🏆 Match over: <b>{who}</b> win.",
        "private_title": "🃏 {variant} — hand {n} — {group}",
        "your_hand": "Your cards:",
        "your_cards": "Your cards: {cards_html}",
        "your_turn": "👉 Your turn.",
        "your_bid": "👉 Your turn: call a lower rank, or pass.",
        "your_overbid": "👉 Your turn: raise the points (Two at …) or pass.",
        "your_points_bid": "👉 Your turn: bid more points or pass.",
        "your_suit": "👉 You won the auction with the {rank}: pick the suit.",
        "your_card_call": "👉 You won the auction at {n}: pick the card to call.",
        "you_are_partner": "🤫 You are the partner: you hold the called card. Keep it secret.",
        "you_are_alone": "You called your own card: you play alone.",
        "visible_hand": "{who}'s cards: {cards_html}",
        "signal_line": "📶 {who}'s signal: the {rank} of briscola",
        "talon_next": "Next card of the talon: {card_html}",
        "blind_hand": "You hold {n} face-down cards: pick one blind.",
        "bid_pass": "Pass",
        "bid_carichi": "Carichi",
        "dm_blocked": (
            "{who}, I cannot write to you privately: open a chat with me and press Start."
        ),
        "dm_sent": "Your cards are in your private chat with me.",
        "need_dm": "{who}, you are seated: open a private chat with me, your cards arrive there.",
        "start_private": (
            "Hi! I am the Briscola bot. Add me to a group and send /new to open a table. Your"
            " cards will arrive here."
        ),
        "start_seated": "You are seated at the group's table. Your cards arrive here.",
        "score_title": "📒 Group standings",
        "score_row": "{name}: {balance}",
        "settle_title": "🍺 Who buys the beer:",
        "settle_row": "{debtor} → {creditor}: {amount}",
        "settle_none": "Everybody is even.",
        "help": (
            "<b>Briscola</b>\n"
            "/new [variant] — open a table\n/join — join\n/leave — leave\n"
            "/addbot [easy|normal|hard] — add a computer player (normal)\n"
            "/go — start\n/cancel — cancel\n"
            "/settings — rules and format\n/score — standings and beer\n"
            "/rules — the rules\n/lang it|en — language\n\nVariants: {variants}"
        ),
        "rules": (
            "<b>Rules in short</b>\n"
            "Ace 11, Three 10, King 4, Knight 3, Jack 2: 120 points in all; 61 wins. Nobody"
            " must follow suit (except in Briscolone): the highest briscola takes the trick,"
            " else the highest card of the suit led.\n"
            "Chiamata: a descending auction on rank, then Two at 62…120; the caller names the"
            " suit and whoever holds the called card is the secret partner.\nThe full text is"
            " the project's rules (RULES.md)."
        ),
    },
}

COMMANDS = {
    "it": [
        ("new", "Apri un tavolo (variante facoltativa)"),
        ("join", "Siediti al tavolo"),
        ("leave", "Lascia il tavolo"),
        ("addbot", "Aggiungi un giocatore computer"),
        ("go", "Inizia la partita"),
        ("cancel", "Annulla il tavolo"),
        ("settings", "Regole e formato della partita"),
        ("score", "Classifica e chi offre da bere"),
        ("rules", "Le regole"),
        ("help", "Aiuto"),
        ("lang", "Lingua: it o en"),
    ],
    "en": [
        ("new", "Open a table (optional variant)"),
        ("join", "Take a seat"),
        ("leave", "Leave the table"),
        ("addbot", "Add a computer player"),
        ("go", "Start the match"),
        ("cancel", "Cancel the table"),
        ("settings", "Rules and match format"),
        ("score", "Standings and who buys the beer"),
        ("rules", "The rules"),
        ("help", "Help"),
        ("lang", "Language: it or en"),
    ],
}


def t(lang: str, key: str, **kw: Any) -> str:
    """The text `key` in `lang`, placeholders filled; values escaped unless named `*_html`."""
    table = _T.get(lang, _T["it"])
    text = table.get(key) or _T["it"][key]
    safe = {
        k: (v if k.endswith("_html") else html.escape(str(v), quote=False)) for k, v in kw.items()
    }
    return text.format(**safe) if safe or "{" in text else text


def level_name(lang: str, level: str) -> str:
    """A computer player's level as people call it (`simple` and `random` keep their names)."""
    return LEVEL_NAMES.get(lang, LEVEL_NAMES["it"]).get(level, level)


def parse_level(text: str) -> str | None:
    """The level named by `text` in either language (`difficile`, `Hard`, ...), else None."""
    key = text.strip().lower()
    for names in LEVEL_NAMES.values():
        for level, name in names.items():
            if key in (level, name):
                return level
    return None


def variant_name(lang: str, variant: str) -> str:
    return VARIANT_NAMES.get(lang, VARIANT_NAMES["it"]).get(variant, variant)
