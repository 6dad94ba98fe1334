"""Telegram rendering of a tournament (RULES §11): its message in the group (registration with
its buttons; then the standings and the next match), whether its matches go in the group's
ledger (§10.5, `ledger_line`), each round's pairings, the final standings and the placing, and
what /torneo answers once it is over (`again_message`, with the button that opens a new one).
HTML parse mode: every name is escaped. A tournament of single players (`Tournament.singles`)
names each player where a team would be named, and its texts say "players"
(`Tournament.key`).

Button data: `bot.view.callback_data` (`T:` kinds).
"""

from __future__ import annotations

from bot.i18n import level_name, t, variant_name
from bot.table.tournament import (
    CANCELLED,
    DONE,
    HANDS,
    REGISTERING,
    RUNNING,
    Member,
    Tournament,
)
from bot.view.callback_data import callback_data
from bot.view.render import Button, Keyboard, Rendered, esc

MEDALS = ("🥇", "🥈", "🥉")


def member_name(member: Member, lang: str) -> str:
    """A member as shown (plain text: escape it where it goes): a person by name, a computer
    as "🤖 Ada (normale)"."""
    if member.user_id is not None or member.level is None:
        return member.name
    return f"🤖 {member.name} ({level_name(lang, member.level)})"


def team_label(tour: Tournament, index: int, lang: str) -> str:
    """ "Squadra 2 (Mario & Luigi)", escaped (HTML): its members, and its number, which its
    join button names; in singles the player ("Mario"), or "Giocatore 2 (posto libero)"
    while nobody has the place."""
    members = [esc(member_name(m, lang)) for m in tour.teams[index].members]
    if tour.singles and members:
        return members[0]
    if len(members) < tour.team_size:
        members.append(t(lang, "tour_free_place"))
    return t(lang, tour.key("tour_team_named"), n=index + 1, members_html=" &amp; ".join(members))


def short_team(tour: Tournament, index: int, lang: str) -> str:
    """A team as its results name it (plain text: escape it where it goes): "Squadra 2
    (Mario & Luigi)", never a bare "Squadra 2" once it has members; in singles the
    player's name."""
    members = tour.teams[index].members
    if tour.singles and members:
        return member_name(members[0], lang)
    if not members:
        return t(lang, tour.key("tour_team"), n=index + 1)
    names = " & ".join(member_name(m, lang) for m in members)
    return t(lang, tour.key("tour_team_named"), n=index + 1, members_html=names)


def points_summary(points: tuple[int, ...], lang: str) -> str:
    """ "5-0: 7 · 4-1: 5 · 3-2: 4 · 2-3: 3 · 1-4: 2 · 0-5: 0" (§11.2)."""
    return " · ".join(f"{h}-{HANDS - h}: {points[h]}" for h in range(HANDS, -1, -1))


def standings_lines(tour: Tournament, lang: str, *, medals: bool = False) -> list[str]:
    lines = [t(lang, "tour_standings")]
    for place, s in enumerate(tour.standings(), 1):
        mark = MEDALS[place - 1] if medals and place <= len(MEDALS) else f"{place}."
        lines.append(
            t(
                lang,
                "tour_standing_line",
                place=mark,
                team_html=team_label(tour, s.team, lang),
                points=s.points,
                played=s.played,
                hands=s.hands,
                cards=s.cards,
            )
        )
    lines.append(t(lang, "tour_tiebreaks"))
    return lines


def pairing(tour: Tournament, index: int, lang: str) -> str:
    f = tour.fixtures[index]
    return t(
        lang,
        "tour_pairing",
        a_html=team_label(tour, f.a, lang),
        b_html=team_label(tour, f.b, lang),
    )


def result_line(tour: Tournament, index: int, lang: str) -> str:
    f = tour.fixtures[index]
    r = f.result
    assert r is not None
    return t(
        lang,
        "tour_result",
        a=short_team(tour, f.a, lang),
        b=short_team(tour, f.b, lang),
        ha=r.hands_a,
        hb=r.hands_b,
        pa=tour.points[r.hands_a],
        pb=tour.points[r.hands_b],
    )


def round_message(tour: Tournament, round_no: int, lang: str) -> str:
    """A round's pairings, and who rests (an odd count of teams)."""
    lines = [t(lang, "tour_round_title", n=round_no + 1, of=tour.rounds)]
    playing: set[int] = set()
    for i, f in enumerate(tour.fixtures):
        if f.round == round_no:
            lines.append("• " + pairing(tour, i, lang))
            playing |= {f.a, f.b}
    for team in range(len(tour.teams)):
        if team not in playing:
            lines.append(t(lang, "tour_bye", team_html=team_label(tour, team, lang)))
    return "\n".join(lines)


def ledger_line(tour: Tournament, lang: str, *, hint: bool = False) -> str:
    """Whether its matches go in the group's ledger (§10.5): all of them, a computer's share
    left out (`counts`); else those of people only, said plainly when a computer is a member
    already. With `hint` (registration, not counting): how the organiser makes them count."""
    if tour.counts:
        return t(lang, "tour_ledger_on")
    line = t(lang, "tour_ledger_off_bots" if tour.has_computers else "tour_ledger_off")
    return f"{line} {t(lang, 'tour_ledger_hint')}" if hint else line


def _header(tour: Tournament, lang: str) -> list[str]:
    return [
        t(lang, "tour_title"),
        t(lang, "tour_by", who=tour.organiser_name),
        t(lang, tour.key("tour_format"), variant=variant_name(lang, tour.variant)),
        t(lang, "tour_points", points=points_summary(tour.points, lang)),
        ledger_line(tour, lang, hint=tour.status == REGISTERING),
    ]


