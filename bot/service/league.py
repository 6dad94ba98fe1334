"""The group's ledger from the chat (RULES.md §10): seasons (§10.4), /score of a
season, /export, /undo and /beer with its "pagato" buttons.

Seasons are the ledger's epochs (`LedgerStore.new_league`): season N is epoch N - 1. Nothing is
ever deleted: an undo writes the negated entry, a settled payment an entry of its own (+amount
to the payer, -amount to the payee), so every write stays zero-sum and the balances move; each
is in the audit trail with who did it and when (`storage.league`).

Every change asks for a tap on a button whose data names what was shown (the season, the entry,
the settlement's version), so a stale or repeated tap finds the ledger moved on and changes
nothing. A settlement shown by /beer stays valid while only its own payments are written; any
other write (a hand, an undo, a new season) makes its buttons stale (send /beer again).
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from bot.i18n import plain, t, tn, variant_name
from bot.service.langs import Languages
from bot.service.types import AdminCheck, Outbox, Person, Reply, group_admin, reply_lang
from bot.table.ledger import Payment, export_json, settle
from bot.view.callback_data import paid_data, season_data, undo_data
from bot.view.render import (
    Button,
    Keyboard,
    Rendered,
    beers_text,
    points_text,
    short_name,
    signed,
)
from storage import Database
from storage.league import ALREADY, DONE, PAYMENT, UNDO, AuditRow, LedgerEntry, payment_key
from storage.tournaments import TournamentMatch

LAST_WORDS = frozenset({"last", "previous", "ultima", "precedente", "scorsa"})
FORMATS = frozenset({"csv", "json"})
VALUE_WORDS = frozenset({"vale", "value", "valore", "worth"})  # /beer vale 10
BUTTON_NAME_MAX = 14  # a name in a "pagato" button (the button shows three things)


@dataclass(frozen=True, slots=True)
class Document:
    """A file for the chat (/export): what the handler sends with `send_document`."""

    filename: str
    data: bytes
    caption: str


def _aware(at: datetime) -> datetime:
    """A stored moment as an aware datetime (a naive one is UTC)."""
    return at if at.tzinfo else at.replace(tzinfo=UTC)


def parse_season(word: str, current_epoch: int) -> int | str:
    """The epoch a /score or /export argument names: "" the current season, `last` (or
    `ultima`, ...) the one before, N season N (1-based); else the key of the refusal."""
    word = word.strip().lower()
    if not word:
        return current_epoch
    if word in LAST_WORDS:
        return current_epoch - 1 if current_epoch > 0 else "lg_err_no_previous"
    if word.isascii() and word.isdigit() and len(word) <= 6:
        n = int(word)
        return n - 1 if 1 <= n <= current_epoch + 1 else "lg_err_no_season"
    return "lg_err_season_arg"


LIVE_KEPT = 8  # /beer and /undo messages kept true per chat (the newest)


class League:
    """Seasons, /score of a season, /export, /undo, /beer and its payments: the ledger in
    the database, the chat's language (`langs`), the messages edited (`out`: a confirmation
    shows what was done), dates on the groups' clock (`zone`)."""

    def __init__(self, db: Database, out: Outbox, langs: Languages, zone: ZoneInfo) -> None:
        self.db = db
        self.out = out
        self.langs = langs
        self.zone = zone
        # the /beer and /undo messages with live buttons, by chat: message -> what it shows
        # (`Reply.live`); a change of the ledger brings them up to date (`_keep_true`)
        self._live: dict[int, dict[int, tuple[Any, ...]]] = {}

    def shown(self, chat_id: int, message_id: int, live: tuple[Any, ...]) -> None:
        """A /beer or /undo message with buttons was sent (`Reply.live`): kept true from now
        on (the last `LIVE_KEPT` of the chat; this worker's only)."""
        kept = self._live.setdefault(chat_id, {})
        kept[message_id] = live
        while len(kept) > LIVE_KEPT:
            del kept[next(iter(kept))]

    async def _keep_true(
        self, chat_id: int, lang: str, done_on: int, *, season: bool, version: int | None = None
    ) -> None:
        """The ledger changed through message `done_on` (which shows it already): every
        other /undo question of the chat is out of date (it loses its buttons and says so),
        and after a new season every other /season question too. Every other /beer message
        shows the payments of its settlement as they are now if `version` is its settlement
        (a payment of it was marked), else the settlement as it is now (its buttons would
        be refused: the ledger changed since), or, after a new season, that it is out of
        date."""
        kept = self._live.get(chat_id, {})
        others = [(m, live) for m, live in kept.items() if m != done_on]
        beers = not season and any(live[0] == "beer" for _, live in others)
        # read once, and only when a /beer message is to be shown again
        now = await self.db.ledger.ledger_version(chat_id) if beers else 0
        beer = await self.beer_value(chat_id) if beers else 0
        for message_id, live in others:
            if live[0] == "beer" and not season:
                epoch = live[1]
                at = live[2] if live[2] == version else now
                payments, paid, names = await self._settlement(chat_id, epoch, at)
                shown = self._beer_message(lang, epoch, at, payments, paid, names, beer)
                if live[2:] != (at, shown.key()):
                    kept[message_id] = ("beer", epoch, at, shown.key())
                    self.out.edit_soon(chat_id, message_id, shown)
                continue
            if live[0] == "season" and not season:
                continue  # a new season can still start
            stale = {"undo": "lg_err_undo_stale", "season": "lg_err_season_stale"}.get(
                live[0], "lg_err_beer_stale"
            )
            del kept[message_id]
            self.out.edit_soon(chat_id, message_id, Rendered(t(lang, stale), []))

    async def _season_arg(self, chat_id: int, lang: str, word: str) -> tuple[int, int] | Reply:
        """(the epoch `word` names, the current epoch), or the refusal."""
        current = await self.db.people.league_epoch(chat_id)
        epoch = parse_season(word, current)
        if isinstance(epoch, str):
            return Reply(t(reply_lang(lang), epoch, n=current + 1), key=epoch)
        return epoch, current

    # ------------------------------------------------------------------ /score [last | N]

    async def season_score(self, chat_id: int, arg: str = "") -> Reply:
        """/score: the group's tab for the season (default the current one; `last` the
        previous, N season N): each person's balance in points, and who buys the beer, with
        as few payments as possible (§10.3), in beers too when the group said what one is
        worth (/beer 10)."""
        lang = await self.langs.chat(chat_id)
        found = await self._season_arg(chat_id, lang, arg)
        if isinstance(found, Reply):
            return found
        epoch, current = found
        balances = await self.db.ledger.balances(chat_id, epoch)
        if not balances:
            if epoch == current and current == 0:
                return Reply(t(reply_lang(lang), "err_no_ledger"), key="err_no_ledger")
            return Reply(t(reply_lang(lang), "lg_season_empty", n=epoch + 1), key="lg_season_empty")
        which = "lg_season_current" if epoch == current else "lg_season_archived"
        lines = [t(lang, "score_title", season=t(lang, which, n=epoch + 1))]
        names = {b.user_id: b.name for b in balances}
        for b in balances:
            balance = points_text(lang, b.balance, sign=True)
            lines.append(t(lang, "score_row", name=b.name, balance=balance))
        lines.append("")
        lines.append(t(lang, "settle_title"))
        payments = settle({b.user_id: b.balance for b in balances})
        if not payments:
            lines.append(t(lang, "settle_none"))
        beer = await self.beer_value(chat_id)
        for debtor, creditor, amount in payments:
            lines.append(self._settle_row(lang, names, (debtor, creditor, amount), beer))
        return Reply("\n".join(lines), key="score")

    def _settle_row(self, lang: str, names: dict[int, str], payment: Payment, beer: int) -> str:
        """ "Lucia → Mario: 20 punti (2 birre)" (HTML, escaped)."""
        debtor, creditor, amount = payment
        return t(
            lang,
            "settle_row",
            debtor=names[debtor],
            creditor=names[creditor],
            amount=self._amount(lang, amount, beer),
        )

    @staticmethod
    def _amount(lang: str, points: int, beer: int) -> str:
        """ "20 punti", or with a beer's worth set "20 punti (2 birre)", "25 punti (2 birre e
        5 punti)"; below one beer the points alone (plain text)."""
        text = points_text(lang, points)
        beers = beers_text(lang, points, beer) if beer else ""
        return t(lang, "amount_beers", points=text, beers=beers) if beers else text

    async def beer_value(self, chat_id: int) -> int:
        """What a beer is worth in the group, in points (0: not said)."""
        return int((await self.db.people.chat_settings(chat_id)).get("beer", 0))

    # ------------------------------------------------------------------ /season (§10.4)

    async def ask_new_season(
        self, chat_id: int, person: Person, *, is_admin: bool | AdminCheck
    ) -> Reply:
        """/season (/stagione): an admin is asked to confirm with a button."""
        lang = await self.langs.chat(chat_id)
        if not await group_admin(is_admin):
            return Reply(t(reply_lang(lang), "lg_err_admin"), key="lg_err_admin")
        epoch = await self.db.people.league_epoch(chat_id)
        keyboard: Keyboard = [
            [
                Button(plain(lang, "lg_btn_season_yes"), season_data(epoch, True)),
                Button(plain(lang, "lg_btn_keep"), season_data(epoch, False)),
            ]
        ]
        lines = [t(lang, "lg_season_ask", n=epoch + 1)]
        # what is still owed: the new season starts everyone from zero
        version = await self.db.ledger.ledger_version(chat_id)
        payments, paid, names = await self._settlement(chat_id, epoch, version)
        beer = await self.beer_value(chat_id)
        unpaid = [
            (d, c, amount - paid.get((d, c), 0))
            for d, c, amount in payments
            if amount > paid.get((d, c), 0)
        ]
        if unpaid:
            lines.append(t(lang, "lg_season_unpaid"))
            lines.extend(self._settle_row(lang, names, p, beer) for p in unpaid)
        return Reply("\n".join(lines), keyboard, key="lg_season_ask", live=("season", epoch))

    async def confirm_new_season(
        self,
        chat_id: int,
        message_id: int,
        person: Person,
        epoch: int,
        yes: bool,
        *,
        is_admin: bool | AdminCheck,
    ) -> Reply:
        """A tap on /season's buttons: an admin's "new season" starts season `epoch` + 2 if
        `epoch` is still the current one (a second tap finds it is not: nothing changes)."""
        lang = await self.langs.chat(chat_id)
        if not await group_admin(is_admin):
            return Reply(t(reply_lang(lang), "lg_err_admin"), key="lg_err_admin")
        current = await self.db.people.league_epoch(chat_id)
        if epoch != current:
            return Reply(t(reply_lang(lang), "lg_err_season_stale"), key="lg_err_season_stale")
        if not yes:
            self._live.get(chat_id, {}).pop(message_id, None)
            self.out.edit_soon(chat_id, message_id, Rendered(t(lang, "lg_kept"), []))
            return Reply(t(reply_lang(lang), "lg_kept"), key="lg_kept")
        new = await self.db.ledger.new_season(
            chat_id, epoch, person.user_id, person.name, datetime.now(UTC)
        )
        if new is None:
            return Reply(t(reply_lang(lang), "lg_err_season_stale"), key="lg_err_season_stale")
        text = t(lang, "lg_season_started", who=person.name, n=new + 1, old=new)
        self._live.get(chat_id, {}).pop(message_id, None)
        self.out.edit_soon(chat_id, message_id, Rendered(text, []))
        await self._keep_true(chat_id, lang, message_id, season=True)
        return Reply(t(reply_lang(lang), "ok_played"), key="lg_season_started")

    # ------------------------------------------------------------------ /undo

    def _describe(self, lang: str, entry: LedgerEntry) -> str:
        """One line naming an entry: a payment, or a game's variant, when and its deltas."""
        if entry.kind == PAYMENT:
            (debtor, _), (creditor, amount) = sorted(entry.deltas.items(), key=lambda kv: -kv[1])
            return t(
                lang,
                "lg_entry_payment",
                debtor=entry.names[debtor],
                creditor=entry.names[creditor],
                amount=points_text(lang, -amount),
            )
        deltas = ", ".join(f"{entry.names[u]} {signed(d)}" for u, d in entry.deltas.items())
        return t(
            lang,
            "lg_entry_game",
            variant=variant_name(lang, entry.variant),
            when=self._when(lang, entry.finished_at),
            deltas=deltas,
        )

    def _when(self, lang: str, at: datetime) -> str:
        """A moment on the groups' clock (`TIMEZONE`): "23/11/2026 21:34"."""
        local = _aware(at).astimezone(self.zone)
        return local.strftime(plain(lang, "lg_date_format") + " %H:%M")

    async def ask_undo(self, chat_id: int, person: Person, *, is_admin: bool | AdminCheck) -> Reply:
        """/undo: an admin is shown the current season's last entry still standing (not an
        undo, not undone) and asked to confirm with a button."""
        lang = await self.langs.chat(chat_id)
        if not await group_admin(is_admin):
            return Reply(t(reply_lang(lang), "lg_err_admin"), key="lg_err_admin")
        entry = await self.db.ledger.last_undoable(chat_id)
        if entry is None:
            return Reply(
                t(reply_lang(lang), "lg_err_nothing_to_undo"), key="lg_err_nothing_to_undo"
            )
        keyboard: Keyboard = [
            [
                Button(plain(lang, "lg_btn_undo_yes"), undo_data(entry.hand_id, True)),
                Button(plain(lang, "lg_btn_keep"), undo_data(entry.hand_id, False)),
            ]
        ]
        text = t(lang, "lg_undo_ask", entry_html=self._describe(lang, entry))
        return Reply(text, keyboard, key="lg_undo_ask", live=("undo", entry.hand_id))

    async def confirm_undo(
        self,
        chat_id: int,
        message_id: int,
        person: Person,
        hand_id: int,
        yes: bool,
        *,
        is_admin: bool | AdminCheck,
    ) -> Reply:
        """A tap on /undo's buttons: an admin's "undo" writes the compensating entry and the
        audit row, if the entry is still the last one standing; an entry is undone once."""
        lang = await self.langs.chat(chat_id)
        if not await group_admin(is_admin):
            return Reply(t(reply_lang(lang), "lg_err_admin"), key="lg_err_admin")
        if not yes:
            last = await self.db.ledger.last_undoable(chat_id)
            if last is None or last.hand_id != hand_id:
                return Reply(t(reply_lang(lang), "lg_err_undo_stale"), key="lg_err_undo_stale")
            self._live.get(chat_id, {}).pop(message_id, None)
            self.out.edit_soon(chat_id, message_id, Rendered(t(lang, "lg_kept"), []))
            return Reply(t(reply_lang(lang), "lg_kept"), key="lg_kept")
        outcome, entry = await self.db.ledger.undo_entry(
            chat_id, hand_id, person.user_id, person.name, datetime.now(UTC)
        )
        if outcome == ALREADY:
            return Reply(t(reply_lang(lang), "lg_err_undone_already"), key="lg_err_undone_already")
        if outcome != DONE or entry is None:
            return Reply(t(reply_lang(lang), "lg_err_undo_stale"), key="lg_err_undo_stale")
        target = entry.hand_key.removeprefix("undo:")
        entries = await self.db.ledger.season_entries(chat_id, entry.epoch)
        undone = next(e for e in entries if e.hand_key == target)
        text = t(lang, "lg_undone", who=person.name, entry_html=self._describe(lang, undone))
        self._live.get(chat_id, {}).pop(message_id, None)
        self.out.edit_soon(chat_id, message_id, Rendered(text, []))
        await self._keep_true(chat_id, lang, message_id, season=False)
        return Reply(t(reply_lang(lang), "ok_played"), key="lg_undone")

    # ------------------------------------------------------------------ /export

    async def export_season(self, chat_id: int, args: list[str]) -> Reply | Document:
        """/export [csv|json] [last|N]: the season's ledger as a file, with its audit trail
        (undos, payments, who and when), in time order (the order written), each time on the
        groups' clock with the zone said, a tournament's matches marked. A refusal is a
        Reply."""
        lang = await self.langs.chat(chat_id)
        words = [a.strip().lower() for a in args if a.strip()]
        fmt = "csv"
        if words and words[0] in FORMATS:
            fmt = words.pop(0)
        elif words and words[-1] in FORMATS:
            fmt = words.pop()
        if len(words) > 1:
            return Reply(t(reply_lang(lang), "lg_err_export_usage"), key="lg_err_export_usage")
        found = await self._season_arg(chat_id, lang, words[0] if words else "")
        if isinstance(found, Reply):
            if found.key == "lg_err_season_arg":
                return Reply(t(reply_lang(lang), "lg_err_export_usage"), key="lg_err_export_usage")
            return found
        epoch, _ = found
        entries = await self.db.ledger.season_entries(chat_id, epoch)
        audit = await self.db.ledger.ledger_audit(chat_id, epoch)
        if not entries:
            return Reply(t(reply_lang(lang), "lg_season_empty", n=epoch + 1), key="lg_season_empty")
        tours = await self.db.tournaments.tournament_tables(chat_id)
        if fmt == "csv":
            data = self._readable_csv(lang, entries, audit, tours).encode("utf-8-sig")
        else:
            balances = await self.db.ledger.balances(chat_id, epoch)
            content = export_json(
                chat_id,
                balances,
                entries,
                season=epoch + 1,
                audit=audit,
                zone=self.zone,
                tournaments=tours,
            )
            data = (json.dumps(content, indent=2, ensure_ascii=False) + "\n").encode()
        filename = f"briscola-{abs(chat_id)}-{plain(lang, 'lg_file_season')}{epoch + 1}.{fmt}"
        caption = tn(lang, "lg_export_caption", len(entries), season=epoch + 1)
        return Document(filename, data, caption)

    def _readable_csv(
        self,
        lang: str,
        entries: list[LedgerEntry],
        audit: list[AuditRow],
        tours: Mapping[int, TournamentMatch],
    ) -> str:
        """The season's ledger for a spreadsheet, in the group's language, in time order:
        the new season's row (who began it, when) and then one row per person and entry in
        the order they were written (date and time on the groups' clock, whose zone the
        header names; what the entry is, an undo naming the entry it undid; the game; the
        tournament's match it was; who, the points; who marked or undid it). Italian
        spreadsheets read `;` between columns (the comma is their decimal mark), English
        ones `,`; a BOM (the caller's encoding) says it is UTF-8."""
        out = io.StringIO()
        writer = csv.writer(out, delimiter=";" if lang == "it" else ",", lineterminator="\n")
        writer.writerow(plain(lang, "lg_csv_header", zone=self.zone.key).split("|"))

        def write(at: datetime, *line: object) -> None:
            local = _aware(at).astimezone(self.zone)
            day, hour = local.strftime(plain(lang, "lg_date_format")), local.strftime("%H:%M")
            writer.writerow((day, hour, *line))

        # The new season's row first: every entry of a season is written after it began. The
        # entries follow in the order written, the ledger's order in time (whatever the
        # clocks of several workers stamped).
        for a in audit:
            if a.hand_key is None:
                season = plain(lang, "lg_csv_season", n=a.epoch + 1)
                write(a.at, season, "", "", "", "", a.actor_name, "")
        by_key = {a.hand_key: a for a in audit if a.hand_key is not None}
        keyed = {e.hand_key: e for e in entries}
        for e in entries:
            row = by_key.get(e.hand_key)
            note = plain(lang, "lg_csv_undone") if e.undone_by is not None else ""
            payer = self._payment_note(lang, e) if e.kind == PAYMENT else ""
            note = " · ".join(x for x in (payer, note) if x)
            match = tours.get(e.table_id) if e.table_id is not None else None
            tour = (
                plain(lang, "lg_csv_tournament", n=match.number, k=match.match_no + 1)
                if match is not None
                else ""
            )
            what = self._entry_name(lang, e, keyed)
            game = variant_name(lang, e.variant) if e.variant else ""
            by = row.actor_name if row is not None else ""
            for uid, delta in e.deltas.items():
                write(e.finished_at, what, game, tour, e.names.get(uid, ""), delta, by, note)
        return out.getvalue()

    @staticmethod
    def _payment_note(lang: str, e: LedgerEntry) -> str:
        """A payment's who to whom: "Lucia → Mario"."""
        (debtor, _), (creditor, _) = sorted(e.deltas.items(), key=lambda kv: -kv[1])
        return f"{e.names.get(debtor, '')} → {e.names.get(creditor, '')}"

    def _entry_name(self, lang: str, e: LedgerEntry, keyed: Mapping[str, LedgerEntry]) -> str:
        """What a ledger entry is, in words: "Tavolo 12, mano 3", "Pagamento", ...; an undo
        names the entry it undid (`keyed`: the season's entries by key) and when it was
        written: "Annulla: Pagamento Lucia → Mario (23/11/2026 21:34)"."""
        key = e.hand_key.removeprefix("undo:")
        if e.kind == PAYMENT or key.startswith("pay:"):
            what = plain(lang, "lg_csv_payment")
        elif (m := re.fullmatch(r"t(\d+):h(\d+)", key)) is not None:
            what = plain(lang, "lg_csv_hand", table=m[1], n=int(m[2]) + 1)
        elif (m := re.fullmatch(r"t(\d+):match", key)) is not None:
            what = plain(lang, "lg_csv_match", table=m[1])
        else:
            what = key
        if e.kind != UNDO:
            return what
        undone = keyed.get(key)
        if undone is None:
            return plain(lang, "lg_csv_undo", entry=what)
        if undone.kind == PAYMENT:
            what = f"{what} {self._payment_note(lang, undone)}"
        when = self._when(lang, undone.finished_at)
        return plain(lang, "lg_csv_undo_of", entry=what, when=when)

    # ------------------------------------------------------------------ /beer (§10.3)

    async def _settlement(
        self, chat_id: int, epoch: int, version: int
    ) -> tuple[list[Payment], dict[tuple[int, int], int], dict[int, str]]:
        """The settlement shown at `version` of season `epoch`, how much of each of its
        payments (debtor, creditor) was paid since (a payment may be paid in parts), and
        everyone's name."""
        balances = await self.db.ledger.balances_at(chat_id, epoch, version)
        payments = settle(balances)
        names = {b.user_id: b.name for b in await self.db.ledger.balances(chat_id, epoch)}
        prefix = payment_key(epoch, version, 0, 0).removesuffix("0:0")
        paid: dict[tuple[int, int], int] = {}
        for e in await self.db.ledger.season_entries(chat_id, epoch):
            if e.kind == PAYMENT and e.hand_key.startswith(prefix) and e.undone_by is None:
                debtor, creditor = (int(x) for x in e.hand_key[len(prefix) :].split(":")[:2])
                pair = (debtor, creditor)
                paid[pair] = paid.get(pair, 0) + e.deltas.get(debtor, 0)
        return payments, paid, names

    def _beer_message(
        self,
        lang: str,
        epoch: int,
        version: int,
        payments: list[Payment],
        paid: dict[tuple[int, int], int],
        names: dict[int, str],
        beer: int,
    ) -> Rendered:
        """/beer's message: each payment of the settlement, what is paid of it, and for
        each one still owed a "Segna pagato" button (the rest of it) and, when a beer's worth
        is set and more than one is owed, a button for one beer."""
        title = "lg_beer_title_value" if beer else "lg_beer_title"
        lines = [t(lang, title, n=epoch + 1, beer=points_text(lang, beer))]
        keyboard: Keyboard = []
        if not payments:
            lines.append(t(lang, "settle_none"))
        owed = 0
        for debtor, creditor, amount in payments:
            done = paid.get((debtor, creditor), 0)
            row = self._settle_row(lang, names, (debtor, creditor, amount), beer)
            if done >= amount:
                lines.append(t(lang, "lg_beer_paid_row", row_html=row))
                continue
            owed += 1
            if done:
                left = self._amount(lang, amount - done, beer)
                lines.append(t(lang, "lg_beer_part_row", row_html=row, left=left))
            else:
                lines.append(row)
            who = {
                "debtor": short_name(names[debtor], BUTTON_NAME_MAX),
                "creditor": short_name(names[creditor], BUTTON_NAME_MAX),
            }
            rest = (debtor, creditor, amount - done)
            keyboard.append(
                [Button(plain(lang, "lg_btn_paid", **who), paid_data(epoch, version, rest, done))]
            )
            if beer and amount - done > beer:
                one = (debtor, creditor, beer)
                label = plain(lang, "lg_btn_paid_beer", **who)
                keyboard.append([Button(label, paid_data(epoch, version, one, done))])
        if payments and not owed:
            lines.append(t(lang, "lg_beer_all_paid"))
        elif keyboard:
            lines.append(t(lang, "lg_beer_hint"))
        if not beer:
            lines.append(t(lang, "lg_beer_value_hint"))
        return Rendered("\n".join(lines), keyboard)

    async def beer(self, chat_id: int, args: list[str] | None = None, **admin: Any) -> Reply:
        """/beer (/birra): the current season's settlement alone, with fewest payments, and
        its buttons (`_beer_message`); /beer 10 (or /beer vale 10): an admin says what a beer
        is worth in points (0: not said)."""
        words = [w.strip().lower() for w in args or [] if w.strip()]
        if words:
            return await self._set_beer_value(chat_id, words, admin.get("is_admin", False))
        lang = await self.langs.chat(chat_id)
        epoch = await self.db.people.league_epoch(chat_id)
        version = await self.db.ledger.ledger_version(chat_id)
        payments, paid, names = await self._settlement(chat_id, epoch, version)
        if not names:
            return Reply(t(reply_lang(lang), "err_no_ledger"), key="err_no_ledger")
        beer = await self.beer_value(chat_id)
        shown = self._beer_message(lang, epoch, version, payments, paid, names, beer)
        live = ("beer", epoch, version, shown.key()) if shown.keyboard else None
        return Reply(shown.text, shown.keyboard or None, key="lg_beer", live=live)

    async def _set_beer_value(
        self, chat_id: int, words: list[str], is_admin: bool | AdminCheck
    ) -> Reply:
        lang = await self.langs.chat(chat_id)
        if words[0] in VALUE_WORDS:
            words = words[1:]
        if len(words) != 1 or not words[0].isdigit() or int(words[0]) > 1000:
            return Reply(t(lang, "lg_err_beer_usage"), key="lg_err_beer_usage")
        if not await group_admin(is_admin):
            return Reply(t(lang, "lg_err_admin"), key="lg_err_admin")
        value = int(words[0])
        await self.db.people.update_chat_settings(chat_id, beer=value or None)
        if not value:
            return Reply(t(lang, "lg_beer_value_off"), key="lg_beer_value_off")
        return Reply(
            t(lang, "lg_beer_value_set", points=points_text(lang, value)), key="lg_beer_value_set"
        )

    async def mark_paid(
        self,
        chat_id: int,
        message_id: int,
        person: Person,
        epoch: int,
        version: int,
        payment: Payment,
        done: int = 0,
        *,
        is_admin: bool | AdminCheck,
    ) -> Reply:
        """A "Segna pagato" tap: the payer or the one owed (or an admin) marks `payment`'s
        amount of a payment of the settlement shown at `version` as paid (all of what is
        left, or one beer), `done` having been paid of it when the button was shown; it
        becomes a ledger entry and the message shows it. A tap on a settlement the ledger has
        left behind, a second tap, or data that names no payment of it, change nothing."""
        lang = await self.langs.chat(chat_id)
        debtor, creditor, amount = payment
        if epoch != await self.db.people.league_epoch(chat_id):
            return Reply(t(reply_lang(lang), "lg_err_beer_stale"), key="lg_err_beer_stale")
        payments, paid, names = await self._settlement(chat_id, epoch, version)
        due = next((a for d, c, a in payments if (d, c) == (debtor, creditor)), None)
        if due is None or amount <= 0 or done < 0 or done + amount > due:
            return Reply(t(reply_lang(lang), "err_bad_data"), key="err_bad_data")
        if paid.get((debtor, creditor), 0) != done:  # paid since the button was shown
            return Reply(t(reply_lang(lang), "lg_err_paid_already"), key="lg_err_paid_already")
        if person.user_id not in (debtor, creditor) and not await group_admin(is_admin):
            # a tap's answer is plain text (not HTML): the names as they are
            text = plain(
                reply_lang(lang), "lg_err_not_payer", who=names[debtor], to=names[creditor]
            )
            return Reply(text, alert=True, key="lg_err_not_payer")
        outcome = await self.db.ledger.record_payment(
            chat_id,
            epoch,
            version,
            payment,
            names,
            person.user_id,
            person.name,
            datetime.now(UTC),
            done=done,
        )
        if outcome == ALREADY:
            return Reply(t(reply_lang(lang), "lg_err_paid_already"), key="lg_err_paid_already")
        if outcome != DONE:
            return Reply(t(reply_lang(lang), "lg_err_beer_stale"), key="lg_err_beer_stale")
        paid[(debtor, creditor)] = done + amount
        beer = await self.beer_value(chat_id)
        shown = self._beer_message(lang, epoch, version, payments, paid, names, beer)
        self.out.edit_soon(chat_id, message_id, shown)
        if message_id in self._live.get(chat_id, {}):
            self._live[chat_id][message_id] = ("beer", epoch, version, shown.key())
        await self._keep_true(chat_id, lang, message_id, season=False, version=version)
        return Reply(t(reply_lang(lang), "lg_ok_paid"), key="lg_ok_paid")


__all__ = ["Document", "League", "parse_season"]
