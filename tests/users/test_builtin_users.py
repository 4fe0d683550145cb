"""The built-in users: the study's split as named sets, one resolver, valid and diverse people."""

import itertools
import json
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from mobileintent_gym.apps.plugin import user_handle
from mobileintent_gym.envs import ENV_SPECS
from mobileintent_gym.errors import InvalidProfileError, MobileIntentError
from mobileintent_gym.users import (
    USER_SETS,
    PairConfig,
    UnknownProfileError,
    build_user_content,
    builtin_users,
    load_profile,
    pick_user,
    resolve_profile,
    resolve_users,
)
from mobileintent_gym.users.profile import builtin_profiles_dir

STUDY_SETS = ("train", "val", "test")
PEOPLE = tuple(n for s in STUDY_SETS for n in USER_SETS[s])
# The twenty PersonaLens domains; a profile says 0 or 1 for each.
DOMAINS = {"Alarm", "Books", "Buses", "Calendar", "Events", "Finance", "Flights", "Games",
           "Hotels", "Media", "Messaging", "Movies", "Music", "Rental Cars", "Restaurants",
           "Services", "Shopping", "Sports", "Train", "Travel"}


def test_the_study_split_is_8_2_10_disjoint_and_with_the_demo_users_covers_every_profile():
    sizes = {name: len(USER_SETS[name]) for name in STUDY_SETS}
    assert sizes == {"train": 8, "val": 2, "test": 10}
    every = [n for users in USER_SETS.values() for n in users]
    assert len(every) == len(set(every))  # disjoint
    assert sorted(every) == sorted(builtin_users()) == sorted(resolve_users("all"))
    assert len(PEOPLE) >= 20


def test_a_set_name_stands_for_its_users_and_mixes_with_names_and_paths(tmp_path):
    assert resolve_users("test") == USER_SETS["test"] == resolve_users(None)
    assert resolve_users(["test"]) == USER_SETS["test"]
    path = tmp_path / "me.json"
    path.write_text((builtin_profiles_dir() / "demo-ana.json").read_text())
    mixed = resolve_users(["val", "demo-ben", path, "val", "elif"])
    assert mixed == (*USER_SETS["val"], "demo-ben", str(path))  # repeats dropped, in order
    assert resolve_users("demo-chen") == ("demo-chen",)


@pytest.mark.parametrize("env_id", [spec.id for spec in ENV_SPECS])
def test_an_env_refuses_two_users_who_are_one(tmp_path, env_id):
    # Both ran, and info["user"] said "demo-ana" for each: their results merged.
    import gymnasium as gym

    profile = json.loads((builtin_profiles_dir() / "demo-ben.json").read_text())
    path = tmp_path / "fake.json"
    path.write_text(json.dumps({**profile, "user_id": "demo-ana"}))
    with pytest.raises(MobileIntentError, match=f"users 'demo-ana' and '{path}' are both "
                                                "user 'demo-ana', one user to whatever keeps"):
        gym.make(env_id, users=["demo-ana", path])
    gym.make(env_id, users=["demo-ana", "demo-ben"]).close()  # two people: both kept


@pytest.mark.parametrize("env_id", [spec.id for spec in ENV_SPECS])
def test_every_env_names_a_user_given_by_a_profiles_path_by_its_id(tmp_path, env_id):
    # Understand, Predict, Proactive and Assist said the path, Execute and Session the id
    # (Assist both within one episode): one person's results were two users' in a log.
    import gymnasium as gym

    path = tmp_path / "ana.json"
    path.write_text((builtin_profiles_dir() / "demo-ana.json").read_text())
    with gym.make(env_id, users=[str(path)]) as env:
        assert env.reset(seed=0)[1]["user"] == "demo-ana"


