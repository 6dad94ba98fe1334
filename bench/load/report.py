"""The load bench's report: the lines printed for a run's numbers (`report`, with
`rush_lines` for the rush), PASS or FAIL against a target (`verdict`), and the Markdown table
of --compare's runs (`comparison`)."""

from __future__ import annotations

from typing import Any

from bench.load.scenarios import GROUP_STILL_TARGET, Config
from bot.telegram.notes import NOTES_INTERVAL


def ms(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 1000:.0f} ms"


def verdict(ok: bool | None) -> str:
    return "n/a" if ok is None else ("PASS" if ok else "FAIL")


def secs(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f} s"


def phase_text(phases: dict[str, dict[str, Any]] | None) -> str:
    if phases is None:
        return "by phase: n/a"
    return "; ".join(
        f"{phase.replace('_', ' ')}: p50 {ms(v['p50'])}, p99 {ms(v['p99'])}, max {ms(v['max'])}"
        f" (n={v['n']})"
        for phase, v in phases.items()
    )


def config_name(c: dict[str, Any]) -> str:
    n = c["workers"]
    name = f"{c['database']}, {n} process{'es' if n > 1 else ''} ({c['mode']})"
    return name if c.get("scenario", "mixed") == "mixed" else f"{c['scenario']}, {name}"


def latency_text(v: dict[str, Any]) -> str:
    return f"p50 {ms(v['p50'])}, p99 {ms(v['p99'])}, max {ms(v['max'])} (n={v['n']})"


def restore_lines(rs: dict[str, Any], tg: dict[str, str]) -> list[str]:
    return [
        f"restore after SIGKILL with {rs['tables_unfinished_at_kill']} unfinished tables: "
        f"logged {rs['logged_tables']} tables in {rs['logged_seconds']} s  target <= 2 s: "
        f"{tg['restore_le_2s_logged']}; process start -> polling {rs['start_to_polling_seconds']}"
        f" s: {tg['restore_le_2s_start_to_polling']}",
        f"after the restart ({rs['after_restart_seconds']} s): {rs['calls_after_restart']} calls,"
        f" rejected and unexplained {rs['failed_after_restart'] or 0}, 'not modified' "
        f"{rs['not_modified_after_restart']} ({rs['explained_by_the_kill']} on messages edited"
        f" < {NOTES_INTERVAL + 0.1:.1f} s before the kill), refused by a limit "
        f"{rs['refused_after_restart'] or 0}: {tg['no_rejected_call_after_restart']}; "
        f"{rs['cards_after_restart']} cards played",
        *(
            f"  rejected after the restart: {d['method']} chat {d['chat_id']} message "
            f"{d['message_id']}: {(d['description'] or '')[:60]}; that message last changed "
            f"{d['last_change_before_kill_s']} s before the SIGKILL"
            for d in rs["failed_after_restart_detail"]
        ),
    ]


