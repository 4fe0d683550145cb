"""PAIR scores on hand-computed examples."""

import pytest

from mobileintent_gym.metrics.pair import (
    EpisodeResult,
    all_success,
    pair_scores,
    subgoal_achievement_rate,
    task_success_rate,
)

UC, UA = "UC", "UA"
RESULTS = [
    # user a: both tasks succeed
    EpisodeResult("G-SPT-02:common:explicit", "a", True, (1.0, 1.0, 1.0), (UA, UA, UC)),
    EpisodeResult("G-WCT-01:personal:implicit", "a", True, (1.0,), (UC,)),
    # user b: the Spotify task fails at the UC subgoal
    EpisodeResult("G-SPT-02:common:explicit", "b", False, (1.0, 1.0, 0.0), (UA, UA, UC)),
    EpisodeResult("G-WCT-01:personal:implicit", "b", True, (1.0,), (UC,)),
]


def test_task_sr_counts_successes_over_tasks():
    assert task_success_rate(RESULTS) == 3 / 4
    assert task_success_rate([]) is None


def test_all_success_needs_every_user_of_a_group():
    # G-SPT-02 group fails for user b; G-WCT-01 group succeeds for both.
    assert all_success(RESULTS) == 1 / 2


def test_sar_overall_by_context_and_by_target_type():
    assert subgoal_achievement_rate(RESULTS) == 7 / 8
    assert subgoal_achievement_rate(RESULTS, context=UA) == 4 / 4
    assert subgoal_achievement_rate(RESULTS, context=UC) == 3 / 4
    assert subgoal_achievement_rate(RESULTS, target_type="common") == 5 / 6
    assert subgoal_achievement_rate(RESULTS, target_type="personal") == 2 / 2
    assert subgoal_achievement_rate(RESULTS, context="XX") is None  # undefined, not 0
    assert all_success([]) is None


def test_pair_scores_bundle_every_score():
    scores = pair_scores(RESULTS)
    assert scores["task_sr"] == 0.75 and scores["all_success"] == 0.5
    assert scores["sar_uc"] == pytest.approx(0.75) and scores["sar_ua"] == 1.0


def test_mismatched_rewards_and_contexts_raise():
    bad = EpisodeResult("G-WCT-01:common:explicit", "a", True, (1.0, 0.0), (UC,))
    with pytest.raises(ValueError):
        subgoal_achievement_rate([bad])