def test_two_ids_one_folder_on_a_disk_that_ignores_case_are_refused(tmp_path):
    # "kofi" and "Kofi" (or an accent composed and decomposed) were two users: generate
    # wrote a folder for each, one folder on macOS and Windows, where one overwrote the other.
    from mobileintent_gym.users import distinct_users

    profile = json.loads((builtin_profiles_dir() / "demo-ben.json").read_text())
    for first, second in (("kofi", "Kofi"), ("Ren\u00e9e", "Rene\u0301e")):
        for uid in (first, second):
            (tmp_path / f"{uid.encode('unicode_escape').decode()}.json").write_text(
                json.dumps({**profile, "user_id": uid}))
        paths = [tmp_path / f"{uid.encode('unicode_escape').decode()}.json"
                 for uid in (first, second)]
        with pytest.raises(MobileIntentError, match=re.escape(
                f"have the ids {first!r} and {second!r}, which name one folder where file "
                "names ignore case (macOS, Windows) or how an accent is written (macOS)")):
            distinct_users(paths)
        assert list(distinct_users(paths[:1])) == [first]
    # Two folders everywhere: a capital of two letters is no capital to a disk.
    for uid in ("strasse", "stra\u00dfe"):
        (tmp_path / f"{uid}.json").write_text(json.dumps({**profile, "user_id": uid}))
    assert list(distinct_users([tmp_path / "strasse.json", tmp_path / "stra\u00dfe.json"])
                ) == ["strasse", "stra\u00dfe"]


def test_rollouts_refuse_two_users_who_are_one(tmp_path):
    # The env refused them, but run_episodes (and evaluate_ray) ran and recorded both.
    import gymnasium as gym

    from mobileintent_gym import rollouts
    from mobileintent_gym.agents import RandomAgent
    from mobileintent_gym.distributed import evaluate_ray

    profile = json.loads((builtin_profiles_dir() / "demo-ben.json").read_text())
    path = tmp_path / "fake.json"
    path.write_text(json.dumps({**profile, "user_id": "demo-ana"}))
    env = gym.make("Act2Intent-Execute-v0", users=["demo-ana"])
    with pytest.raises(MobileIntentError, match=f"users 'demo-ana' and '{path}' are both "):
        rollouts.run_episodes(env, RandomAgent, ["demo-ana", path], ["G-SPT-01:common:explicit"])
    env.close()
    with pytest.raises(MobileIntentError, match="are both user 'demo-ana'"):  # before Ray
        evaluate_ray({}, RandomAgent, ["demo-ana", path], ["G-SPT-01:common:explicit"])


def test_profiles_dir_names_resolve_and_set_names_win(tmp_path):
    (tmp_path / "user7.json").write_text(json.dumps({"interests": {}, "affinities": {}}))
    (tmp_path / "test.json").write_text(json.dumps({"interests": {}, "affinities": {}}))
    assert resolve_users(["user7", "val"], tmp_path) == ("user7", *USER_SETS["val"])
    assert resolve_users("test", tmp_path) == USER_SETS["test"]
    assert resolve_users(str(tmp_path / "test.json"), tmp_path) == (str(tmp_path / "test.json"),)


def test_a_set_whose_members_your_own_profiles_replace_says_so(tmp_path, monkeypatch):
    # A "hana.json" of one's own ran in the test set's place without a word.
    (tmp_path / "hana.json").write_text(json.dumps({"interests": {}, "affinities": {}}))
    with pytest.warns(UserWarning, match=r"set 'test' runs profiles of your own in place of "
                      r"its built-in users: hana \(.*hana.json\)"):
        assert resolve_users("test", tmp_path) == USER_SETS["test"]
    monkeypatch.setenv("MOBILEINTENT_GYM_PROFILES", str(tmp_path))
    with pytest.warns(UserWarning, match="hana"):
        resolve_users(["demo", "test"])
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert resolve_users(["val", "hana"]) == (*USER_SETS["val"], "hana")


@pytest.mark.parametrize("users", ["tset", ["val", "nobody"]])
def test_an_unknown_name_is_named_with_the_sets_and_profiles_known(users):
    with pytest.raises(UnknownProfileError) as err:
        resolve_users(users)
    message = str(err.value)
    assert "'tset'" in message or "'nobody'" in message
    assert "train (8), val (2), test (10), demo (4), all (" in message
    assert "amara" in message  # the built-in names searched


@pytest.mark.parametrize(("users", "named"), [
    ([], "users is empty"),
    (7, "users must be a set name, a profile name or path, or a list of them; got int 7"),
    ({"test": 1}, "got dict"),
    ([7], "a user must be a profile name or path, got int 7"),
])
def test_bad_users_are_the_profile_error(users, named):
    with pytest.raises(InvalidProfileError, match=named):
        resolve_users(users)