def report(r: dict[str, Any]) -> list[str]:
    c, w, tg = r["config"], r["window"], r["targets"]
    cpc, tl, cl, tp = r["calls_per_card"], r["tap_latency_s"], r["command_latency_s"], r["taps"]
    eg = r["table_edit_gap_s"]
    gs = r["chat_calls"]["group_show_lag_s"]
    mem, cpu, rs, lv = r["memory_kb"], r["cpu"], r["restore"], r["limit_violations"]
    variants = ", ".join(f"{v} {n}" for v, n in sorted(c["variants"].items()))
    levels = ", ".join(f"{v} {n}" for v, n in sorted(c["computers"].items()))
    others = ", ".join(
        f"{m} {v:.3f}"
        for m, v in cpc["by_method"].items()
        if m
        not in (
            "getUpdates",
            "sendMessage",
            "editMessageText",
            "editMessageReplyMarkup",
            "deleteMessage",
            "answerCallbackQuery",
        )
    )
    bm = cpc["by_method"]
    kids0 = ", ".join(
        f"{lab} {rss / 1024:.1f} MB" for lab, rss in mem["children_before_tables"].values()
    )
    kids1 = ", ".join(
        f"{lab} {rss / 1024:.1f} MB" for lab, rss in mem["children_all_playing"].values()
    )
    answers = "; ".join(
        f"{kind}: " + ", ".join(f"{k} {n}" for k, n in sorted(v.items()))
        for kind, v in sorted(tp["answers"].items())
    )
    act, cc = r["actions"], r["chat_calls"]
    lines = [
        f"bot_load: {config_name(c)}; {c['tables']} tables ({variants}); {c['people']} people; "
        f"computers {levels}; seed {c['seed']}; {c['cpus']} CPUs",
        f"ramp: {r['ramp']['tables_playing']}/{c['tables']} tables playing after "
        f"{r['ramp']['seconds']} s"
        + (
            f"; {len(r['ramp']['open_failures'])} failed to open"
            if r["ramp"]["open_failures"]
            else ""
        ),
        f"window: {w['seconds']} s "
        + ("from the first lobby action" if c["scenario"] == "rush" else "once all were playing")
        + f": {w['cards']} cards "
        f"({w['cards_by_people']} by people) = {w['cards_per_second']} cards/s; "
        f"{r['reopened_tables']} tables reopened after a match",
        f"actions (the people's taps and commands made in the window): {act['made']} made, "
        f"{act['answered']} answered = {act['per_second']} a second, {act['accepted']} accepted "
        f"= {act['accepted_per_second']} a second",
        f"  update made -> reply at the stand-in: taps -> answer "
        f"{latency_text(act['tap_to_answer_s'])}; commands -> first reply "
        f"{latency_text(act['command_to_reply_s'])}; all "
        f"{latency_text(act['all_s'])}",
        f"  refused (out-of-turn taps on purpose left out): {sum(act['refused'].values())} "
        f"{act['refused'] or ''}; failed: {sum(act['failed'].values())} {act['failed'] or ''}",
        f"  Bot API calls rejected in the window (limits aside): "
        f"{sum(w['rejected_calls'].values())} {w['rejected_calls'] or ''}"
        + (
            f"; webhook posts {r['webhook_posts_by_worker']}, not answered 2xx: "
            f"{r['webhook_posts_not_2xx'] or 0}"
            if r["webhook_posts_by_worker"]
            else ""
        )
        + (
            f"; people's loops ended by an error: {len(tp['people_loops_ended_by_an_error'])}"
            if tp["people_loops_ended_by_an_error"]
            else ""
        ),
        f"Bot API calls per card: {cpc['messages']} sends+edits+deletes "
        f"(sendMessage {bm.get('sendMessage', 0):.3f}, editMessageText "
        f"{bm.get('editMessageText', 0):.3f}, deleteMessage {bm.get('deleteMessage', 0):.3f}); "
        f"answerCallbackQuery {cpc['answerCallbackQuery']}; others: {others or 'none'}",
        f"chat calls (naming a chat) per move: {cc['per_move']} (group {cc['group_per_move']}, "
        f"private {cc['private_per_move']}; {cc['moves']} moves), per card {cc['per_card']}; "
        f"{cc['per_second']} a second, busiest second {cc['peak_second']} (Telegram allows 30)",
        "  by method per move: "
        + ", ".join(f"{m} {v}" for m, v in cc["by_method_per_move"].items()),
        "  private, by kind per move: "
        + ", ".join(f"{m} {v}" for m, v in cc["private_by_kind_per_move"].items()),
        f"  move -> next turn message: p50 {secs(cc['turn_lag_s']['p50'])}, p99 "
        f"{secs(cc['turn_lag_s']['p99'])}, max {secs(cc['turn_lag_s']['max'])} "
        f"(n={cc['turn_lag_s']['n']}); {cc['cards_per_minute_per_table']} cards a minute per "
        "table",
        f"  move -> its group's next change: p50 {secs(gs['p50'])}, p99 {secs(gs['p99'])}, max "
        f"{secs(gs['max'])} (n={gs['n']}) {verdict((gs['max'] or 0) <= GROUP_STILL_TARGET)}",
        *(
            [
                f"  with a worker SIGKILLed and down {ak['down_s']} s (its moves to 10 s after it "
                f"served again): p50 {secs(ak['p50'])}, p99 {secs(ak['p99'])}, max "
                f"{secs(ak['max'])} (n={ak['n']})"
            ]
            if (ak := cc.get("turn_lag_after_kill_s"))
            else []
        ),
        f"busiest minute of one group: {r['busiest_group_minute']['calls']} calls "
        f"(Telegram allows 20) {verdict(r['busiest_group_minute']['calls'] <= 20)}",
        f"a group's table message, seconds between its edits in the window (its table "
        f"changes every few seconds): p50 {secs(eg['p50'])}, p99 {secs(eg['p99'])}, max "
        f"{secs(eg['max'])} (n={eg['n']})",
        f"tap -> answer (update delivered -> answerCallbackQuery): whole run p50 {ms(tl['p50'])},"
        f" p99 {ms(tl['p99'])}, max {ms(tl['max'])} (n={tl['n']})",
        f"  {phase_text(tl['phases'])}",
        f"  target p99 <= 250 ms with 200 tables playing (the window, from delivery): "
        f"{tg['tap_p99_le_250ms_at_200_tables']}",
        f"command -> first reply: whole run p50 {ms(cl['p50'])}, p99 {ms(cl['p99'])} "
        f"(n={cl['n']}; the ramp's are /start /new /join, the window's mostly /score /help)",
        f"  {phase_text(cl['phases'])}",
        f"taps: {tp['total']}; unanswered {tp['unanswered']}; answers: {answers}"
        + (f"; buttons gone before the tap {tp['button_gone']}" if tp["button_gone"] else "")
        + (f"; answer waits timed out {tp['answer_timeouts']}" if tp["answer_timeouts"] else ""),
        f"429s of the bot's own making: {lv['total']} ({lv['before_kill']} before the restart)"
        + (f" {lv['by_limit']}" if lv["by_limit"] else "")
        + f"  target 0: {tg['no_429_of_own_making']}",
        f"memory: bot RSS {mem['bot_before_tables'] / 1024:.1f} MB before any table, "
        f"{mem['bot_all_playing'] / 1024:.1f} MB with all playing -> {mem['per_table']} KB per "
        f"table (end of window: {mem['bot_end_of_window'] / 1024:.1f} MB, "
        f"{mem['per_table_end_of_window']} KB per table)  target <= 100 KB: "
        f"{tg['kb_per_table_le_100']}"
        + (" (few tables: RSS steps make this noisy)" if c["tables"] < 50 else ""),
        f"memory of its children: before [{kids0}], all playing [{kids1}] -> "
        f"{mem['children_per_table']} KB per table",
        f"CPU per card: bot {cpu['bot_ms_per_card']} ms + workers {cpu['workers_ms_per_card']} ms"
        f" = {cpu['total_ms_per_card']} ms"
        + (
            f" (+ PostgreSQL server {cpu['database_ms_per_card']} ms)"
            if cpu["database_ms_per_card"] is not None
            else ""
        )
        + f"; share of a core over the window: bot {100 * (cpu['bot_core_share'] or 0):.0f}%, "
        f"workers {100 * (cpu['workers_core_share'] or 0):.0f}%"
        + (
            f", PostgreSQL {100 * cpu['database_core_share']:.0f}%"
            if cpu["database_core_share"] is not None
            else ""
        ),
        *(restore_lines(rs, tg) if rs is not None else ["no SIGKILL and restart (--no-restart)"]),
        f"machine: {c['cpus']} CPUs, load average {c['loadavg_at_start']} at the start, "
        f"{r['loadavg_end_of_window']} at the end of the window (other processes count too)",
        f"bench process: {100 * (cpu['bench_core_share'] or 0):.0f}% of a core"
        + (
            " -- WARNING: the bench itself is the bottleneck, the numbers understate the bot"
            if r["bench_bottleneck"]
            else ""
        ),
        f"bot log: {r['bot']['log_errors']} ERROR lines; SIGTERM exit "
        f"{r['bot']['exit_codes_sigterm']} after {r['bot']['sigterm_to_exit_seconds']} s "
        f"({r['bot']['updates_pending_at_sigterm']} updates pending); child processes left "
        f"running: "
        f"{r['bot']['children_left_by_sigkill']} by the SIGKILL, "
        f"{r['bot']['children_left_by_sigterm']} by the SIGTERM (the bench ended them); "
        f"whole bench {r['total_seconds']} s",
    ]
    if "rush" in r:
        lines += rush_lines(r["rush"])
    return lines


