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

# Words for a setting that override its `opt_<key>` / `val_<key>_<value>` texts ("" the name),
# per language. Empty: the settings of RULES.md §7.2, §7.3, §7.8 and §10.5 ("counts") are named
# by `opt_` / `val_` keys like every other (the update block before COMMANDS).
SETTING_WORDS: dict[str, dict[str, dict[str, str]]] = {"it": {}, "en": {}}

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
        "ok_left_playing": "Hai lasciato il tavolo: al tuo posto gioca il computer. Per"
        " tornare: /join.",
        "ok_lang": "Lingua impostata: italiano.",
        "ok_option": "Impostato.",
        # lobby
        "lobby_title": "🃏 <b>{variant}</b> — tavolo aperto",
        "lobby_seats": "Posti ({have}/{n}):",
        "lobby_empty_seat": "— libero —",
        "lobby_options": "📋 {options_html}",
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
        "settings_title": "⚙️ <b>Impostazioni</b> — {variant}",
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
        "turn_line": "Tocca {ad} <b>{who}</b>.",
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
        # §7.2 first_must_call: the first to speak may not pass
        "your_bid_no_pass": "👉 Tocca a te: apri l'asta chiamando un valore (non si passa).",
        "your_overbid_no_pass": "👉 Tocca a te: rilancia sui punti (Due a …).",
        "your_points_bid_no_pass": "👉 Tocca a te: apri l'asta con un'offerta (non si passa).",
        "your_suit": "👉 Hai vinto l'asta col {rank}: scegli il seme.",
        "your_card_call": "👉 Hai vinto l'asta a {n}: scegli la carta da chiamare.",
        "you_are_partner": "🤫 Sei il socio: hai tu la carta chiamata. Non dirlo a nessuno.",
        "you_are_alone": "Ti sei chiamato in mano: giochi da solo.",
        "visible_hand": "Carte di {who}: {cards_html}",
        "signal_line": "📶 Segnale di {who}: {rank} di briscola",
        "talon_next": "Prossima carta del mazzo: {card_html}",
        # the hand message in the private chat (helper "turn", issue 11 §2)
        "pm_title": "🃏 <b>{variant}</b> · mano {n} · #{tid}",
        "pm_your_turn": "👉 <b>Tocca a te</b>: gioca una carta.",
        "pm_your_lead": "👉 <b>Tocca a te</b>: sei di mano, apri la presa.",
        "pm_turn_of": "⏳ Tocca {ad} <b>{who}</b>.",
        "pm_bids": "Asta: {bids_html}",
        "pm_caller": "📣 <b>{who}</b> chiama {card_html} · obiettivo {n}{partner_html}",
        "pm_caller_pending": "📣 <b>{who}</b> ha vinto l'asta · obiettivo {n}",
        "pm_partner_known": " · 🤝 <b>{who}</b>",
        "pm_alone_known": " · da solo",
        "pm_talon": "Mazzo: {n}",
        "pm_my_points": "I tuoi punti: {n}",
        "pm_side_points": "Punti della tua squadra: {n}",
        "pm_won": "🏁 Mano finita: <b>hai vinto</b>!",
        "pm_lost": "🏁 Mano finita: hai perso.",
        "pm_void": "🏁 Mano nulla: si ripete con lo stesso mazziere.",
        "pm_redeal": "🏁 Tutti hanno passato: si distribuisce di nuovo.",
        "pm_hand_score": "📒 Il tuo punteggio della mano: <b>{delta}</b>",
        "pm_ledger": "📒 Registro del gruppo: <b>{delta}</b>",
        "pm_ledger_off": "📒 Registro del gruppo: questa partita non conta (ci sono computer).",
        "pm_match_won": "🏆 Partita finita: <b>hai vinto</b>!",
        "pm_match_lost": "🏆 Partita finita: vince <b>{who}</b>.",
        "pm_replaced": "⬇️ Le tue carte sono nel messaggio più recente.",
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
            "/go — inizia\n/cancel — annulla\n/table — riporta giù il tavolo\n"
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
        "ok_left_playing": "You left the table: the computer plays your seat. To come back: /join.",
        "ok_lang": "Language set: English.",
        "ok_option": "Set.",
        "lobby_title": "🃏 <b>{variant}</b> — table open",
        "lobby_seats": "Seats ({have}/{n}):",
        "lobby_empty_seat": "— free —",
        "lobby_options": "📋 {options_html}",
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
        "settings_title": "⚙️ <b>Settings</b> — {variant}",
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
        "side_won": "<b>{who}</b> wins with {points} points.",
        "caller_won": "The caller <b>{who}</b> wins: {points} points of {target}.",
        "caller_lost": "The caller <b>{who}</b> loses: {points} points of {target}.",
        "cappotto": "Cappotto! Scores doubled.",
        "deltas_line": "Standings: {deltas_html}",
        "match_over": "🏆 Match over: <b>{who}</b> wins.",
        "private_title": "🃏 {variant} — hand {n} — {group}",
        "your_hand": "Your cards:",
        "your_cards": "Your cards: {cards_html}",
        "your_turn": "👉 Your turn.",
        "your_bid": "👉 Your turn: call a lower rank, or pass.",
        "your_overbid": "👉 Your turn: raise the points (Two at …) or pass.",
        "your_points_bid": "👉 Your turn: bid more points or pass.",
        # §7.2 first_must_call: the first to speak may not pass
        "your_bid_no_pass": "👉 Your turn: open the auction by calling a rank (no passing).",
        "your_overbid_no_pass": "👉 Your turn: raise the points (Two at …).",
        "your_points_bid_no_pass": "👉 Your turn: open the auction with a bid (no passing).",
        "your_suit": "👉 You won the auction with the {rank}: pick the suit.",
        "your_card_call": "👉 You won the auction at {n}: pick the card to call.",
        "you_are_partner": "🤫 You are the partner: you hold the called card. Keep it secret.",
        "you_are_alone": "You called your own card: you play alone.",
        "visible_hand": "{who}'s cards: {cards_html}",
        "signal_line": "📶 {who}'s signal: the {rank} of briscola",
        "talon_next": "Next card of the talon: {card_html}",
        # the hand message in the private chat (helper "turn", issue 11 §2)
        "pm_title": "🃏 <b>{variant}</b> · hand {n} · #{tid}",
        "pm_your_turn": "👉 <b>Your turn</b>: play a card.",
        "pm_your_lead": "👉 <b>Your turn</b>: you lead the trick.",
        "pm_turn_of": "⏳ <b>{who}</b> to play.",
        "pm_bids": "Auction: {bids_html}",
        "pm_caller": "📣 <b>{who}</b> calls {card_html} · target {n}{partner_html}",
        "pm_caller_pending": "📣 <b>{who}</b> won the auction · target {n}",
        "pm_partner_known": " · 🤝 <b>{who}</b>",
        "pm_alone_known": " · alone",
        "pm_talon": "Talon: {n}",
        "pm_my_points": "Your card points: {n}",
        "pm_side_points": "Your team's card points: {n}",
        "pm_won": "🏁 Hand over: <b>you win</b>!",
        "pm_lost": "🏁 Hand over: you lose.",
        "pm_void": "🏁 Void hand: replayed with the same dealer.",
        "pm_redeal": "🏁 Everybody passed: a new deal.",
        "pm_hand_score": "📒 Your score for the hand: <b>{delta}</b>",
        "pm_ledger": "📒 Group ledger: <b>{delta}</b>",
        "pm_ledger_off": "📒 Group ledger: this game does not count (computer players).",
        "pm_match_won": "🏆 Match over: <b>you win</b>!",
        "pm_match_lost": "🏆 Match over: <b>{who}</b> wins.",
        "pm_replaced": "⬇️ Your cards are in the newest message.",
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
            "/go — start\n/cancel — cancel\n/table — bring the table down here\n"
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