def test_a_named_user_is_taken_as_is_and_a_set_or_none_is_drawn_from():
    rng, untouched = np.random.default_rng(0), np.random.default_rng(0)
    assert pick_user("demo-ben", USER_SETS["test"], rng) == "demo-ben"
    assert rng.integers(1 << 30) == untouched.integers(1 << 30)  # nothing was drawn
    assert {pick_user("val", ("demo-ana",), rng) for _ in range(20)} == set(USER_SETS["val"])
    demo = USER_SETS["demo"]
    assert {pick_user(None, demo, rng) for _ in range(40)} == set(demo)
    with pytest.raises(UnknownProfileError, match="'nobody'"):
        pick_user("nobody", demo, rng)


def test_every_built_in_profile_is_valid_and_complete():
    for name in builtin_users():
        path = builtin_profiles_dir() / f"{name}.json"
        profile = load_profile(path)
        assert profile.user_id == name == path.stem
        assert shape_problems(profile) == [], name


def test_every_built_in_user_has_a_full_name_of_their_own_starting_with_their_id():
    profiles = [resolve_profile(n) for n in builtin_users()]
    names = [p.demographics["name"] for p in profiles]
    assert len(set(names)) == len(names)
    for profile, name in zip(profiles, names, strict=True):
        assert profile.name == name and len(name.split()) >= 2, name  # a first and a last name
        given = profile.user_id.removeprefix("demo-")
        assert user_handle(name).startswith(given + "_"), (profile.user_id, name)


def shape_problems(p):
    """What a built-in person must hold beyond what the loader checks."""
    found = [] if set(p.interests) == DOMAINS else [f"interests cover {sorted(p.interests)}"]
    found += [f"no affinities for {d}" for d in p.active_domains() if not p.affinities.get(d)]
    found += [f"unknown domain {d}" for d in set(p.affinities) - DOMAINS]
    if p.user_id in PEOPLE:
        keys = {"age", "gender", "occupation", "reside_country", "city", "languages"}
        found += [f"demographics lack {k}" for k in sorted(keys - set(p.demographics))]
        found += [] if len(p.active_domains()) >= 8 else ["fewer than 8 interests"]
        found += [] if len(p.interactions) >= 3 else ["fewer than 3 interactions"]
    return found


def test_the_people_are_diverse():
    people = [resolve_profile(n) for n in PEOPLE]
    demo = [p.demographics for p in people]
    assert len({d["reside_country"] for d in demo}) >= 15
    assert len({d["age"] for d in demo}) >= 5
    assert {d["gender"] for d in demo} >= {"Female", "Male", "Non-binary"}
    assert len({d["occupation"] for d in demo}) == len(people)
    assert len({lang for d in demo for lang in d["languages"]}) >= 20
    liked = Counter(domain for p in people for domain in p.active_domains())
    # Each kind of app the study uses has users who care about it.
    for domain in ("Music", "Messaging", "Finance", "Media", "Travel", "Shopping", "Books",
                   "Calendar", "Sports", "Games", "Restaurants", "Events"):
        assert liked[domain] >= 5, (domain, liked[domain])
    genres = [frozenset(p.affinities["Music"]["Preferred Genres"]) for p in people]
    assert len(set(genres)) == len(people)


def test_each_person_sees_their_own_content_in_every_list(sentence_encoder):
    config = PairConfig(encoder=sentence_encoder)
    contents = {n: build_user_content(resolve_profile(n), config) for n in PEOPLE}
    for key in contents[PEOPLE[0]].contexts:
        lists = {n: frozenset(c.contexts[key].personal) for n, c in contents.items()}
        same = [(a, b) for a, b in itertools.combinations(PEOPLE, 2) if lists[a] == lists[b]]
        assert not same, (key, same)


def test_the_profiles_are_written_in_the_project_not_copied(personalens_dir):
    """No built-in profile repeats a PersonaLens interaction text (ours are invented)."""
    theirs = {text for path in Path(personalens_dir).glob("user*.json")
              for text in json.loads(path.read_text())["interactions"].values()}
    ours = {text for n in builtin_users() for text in resolve_profile(n).interactions.values()}
    assert not ours & theirs