def span(begin: float, end: float) -> str:
    return f"{begin:g}-{end:g} s"


def rush_lines(rush: dict[str, Any]) -> list[str]:
    tw, pa = rush["tap_answer_by_window"], rush["past_auction"]
    return [
        f"rush: tap -> answer (update delivered -> answerCallbackQuery) per {tw['bucket_s']:g}-s"
        " window by when the tap was made, from the first lobby tap:",
        *(
            f"  {span(v['from_s'], v['to_s']):>11}: p50 {ms(v['p50'])}, p99 {ms(v['p99'])},"
            f" max {ms(v['max'])} (n={v['n']}"
            + (f", {v['unanswered']} unanswered" if v["unanswered"] else "")
            + ")"
            for v in tw["windows"]
        ),
        f"rush: past the auction (first /new -> the table's first card): p50 "
        f"{secs(pa['p50_s'])}, max {secs(pa['max_s'])} over the {pa['reached']}/{pa['tables']}"
        f" tables that got there; {pa['within_target']}/{pa['tables']} within "
        f"{pa['target_s'] / 60:g} minutes"
        + (
            f" (the window saw only {pa['window_s']:g} s)"
            if pa["window_s"] < pa["target_s"]
            else ""
        ),
        f"rush: past the auction from the table's own /new that opened it (after being told"
        f" the bot was too busy {rush['busy']} times): {pa['own_within_target']}/"
        f"{pa['tables']} within {pa['target_s'] / 60:g} minutes, max {secs(pa['own_max_s'])}",
        f"rush: 429s of the bot's own making: {rush['own_429s']}; re-taps of a turn the screen"
        f" still showed: {rush['retaps']}",
    ]