# ---------------------------------------------------------------------------------------------
# Issue 11 §4-§7 (helper "group"): settings in words, /table, greeting, unknown commands,
# rematch, per-user language, computer players' names, the bid keyboard's second screen.
# Every key of `bot.telegram.render.SETTING_CHOICES` needs `opt_<key>` (its name), `opt_<key>_help`
# (one line) and a name for each value: `val_<key>_<value>`, or the generic `val_<value>`
# (true, false); tests/test_group_render.py checks both languages.
_T["it"].update(
    {
        "settings_hint": "Tocca un'opzione per vederne i valori e sceglierne uno.",
        "setting_button": "{name}: {value}",
        "option_title": "⚙️ <b>{name}</b>",
        "option_now": "Ora: <b>{value}</b>",
        "option_pick": "Scegli un valore:",
        "btn_settings_back": "« Impostazioni",
        "err_unknown_option": "Opzione sconosciuta: {given}. Opzioni: {keys}.",
        "err_option_value": "{name}: «{value}» non va bene. Valori ammessi: {values}.",
        "err_option_fixed": "{name}: con queste regole non si può cambiare.",
        "err_option_combo": "{name}: {value_name} non si può avere con queste regole. Valori"
        " ammessi ora: {values}.",
        "err_settings_usage": "Scrivi /settings da solo per i pulsanti, oppure per esempio"
        " /settings match=best3 overbid=false. Non ho cambiato niente.",
        "err_pin_not_admin": "Per fissare il tavolo devo essere amministratore del gruppo, col"
        " permesso di fissare i messaggi.",
        "timer_seconds": "{n} secondi",
        "timer_minutes": "{n} minuti",
        "timer_minute": "1 minuto",
        "val_true": "sì",
        "val_false": "no",
        "opt_match": "Formato",
        "opt_match_help": "Quante mani si giocano e come si vince la partita.",
        "val_match_single": "una mano sola",
        "val_match_best3": "al meglio delle 3 mani",
        "val_match_best5": "al meglio delle 5 mani",
        "val_match_points120": "a 120 punti (somma delle mani)",
        "val_match_points121": "a 121 punti (somma delle mani)",
        "val_match_points151": "a 151 punti (somma delle mani)",
        "val_match_fixed5": "5 mani, tutte giocate",
        "opt_deck": "Carte",
        "opt_deck_help": "Carte italiane o francesi: cambia solo come si chiamano.",
        "val_deck_italian": "italiane",
        "val_deck_french": "francesi",
        "opt_southern": "Ordine del sud",
        "opt_southern_help": "Carte francesi: il Fante sta sopra la Donna e vale 3 punti.",
        "opt_retrump": "Asso o Tre girato",
        "opt_retrump_help": "Se la carta girata è un Asso o un Tre torna nel mazzo e se ne"
        " gira un'altra.",
        "val_retrump_false": "resta la briscola",
        "val_retrump_true": "se ne gira un'altra",
        "opt_show_points": "Punti durante la mano",
        "opt_show_points_help": "Mostra i punti presi mentre si gioca (di solito si contano a"
        " fine mano).",
        "val_show_points_false": "nascosti",
        "val_show_points_true": "visibili",
        "opt_signals": "Segnali al compagno",
        "opt_signals_help": "Si può segnalare al compagno una briscola che si ha (senza:"
        " Briscola muta).",
        "val_signals_false": "no (muta)",
        "val_signals_true": "sì",
        "opt_teams": "Squadre",
        "opt_teams_help": "Come si formano le squadre.",
        "val_teams_none": "ognuno per sé",
        "val_teams_pairs": "a coppie",
        "val_teams_threes": "due squadre da tre",
        "opt_players": "Giocatori",
        "opt_players_help": "Quanti giocatori siedono al tavolo.",
        "val_players_2": "2 giocatori",
        "val_players_3": "3 giocatori",
        "val_players_4": "4 giocatori",
        "opt_overbid": "Rilancio sul Due",
        "opt_overbid_help": "Chiamato il Due, si può rilanciare sui punti (Due a 62…120).",
        "val_overbid_true": "sì",
        "val_overbid_false": "no: il Due chiude l'asta",
        "opt_carichi": "Chiamata dei carichi",
        "opt_carichi_help": "Si può chiamare «carichi»: chi lo fa gioca da solo, senza briscola.",
        "opt_auction": "Asta",
        "opt_auction_help": "Si chiama il valore della carta, oppure si offrono punti (Briscola"
        " bastarda).",
        "val_auction_rank": "sul valore della carta",
        "val_auction_points": "sui punti",
        "opt_lead": "Chi apre la prima presa",
        "opt_lead_help": "Chi gioca la prima carta dopo l'asta.",
        "val_lead_dealer_right": "chi sta a destra del mazziere",
        "val_lead_caller": "il chiamante",
        "opt_cappotto": "Cappotto",
        "opt_cappotto_help": "Quando il punteggio della mano raddoppia.",
        "val_cappotto_zero_points": "chi perde fa 0 punti",
        "val_cappotto_all_tricks": "chi vince fa tutte le prese",
        "opt_target": "Obiettivo",
        "opt_target_help": "Il punteggio che chiude la partita; senza obiettivo il campionato"
        " continua.",
        "val_target_11": "11 punti",
        "val_target_21": "21 punti",
        "val_target_0": "nessuno (campionato aperto)",
        "opt_timer": "Tempo per mossa",
        "opt_timer_help": "Passato questo tempo, il computer gioca al posto di chi non ha mosso.",
        "opt_pin": "Fissa il tavolo",
        "opt_pin_help": "Il bot fissa in alto il messaggio del tavolo (deve essere"
        " amministratore).",
        # /table, /new during a game, unknown commands, greeting
        "table_moved": "⬇️ Il tavolo è più in basso.",
        "table_exists_moved": "C'è già un tavolo aperto in questo gruppo: lo ripropongo qui"
        " sotto. Per chiuderlo: /cancel (chi l'ha aperto o un amministratore).",
        "err_unknown_command": "Non conosco {command}. Per giocare: /new apre un tavolo, /table"
        " mostra quello aperto, /help elenca i comandi.",
        "greeting": "👋 Ciao! Sono il bot della Briscola: apro un tavolo in questo gruppo,"
        " mando a ciascuno le sue carte in privato e tengo i conti. Per cominciare: /new",
        "err_lang_admin": "In un gruppo la lingua la cambia un amministratore. Ognuno può"
        " scegliere la propria scrivendomi /lang in privato.",
        "ok_lang_private": "Lingua impostata: italiano (per i tuoi messaggi privati).",
        # rematch
        "btn_rematch": "🔁 Rivincita",
        "err_rematch_done": "La rivincita è già aperta.",
        "err_rematch_not_seated": "La rivincita la chiede chi ha giocato.",
        # the points bids' second screen
        "must_follow_line": "🚫 Ora no (rispondi al seme di uscita): {cards_html}",
        "btn_more_bids": "Altri valori…",
        "btn_fewer_bids": "« Indietro",
        "bids_all": "Tutti i valori:",
        # names
        "and": "e",
        "side_won_many": "Vincono <b>{who}</b> con {points} punti.",
        "match_over_many": "🏆 Partita finita: vincono <b>{who}</b>.",
    }
)
_T["en"].update(
    {
        "settings_hint": "Tap an option to see its values and pick one.",
        "setting_button": "{name}: {value}",
        "option_title": "⚙️ <b>{name}</b>",
        "option_now": "Now: <b>{value}</b>",
        "option_pick": "Pick a value:",
        "btn_settings_back": "« Settings",
        "err_unknown_option": "Unknown option: {given}. Options: {keys}.",
        "err_option_value": "{name}: «{value}» is not allowed. Values: {values}.",
        "err_option_fixed": "{name}: cannot be changed with these rules.",
        "err_option_combo": "{name}: {value_name} is not possible with these rules. Values"
        " allowed now: {values}.",
        "err_settings_usage": "Send /settings alone for the buttons, or for example"
        " /settings match=best3 overbid=false. Nothing was changed.",
        "err_pin_not_admin": "To pin the table I must be an admin of the group, allowed to pin"
        " messages.",
        "timer_seconds": "{n} seconds",
        "timer_minutes": "{n} minutes",
        "timer_minute": "1 minute",
        "val_true": "yes",
        "val_false": "no",
        "opt_match": "Match format",
        "opt_match_help": "How many hands are played and how the match is won.",
        "val_match_single": "a single hand",
        "val_match_best3": "best of 3 hands",
        "val_match_best5": "best of 5 hands",
        "val_match_points120": "first to 120 points (hands added up)",
        "val_match_points121": "first to 121 points (hands added up)",
        "val_match_points151": "first to 151 points (hands added up)",
        "val_match_fixed5": "5 hands, all played",
        "opt_deck": "Cards",
        "opt_deck_help": "Italian or French cards: only their names change.",
        "val_deck_italian": "Italian",
        "val_deck_french": "French",
        "opt_southern": "Southern order",
        "opt_southern_help": "French cards: the Jack ranks above the Queen and scores 3.",
        "opt_retrump": "Turned Ace or Three",
        "opt_retrump_help": "If the turned card is an Ace or a Three it goes back into the talon"
        " and another is turned.",
        "val_retrump_false": "it stays",
        "val_retrump_true": "turn another",
        "opt_show_points": "Points during the hand",
        "opt_show_points_help": "Show the card points taken while playing (usually counted at"
        " the end).",
        "val_show_points_false": "hidden",
        "val_show_points_true": "shown",
        "opt_signals": "Signals to the partner",
        "opt_signals_help": "Players may signal a briscola they hold to their partner"
        " (otherwise: silent Briscola).",
        "val_signals_false": "no (silent)",
        "val_signals_true": "yes",
        "opt_teams": "Teams",
        "opt_teams_help": "How the teams are formed.",
        "val_teams_none": "everyone for themselves",
        "val_teams_pairs": "pairs",
        "val_teams_threes": "two teams of three",
        "opt_players": "Players",
        "opt_players_help": "How many players sit at the table.",
        "val_players_2": "2 players",
        "val_players_3": "3 players",
        "val_players_4": "4 players",
        "opt_overbid": "Raising the Two",
        "opt_overbid_help": "Once the Two is called, players may raise by points (Two at 62…120).",
        "val_overbid_true": "yes",
        "val_overbid_false": "no: the Two ends the auction",
        "opt_carichi": "Calling carichi",
        "opt_carichi_help": "A player may call «carichi»: they play alone, with no briscola.",
        "opt_auction": "Auction",
        "opt_auction_help": "Players call a card rank, or bid points (Briscola bastarda).",
        "val_auction_rank": "by card rank",
        "val_auction_points": "by points",
        "opt_lead": "First lead",
        "opt_lead_help": "Who plays the first card after the auction.",
        "val_lead_dealer_right": "the player right of the dealer",
        "val_lead_caller": "the caller",
        "opt_cappotto": "Cappotto",
        "opt_cappotto_help": "When the hand's score is doubled.",
        "val_cappotto_zero_points": "the losers take 0 points",
        "val_cappotto_all_tricks": "the winners take every trick",
        "opt_target": "Target",
        "opt_target_help": "The score that ends the match; without one the league goes on.",
        "val_target_11": "11 points",
        "val_target_21": "21 points",
        "val_target_0": "none (open league)",
        "opt_timer": "Time per move",
        "opt_timer_help": "After this time the computer plays for whoever has not moved.",
        "opt_pin": "Pin the table",
        "opt_pin_help": "The bot pins the table message at the top (it must be an admin).",
        "table_moved": "⬇️ The table is further down.",
        "table_exists_moved": "There is already an open table in this group: here it is again"
        " below. To close it: /cancel (its creator or an admin).",
        "err_unknown_command": "I don't know {command}. To play: /new opens a table, /table"
        " shows the open one, /help lists the commands.",
        "greeting": "👋 Hi! I am the Briscola bot: I host a table in this group, send each"
        " player their cards privately and keep the score. To start: /new",
        "err_lang_admin": "In a group only an admin changes the language. Everyone can pick"
        " their own by sending me /lang in private.",
        "ok_lang_private": "Language set: English (for your private messages).",
        "btn_rematch": "🔁 Rematch",
        "err_rematch_done": "The rematch is already open.",
        "err_rematch_not_seated": "The rematch is for those who played.",
        "must_follow_line": "🚫 Not now (follow the suit led): {cards_html}",
        "btn_more_bids": "More values…",
        "btn_fewer_bids": "« Back",
        "bids_all": "All values:",
        "and": "and",
        "side_won_many": "<b>{who}</b> win with {points} points.",
        "match_over_many": "🏆 Match over: <b>{who}</b> win.",
    }
)