def tournament_message(tour: Tournament, lang: str) -> Rendered:
    """The tournament's message in the group, for its state now."""
    tid = tour.tournament_id
    lines = _header(tour, lang)
    kb: Keyboard = []
    if tour.status == REGISTERING:
        lines.append("")
        lines.append(t(lang, tour.key("tour_teams"), n=len(tour.teams)))
        for i in range(len(tour.teams)):
            lines.append(f"{i + 1}. {team_label(tour, i, lang)}")
        lines.append("")
        lines.append(t(lang, tour.key("tour_reg_hint")))
        kb.append([Button(t(lang, tour.key("btn_tour_new")), callback_data("T", tid, "new"))])
        kb.extend(_join_rows(tour, lang))
        kb.append(
            [
                Button(t(lang, "btn_tour_bot"), callback_data("T", tid, "bot")),
                Button(t(lang, tour.key("btn_tour_leave")), callback_data("T", tid, "leave")),
            ]
        )
        if tour.counts:  # §10.5: the organiser's choice, before the start
            counts = Button(t(lang, "btn_tour_counts_off"), callback_data("T", tid, "counts", "n"))
        else:
            counts = Button(t(lang, "btn_tour_counts_on"), callback_data("T", tid, "counts", "y"))
        kb.append([counts])
        kb.append(
            [
                Button(t(lang, "btn_tour_go"), callback_data("T", tid, "go")),
                Button(t(lang, "btn_tour_cancel"), callback_data("T", tid, "cancel")),
            ]
        )
        return Rendered("\n".join(lines), kb)
    if tour.status == CANCELLED:
        lines.append("")
        lines.append(t(lang, "tour_cancelled_line"))
        return Rendered("\n".join(lines), [])
    lines.append("")
    lines.extend(standings_lines(tour, lang, medals=tour.status == DONE))
    if tour.status == DONE:
        best = tour.standings()[0].team
        lines.append("")
        lines.append(t(lang, tour.key("tour_winner"), team_html=team_label(tour, best, lang)))
        return Rendered("\n".join(lines), [])
    lines.append("")
    lines.append(status_line(tour, lang))
    if any(not team.full for team in tour.teams):
        lines.append(t(lang, tour.key("tour_free_hint")))
    kb.extend(_join_rows(tour, lang))
    kb.append([Button(t(lang, tour.key("btn_tour_leave")), callback_data("T", tid, "leave"))])
    return Rendered("\n".join(lines), kb)


def status_line(tour: Tournament, lang: str) -> str:
    """The match playing or next, with its round."""
    nxt = tour.next_fixture()
    if tour.status != RUNNING or nxt is None:
        return ""
    f = tour.fixtures[nxt]
    key = "tour_now" if f.table_id is not None else "tour_next"
    return t(
        lang,
        key,
        k=nxt + 1,
        of=len(tour.fixtures),
        round=f.round + 1,
        rounds=tour.rounds,
        pairing_html=pairing(tour, nxt, lang),
    )


def _join_rows(tour: Tournament, lang: str) -> Keyboard:
    join = tour.key("btn_tour_join")
    buttons = [
        Button(t(lang, join, n=i + 1), callback_data("T", tour.tournament_id, "join", i))
        for i, team in enumerate(tour.teams)
        if not team.full
    ]
    return [buttons[k : k + 3] for k in range(0, len(buttons), 3)]


def status_text(tour: Tournament, lang: str) -> str:
    """What /torneo answers while a tournament runs: the standings, the results so far, and
    the match playing or next."""
    lines = [t(lang, "tour_title"), ""]
    lines.extend(standings_lines(tour, lang))
    done = [i for i, f in enumerate(tour.fixtures) if f.result is not None]
    if done:
        lines.append("")
        lines.append(t(lang, "tour_results"))
        lines.extend("• " + result_line(tour, i, lang) for i in done)
    line = status_line(tour, lang)
    if line:
        lines.append("")
        lines.append(line)
    return "\n".join(lines)


def match_done_text(tour: Tournament, index: int, lang: str, ledger_html: str = "") -> str:
    """Said in the group when a match of the tournament ends: its result, what the group's
    ledger got (`ledger_html`, built by the service, which knows the balances), and the
    standings as they are now (the last match's are the final ones, `final_message`)."""
    lines = [t(lang, "tour_match_done", result_html=result_line(tour, index, lang))]
    if ledger_html:
        lines.append(ledger_html)
    if tour.status != DONE:
        lines.append("")
        lines.extend(standings_lines(tour, lang)[:-1])  # the tiebreaks: in /torneo
    return "\n".join(lines)


def again_message(tour: Tournament, lang: str) -> Rendered:
    """What /torneo answers once the group's last tournament is over: its final standings,
    and the button that opens a new one like it."""
    text = f"{final_message(tour, lang)}\n\n{t(lang, 'tour_again_hint')}"
    button = Button(t(lang, "btn_tour_again"), callback_data("T", tour.tournament_id, "again"))
    return Rendered(text, [[button]])


def final_message(tour: Tournament, lang: str) -> str:
    """The final standings and the placing (§11.3)."""
    lines = [t(lang, "tour_final_title"), ""]
    lines.extend(standings_lines(tour, lang, medals=True)[1:])
    best = tour.standings()[0].team
    lines.append("")
    lines.append(t(lang, tour.key("tour_winner"), team_html=team_label(tour, best, lang)))
    return "\n".join(lines)