def comparison(results: list[tuple[Config, dict[str, Any] | str]]) -> list[str]:
    """A Markdown table of the runs of --compare (a run that broke: its error)."""

    def both(v: dict[str, Any]) -> str:
        return f"{ms(v['p50'])} / {ms(v['p99'])}"

    def total(d: dict[str, int]) -> str:
        n = sum(d.values())
        return f"{n} ({', '.join(f'{k} {v}' for k, v in sorted(d.items()))})" if n else "0"

    lines = [
        "| configuration | tables playing | actions/s answered (accepted) | cards/s | "
        "tap → answer p50 / p99 | command → reply p50 / p99 | refused | failed | "
        "cores busy: bot + search + PostgreSQL | run |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for config, r in results:
        name = (
            f"{config.database}, {config.workers} "
            f"{'worker' if config.workers == 1 else 'workers'} "
            f"({'webhook' if config.webhook else 'polling'})"
        )
        if isinstance(r, str):
            lines.append(f"| {name} | run failed: {r[:150]} | | | | | | | | |")
            continue
        a, cpu = r["actions"], r["cpu"]
        failed = dict(a["failed"])
        if r["ramp"]["open_failures"]:
            failed["tables not opened"] = len(r["ramp"]["open_failures"])
        if r["window"]["rejected_calls"]:
            failed["Bot API calls rejected"] = sum(r["window"]["rejected_calls"].values())
        if r["limit_violations"]["total"]:
            failed["429s"] = r["limit_violations"]["total"]
        if r["bot"]["log_errors"]:
            failed["ERROR log lines"] = r["bot"]["log_errors"]
        db = cpu["database_core_share"]
        lines.append(
            f"| {name} | {r['ramp']['tables_playing']}/{r['config']['tables']} | "
            f"{a['per_second']} ({a['accepted_per_second']}) | "
            f"{r['window']['cards_per_second']} | {both(a['tap_to_answer_s'])} | "
            f"{both(a['command_to_reply_s'])} | {total(a['refused'])} of {a['made']} | "
            f"{total(failed)} | {cpu['bot_core_share']:.2f} + {cpu['workers_core_share']:.2f}"
            f"{f' + {db:.2f}' if db is not None else ''} | {r['total_seconds']:.0f} s |"
        )
    return lines
