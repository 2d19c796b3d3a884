"""Counts in summaries and messages, singular and plural."""

from __future__ import annotations

import pytest

from app.rules import arm_wrestling as aw
from app.rules import chases, gurps
from app.rules import skill_games as sg
from app.rules.dice import Dice
from app.rules.errors import RulesError
from app.rules.text import plural
from tests.helpers import supplied
from tests.rules.test_arm_wrestling import lydia_and_ogre_config, strength
from tests.rules.test_arm_wrestling import play as wrestle
from tests.rules.test_chases import STREET, begin, chase
from tests.rules.test_skill_games import bidding_body, game, ones


def test_plural() -> None:
    assert [plural(count, "token") for count in (0, 1, 2)] == ["0 tokens", "1 token", "2 tokens"]


def test_arm_wrestle_undecided_after_one_round() -> None:
    config = lydia_and_ogre_config(max_rounds=1)
    state, round_, _ = wrestle(config, aw.start(config, Dice()), strength("Lydia", 15, "Ogre", 6))
    assert aw.round_summary(config, state, round_).endswith("No winner after 1 round.")


def test_chaser_gives_up_after_one_increment() -> None:
    config = chase(lead=10, max_rounds=1)
    rolls = {"Ralf": {"check": 5}, "guard": {"check": 4}}
    state, last = chases.play_round(
        config, begin(config), chases.RoundInput(STREET), supplied(rolls)
    )
    assert chases.round_summary(config, state, last).endswith("guard gives up after 1 increment.")


def test_regular_contest_undecided_after_one_round() -> None:
    config = gurps.RegularConfig(gurps.Contestant("A", 10), gurps.Contestant("B", 10), max_rounds=1)
    both_fail = [6, 6, 5]  # 17 against skill 10
    dice = Dice(None, {("A", gurps.SUCCESS): both_fail, ("B", gurps.SUCCESS): both_fail})
    _, played = gurps.regular_round(config, gurps.RegularState(), dice)
    assert (played.finished, played.winner) == (True, None)
    assert gurps.regular_round_summary(config, 1, played).endswith(" Undecided after 1 round.")


def test_skill_game_limits_count_in_words() -> None:
    config = game(bidding_body(skills_per_round=1))
    state = sg.start(config, ones())
    with pytest.raises(RulesError, match="choose exactly 1 skill per round"):
        sg.choose_skills(config, state, "Heroes", ["Athletics", "Stealth"], ones())
