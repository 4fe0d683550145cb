"""RePAIR group advantages: the study's worked example and the edge cases."""

import numpy as np
import pytest

from mobileintent_gym.rl import group_advantages


def test_the_worked_example():
    # Subgoal 1 rewards over the four rollouts (1, 1, 0, 0); subgoal 2 (1, 1, 1, 1).
    rewards = np.array([[1, 1], [1, 1], [0, 1], [0, 1]])
    assert group_advantages(rewards, ["UC", "UC"]) == pytest.approx([0.5, 0.5, -0.5, -0.5])


def test_ua_subgoals_are_left_out_and_no_uc_means_zero():
    rewards = [[1, 0, 1], [0, 1, 1], [1, 1, 0], [0, 0, 0]]
    only_first = group_advantages([[r[0]] for r in rewards], ["UC"])
    assert group_advantages(rewards, ["UC", "UA", "UA"]) == pytest.approx(only_first)
    assert group_advantages(rewards, ["UA", "UA", "UA"]).tolist() == [0, 0, 0, 0]


def test_population_variance_normalises_each_subgoal():
    a = group_advantages([[1], [0], [0], [0]], ["UC"])
    mu, sigma = 0.25, np.sqrt(0.25 * 0.75)
    assert a == pytest.approx([(1 - mu) / sigma, -mu / sigma, -mu / sigma, -mu / sigma])
    assert a.sum() == pytest.approx(0.0)


def test_bad_shapes_and_contexts_are_named():
    with pytest.raises(ValueError, match=r"G x 2 .*\(4, 3\)"):
        group_advantages(np.zeros((4, 3)), ["UC", "UA"])
    with pytest.raises(ValueError, match="'XX'"):
        group_advantages(np.zeros((4, 1)), ["XX"])


@pytest.mark.parametrize(("rewards", "named"), [
    ([[np.nan, 0], [1, 0]], r"finite, rollout 0 has \[nan, 0.0\]"),  # returned [nan nan]
    ([[1, 0], [1, np.inf]], r"finite, rollout 1 has \[1.0, inf\]"),
    (np.zeros((0, 2)), r"G x 2 .*\(0, 2\)"),  # returned [] with four numpy warnings
    ([[1, 0], [1]], r"G x 2 numbers .*\[\[1, 0\], \[1\]\]"),  # numpy's inhomogeneous shape
    ([["a", 0], [1, 0]], r"G x 2 numbers"),
])
def test_rewards_that_are_no_table_of_numbers_are_named(rewards, named):
    with pytest.raises(ValueError, match=named):
        group_advantages(rewards, ["UC", "UC"])
