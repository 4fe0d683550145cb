"""PAIR scores on hand-computed examples."""

import dataclasses
import json

import numpy as np
import pytest

from mobileintent_gym.metrics.pair import (
    EpisodeResult,
    all_success,
    pair_scores,
    subgoal_achievement_rate,
    task_success_rate,
)

UC, UA = "UC", "UA"
T, F = True, False
RESULTS = [
    # user a: both tasks succeed
    EpisodeResult("G-SPT-02:common:explicit", "a", T, (1.0, 1.0, 1.0), (UA, UA, UC), (T, T, T)),
    EpisodeResult("G-WCT-01:personal:implicit", "a", T, (1.0,), (UC,), (T,)),
    # user b: the Spotify task fails at the UC subgoal, which it reached
    EpisodeResult("G-SPT-02:common:explicit", "b", F, (1.0, 1.0, 0.0), (UA, UA, UC), (T, T, T)),
    EpisodeResult("G-WCT-01:personal:implicit", "b", T, (1.0,), (UC,), (T,)),
]
# A rollout that got lost: it reached only the first of three subgoals, and failed it.
LOST = EpisodeResult("G-SPT-02:personal:explicit", "a", F, (0.0, 0.0, 0.0), (UA, UA, UC),
                     (T, F, F))


def test_task_sr_counts_successes_over_tasks():
    assert task_success_rate(RESULTS) == 3 / 4
    assert task_success_rate([]) is None


def test_all_success_needs_every_user_of_a_group():
    # G-SPT-02 group fails for user b; G-WCT-01 group succeeds for both.
    assert all_success(RESULTS) == 1 / 2
    assert all_success([]) is None


def test_a_group_fails_whichever_of_its_rollouts_fails_first():
    # Every rollout must succeed, a user's several too: a failure listed before the
    # group's last success still fails it (the fixture above lists it last).
    first_fails = [RESULTS[2], RESULTS[0], RESULTS[1], RESULTS[3]]
    assert all_success(first_fails) == 1 / 2
    again = dataclasses.replace(RESULTS[1], success=False, rewards=(0.0,))  # a, once more
    assert all_success([RESULTS[1], again, RESULTS[3]], users=["a", "b"]) == 0.0
    assert all_success([again, RESULTS[1], RESULTS[3]], users=["a", "b"]) == 0.0


def test_a_group_missing_a_users_rollout_is_an_error_naming_the_user():
    # all-success is the share of groups "where every user succeeds": a group that lacks a
    # user's rollout cannot be known to be one, so it is never counted on a partial set.
    partial = RESULTS[:3]  # user b has no G-WCT-01 rollout
    with pytest.raises(ValueError, match=r"G-WCT-01:personal:implicit.*\['b'\]"):
        all_success(partial)
    with pytest.raises(ValueError, match=r"\['c'\]"):
        all_success(RESULTS, users=["a", "b", "c"])


def test_sar_counts_only_subgoals_whose_context_was_reached():
    # The study: SAR is "subgoal achievement over reached contexts" — achieved subgoals /
    # subgoals whose entry context was reached.
    results = [*RESULTS, LOST]
    reached = 3 + 1 + 3 + 1 + 1
    achieved = 3 + 1 + 2 + 1 + 0
    assert subgoal_achievement_rate(results) == pytest.approx(achieved / reached)
    # The other ratio keeps its own name: every subgoal, reached or not.
    assert subgoal_achievement_rate(results, denominator="all") == pytest.approx(7 / 11)
    # LOST's UC subgoal was never reached: UC SAR is over RESULTS' UC subgoals alone.
    assert subgoal_achievement_rate(results, context=UC) == pytest.approx(3 / 4)
    assert subgoal_achievement_rate(results, context=UA) == pytest.approx(4 / 5)
    with pytest.raises(ValueError, match="denominator"):
        subgoal_achievement_rate(results, denominator="some")


def test_sar_by_context_and_by_target_type():
    assert subgoal_achievement_rate(RESULTS) == 7 / 8
    assert subgoal_achievement_rate(RESULTS, context=UA) == 4 / 4
    assert subgoal_achievement_rate(RESULTS, context=UC) == 3 / 4
    assert subgoal_achievement_rate(RESULTS, target_type="common") == 5 / 6
    assert subgoal_achievement_rate(RESULTS, target_type="personal") == 2 / 2
    assert subgoal_achievement_rate(RESULTS[1:2], context=UA) is None  # undefined, not 0


def test_common_and_personal_sar_are_measured_within_uc_contexts():
    # The study's figure compares common and personal targets on UC subgoals: the UA
    # navigation subgoals (achieved by both users here) must not dilute the gap.
    scores = pair_scores(RESULTS)
    assert scores["sar_uc_common"] == pytest.approx(1 / 2)  # a: 1, b: 0 (UA left out)
    assert scores["sar_uc_personal"] == 1.0
    assert "sar_common" not in scores


