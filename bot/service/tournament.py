"""Tournaments (RULES §11): /torneo, the registration buttons, and the matches played one after
another in the group.

A group has one active table at a time (`Registry.table_for_chat`), so a tournament plays
its matches in schedule order: it announces each round's pairings, then opens the next
match's table itself (the two teams' members seated as partners, §5.1: team a at seats 0 and
2; options `quattro`, `match=fixed5`: 5 hands, all played, a 60-60 hand replayed, §4.3-4.4)
and starts it. When a table closes (the table service calls `table_closed` as it lets a
closed table go) the tournament looks at its current match (`_tour_advance`): a finished
table's result is recorded and the next match opens; a cancelled one is played again (the
organiser cancels the tournament to stop). A table the group opened meanwhile makes the
tournament wait until it closes. A restarted bot does the same for every running tournament
(`restore`), so a match that finished while it was down moves on.

Members may change between matches (§11.3): a member leaves their team (`/torneo esci`), and
someone in no team takes the free place with the team's button; a place still free when the
team's match opens is played by a computer (`normal`). Each match keeps who played it.
Tournament tables are ordinary tables for the ledger (§10.2, §10.5): a match with a computer
at the table writes to it only if the organiser chose so before the start (`/torneo conti
sì`, the tournament's `counts`, given to each of its tables), and then only the people's
deltas; the registration message and the start say which. A tournament's match ends with no
message of its own and no rematch (the tournament opens the next match): the tournament's
message after it says the result and what the ledger got, the standings and what comes next
(the next round's pairings, or the final standings), one message that notifies.

/torneo once the group's last tournament is over (none registering or running) shows its
final standings with a button that opens a new one like it (`tour_again`); `/torneo due`,
`/torneo coppie` open a new one at once.

`/torneo due` (or another 2-player variant: `SINGLES_VARIANTS`) is a tournament of single
players: each "team" is one person, the matches are one against one in that variant, the
rest the same; its texts say "players" (`Tournament.key`).

Every change is written (with the tournament's version checked) before it is shown; the
tournament's own lock is the group's (the table service's `chat_lock`), which also orders
opening its tables with /new.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

from bot.engine import Match, Options
from bot.i18n import t
from bot.players import DEFAULT_LEVEL, LEVELS
from bot.service.closing import Closing
from bot.service.langs import Languages, note_person, own_lang
from bot.service.lobby import Lobby
from bot.service.registry import Registry
from bot.service.settings import SWITCH_WORDS
from bot.service.shown import Shown
from bot.service.types import AdminCheck, Outbox, Person, Reply, refusal, reply_lang
from bot.table.table import FINISHED, LOBBY, PLAYING, Seat, Table, TableError
from bot.table.tournament import (
    DEFAULT_POINTS,
    DONE,
    PAIRS_VARIANT,
    REGISTERING,
    RUNNING,
    Fixture,
    Member,
    Result,
    Tournament,
)
from bot.view.render import Button, Rendered
from bot.view.render_tournament import (
    again_message,
    final_message,
    ledger_line,
    match_done_text,
    round_message,
    status_text,
    tournament_message,
)
from storage import Database, StorageError
from storage.tournaments import NewFixture, TournamentRow

log = logging.getLogger(__name__)

TOURNAMENT_OPTIONS = {"match": "fixed5"}  # §11.2: 5 hands, all played


def tournament_from_row(row: TournamentRow, default_lang: str) -> Tournament:
    tour = Tournament(
        tournament_id=row.tournament_id,
        chat_id=row.chat_id,
        organiser_id=row.organiser_id,
        organiser_name=row.organiser_name,
        lang=row.lang or default_lang,
        status=row.status,
        teams=Tournament.teams_from_json(row.teams_json),
        points=tuple(json.loads(row.points_json)),
        message_id=row.message_id,
        version=row.version,
        variant=row.variant,
        counts=row.counts,
    )
    for f in row.fixtures:
        result = None
        if f.hands_a is not None and f.hands_b is not None:
            result = Result(f.hands_a, f.hands_b, f.cards_a or 0, f.cards_b or 0)
        tour.fixtures.append(
            Fixture(
                f.round,
                f.team_a,
                f.team_b,
                f.table_id,
                Tournament.seats_from_json(f.seats_json),
                result,
            )
        )
    return tour


def match_result(match: Match) -> Result:
    """A finished fixed5 match's result (§4.3): hands won and card points, side a first."""
    return Result(
        match.hands_won[0], match.hands_won[1], match.side_points[0], match.side_points[1]
    )


