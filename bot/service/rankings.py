"""/top, /h2h and /score chart: the group's leaderboard, two people together and against each
other, the season's balances as a picture; from the records and ratings `Records` reads.

    /top [one|teams|multi|chiamata]         the group's leaderboard per family (`two`: both
                                            two-sided ones, one against one and two teams)
    /h2h @a [@b]                            two people together and against each other
    /score chart                            the season's balances over time, as a picture
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Final

from bot.i18n import plain, t, tn
from bot.service.langs import Languages
from bot.service.league import parse_season
from bot.service.records import CHART_WORDS, Chart, Records, Who, rating_text
from bot.service.types import Person, Reply, reply_lang
from bot.table.plays import FAMILIES
from bot.table.rating import PROVISIONAL_GAMES
from bot.table.stats import head_to_head, known_names
from bot.view import charts
from storage import Database

FAMILY_WORDS: Final[dict[str, tuple[str, ...]]] = {
    "one": ("one",),
    "uno": ("one",),
    "1": ("one",),
    "singles": ("one",),
    "singoli": ("one",),
    "teams": ("two",),
    "squadre": ("two",),
    "pairs": ("two",),
    "coppie": ("two",),
    # two sides, as the word meant before one against one was rated apart: both
    "two": ("one", "two"),
    "due": ("one", "two"),
    "2": ("one", "two"),
    "multi": ("multi",),
    "tre": ("multi",),
    "three": ("multi",),
    "3": ("multi",),
    "chiamata": ("chiamata",),
    "called": ("chiamata",),
}
TOP_ROWS: Final = 10


class Rankings:
    """/top, /h2h and /score chart: the records (`records`: the ratings, whom a command names)
    and the ledger in the database, the chat's language (`langs`)."""

    def __init__(self, db: Database, langs: Languages, records: Records) -> None:
        self.db = db
        self.langs = langs
        self.records = records

    # ------------------------------------------------------------------ /top

    async def top(self, chat_id: int, words: Sequence[str]) -> Reply:
        """/top [one|teams|multi|chiamata]: the group's leaderboard (every family with
        ratings, or the one named; `two` both two-sided ones), with each rating's uncertainty
        in words."""
        lang = await self.langs.chat(chat_id)
        wanted = [FAMILY_WORDS.get(w.strip().lower()) for w in words]
        if len(wanted) > 1 or None in wanted:
            return Reply(t(reply_lang(lang), "st_err_top_usage"), key="st_err_top_usage")
        group, _ = await self.records.ratings(chat_id)
        hands, matches = await self.records.views(chat_id)
        names = known_names(hands, matches)
        named = [f for found in wanted if found for f in found]
        families = named or [f for f in FAMILIES if group.by_family.get(f)]
        lines: list[str] = []
        for family in families:
            board = group.leaderboard(family)[:TOP_ROWS]
            if not board:
                continue
            if lines:
                lines.append("")
            lines.append(t(lang, "st_top_title", family=t(lang, f"st_family_{family}")))
            unit = "st_hands_n" if family == "chiamata" else "st_games_n"
            for pos, (uid, rating) in enumerate(board, 1):
                lines.append(
                    t(
                        lang,
                        "st_top_row",
                        pos=pos,
                        name=names.get(uid, str(uid)),
                        rating_html=rating_text(lang, rating),
                        games_html=tn(lang, unit, rating.games),
                    )
                )
        if not lines:
            return Reply(t(reply_lang(lang), "st_top_empty"), key="st_top_empty")
        lines.append("")
        lines.append(t(lang, "st_top_note", need=PROVISIONAL_GAMES))
        return Reply("\n".join(lines), key="st_top")

    # ------------------------------------------------------------------ /h2h

    async def h2h(
        self, chat_id: int, me: Person, words: Sequence[str], people: Sequence[int] = ()
    ) -> Reply:
        """/h2h @a @b (or /h2h @a: the sender and a): in this group, every season."""
        lang = await self.langs.chat(chat_id)
        named: list[Who] = [*people, *(w for w in words if w.strip())]
        if not 1 <= len(named) <= 2:
            return Reply(t(reply_lang(lang), "st_err_h2h_usage"), key="st_err_h2h_usage")
        hands, matches = await self.records.views(chat_id)
        names = await self.records.known(chat_id, hands, matches)
        names.setdefault(me.user_id, me.name)
        found: list[tuple[int, str]] = [] if len(named) == 2 else [(me.user_id, names[me.user_id])]
        for word in named:
            who = await self.records.resolve(word, names)
            if who is None:
                text = word if isinstance(word, str) else str(word)
                return Reply(t(reply_lang(lang), "st_err_unknown", who=text), key="st_err_unknown")
            found.append(who)
        (a, a_name), (b, b_name) = found
        if a == b:
            return Reply(t(reply_lang(lang), "st_err_h2h_same"), key="st_err_h2h_same")
        table = head_to_head(a, b, hands, matches)
        lines = [t(lang, "st_h2h_title", a=a_name, b=b_name)]
        if not table:
            lines.append(t(lang, "st_h2h_none"))
        for family in FAMILIES:
            h = table.get(family)
            if h is None:
                continue
            unit = "st_hands_n" if family == "chiamata" else "st_games_n"
            lines.append("")
            lines.append(t(lang, "st_variant", variant=t(lang, f"st_family_{family}")))
            lines.append(
                t(
                    lang,
                    "st_h2h_together",
                    games_html=tn(lang, unit, h.together),
                    won=h.together_won,
                )
            )
            lines.append(
                t(
                    lang,
                    "st_h2h_against",
                    games_html=tn(lang, unit, h.against),
                    a=a_name,
                    a_won=h.a_won,
                    b=b_name,
                    b_won=h.b_won,
                )
            )
        lines.append("")
        lines.append(t(lang, "st_h2h_note"))
        return Reply("\n".join(lines), key="st_h2h")

    # ------------------------------------------------------------------ /score chart

    async def score_chart(self, chat_id: int, words: Sequence[str]) -> Reply | Chart:
        """/score chart [last|N]: each person's balance after every ledger entry of the
        season (games, undos, payments), as a picture."""
        lang = await self.langs.chat(chat_id)
        rest = [w for w in words if w.strip().lower() not in CHART_WORDS]
        if len(rest) > 1:
            return Reply(
                t(reply_lang(lang), "st_err_score_chart_usage"), key="st_err_score_chart_usage"
            )
        current = await self.db.people.league_epoch(chat_id)
        epoch = parse_season(rest[0] if rest else "", current)
        if isinstance(epoch, str):
            return Reply(t(reply_lang(lang), epoch, n=current + 1), key=epoch)
        entries = await self.db.ledger.season_entries(chat_id, epoch)
        if not entries:
            return Reply(t(reply_lang(lang), "lg_season_empty", n=epoch + 1), key="lg_season_empty")
        names: dict[int, str] = {}
        running: dict[int, int] = {}
        series: dict[int, list[int]] = {}
        for i, entry in enumerate(entries):
            for uid, delta in entry.deltas.items():
                names[uid] = entry.names.get(uid, names.get(uid, str(uid)))
                if uid not in series:
                    series[uid] = [0] * i
                running[uid] = running.get(uid, 0) + delta
            for uid in series:
                series[uid].append(running.get(uid, 0))
        lines = {names[uid]: values for uid, values in sorted(series.items())}
        title = plain(lang, "st_chart_balance_title", n=epoch + 1)
        png = await asyncio.to_thread(
            charts.balance_chart,
            lines,
            title,
            plain(lang, "st_chart_balance_x"),
            plain(lang, "st_chart_balance_y"),
        )
        return Chart(png, t(lang, "st_chart_balance_caption", n=epoch + 1))