# RULES.md §7.2, §7.3, §7.8 options and the table's "counts" (§10.5), in the scheme above.
_T["it"].update(
    {
        "opt_auction_start": "Chi apre l'asta",
        "opt_auction_start_help": "Chi parla per primo nell'asta; poi si va avanti nel giro.",
        "val_auction_start_dealer_right": "chi sta a destra del mazziere",
        "val_auction_start_dealer_left": "chi sta a sinistra del mazziere",
        "opt_first_must_call": "Il primo deve chiamare",
        "opt_first_must_call_help": "Chi apre l'asta non può passare: deve chiamare.",
        "val_first_must_call_false": "no, può passare",
        "val_first_must_call_true": "sì, non può passare",
        "opt_two_caller_raises": "Chi chiama il Due rilancia",
        "opt_two_caller_raises_help": "Se altri rilanciano sui punti, chi ha chiamato il Due"
        " può rilanciare anche lui, oppure solo passare.",
        "val_two_caller_raises_true": "sì",
        "val_two_caller_raises_false": "no, può solo passare",
        "opt_carichi_mode": "Dopo «carichi»",
        "opt_carichi_mode_help": "«Carichi» chiude l'asta, oppure gli altri possono ancora"
        " chiamare più basso dell'ultima carta nominata.",
        "val_carichi_mode_ends": "l'asta finisce",
        "val_carichi_mode_continues": "l'asta continua",
        "opt_counts": "In classifica",
        "opt_counts_help": "Con giocatori computer la partita va nella classifica del gruppo"
        " solo se lo si sceglie; i computer non pagano e non incassano.",
        "val_counts_false": "no",
        "val_counts_true": "sì, senza i computer",
    }
)
_T["en"].update(
    {
        "opt_auction_start": "Auction opens",
        "opt_auction_start_help": "Who speaks first in the auction; then it goes round.",
        "val_auction_start_dealer_right": "the player right of the dealer",
        "val_auction_start_dealer_left": "the player left of the dealer",
        "opt_first_must_call": "First bidder must call",
        "opt_first_must_call_help": "Whoever opens the auction may not pass: they must call.",
        "val_first_must_call_false": "no, may pass",
        "val_first_must_call_true": "yes, may not pass",
        "opt_two_caller_raises": "Two's caller raises",
        "opt_two_caller_raises_help": "When others raise by points, whoever called the Two may"
        " raise too, or may only pass.",
        "val_two_caller_raises_true": "yes",
        "val_two_caller_raises_false": "no, may only pass",
        "opt_carichi_mode": "After «carichi»",
        "opt_carichi_mode_help": "«Carichi» ends the auction, or the others may still call a"
        " rank lower than the last one named.",
        "val_carichi_mode_ends": "the auction ends",
        "val_carichi_mode_continues": "the auction goes on",
        "opt_counts": "On the group ledger",
        "opt_counts_help": "With computer players the match goes on the group's ledger only"
        " if chosen; computers neither pay nor collect.",
        "val_counts_false": "no",
        "val_counts_true": "yes, without the computers",
    }
)

