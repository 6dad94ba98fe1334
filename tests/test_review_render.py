"""Issue 51 §2, "il colpo della mano" in the group's hand result: the costliest decision
named (who, which card in which trick, what was better, what it cost), in every language of
the bot, and said when it was judged with every hand seen."""

from __future__ import annotations

import pytest

from bench.rig.telegram import parse_html
from bot.engine import Options
from bot.i18n.words import card_short
from bot.players.review import review_hand
from bot.players.review_data import OPEN
from bot.table.record import hand_record
from bot.view.render import review_lines
from tests.test_review import TINY, asso_thrown


@pytest.mark.parametrize("lang", ["it", "en"])
def test_the_asso_thrown_away_is_the_hand_s_key_move(lang: str) -> None:
    """Briscola a due (§1.2, §2.3): the plain Asso thrown on the other side's trick while a
    liscio was legal is the hand's costliest decision; the line names its player, the trick,
    the card, the better card and the card points it cost."""
    options = Options.parse("due")
    got = next((g for k in range(40) if (g := asso_thrown(options, k)) is not None), None)
    assert got is not None, "no deal of forty gave the position"
    state, asso, thrown = got
    review = review_hand(hand_record(state), seed=5, budget=TINY, mode=OPEN)  # a stacked deal
    names = ["Mario <M>", "Lucy & Co"]
    lines = review_lines(names, state, review, lang)
    assert lines, review.to_dict()
    text, _ = parse_html(lines[0])
    deck = options.rules().deck
    worst = review.costliest
    assert worst is not None and worst.move == asso
    trick = sum(1 for _, a in state.actions[: worst.index] if a < 100) // 2 + 1
    cost = round(thrown["cost"])
    if lang == "it":
        assert text.startswith("🔎 Il colpo della mano: "), text
        assert f"alla {trick}ª presa {names[worst.seat]} ha giocato" in text, text
        assert f"avrebbe fatto {cost} punt" in text and "carte scoperte" in text, text
    else:
        assert text.startswith("🔎 The hand's key move: "), text
        assert f"in trick {trick} {names[worst.seat]} played" in text, text
        assert f"would have made {cost} point" in text and "every hand seen" in text, text
    assert card_short(asso, deck, lang) in text
    assert card_short(worst.best, deck, lang) in text
    assert "&lt;M&gt;" in lines[0] or "&amp;" in lines[0]  # names escaped in the HTML
