"""Groups of rollouts (no Ray): the runner's records must be the planned episodes'."""

import gymnasium as gym
import pytest

from mobileintent_gym.agents import AGENTS
from mobileintent_gym.distributed.groups import group_episodes, rollout_groups
from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.rollouts import run
from mobileintent_gym.users import PairConfig

SPEC = ("G-WCT-01:common:explicit", ("demo-ana", "demo-ben"))


@pytest.fixture(scope="module")
def runner():
    env = gym.make("Act2Intent-Execute-v0", observation=("instruction",),
                   pair=PairConfig(encoder="lexical"))
    yield lambda episodes: [run(env, AGENTS["oracle"], e) for e in episodes]
    env.close()


def test_groups_hold_the_planned_episodes_records(runner):
    (group,) = rollout_groups(runner, [SPEC], per_user=2, seed=5)
    planned = group_episodes(*SPEC, 2, seed=5)
    assert [(r.result.user, r.seed) for r in group.records] == [(e.user, e.seed)
                                                                for e in planned]


@pytest.mark.parametrize(("change", "named"), [
    # Records in the order they finished went to other users' slots, unnoticed.
    (lambda records: records[::-1], r"record 0 is of \('demo-ben'"),
    # One missing raised "generator raised StopIteration"; one extra was dropped.
    (lambda records: records[:-1], "returned 3 records for 4 episodes"),
    (lambda records: records + records[:1], "returned 5 records for 4 episodes"),
])
def test_records_other_than_the_planned_ones_are_named(runner, change, named):
    with pytest.raises(MobileIntentError, match=named):
        rollout_groups(lambda episodes: change(runner(episodes)), [SPEC], per_user=2)


@pytest.mark.parametrize("per_user", [0, 2.0, True, "2"])
def test_a_bad_rollout_count_is_named(per_user):
    with pytest.raises(ValueError, match=f"per_user must be a positive integer, got "
                                         f"{per_user!r}"):
        group_episodes(*SPEC, per_user)


def test_a_users_rollouts_swapped_are_named_by_their_seed(runner):
    # Catches: the order check compared user and task only; a user's rollout k and k+1
    # (same user, same task, other seeds) came back swapped, unnoticed.
    def swapped(episodes):
        records = runner(episodes)
        return [records[1], records[0], *records[2:]]

    with pytest.raises(MobileIntentError, match=r"record 0 is of \('demo-ana', "
                                                r"'G-WCT-01:common:explicit', \d+\)"):
        rollout_groups(swapped, [SPEC], per_user=2)


def test_one_profile_given_by_name_and_by_path_is_one_user_twice():
    # Only the texts were compared: demo-ana and its profile's path passed as two users,
    # whose rollouts repeated the same seeds, counted twice in the advantages.
    from mobileintent_gym.users.profile import builtin_profiles_dir

    path = str(builtin_profiles_dir() / "demo-ana.json")
    with pytest.raises(ValueError, match=r"each named once, got users \['demo-ana', .*demo-ana"
                                         r"\.json'\] \(user ids \['demo-ana', 'demo-ana'\]\)"):
        group_episodes(SPEC[0], ["demo-ana", path], 2)
    by_path = group_episodes(SPEC[0], [path, "demo-ben"], 2, seed=3)
    assert [e.seed for e in by_path] == [e.seed for e in group_episodes(*SPEC, 2, seed=3)]
