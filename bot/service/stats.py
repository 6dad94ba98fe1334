"""/stats: a person's numbers, from the hand and match records a table writes with its ledger
(`bot.table.stats`, `bot.table.rating`; storage's migration 6), read through `Records`.

    /stats [@person] [last|N|all] [chart]   a person's numbers (the sender by default, or the
                                            author of the message replied to), per variant,
                                            with the points the hands' reviews found they
                                            gave away (issue 51) next to the computers';
                                            the current season by default; `chart`: their
                                            rating over time, as a picture
    /stats in a private chat                the sender's own numbers in each group they play
                                            in, and across groups (`mine`)

/top, /h2h and /score chart are `bot.service.rankings`'.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final

from bot.i18n import plain, t, tn, variant_name
from bot.service.langs import Languages
from bot.service.league import LAST_WORDS, parse_season
from bot.service.records import CHART_WORDS, Chart, Records, Who, rating_text
from bot.service.types import Person, Reply, reply_lang
from bot.table.plays import FAMILIES, StoredPlay
from bot.table.rating import NEWCOMER, SHOWN_BASE, SHOWN_SCALE, Ratings
from bot.table.stats import (
    GivenAway,
    HandView,
    MatchView,
    VariantStats,
    given_away,
    player_stats,
    views,
)
from bot.view import charts
from bot.view.render import points_text, short_name
from storage import Database
from storage.league import PAYMENT

ALL_WORDS: Final = frozenset({"all", "tutte", "sempre", "ever"})
MINE_GROUPS: Final = 8  # groups a private /stats shows, the latest played in first
GROUP_TITLE_MAX: Final = 40  # characters of a group's name in a private /stats
# issue 51: the computers' reviewed hands of a variant a group needs for /stats to compare
# with them there; with fewer, the computers of every group (every season) are the comparison
MIN_COMPUTER_HANDS: Final = 20


def _pct(part: int, whole: int) -> int:
    return round(100 * part / whole) if whole else 0


def _num(lang: str, value: float) -> str:
    text = f"{value:.1f}"
    return text.replace(".", ",") if lang == "it" else text


Played = dict[int, tuple[list[HandView], list[MatchView]]]


def _own_views(
    user_id: int,
    hands: list[StoredPlay],
    matches: list[StoredPlay],
    undone: set[tuple[int, str]],
) -> Played:
    """Per group, the hands and matches `user_id` played there (`views`: without the undone
    ones)."""
    by_chat: dict[int, tuple[list[StoredPlay], list[StoredPlay]]] = {}
    for i, plays in enumerate((hands, matches)):
        for p in plays:
            if user_id in (p.data.get("users") or ()):
                by_chat.setdefault(p.chat_id, ([], []))[i].append(p)
    return {
        chat: views(hv, mv, {key for c, key in undone if c == chat})
        for chat, (hv, mv) in by_chat.items()
    }


def _last_played(played: Played, chat_id: int) -> datetime:
    hands, matches = played.get(chat_id, ([], []))
    times = [h.finished_at for h in hands] + [m.finished_at for m in matches]
    return max(times, default=datetime.min.replace(tzinfo=UTC))


@dataclass(frozen=True, slots=True)
class _Reviews:
    """Issue 51, "in the numbers": what the hands' reviews found given away, per variant: by
    the person (`mine`), and by the computers in the same group and season (`here`) and in
    every group and season (`everywhere`), for comparison."""

    mine: dict[str, GivenAway]
    here: dict[str, GivenAway]
    everywhere: dict[str, GivenAway]

    def computers(self, variant: str) -> tuple[GivenAway, bool] | None:
        """The computers to compare with in `variant`, and whether they are every group's:
        the group's when it has `MIN_COMPUTER_HANDS` hands of theirs, else every group's if
        those are more, else the group's few; None when no computer's hand was reviewed."""
        here, everywhere = self.here.get(variant), self.everywhere.get(variant)
        if here is not None and here.hands >= MIN_COMPUTER_HANDS:
            return here, False
        if everywhere is not None and (here is None or everywhere.hands > here.hands):
            return everywhere, True
        return (here, False) if here is not None else None


class Stats:
    """/stats, in a group and privately: the records (`records`: the ratings, whom a command
    names) and the rest of the database, the chat's language (`langs`)."""

    def __init__(self, db: Database, langs: Languages, records: Records) -> None:
        self.db = db
        self.langs = langs
        self.records = records

    # ------------------------------------------------------------------ /stats

    async def stats(
        self, chat_id: int, me: Person, words: Sequence[str], people: Sequence[int] = ()
    ) -> Reply | Chart:
        """/stats [@person] [last|N|all] [chart] in a group (`people`: user ids named by a
        reply or a mention, before the words)."""
        lang = await self.langs.chat(chat_id)
        chart = False
        season: str | None = None
        named: list[Who] = list(people)
        for raw in words:
            word = raw.strip().lower()
            if word in CHART_WORDS:
                chart = True
            elif season is None and (
                word in LAST_WORDS or word in ALL_WORDS or (word.isascii() and word.isdigit())
            ):
                season = word
            else:
                named.append(raw)
        if len(named) > 1:
            return Reply(t(reply_lang(lang), "st_err_usage"), key="st_err_usage")
        current = await self.db.people.league_epoch(chat_id)
        epoch: int | None
        if season is not None and season in ALL_WORDS:
            epoch, which = None, t(lang, "st_season_all")
        else:
            found = parse_season(season or "", current)
            if isinstance(found, str):
                return Reply(t(reply_lang(lang), found, n=current + 1), key=found)
            epoch = found
            key = "lg_season_current" if epoch == current else "lg_season_archived"
            which = t(lang, key, n=epoch + 1)
        all_hands, all_matches = await self.records.views(chat_id)
        names = await self.records.known(chat_id, all_hands, all_matches)
        names.setdefault(me.user_id, me.name)
        if named:
            who = await self.records.resolve(named[0], names)
            if who is None:
                text = named[0] if isinstance(named[0], str) else str(named[0])
                return Reply(t(reply_lang(lang), "st_err_unknown", who=text), key="st_err_unknown")
        else:
            who = (me.user_id, names[me.user_id])
        user_id, name = who
        if chart:
            return await self._rating_chart(chat_id, lang, user_id, name)
        hands = [h for h in all_hands if epoch is None or h.epoch == epoch]
        matches = [m for m in all_matches if epoch is None or m.epoch == epoch]
        return await self._stats_text(chat_id, lang, user_id, name, which, epoch, hands, matches)

    async def _stats_text(
        self,
        chat_id: int,
        lang: str,
        user_id: int,
        name: str,
        which: str,
        epoch: int | None,
        hands: list[HandView],
        matches: list[MatchView],
    ) -> Reply:
        per_variant = player_stats(user_id, hands, matches)
        reviews = await self._reviews(chat_id, user_id, epoch)
        lines = [t(lang, "st_title", name=name, season=which)]
        if not per_variant and not reviews.mine:
            lines.append(t(lang, "st_none"))
        for variant in sorted(set(per_variant) | set(reviews.mine)):
            lines.append("")
            if variant in per_variant:
                lines.extend(self._variant_lines(lang, per_variant[variant]))
            else:  # reviewed hands only (at tables that write no records, §10.5)
                lines.append(t(lang, "st_variant", variant=variant_name(lang, variant)))
            if variant in reviews.mine:
                lines.append(self._review_line(lang, reviews.mine[variant], reviews))
        group, world = await self.records.ratings(chat_id)
        rated = [f for f in FAMILIES if group.get(f, user_id) or world.get(f, user_id)]
        if rated:
            lines.append("")
        for family in rated:
            lines.append(
                t(
                    lang,
                    "st_rating_line",
                    family=t(lang, f"st_family_{family}"),
                    group_html=rating_text(lang, group.get(family, user_id)),
                    world_html=rating_text(lang, world.get(family, user_id)),
                )
            )
        paid, received, balance = await self._beers(chat_id, user_id, epoch)
        lines.append("")
        lines.append(
            t(
                lang,
                "st_beers",
                paid=points_text(lang, paid),
                received=points_text(lang, received),
                balance=points_text(lang, balance, sign=True),
            )
        )
        lines.append(t(lang, "st_note"))
        if reviews.mine:
            lines.append(t(lang, "st_review_note"))
        return Reply("\n".join(lines), key="st_stats")

    async def _reviews(self, chat_id: int, user_id: int, epoch: int | None) -> _Reviews:
        """What the reviews found `user_id` gave away in the group and season (`epoch`; None:
        every season), and the computers there and everywhere (issue 51)."""
        mine = await self.db.stats.review_sums(user_id=user_id, chat_id=chat_id, epoch=epoch)
        here = await self.db.stats.review_sums(computers=True, chat_id=chat_id, epoch=epoch)
        everywhere = await self.db.stats.review_sums(computers=True)
        return _Reviews(given_away(mine), given_away(here), given_away(everywhere))

    def _review_line(self, lang: str, g: GivenAway, reviews: _Reviews) -> str:
        """ "🔎 Punti regalati per mano (revisione): 6,2 su 12 mani (computer: 3,4 su 40
        mani)"; chiamata in the hand's score (§7.12), per role (§7.4-7.7)."""
        chiamata = g.variant.startswith("chiamata")
        roles = ""
        if chiamata:
            parts = [
                t(lang, f"st_review_{role}", avg=_num(lang, avg))
                for role in ("caller", "partner", "other")
                if (avg := g.role_average(role)) is not None
            ]
            roles = t(lang, "st_review_roles", roles_html=" · ".join(parts)) if parts else ""
        return t(
            lang,
            "st_review_score" if chiamata else "st_review",
            avg=_num(lang, g.average),
            hands_html=tn(lang, "st_hands_n", g.hands),
            roles_html=roles,
            computers_html=self._computers_text(lang, reviews.computers(g.variant)),
        )

    def _computers_text(self, lang: str, computers: tuple[GivenAway, bool] | None) -> str:
        """ " (computer: 3,4 su 40 mani)", or every group's; "" with none."""
        if computers is None:
            return ""
        g, everywhere = computers
        return t(
            lang,
            "st_review_computers_all" if everywhere else "st_review_computers",
            avg=_num(lang, g.average),
            hands_html=tn(lang, "st_hands_n", g.hands),
        )

    def _variant_lines(self, lang: str, s: VariantStats) -> list[str]:
        chiamata = s.variant.startswith("chiamata")
        lines = [t(lang, "st_variant", variant=variant_name(lang, s.variant))]
        if s.games or not chiamata:
            lines.append(t(lang, "st_games", games=s.games, wins=s.wins, pct=_pct(s.wins, s.games)))
        lines.append(
            t(
                lang,
                "st_hands",
                hands=s.hands,
                won=s.hands_won,
                avg=_num(lang, s.average_points),
            )
        )
        if chiamata:
            pct = _pct(s.bids, s.auctions)
            lines.append(tn(lang, "st_bids", s.bids, bids=s.bids, auctions=s.auctions, pct=pct))
            lines.append(
                tn(
                    lang,
                    "st_roles",
                    s.caller_won,
                    cwon=s.caller_won,
                    caller=s.as_caller,
                    cpct=_pct(s.caller_won, s.as_caller),
                    pwon=s.partner_won,
                    partner=s.as_partner,
                    ppct=_pct(s.partner_won, s.as_partner),
                )
            )
        lines.append(t(lang, "st_cappotti", made=s.cappotti, suffered=s.cappotti_suffered))
        if s.streak > 0:
            streak = tn(lang, "st_streak_won", s.streak)
        elif s.streak < 0:
            streak = tn(lang, "st_streak_lost", -s.streak)
        else:
            streak = t(lang, "st_streak_none")
        best = f"+{s.biggest_win}" if s.biggest_win > 0 else t(lang, "st_streak_none")
        lines.append(t(lang, "st_best", best=best, streak_html=streak))
        return lines

    async def _beers(self, chat_id: int, user_id: int, epoch: int | None) -> tuple[int, int, int]:
        """(paid, received, balance): the beers they marked paid and were paid in settled
        payments (§10.3, /beer), and their ledger balance, in the season (None: all)."""
        current = await self.db.people.league_epoch(chat_id)
        epochs = range(current + 1) if epoch is None else [epoch]
        paid = received = balance = 0
        for ep in epochs:
            for entry in await self.db.ledger.season_entries(chat_id, ep):
                delta = entry.deltas.get(user_id, 0)
                balance += delta
                if entry.kind == PAYMENT and entry.undone_by is None:
                    paid += max(delta, 0)
                    received += max(-delta, 0)
        return paid, received, balance

    async def _rating_chart(
        self, chat_id: int, lang: str, user_id: int, name: str
    ) -> Reply | Chart:
        group, _ = await self.records.ratings(chat_id)
        series = {
            plain(lang, f"st_family_{family}"): group.history[(family, user_id)]
            for family in FAMILIES
            if (family, user_id) in group.history
        }
        if not series:
            return Reply(t(reply_lang(lang), "st_err_no_rating", name=name), key="st_err_no_rating")
        title = plain(lang, "st_chart_rating_title", name=name)
        shown = {
            family: [(at, SHOWN_BASE + SHOWN_SCALE * value) for at, value in points]
            for family, points in series.items()
        }
        png = await asyncio.to_thread(
            charts.rating_chart,
            shown,
            title,
            plain(lang, "st_chart_rating_x"),
            plain(lang, "st_chart_rating_axis"),
            float(NEWCOMER.shown),
        )
        return Chart(png, t(lang, "st_chart_rating_caption", name=name))

    # ------------------------------------------------------------------ /stats, privately

    async def mine(self, me: Person) -> Reply:
        """/stats in a private chat: the sender's own numbers, every season, in each group
        whose records or ledger name them (the latest played in first, at most
        `MINE_GROUPS`), with the group's ratings and the current season's balance; and,
        when they play in more than one group, across groups with the global ratings."""
        lang = reply_lang(await self.langs.person(me) or self.langs.default)
        hands, matches = await self.db.stats.plays()
        undone = await self.db.stats.undone_keys()
        played = await asyncio.to_thread(_own_views, me.user_id, hands, matches, undone)
        in_ledger = set(await self.db.stats.ledger_chats(me.user_id))
        my_reviews = await self.db.stats.review_sums(user_id=me.user_id)
        bot_reviews = await self.db.stats.review_sums(computers=True)
        everywhere = given_away(bot_reviews)

        def reviewed(chat: int | None) -> _Reviews:
            if chat is None:
                return _Reviews(given_away(my_reviews), everywhere, everywhere)
            return _Reviews(
                given_away(r for r in my_reviews if r.chat_id == chat),
                given_away(r for r in bot_reviews if r.chat_id == chat),
                everywhere,
            )

        chats = sorted(
            set(played) | in_ledger | {r.chat_id for r in my_reviews},
            key=lambda c: (_last_played(played, c), c in in_ledger, c),
            reverse=True,
        )
        if not chats:
            return Reply(t(lang, "st_me_none", name=me.name), key="st_me_none")
        lines = [t(lang, "st_me_title", name=me.name)]
        if len(chats) > 1:
            every_hand = sorted(
                (h for hv, _ in played.values() for h in hv),
                key=lambda h: (h.finished_at, h.table_id, h.hand_index),
            )
            every_match = sorted(
                (m for _, mv in played.values() for m in mv),
                key=lambda m: (m.finished_at, m.table_id),
            )
            _, world = await self.records.ratings(chats[0])
            lines.append("")
            lines.append(t(lang, "st_me_all"))
            lines.extend(
                self._own_lines(lang, me.user_id, every_hand, every_match, world, reviewed(None))
            )
        for chat in chats[:MINE_GROUPS]:
            title = (await self.db.people.chat_settings(chat)).get("title")
            shown = short_name(title, GROUP_TITLE_MAX) if title else plain(lang, "st_me_untitled")
            group, _ = await self.records.ratings(chat)
            lines.append("")
            lines.append(t(lang, "st_me_group", group=shown))
            chat_hands, chat_matches = played.get(chat, ([], []))
            lines.extend(
                self._own_lines(lang, me.user_id, chat_hands, chat_matches, group, reviewed(chat))
            )
            if chat in in_ledger:
                epoch = await self.db.people.league_epoch(chat)
                _, _, balance = await self._beers(chat, me.user_id, epoch)
                lines.append(
                    t(
                        lang,
                        "st_me_balance",
                        n=epoch + 1,
                        balance=points_text(lang, balance, sign=True),
                    )
                )
        if len(chats) > MINE_GROUPS:
            lines.append("")
            lines.append(tn(lang, "st_me_more", len(chats) - MINE_GROUPS))
        lines.append("")
        lines.append(t(lang, "st_me_note"))
        if my_reviews:
            lines.append(t(lang, "st_review_note"))
        return Reply("\n".join(lines), key="st_mine")

    def _own_lines(
        self,
        lang: str,
        user_id: int,
        hands: list[HandView],
        matches: list[MatchView],
        ratings: Ratings,
        reviews: _Reviews,
    ) -> list[str]:
        """One line per variant (games won, or hands for chiamata and for a match still
        on), what the reviews found given away per variant (issue 51), and one line per
        rated family."""
        lines: list[str] = []
        per_variant = player_stats(user_id, hands, matches)
        for variant in sorted(per_variant):
            s = per_variant[variant]
            if s.games and not variant.startswith("chiamata"):
                count, won, unit = s.games, s.wins, "st_games_n"
            else:
                count, won, unit = s.hands, s.hands_won, "st_hands_n"
            lines.append(
                t(
                    lang,
                    "st_me_variant",
                    variant=variant_name(lang, variant),
                    games_html=tn(lang, unit, count),
                    won=won,
                    pct=_pct(won, count),
                )
            )
        for variant in sorted(reviews.mine):
            g = reviews.mine[variant]
            lines.append(
                t(
                    lang,
                    "st_me_review_score" if variant.startswith("chiamata") else "st_me_review",
                    variant=variant_name(lang, variant),
                    avg=_num(lang, g.average),
                    hands_html=tn(lang, "st_hands_n", g.hands),
                    computers_html=self._computers_text(lang, reviews.computers(variant)),
                )
            )
        for family in FAMILIES:
            rating = ratings.get(family, user_id)
            if rating is not None:
                lines.append(
                    t(
                        lang,
                        "st_me_rating",
                        family=t(lang, f"st_family_{family}"),
                        rating_html=rating_text(lang, rating),
                    )
                )
        return lines
