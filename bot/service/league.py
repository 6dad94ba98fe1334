"""The group's ledger from the chat (issue 14, RULES.md §10): seasons (§10.4), /score of a
season, /export, /undo and /beer with its "pagato" buttons.

Seasons are the ledger's epochs (`Database.new_league`): season N is epoch N - 1. Nothing is
ever deleted: an undo writes the negated entry, a settled payment an entry of its own (+amount
to the payer, -amount to the payee), so every write stays zero-sum and the balances move; each
is in the audit trail with who did it and when (`storage.league`).

Every change asks for a tap on a button whose data names what was shown (the season, the entry,
the settlement's version), so a stale or repeated tap finds the ledger moved on and changes
nothing. A settlement shown by /beer stays valid while only its own payments are written; any
other write (a hand, an undo, a new season) makes its buttons stale (send /beer again).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime

from bot.i18n import plain, t, tn, variant_name
from bot.service.core import ServiceCore
from bot.service.types import AdminCheck, Person, Reply
from bot.table.ledger import Payment, export_csv, export_json, settle
from bot.telegram.callback_data import paid_data, season_data, undo_data
from bot.telegram.render import Button, Keyboard, Rendered, short_name
from storage.league import ALREADY, DONE, PAYMENT, LedgerEntry, payment_key

LAST_WORDS = frozenset({"last", "previous", "ultima", "precedente", "scorsa"})
FORMATS = frozenset({"csv", "json"})
BUTTON_NAME_MAX = 14  # a name in a "pagato" button (the button shows three things)


@dataclass(frozen=True, slots=True)
class Document:
    """A file for the chat (/export): what the handler sends with `send_document`."""

    filename: str
    data: bytes
    caption: str


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


class League(ServiceCore):
    """Seasons, /score of a season, /export, /undo, /beer and its payments."""

    async def _group_admin(self, is_admin: bool | AdminCheck) -> bool:
        return is_admin if isinstance(is_admin, bool) else await is_admin()

    async def _season_arg(self, chat_id: int, lang: str, word: str) -> tuple[int, int] | Reply:
        """(the epoch `word` names, the current epoch), or the refusal."""
        current = await self.db.league_epoch(chat_id)
        epoch = parse_season(word, current)
        if isinstance(epoch, str):
            return Reply(t(lang, epoch, n=current + 1), key=epoch)
        return epoch, current

    # ------------------------------------------------------------------ /score [last | N]

    async def season_score(self, chat_id: int, arg: str = "") -> Reply:
        """/score: the season's standings (default the current one; `last` the previous,
        N season N) and who buys the beer, with as few payments as possible (§10.3)."""
        lang = await self.chat_lang(chat_id)
        found = await self._season_arg(chat_id, lang, arg)
        if isinstance(found, Reply):
            return found
        epoch, current = found
        balances = await self.db.balances(chat_id, epoch)
        if not balances:
            if epoch == current and current == 0:
                return Reply(t(lang, "err_no_ledger"), key="err_no_ledger")
            return Reply(t(lang, "lg_season_empty", n=epoch + 1), key="lg_season_empty")
        which = "lg_season_current" if epoch == current else "lg_season_archived"
        lines = [t(lang, "score_title"), t(lang, which, n=epoch + 1)]
        names = {b.user_id: b.name for b in balances}
        for b in balances:
            lines.append(t(lang, "score_row", name=b.name, balance=f"{b.balance:+d}"))
        lines.append("")
        lines.append(t(lang, "settle_title"))
        payments = settle({b.user_id: b.balance for b in balances})
        if not payments:
            lines.append(t(lang, "settle_none"))
        for debtor, creditor, amount in payments:
            lines.append(
                t(lang, "settle_row", debtor=names[debtor], creditor=names[creditor], amount=amount)
            )
        return Reply("\n".join(lines), key="score")

    # ------------------------------------------------------------------ /season (§10.4)

    async def ask_new_season(
        self, chat_id: int, person: Person, *, is_admin: bool | AdminCheck
    ) -> Reply:
        """/season (/stagione): an admin is asked to confirm with a button."""
        lang = await self.chat_lang(chat_id)
        if not await self._group_admin(is_admin):
            return Reply(t(lang, "lg_err_admin"), key="lg_err_admin")
        epoch = await self.db.league_epoch(chat_id)
        keyboard: Keyboard = [
            [
                Button(plain(lang, "lg_btn_season_yes"), season_data(epoch, True)),
                Button(plain(lang, "lg_btn_keep"), season_data(epoch, False)),
            ]
        ]
        return Reply(t(lang, "lg_season_ask", n=epoch + 1), keyboard, key="lg_season_ask")

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
        lang = await self.chat_lang(chat_id)
        if not await self._group_admin(is_admin):
            return Reply(t(lang, "lg_err_admin"), key="lg_err_admin")
        current = await self.db.league_epoch(chat_id)
        if epoch != current:
            return Reply(t(lang, "lg_err_season_stale"), key="lg_err_season_stale")
        if not yes:
            await self.out.edit(chat_id, message_id, Rendered(t(lang, "lg_kept"), []))
            return Reply(t(lang, "lg_kept"), key="lg_kept")
        new = await self.db.new_season(
            chat_id, epoch, person.user_id, person.name, datetime.now(UTC)
        )
        if new is None:
            return Reply(t(lang, "lg_err_season_stale"), key="lg_err_season_stale")
        text = t(lang, "lg_season_started", who=person.name, n=new + 1, old=new)
        await self.out.edit(chat_id, message_id, Rendered(text, []))
        return Reply(t(lang, "ok_played"), key="lg_season_started")

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
                amount=-amount,
            )
        deltas = ", ".join(f"{entry.names[u]} {d:+d}" for u, d in entry.deltas.items())
        when = entry.finished_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M")
        return t(
            lang,
            "lg_entry_game",
            variant=variant_name(lang, entry.variant),
            when=when,
            deltas=deltas,
        )

    async def ask_undo(self, chat_id: int, person: Person, *, is_admin: bool | AdminCheck) -> Reply:
        """/undo: an admin is shown the current season's last entry still standing (not an
        undo, not undone) and asked to confirm with a button."""
        lang = await self.chat_lang(chat_id)
        if not await self._group_admin(is_admin):
            return Reply(t(lang, "lg_err_admin"), key="lg_err_admin")
        entry = await self.db.last_undoable(chat_id)
        if entry is None:
            return Reply(t(lang, "lg_err_nothing_to_undo"), key="lg_err_nothing_to_undo")
        keyboard: Keyboard = [
            [
                Button(plain(lang, "lg_btn_undo_yes"), undo_data(entry.hand_id, True)),
                Button(plain(lang, "lg_btn_keep"), undo_data(entry.hand_id, False)),
            ]
        ]
        text = t(lang, "lg_undo_ask", entry_html=self._describe(lang, entry))
        return Reply(text, keyboard, key="lg_undo_ask")

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
        lang = await self.chat_lang(chat_id)
        if not await self._group_admin(is_admin):
            return Reply(t(lang, "lg_err_admin"), key="lg_err_admin")
        if not yes:
            last = await self.db.last_undoable(chat_id)
            if last is None or last.hand_id != hand_id:
                return Reply(t(lang, "lg_err_undo_stale"), key="lg_err_undo_stale")
            await self.out.edit(chat_id, message_id, Rendered(t(lang, "lg_kept"), []))
            return Reply(t(lang, "lg_kept"), key="lg_kept")
        outcome, entry = await self.db.undo_entry(
            chat_id, hand_id, person.user_id, person.name, datetime.now(UTC)
        )
        if outcome == ALREADY:
            return Reply(t(lang, "lg_err_undone_already"), key="lg_err_undone_already")
        if outcome != DONE or entry is None:
            return Reply(t(lang, "lg_err_undo_stale"), key="lg_err_undo_stale")
        target = entry.hand_key.removeprefix("undo:")
        entries = await self.db.season_entries(chat_id, entry.epoch)
        undone = next(e for e in entries if e.hand_key == target)
        text = t(lang, "lg_undone", who=person.name, entry_html=self._describe(lang, undone))
        await self.out.edit(chat_id, message_id, Rendered(text, []))
        return Reply(t(lang, "ok_played"), key="lg_undone")

    # ------------------------------------------------------------------ /export

    async def export_season(self, chat_id: int, args: list[str]) -> Reply | Document:
        """/export [csv|json] [last|N]: the season's ledger as a file, with its audit trail
        (undos, payments, who and when). A refusal is a Reply."""
        lang = await self.chat_lang(chat_id)
        words = [a.strip().lower() for a in args if a.strip()]
        fmt = "csv"
        if words and words[0] in FORMATS:
            fmt = words.pop(0)
        elif words and words[-1] in FORMATS:
            fmt = words.pop()
        if len(words) > 1:
            return Reply(t(lang, "lg_err_export_usage"), key="lg_err_export_usage")
        found = await self._season_arg(chat_id, lang, words[0] if words else "")
        if isinstance(found, Reply):
            if found.key == "lg_err_season_arg":
                return Reply(t(lang, "lg_err_export_usage"), key="lg_err_export_usage")
            return found
        epoch, _ = found
        entries = await self.db.season_entries(chat_id, epoch)
        audit = await self.db.ledger_audit(chat_id, epoch)
        if not entries:
            return Reply(t(lang, "lg_season_empty", n=epoch + 1), key="lg_season_empty")
        if fmt == "csv":
            data = export_csv(entries, audit).encode()
        else:
            balances = await self.db.balances(chat_id, epoch)
            content = export_json(chat_id, balances, entries, season=epoch + 1, audit=audit)
            data = (json.dumps(content, indent=2, ensure_ascii=False) + "\n").encode()
        filename = f"briscola-{abs(chat_id)}-{plain(lang, 'lg_file_season')}{epoch + 1}.{fmt}"
        caption = tn(lang, "lg_export_caption", len(entries), season=epoch + 1)
        return Document(filename, data, caption)

    # ------------------------------------------------------------------ /beer (§10.3)

    async def _settlement(
        self, chat_id: int, epoch: int, version: int
    ) -> tuple[list[Payment], set[tuple[int, int]], dict[int, str]]:
        """The settlement shown at `version` of season `epoch`, the payments of it written
        since (debtor, creditor), and everyone's name."""
        balances = await self.db.balances_at(chat_id, epoch, version)
        payments = settle(balances)
        names = {b.user_id: b.name for b in await self.db.balances(chat_id, epoch)}
        prefix = payment_key(epoch, version, 0, 0).removesuffix("0:0")
        paid: set[tuple[int, int]] = set()
        for e in await self.db.season_entries(chat_id, epoch):
            if e.kind == PAYMENT and e.hand_key.startswith(prefix):
                debtor, creditor = e.hand_key[len(prefix) :].split(":")
                paid.add((int(debtor), int(creditor)))
        return payments, paid, names

    def _beer_message(
        self,
        lang: str,
        epoch: int,
        version: int,
        payments: list[Payment],
        paid: set[tuple[int, int]],
        names: dict[int, str],
    ) -> Rendered:
        lines = [t(lang, "lg_beer_title", n=epoch + 1)]
        keyboard: Keyboard = []
        if not payments:
            lines.append(t(lang, "settle_none"))
        for debtor, creditor, amount in payments:
            row = t(
                lang, "settle_row", debtor=names[debtor], creditor=names[creditor], amount=amount
            )
            if (debtor, creditor) in paid:
                lines.append(t(lang, "lg_beer_paid_row", row_html=row))
                continue
            lines.append(row)
            label = plain(
                lang,
                "lg_btn_paid",
                debtor=short_name(names[debtor], BUTTON_NAME_MAX),
                creditor=short_name(names[creditor], BUTTON_NAME_MAX),
                amount=amount,
            )
            keyboard.append([Button(label, paid_data(epoch, version, (debtor, creditor, amount)))])
        if payments and len(paid) == len(payments):
            lines.append(t(lang, "lg_beer_all_paid"))
        elif keyboard:
            lines.append(t(lang, "lg_beer_hint"))
        return Rendered("\n".join(lines), keyboard)

    async def beer(self, chat_id: int) -> Reply:
        """/beer (/birra): the current season's settlement alone, with fewest payments, and a
        "pagato" button per payment for its payer (or an admin)."""
        lang = await self.chat_lang(chat_id)
        epoch = await self.db.league_epoch(chat_id)
        version = await self.db.ledger_version(chat_id)
        payments, paid, names = await self._settlement(chat_id, epoch, version)
        if not names:
            return Reply(t(lang, "err_no_ledger"), key="err_no_ledger")
        shown = self._beer_message(lang, epoch, version, payments, paid, names)
        return Reply(shown.text, shown.keyboard or None, key="lg_beer")

    async def mark_paid(
        self,
        chat_id: int,
        message_id: int,
        person: Person,
        epoch: int,
        version: int,
        payment: Payment,
        *,
        is_admin: bool | AdminCheck,
    ) -> Reply:
        """A "pagato" tap: the payer (or an admin) marks a payment of the settlement shown
        at `version` as made; it becomes a ledger entry and the message shows it paid. A tap
        on a settlement the ledger has left behind, a second tap, or data that names no
        payment of it, change nothing."""
        lang = await self.chat_lang(chat_id)
        debtor, creditor, _ = payment
        if epoch != await self.db.league_epoch(chat_id):
            return Reply(t(lang, "lg_err_beer_stale"), key="lg_err_beer_stale")
        payments, paid, names = await self._settlement(chat_id, epoch, version)
        if payment not in payments:
            return Reply(t(lang, "err_bad_data"), key="err_bad_data")
        if (debtor, creditor) in paid:
            return Reply(t(lang, "lg_err_paid_already"), key="lg_err_paid_already")
        if person.user_id != debtor and not await self._group_admin(is_admin):
            # a tap's answer is plain text (not HTML): the name as it is
            text = plain(lang, "lg_err_not_payer", who=names[debtor])
            return Reply(text, alert=True, key="lg_err_not_payer")
        outcome = await self.db.record_payment(
            chat_id,
            epoch,
            version,
            payment,
            names,
            person.user_id,
            person.name,
            datetime.now(UTC),
        )
        if outcome == ALREADY:
            return Reply(t(lang, "lg_err_paid_already"), key="lg_err_paid_already")
        if outcome != DONE:
            return Reply(t(lang, "lg_err_beer_stale"), key="lg_err_beer_stale")
        paid.add((debtor, creditor))
        shown = self._beer_message(lang, epoch, version, payments, paid, names)
        await self.out.edit(chat_id, message_id, shown)
        return Reply(t(lang, "lg_ok_paid"), key="lg_ok_paid")


__all__ = ["Document", "League", "parse_season"]