class Tournaments:
    """/torneo and its buttons; the tournament's matches, one after another, each on a table
    of the table service: the group's lock and table (`tables`), a match's table opened and
    started (`lobby`), cancelled (`closing`); told when one closes (`table_closed`)."""

    def __init__(
        self,
        db: Database,
        outbox: Outbox,
        langs: Languages,
        registry: Registry,
        shown: Shown,
        lobby: Lobby,
        closing: Closing,
    ) -> None:
        self.registry = registry
        self.shown = shown
        self.lobby = lobby
        self.play = lobby.play  # what a finished match wrote in the ledger
        self.closing = closing
        self.db = db
        self.out = outbox
        self.langs = langs
        # the tournament message: what is shown and what should be, per tournament
        self._tour_shown: dict[int, tuple[Any, ...]] = {}
        self._tour_want: dict[int, tuple[int, int, Rendered]] = {}
        self._tour_editing: set[int] = set()

    def _tour(self, row: TournamentRow) -> Tournament:
        return tournament_from_row(row, self.langs.default)

    # ------------------------------------------------------------------ the message

    def _show_tour(self, tour: Tournament) -> None:
        """Bring the tournament message up to date (edits coalesced, in order)."""
        if tour.message_id is None:
            return
        content = tournament_message(tour, tour.lang)
        tid = tour.tournament_id
        self._tour_want[tid] = (tour.chat_id, tour.message_id, content)
        if tid not in self._tour_editing:
            self._tour_editing.add(tid)
            self.registry.spawn(self._tour_edits(tid))

    async def _tour_edits(self, tid: int) -> None:
        try:
            while True:
                want = self._tour_want.get(tid)
                if want is None:
                    return
                chat_id, message_id, content = want
                key = (message_id, content.key())
                if self._tour_shown.get(tid) == key:
                    return
                await self.out.edit(chat_id, message_id, content)
                self._tour_shown[tid] = key
        finally:
            self._tour_editing.discard(tid)

    async def _post_tour(self, tour: Tournament) -> None:
        """Post the tournament message anew (the old one, if any, loses its buttons)."""
        content = tournament_message(tour, tour.lang)
        old = tour.message_id
        message_id = await self.out.post(tour.chat_id, content)
        if message_id is None:
            return
        try:
            tour.version = await self.db.tournaments.update_tournament(
                tour.tournament_id, tour.version, message_id=message_id
            )
        except StorageError:
            log.exception("tournament %s: noting its message failed", tour.tournament_id)
            return
        tour.message_id = message_id
        self._tour_shown[tour.tournament_id] = (message_id, content.key())
        if old is not None:
            moved = Rendered(t(tour.lang, "tour_moved"), [])
            self.registry.spawn(self.out.edit(tour.chat_id, old, moved))

    # ------------------------------------------------------------------ /torneo

    async def tournament(
        self, chat_id: int, person: Person, is_group: bool, variant: str | None = None
    ) -> Reply:
        """/torneo: a new tournament with its registration message (of pairs; with a 2-player
        `variant`, /torneo due: of single players), or, while one registers, its message
        again below; while one runs, the standings and the next match. Without a `variant`
        (a bare /torneo), once the group's last tournament is over: its final standings and
        the button that opens a new one like it (`tour_again`)."""
        lang = await self.langs.chat(chat_id)
        if not is_group:
            return Reply(t(reply_lang(lang), "err_group_only"))
        await self.db.people.upsert_user(person.user_id, person.name)
        async with self.registry.chat_lock(chat_id):
            row = await self.db.tournaments.active_tournament(chat_id)
            if row is not None:
                tour = self._tour(row)
                if tour.status == RUNNING:
                    return Reply(status_text(tour, tour.lang))
                await self._post_tour(tour)
                return Reply("")
            if variant is None:
                last = await self.db.tournaments.last_tournament(chat_id)
                if last is not None and last.status == DONE:
                    tour = self._tour(last)
                    content = again_message(tour, tour.lang)
                    return Reply(content.text, content.keyboard, key="tour_again")
            return await self._open_tour(chat_id, person, lang, variant or PAIRS_VARIANT)

    async def tour_again(self, chat_id: int, person: Person, message_id: int | None) -> Reply:
        """The button under a finished tournament's final standings (`again_message`, the
        message `message_id`): a new tournament like the group's last one (its variant),
        organised by who tapped; refused while the group has one registering or running."""
        lang = await self.langs.chat(chat_id)
        await self.db.people.upsert_user(person.user_id, person.name)
        async with self.registry.chat_lock(chat_id):
            if await self.db.tournaments.active_tournament(chat_id) is not None:
                return Reply(t(reply_lang(lang), "err_tour_open"))
            last = await self.db.tournaments.last_tournament(chat_id)
            variant = last.variant if last is not None else PAIRS_VARIANT
            reply = await self._open_tour(chat_id, person, lang, variant)
        if not reply.text and message_id is not None:  # the button has done its work
            self.registry.spawn(self.out.clear_buttons(chat_id, message_id))
        return reply

    async def _open_tour(self, chat_id: int, person: Person, lang: str, variant: str) -> Reply:
        """Under the group's lock, none registering or running: a new tournament of `variant`,
        its registration message posted."""
        row = await self.db.tournaments.create_tournament(
            chat_id,
            person.user_id,
            person.name,
            lang,
            json.dumps(list(DEFAULT_POINTS)),
            "[]",
            variant,
        )
        if row is None:
            return Reply(t(reply_lang(lang), "err_busy"))
        await self._post_tour(self._tour(row))
        return Reply("")

    async def _tour_op(
        self,
        chat_id: int,
        op: Callable[[Tournament], str],
        *,
        tournament_id: int | None = None,
    ) -> tuple[Reply, Tournament | None]:
        """Change the group's tournament with `op` (under the group's lock), write it, show
        it. A refusal changes nothing."""
        lang = await self.langs.chat(chat_id)
        async with self.registry.chat_lock(chat_id):
            row = await self.db.tournaments.active_tournament(chat_id)
            if row is None or (tournament_id is not None and row.tournament_id != tournament_id):
                return Reply(t(reply_lang(lang), "err_tour_none")), None
            tour = self._tour(row)
            lang = tour.lang
            was = tour.status
            try:
                key = op(tour)
            except TableError as exc:
                return refusal(lang, exc), None
            schedule: tuple[NewFixture, ...] = ()
            if was == REGISTERING and tour.status == RUNNING:
                schedule = tuple(
                    NewFixture(i, f.round, f.a, f.b) for i, f in enumerate(tour.fixtures)
                )
            try:
                tour.version = await self.db.tournaments.update_tournament(
                    tour.tournament_id,
                    tour.version,
                    status=tour.status,
                    teams_json=tour.teams_json(),
                    points_json=tour.points_json(),
                    counts=tour.counts,
                    schedule=schedule,
                )
            except StorageError:
                log.exception("tournament %s: write failed", tour.tournament_id)
                return Reply(t(reply_lang(lang), "err_busy")), None
            self._show_tour(tour)
        base, _, num = key.partition(":")  # "ok_tour_team:3": the text names team 3
        base = tour.key(base)  # singles: the text that names players
        rl = reply_lang(lang)
        text = (t(rl, base, n=int(num)) if num else t(rl, base)) if base else ""
        return Reply(text, key=base), tour

    async def tour_new_team(
        self, chat_id: int, person: Person, tournament_id: int | None = None
    ) -> Reply:
        user = await note_person(self.db, person)
        lang = own_lang(person, user)
        member = Member(person.user_id, person.name, lang=lang)
        reply, tour = await self._tour_op(
            chat_id,
            lambda tr: _keyed("ok_tour_team", tr.new_team(member)),
            tournament_id=tournament_id,
        )
        return self._tour_dm(reply, tour, user is None or user.can_dm, person)

    async def tour_join(
        self, chat_id: int, person: Person, team: int, tournament_id: int | None = None
    ) -> Reply:
        user = await note_person(self.db, person)
        member = Member(person.user_id, person.name, lang=own_lang(person, user))

        def op(tr: Tournament) -> str:
            tr.join_team(team, member)
            return _keyed("ok_tour_team", team)

        reply, tour = await self._tour_op(chat_id, op, tournament_id=tournament_id)
        return self._tour_dm(reply, tour, user is None or user.can_dm, person)

    def _tour_dm(
        self, reply: Reply, tour: Tournament | None, can_dm: bool, person: Person
    ) -> Reply:
        """A person who joined a team but never opened a private chat with the bot (their
        hand comes there) gets the button that opens it."""
        if tour is None or can_dm or tour.team_of(person.user_id) is None:
            return reply
        lang = reply_lang(tour.lang)
        link = [[Button(t(lang, "btn_open_chat"), url=f"https://t.me/{self.shown.bot_username}")]]
        return Reply(f"{reply.text} {t(lang, 'tour_need_dm')}", link, key=reply.key)

    async def tour_leave(
        self, chat_id: int, person: Person, tournament_id: int | None = None
    ) -> Reply:
        reply, _ = await self._tour_op(
            chat_id,
            lambda tr: _keyed("ok_tour_left", tr.leave(person.user_id)),
            tournament_id=tournament_id,
        )
        return reply

    async def _tour_admin(self, chat_id: int, person: Person, is_admin: bool | AdminCheck) -> bool:
        """Whether `person` may manage the group's tournament as an admin (the organiser
        needs no check: Telegram is asked only for someone else)."""
        if isinstance(is_admin, bool):
            return is_admin
        row = await self.db.tournaments.active_tournament(chat_id)
        if row is None or row.organiser_id == person.user_id:
            return False
        return await is_admin()

    async def _organiser_op(
        self,
        chat_id: int,
        person: Person,
        admin: bool,
        op: Callable[[Tournament], str | None],
        *,
        tournament_id: int | None = None,
    ) -> tuple[Reply, Tournament | None]:
        """`_tour_op` for what only the organiser, or an admin (`admin`), may do (an `op`
        that returns None answers with no text)."""

        def checked(tr: Tournament) -> str:
            if person.user_id != tr.organiser_id and not admin:
                raise TableError("err_tour_not_organiser")
            return op(tr) or ""

        return await self._tour_op(chat_id, checked, tournament_id=tournament_id)

    async def tour_add_bot(
        self,
        chat_id: int,
        person: Person,
        *,
        is_admin: bool | AdminCheck,
        team: int | None = None,
        level: str = DEFAULT_LEVEL,
        tournament_id: int | None = None,
    ) -> Reply:
        """The organiser (or an admin) adds a computer player: to team `team`, else to the
        newest team with a free place, else as a new team."""
        admin = await self._tour_admin(chat_id, person, is_admin)

        def op(tr: Tournament) -> str:
            if level not in LEVELS:
                raise TableError("err_bad_level", levels=", ".join(LEVELS))
            return _keyed("ok_tour_bot", tr.add_computer(level, team))

        reply, _ = await self._organiser_op(chat_id, person, admin, op, tournament_id=tournament_id)
        return reply

    async def tour_points(
        self, chat_id: int, person: Person, points: list[int], *, is_admin: bool | AdminCheck
    ) -> Reply:
        """The match points for 5-0, 4-1, ... 0-5 (§11.2), before the start."""
        admin = await self._tour_admin(chat_id, person, is_admin)

        def op(tr: Tournament) -> str:
            tr.set_points(list(reversed(points)))
            return "ok_tour_points"

        reply, _ = await self._organiser_op(chat_id, person, admin, op)
        return reply

    async def tour_counts(
        self,
        chat_id: int,
        person: Person,
        value: str,
        *,
        is_admin: bool | AdminCheck,
        tournament_id: int | None = None,
    ) -> Reply:
        """/torneo conti sì|no (or its button): whether the matches with a computer at the
        table go in the group's ledger (§10.5: only the people's deltas), before the start;
        the organiser's (or an admin's) choice. A word that is no yes or no changes nothing."""
        switch = SWITCH_WORDS.get(value.strip().lower())
        if switch is None:
            lang = await self.langs.chat(chat_id)
            return Reply(t(reply_lang(lang), "err_tour_counts"))
        counts = switch == "true"
        admin = await self._tour_admin(chat_id, person, is_admin)

        def op(tr: Tournament) -> str:
            tr.set_counts(counts)
            return "ok_tour_counts_on" if counts else "ok_tour_counts_off"

        reply, _ = await self._organiser_op(chat_id, person, admin, op, tournament_id=tournament_id)
        return reply

    async def tour_start(
        self,
        chat_id: int,
        person: Person,
        *,
        is_admin: bool | AdminCheck,
        tournament_id: int | None = None,
    ) -> Reply:
        """The organiser (or an admin) closes registration: the schedule is drawn up, the
        first round announced and its first match opened."""
        admin = await self._tour_admin(chat_id, person, is_admin)
        lang = await self.langs.chat(chat_id)
        if await self.registry.table_for_chat(chat_id) is not None:
            return Reply(t(reply_lang(lang), "err_tour_table_open"))
        reply, tour = await self._organiser_op(
            chat_id, person, admin, Tournament.start, tournament_id=tournament_id
        )
        if tour is None:
            return reply
        started = t(
            tour.lang,
            tour.key("tour_started"),
            teams=len(tour.teams),
            matches=len(tour.fixtures),
            rounds=tour.rounds,
        )
        # §10.5: whether its matches go in the group's ledger, said as it starts
        await self.out.say(chat_id, started + "\n" + ledger_line(tour, tour.lang))
        await self._tour_step(chat_id)
        return Reply("")

    async def tour_cancel(
        self,
        chat_id: int,
        person: Person,
        *,
        is_admin: bool | AdminCheck,
        tournament_id: int | None = None,
    ) -> Reply:
        """The organiser (or an admin) cancels the tournament; its match playing is
        cancelled too (the results so far stay stored)."""
        admin = await self._tour_admin(chat_id, person, is_admin)
        reply, tour = await self._organiser_op(
            chat_id, person, admin, Tournament.cancel, tournament_id=tournament_id
        )
        if tour is None:
            return reply
        for f in tour.fixtures:
            table = await self.registry.current(f.table_id) if f.table_id is not None else None
            if table is not None:
                closed = {"key": "cancelled_by", "who": person.name}
                await self.closing.close_table(table.table_id, closed)
        return Reply(t(reply_lang(tour.lang), "tour_cancelled", who=person.name))

    # ------------------------------------------------------------------ the matches

    def table_closed(self, table: Table) -> None:
        """A table closed (the table service's `on_closed`): if it played the group's
        tournament's match, the tournament moves on."""
        self.registry.spawn(self._tour_step(table.chat_id))

    async def restore(self) -> int:
        """After a restart: every running tournament carries on (a match that finished
        while the bot was down is recorded, the next one opens)."""
        rows = await self.db.tournaments.running_tournaments()
        for row in rows:
            await self._tour_step(row.chat_id)
        return len(rows)

    async def _tour_step(self, chat_id: int) -> None:
        try:
            async with self.registry.chat_lock(chat_id):
                await self._tour_advance(chat_id)
        except Exception:  # the next closed table or restart tries again
            log.exception("chat %s: the tournament could not move on", chat_id)

    async def _tour_advance(self, chat_id: int) -> None:
        """Under the group's lock: record the current match if its table finished (a
        cancelled one is played again), and open the next match unless one is playing.
        What there is to say (the result and the standings, then the next round's pairings
        or the final standings) goes to the group as one message: one notification. It is
        said before the results are stored: a bot stopping meanwhile (`Outbox.say` False)
        stores nothing, and the next run says it all (a result is never lost unsaid)."""
        row = await self.db.tournaments.active_tournament(chat_id)
        if row is None or row.status != RUNNING:
            return
        tour = self._tour(row)
        lang = tour.lang
        news: list[str] = []
        writes: list[dict[str, Any]] = []  # `update_tournament`'s changes, in order
        index = await self._tour_settle(tour, news, writes)
        opening = index is not None and await self.registry.table_for_chat(chat_id) is None
        if index is not None and opening:  # else the group's table closes first: then again
            f = tour.fixtures[index]
            if not any(g.table_id is not None for g in tour.fixtures if g.round == f.round):
                news.append(round_message(tour, f.round, lang))  # a new round
        if news and not await self.out.say(chat_id, "\n\n".join(news)):
            return
        for change in writes:
            tour.version = await self.db.tournaments.update_tournament(
                tour.tournament_id, tour.version, **change
            )
        if tour.status == DONE:
            self._show_tour(tour)
        if index is not None and opening:
            await self._open_match(tour, index)

    async def _tour_settle(
        self, tour: Tournament, news: list[str], writes: list[dict[str, Any]]
    ) -> int | None:
        """Record in `tour` the matches whose tables finished (a cancelled one is played
        again): what to say of them added to `news`, what to store of them to `writes` (the
        caller stores it once it is said). Returns the match to open next; None when one is
        playing or the tournament is over."""
        chat_id, lang = tour.chat_id, tour.lang
        index = tour.next_fixture()
        while index is not None:
            f = tour.fixtures[index]
            if f.table_id is None:
                return index
            trow = await self.db.tables.get_table(f.table_id)
            if trow is not None and trow.status in (LOBBY, PLAYING):
                if trow.status == LOBBY:  # stored, not started (the bot stopped in between)
                    await self._start_match(chat_id, trow.table_id)
                return None
            if trow is not None and trow.status == FINISHED and trow.match_json:
                table = self.registry.from_row(trow)
                assert table.match is not None
                result = match_result(table.match)
                tour.record(index, result)
                writes.append(
                    {
                        "status": tour.status,
                        "result": (
                            index,
                            result.hands_a,
                            result.hands_b,
                            result.cards_a,
                            result.cards_b,
                        ),
                    }
                )
                news.append(match_done_text(tour, index, lang, await self._ledger(table)))
                if tour.status == DONE:
                    news.append(final_message(tour, lang))
                    return None
                index = tour.next_fixture()
                continue
            # cancelled (or gone): the match is played again
            f.table_id, f.seats = None, None
            writes.append({"table": (index, None, None)})
            news.append(t(lang, "tour_replay"))
            return index
        return None

    async def _ledger(self, table: Table) -> str:
        """What a match's table wrote in the group's ledger, as a match's end says it."""
        try:
            return await self.play.ledger_lines(table, table.lang)
        except Exception:  # the result and the standings are said all the same
            log.exception("table %s: reading the balances failed", table.table_id)
            return ""

    async def _open_match(self, tour: Tournament, index: int) -> None:
        """Open and start the table of match `index` (its seats written with it)."""
        chat_id = tour.chat_id
        seats = tour.seats_for(index)
        table = Table(
            0,
            chat_id,
            tour.organiser_id,
            Options.parse(tour.variant, TOURNAMENT_OPTIONS),
            lang=tour.lang,
            counts=tour.counts,  # §10.5: only the people's deltas, if the organiser chose so
            tournament=tour.tournament_id,  # no rematch: the tournament opens the next match
        )
        for m in seats:
            table.seats.append(Seat(m.user_id, m.name, m.level if m.is_bot else None, m.lang))
        if not await self.lobby.open_table(table):
            return  # the group opened a table meanwhile: its closing brings us back
        tour.version = await self.db.tournaments.update_tournament(
            tour.tournament_id,
            tour.version,
            table=(index, table.table_id, Tournament.seats_to_json(seats)),
        )
        tour.fixtures[index].table_id = table.table_id
        tour.fixtures[index].seats = seats
        self._show_tour(tour)
        await self._start_match(chat_id, table.table_id)

    async def _start_match(self, chat_id: int, table_id: int) -> None:
        reply = await self.lobby.start_match(chat_id, table_id)
        if reply.text:
            log.warning("table %s: the tournament's match did not start: %s", table_id, reply.text)


def _keyed(key: str, team: int) -> str:
    """An answer of `_tour_op` that names a team (shown from 1): "ok_tour_team:3"."""
    return f"{key}:{team + 1}"


__all__ = ["Tournaments", "match_result", "tournament_from_row"]