def test_pair_scores_bundle_every_score():
    scores = pair_scores(RESULTS)
    assert scores["task_sr"] == 0.75 and scores["all_success"] == 0.5
    assert scores["sar_uc"] == pytest.approx(0.75) and scores["sar_ua"] == 1.0
    assert scores["sar_all_subgoals"] == pytest.approx(7 / 8)


def test_a_result_holds_its_per_subgoal_values_in_lists_tuples_or_arrays():
    as_arrays = EpisodeResult("G-ALI-01:common:explicit", "u1", np.bool_(True), np.array([1.0]),
                              np.array([UC]), np.array([True]))
    assert pair_scores([as_arrays])["sar_uc"] == 1.0
    as_tuples = EpisodeResult("G-ALI-01:common:explicit", "u1", True, (1.0,), (UC,), (True,))
    assert as_arrays == as_tuples and hash(as_arrays) == hash(as_tuples)  # arrays: ambiguous
    assert type(as_arrays.rewards[0]) is float
    # NumPy scalars in a list were kept, and the record then failed to go to JSON.
    scalars = EpisodeResult("G-ALI-01:common:explicit", "u1", np.bool_(True),
                            [np.float32(1.0)], (UC,), [np.bool_(True)])
    assert json.loads(json.dumps(dataclasses.asdict(scalars))) == {
        "task": "G-ALI-01:common:explicit", "user": "u1", "success": True, "rewards": [1.0],
        "contexts": [UC], "reached": [True]}


def test_scores_of_a_generator_equal_those_of_its_list():
    # all-success read the rollouts after the tally had spent them: None, no error.
    assert pair_scores(r for r in RESULTS) == pair_scores(RESULTS)


@pytest.mark.parametrize(("fields", "named"), [
    (("G-ALI-01", "u1", T, (1.0,), (UC,), (T,)), "<common|personal>"),
    (("G-ALI-01:Common:explicit", "u1", T, (1.0,), (UC,), (T,)), "<common|personal>"),
    (("G-ALI-01:common:explicit", "u1", T, (1.0, 1.0), (UC,), (T, T)),
     "2 rewards, 1 contexts and 2 reached"),
    (("G-ALI-01:common:explicit", "u1", T, (1.0,), ("uc",), (T,)), "UC or UA"),
    # "unhashable type: 'list'", naming nothing.
    (("G-ALI-01:common:explicit", "u1", T, (1.0,), (["UA"],), (T,)),
     r"UC or UA, got \(\['UA'\],\)"),
    (("G-ALI-01:common:explicit", "u1", "yes", (1.0,), (UC,), (T,)), "success must be"),
    (("G-ALI-01:common:explicit", "u1", T, ("1",), (UC,), (T,)), "numbers from 0 to 1"),
    (("G-ALI-01:common:explicit", "u1", T, (float("nan"),), (UC,), (T,)), "from 0 to 1"),
    (("G-ALI-01:common:explicit", "u1", T, (2.0,), (UC,), (T,)), "from 0 to 1"),
    (("G-ALI-01:common:explicit", "u1", T, (1.0,), (UC,), (1,)), "reached flags are"),
    (("G-ALI-01:common:explicit", "u1", T, (1.0,), {UC: 1}, (T,)), "contexts must be a list"),
    (("G-ALI-01:common:explicit", "u1", T, np.ones((1, 1)), (UC,), (T,)),
     "rewards must be a list"),
    # Counted in the all-subgoals ratio, not in SAR: an unreached subgoal earns 0.
    (("G-ALI-01:common:explicit", "u1", T, (1.0, 0.0, 1.0), (UC, UA, UA), (T, F, F)),
     r"subgoal\(s\) \[3\] earn a reward but were never reached"),
    (("G-ALI-01:common:explicit", "u1", F, (1.0, 1.0), (UC, UA), (T, T)),
     "the terminal subgoal earns 1.0 for a failed task"),
])
def test_a_result_the_scores_would_misread_is_refused_naming_task_and_user(fields, named):
    # A task id without a target type raised IndexError inside pair_scores; mismatched
    # lengths raised zip's message, naming no episode; a reward "1" (text) or a verdict
    # "yes" from a results file was added up or counted as a success.
    with pytest.raises(ValueError, match=named) as caught:
        EpisodeResult(*fields)
    assert f"{fields[0]!r} for 'u1'" in str(caught.value)


@pytest.mark.parametrize("bad", [{"context": "uc"}, {"target_type": "Common"}])
def test_a_misspelt_filter_is_refused_not_read_as_no_data(bad):
    with pytest.raises(ValueError, match=repr(next(iter(bad.values())))):
        subgoal_achievement_rate(RESULTS, **bad)


def test_all_success_refuses_rollouts_of_users_not_given():
    # u9's failure sank a group of the users given: 0.0 where they all succeeded.
    with pytest.raises(ValueError, match=r"\['b'\] not among"):
        all_success(RESULTS, users=["a"])
    assert all_success(RESULTS[:2], users=["a"]) == 1.0