# turn timers, mentions, seats taken back, lobby expiry, cancel consent (helper "timer",
# issue 11 §1 and §3)
_T["it"].update(
    {
        "turn_mention": "⏰ {who_html}, tocca a te!",
        "turn_mention_timer": "⏰ {who_html}, tocca a te: fra {seconds} secondi gioca il computer.",
        "turn_reminder": "⏰ Tocca a te ({variant}, tavolo #{table}): fra {seconds} secondi"
        " gioca il computer.",
        "timeout_notice": "⏱ {who}: tempo scaduto, gioca il computer.",
        "timeout_away": "⏱ {who}: tempo scaduto due volte di fila. Il computer gioca al suo"
        " posto finché non lo riprende.",
        "away_timeout": "⏱ Il tempo è scaduto due volte di fila: il computer gioca al tuo"
        " posto. Quando vuoi, riprendilo.",
        "btn_resume": "Riprendo il posto",
        "err_not_away": "Il posto è già tuo.",
        "err_away": "Al tuo posto gioca il computer: per tornare, «Riprendo il posto» o /join.",
        "ok_back": "Bentornato: il posto è di nuovo tuo.",
        "lobby_expired": "⌛ Tavolo scaduto: nessuno l'ha avviato.",
        "lobby_expired_notice": "⌛ Il tavolo di {variant} è scaduto: nessuno l'ha avviato."
        " Per giocare, aprine un altro con /new.",
        "cancelled_by": "🛑 Tavolo annullato da {who}.",
        "cancelled_agreed": "🛑 Tavolo annullato: l'ha chiesto {who}, d'accordo tutti i giocatori.",
        "cancel_request": "🛑 {who} chiede di annullare la partita. Serve l'accordo di"
        " {others_html}. Se non sono tutti d'accordo, si continua a giocare.",
        "btn_cancel_yes": "✅ D'accordo, annulliamo",
        "btn_cancel_no": "❌ No, si gioca",
        "cancel_done": "🛑 Tavolo annullato: l'ha chiesto {who}, d'accordo {agreed}.",
        "cancel_refused": "❌ {who} non è d'accordo: la partita continua.",
        "cancel_lapsed": "⌛ Non hanno risposto tutti: la partita continua.",
        "cancel_moot": "La richiesta di annullare non serve più: la partita è chiusa.",
        "err_cancel_pending": "C'è già una richiesta di annullare la partita: rispondete lì.",
        "err_cancel_not_allowed": "Una partita in corso la annulla un amministratore, oppure"
        " i giocatori, tutti d'accordo.",
        "err_no_request": "Nessuna richiesta di annullare in corso.",
        "err_own_request": "L'hai chiesto tu: aspettiamo gli altri.",
        "err_not_your_vote": "Decidono i giocatori di questa partita.",
        "err_voted": "Hai già risposto.",
        "ok_agreed_wait": "D'accordo: aspettiamo gli altri.",
        "ok_refused": "Va bene: la partita continua.",
    }
)
_T["en"].update(
    {
        "turn_mention": "⏰ {who_html}, your turn!",
        "turn_mention_timer": "⏰ {who_html}, your turn: in {seconds} seconds the computer"
        " plays for you.",
        "turn_reminder": "⏰ Your turn ({variant}, table #{table}): in {seconds} seconds the"
        " computer plays for you.",
        "timeout_notice": "⏱ {who}: time is up, the computer plays.",
        "timeout_away": "⏱ {who}: time ran out twice in a row. The computer plays their seat"
        " until they take it back.",
        "away_timeout": "⏱ Time ran out twice in a row: the computer plays your seat. Take it"
        " back whenever you like.",
        "btn_resume": "Take my seat back",
        "err_not_away": "The seat is already yours.",
        "err_away": "The computer plays your seat: to come back, «Take my seat back» or /join.",
        "ok_back": "Welcome back: the seat is yours again.",
        "lobby_expired": "⌛ Table expired: nobody started it.",
        "lobby_expired_notice": "⌛ The {variant} table expired: nobody started it. To play,"
        " open another with /new.",
        "cancelled_by": "🛑 Table cancelled by {who}.",
        "cancelled_agreed": "🛑 Table cancelled: {who} asked, every player agreed.",
        "cancel_request": "🛑 {who} asks to cancel the match. {others_html} must agree. Unless"
        " everyone agrees, play goes on.",
        "btn_cancel_yes": "✅ Agreed, cancel",
        "btn_cancel_no": "❌ No, play on",
        "cancel_done": "🛑 Table cancelled: {who} asked, {agreed} agreed.",
        "cancel_refused": "❌ {who} does not agree: play goes on.",
        "cancel_lapsed": "⌛ Not everyone answered: play goes on.",
        "cancel_moot": "The request to cancel is moot: the match is closed.",
        "err_cancel_pending": "Someone already asked to cancel the match: answer there.",
        "err_cancel_not_allowed": "A running match is cancelled by an admin, or by its players"
        " if they all agree.",
        "err_no_request": "Nobody is asking to cancel the match.",
        "err_own_request": "You asked: let us wait for the others.",
        "err_not_your_vote": "The players of this match decide.",
        "err_voted": "You already answered.",
        "ok_agreed_wait": "Agreed: let us wait for the others.",
        "ok_refused": "Fine: play goes on.",
    }
)

