"""The oracle solves tasks on any user's phone: built-in people, PersonaLens, our own profile.

Every task for every user would take minutes, so the built-in people and the PersonaLens
users each get a fixed spread of tasks covering every template and variant
(``tests.helpers.spread_tasks``); ``mobileintent-gym evaluate --agent oracle --users all``
runs them all.
"""

import json

import gymnasium as gym
import pytest

import mobileintent_gym  # noqa: F401  (registers the envs)
from mobileintent_gym.tasks import task_ids
from mobileintent_gym.users import USER_SETS, profile_names
from tests.helpers import oracle_misses, oracle_runs, spread_tasks

PEOPLE = tuple(n for s in ("train", "val", "test") for n in USER_SETS[s])
# A person of this test's own, with tastes unlike the built-in ones.
TESS = {
    "user_id": "tess",
    "demographics": {"age": "45-54 years old", "occupation": "lighthouse keeper",
                     "reside_country": "Ireland", "languages": ["Irish", "English"]},
    "interests": {"Music": 1, "Messaging": 1, "Books": 1, "Travel": 1, "Games": 0},
    "affinities": {"Music": {"Preferred Genres": ["blues", "shoegaze", "techno"]},
                   "Messaging": {"Frequent Contact": ["neighbours", "running club"]},
                   "Books": {"Genre": ["sea stories"]},
                   "Travel": {"Preferred Destination Types": ["islands"]}},
    "interactions": {"Music": "Tess plays blues records through the long night shifts."},
}


@pytest.fixture(scope="module")
def env():
    env = gym.make("Act2Intent-Execute-v0", observation=("instruction",), users="all")
    yield env
    env.close()


def test_the_oracle_solves_a_spread_of_tasks_for_every_built_in_person(env):
    spread = spread_tasks(PEOPLE, every=3)
    assert {t for tasks in spread.values() for t in tasks} == set(task_ids())  # all covered
    misses = {user: oracle_misses(env, user, tasks) for user, tasks in spread.items()}
    assert {user: m for user, m in misses.items() if m} == {}


def test_the_oracle_solves_every_task_for_a_profile_written_here(tmp_path):
    (tmp_path / "tess.json").write_text(json.dumps(TESS))
    env = gym.make("Act2Intent-Execute-v0", observation=("instruction",), users=["tess"],
                   profiles_dir=str(tmp_path))
    assert oracle_misses(env, "tess", task_ids()) == []
    env.close()


def test_the_oracle_solves_personalens_users(personalens_dir):
    users = profile_names(personalens_dir)
    assert len(users) == 40
    env = gym.make("Act2Intent-Execute-v0", observation=("instruction",), users=users,
                   profiles_dir=str(personalens_dir))
    misses = {users[0]: oracle_misses(env, users[0], task_ids())}  # one user, every task
    misses |= {user: oracle_misses(env, user, tasks)
               for user, tasks in spread_tasks(users, every=4).items()}
    assert {user: m for user, m in misses.items() if m} == {}
    env.close()


def test_the_oracle_reaches_the_last_post_of_the_timeline_on_the_shortest_screen():
    # The For you timeline interleaves three contexts (60 posts); dev's and farid's common
    # topic post is its last. On a screen 1.5 times as high as wide it takes 21 steps.
    env = gym.make("Act2Intent-Execute-v0", device="sim:1080x1620",
                   observation=("instruction",), users=["dev", "farid"])
    tasks = task_ids(("G-X-01", "G-X-02", "G-X-03"))
    runs = {user: oracle_runs(env, user, tasks) for user in ("dev", "farid")}
    env.close()
    assert max(len(actions) for r in runs.values() for _, _, actions in r) == 21
    assert {user: [task for task, result, _ in r if not result.success]
            for user, r in runs.items()} == {"dev": [], "farid": []}