COMMANDS = {
    "it": [
        ("new", "Apri un tavolo (variante facoltativa)"),
        ("join", "Siediti al tavolo"),
        ("leave", "Lascia il tavolo"),
        ("addbot", "Aggiungi un giocatore computer"),
        ("go", "Inizia la partita"),
        ("cancel", "Annulla il tavolo"),
        ("table", "Riporta il tavolo in fondo alla chat"),
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
        ("table", "Bring the table to the bottom of the chat"),
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
    if "{ad}" in text:  # Italian: "tocca ad Anna", "tocca a Mario"
        safe["ad"] = _a_or_ad(str(kw.get("who", "")))
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


# ---------------------------------------------------------------------------------------------
# helper "group": names of settings and values, lists of names, a person's language


def _a_or_ad(name: str) -> str:
    """The Italian preposition before `name`: "ad" before the vowel a (ad Anna), else "a"."""
    first = next((c for c in name if c.isalpha()), "")
    return "ad" if first.lower() in ("a", "à", "á") else "a"


def has_text(lang: str, key: str) -> bool:
    return key in _T.get(lang, {})


def _words(lang: str, key: str) -> dict[str, str]:
    return SETTING_WORDS.get(lang, SETTING_WORDS["it"]).get(key, {})


def option_text(lang: str, key: str) -> str | None:
    """A setting's name as people say it ("Formato"), from `SETTING_WORDS` or `opt_<key>`."""
    return _words(lang, key).get("") or _T.get(lang, _T["it"]).get(f"opt_{key}")


def option_name(lang: str, key: str) -> str:
    """`option_text`, else (a setting nobody named yet) the key itself."""
    return option_text(lang, key) or option_text("it", key) or key


def option_help(lang: str, key: str) -> str:
    return _T.get(lang, _T["it"]).get(f"opt_{key}_help", "")


def value_text(lang: str, key: str, value: str) -> str | None:
    """A setting's value in words ("al meglio delle 5 mani"), or None if it has no name. The
    turn timer's values are durations, named by their length."""
    texts = _T.get(lang, _T["it"])
    if value in _words(lang, key):
        return _words(lang, key)[value]
    if key == "timer" and value.isdigit():
        n = int(value)
        if n == 0:
            return texts["timer_off"]
        if n % 60 == 0:
            return texts["timer_minute"] if n == 60 else t(lang, "timer_minutes", n=n // 60)
        return t(lang, "timer_seconds", n=n)
    return texts.get(f"val_{key}_{value}") or texts.get(f"val_{value}")


def value_name(lang: str, key: str, value: str) -> str:
    return value_text(lang, key, value) or value


def join_names(lang: str, names: list[str]) -> str:
    """ "Mario e Luigi", "Ana, Mario e Luigi" (plain text: escape it where it goes)."""
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} {t(lang, 'and')} {names[-1]}"


def lang_of(code: str | None) -> str | None:
    """The bot's language for a Telegram `language_code` (it, it-CH → it; any other → en),
    None when Telegram gives none."""
    if not code:
        return None
    return "it" if code.lower().startswith("it") else "en"
