import dataclasses
import json
import os
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from mobileintent_gym.apps import registry
from mobileintent_gym.phone import SimPhone
from mobileintent_gym.phone.query import find_all
from mobileintent_gym.users import (
    CONTEXTS,
    PairConfig,
    build_user_content,
    builtin_users,
    match_key,
    resolve_profile,
)
from mobileintent_gym.users.pair import random_lists, random_state
from tests.helpers import side_by_side

# Every list holds 20 records but music's shorter recent plays and home playlists.
SIZES = {"music:recent": 10, "music:home": 8}


ROOT = Path(__file__).resolve().parents[2]


def pool(key):
    return CONTEXTS[key].pool.entities()


@pytest.fixture(scope="module")
def contents(sentence_encoder):
    config = PairConfig(encoder=sentence_encoder)
    return {name: build_user_content(resolve_profile(name), config)
            for name in builtin_users()}


def shown(content):
    """The music and chat contexts' ids in the order the phone shows them."""
    music, chat = content.state.apps["music"], content.state.apps["chat"]
    return {"music:liked": list(music.liked), "music:recent": list(music.recent),
            "music:home": list(music.home), "chat:chats": [c.id for c in chat.chats],
            "chat:moments": [m.id for m in chat.moments]}


def test_every_context_holds_its_common_items_and_personal_picks(contents):
    commons = {key: spec.common for key, spec in CONTEXTS.items()}
    for content in contents.values():
        assert tuple(content.contexts) == tuple(CONTEXTS)  # every app's, in launcher order
        lists = shown(content)
        for key, items in content.contexts.items():
            assert items.common == commons[key]
            assert len(items.common) + len(items.personal) == SIZES.get(key, 20)
            if key in lists:
                assert sorted(lists[key]) == sorted(items.common + items.personal)
            for i in items.common + items.personal:
                label, cue = content.labels[i], content.cues[i]
                assert label and cue and label.casefold() not in cue.casefold()
        songs = content.contexts["music:liked"], content.contexts["music:recent"]
        ids = [i for items in songs for i in items.common + items.personal]
        assert len(set(ids)) == len(ids)  # no song in both lists
        assert len({content.labels[i].casefold() for i in ids}) == len(ids)


def test_the_state_is_complete_and_loads_on_a_phone(contents):
    content = contents["demo-ana"]
    music, chat = content.state.apps["music"], content.state.apps["chat"]
    home_tracks = {t for p in music.home for t in music.playlists[p].tracks}
    assert set(music.tracks) == set(music.liked) | set(music.recent) | home_tracks
    assert {c.contact for c in chat.chats} | {m.author for m in chat.moments} == set(chat.contacts)
    assert any(c.unread for c in chat.chats)
    assert all(c.messages[-1].sender != "me" for c in chat.chats if c.unread)
    phone = SimPhone()
    phone.reset(content.state)
    phone.open("music", "music/library/liked")
    on_screen = [n.entity for n in find_all(phone.hierarchy(), resource_id="track")]
    assert on_screen[:5] == list(music.liked[:5])
    phone.open("chat", "chat/moments")
    assert chat.moments[0].id in {n.entity for n in find_all(phone.hierarchy())}


def test_a_hip_hop_fan_and_a_classical_fan_like_different_songs(contents):
    ana, ben = contents["demo-ana"], contents["demo-ben"]
    # Each picks 18 of 64 posts; past their few strong matches both tails are generic.
    for key, most in (("music:liked", 0), ("music:recent", 2), ("music:home", 1),
                      ("chat:moments", 9)):
        assert ana.contexts[key].common == ben.contexts[key].common
        overlap = set(ana.contexts[key].personal) & set(ben.contexts[key].personal)
        assert len(overlap) <= most, key
    genre = {e.id: match_key(e.record["genre"]) for e in pool("music:liked")}
    liked = Counter(genre[i] for i in ana.contexts["music:liked"].personal)
    liked += Counter(genre[i] for i in ana.contexts["music:recent"].personal)
    assert sum(liked[g] for g in ("hiphop", "amapiano", "afrobeats", "rb")) >= 20
    # Ben's genres hold 16 tracks beyond the common ones: exact matches, so all are liked.
    reserved = {i for key in ("music:liked", "music:recent") for i in CONTEXTS[key].common}
    exact = {i for i, g in genre.items() if g in ("classical", "jazz", "blues")} - reserved
    assert len(exact) == 16 and exact <= set(ben.contexts["music:liked"].personal)


@pytest.mark.parametrize("name", ["demo-ana", "demo-dara"])
def test_chats_with_the_users_frequent_contacts_are_all_listed(contents, name):
    wanted = {match_key(v) for v in
              resolve_profile(name).affinities["Messaging"]["Frequent Contact"]}
    exact = {e.id for e in pool("chat:chats") if e.keys & wanted} - set(
        CONTEXTS["chat:chats"].common)
    assert 4 <= len(exact) <= 18
    assert exact <= set(contents[name].contexts["chat:chats"].personal)


def test_same_profile_gives_its_own_state_copy_each_time(contents, sentence_encoder):
    config = PairConfig(encoder=sentence_encoder)
    first = build_user_content(resolve_profile("demo-chen"), config)
    first.state.apps.clear()
    again = build_user_content(resolve_profile("demo-chen"), config)
    assert again.state is not first.state and again.contexts is contents["demo-chen"].contexts
    assert again.state.apps["music"].liked == contents["demo-chen"].state.apps["music"].liked
    with pytest.raises(TypeError):
        again.labels["t000"] = "changed"
    with pytest.raises(AttributeError):  # app states are immutable: a phone cannot change them
        again.state.apps["music"].liked = ()


def test_the_seed_reorders_but_keeps_the_selection(contents, sentence_encoder):
    other = build_user_content(resolve_profile("demo-ana"),
                               PairConfig(encoder=sentence_encoder, seed=7))
    base = contents["demo-ana"]
    assert other.contexts == base.contexts
    assert shown(other) != shown(base)
    assert all(sorted(a) == sorted(b) for a, b in zip(shown(other).values(), shown(base).values(),
                                                      strict=True))


def dump(content):
    chat = content.state.apps["chat"]
    return {"contexts": {k: [v.common, v.personal] for k, v in content.contexts.items()},
            "shown": shown(content), "unread": [c.unread for c in chat.chats],
            "likes": [m.likes for m in chat.moments], "encoder": content.encoder}


SCRIPT = """
import json
from mobileintent_gym.users import PairConfig, build_user_content, builtin_users
from mobileintent_gym.users import resolve_profile
from tests.users.test_pair import dump
config = PairConfig(encoder="sentence")
print(json.dumps({n: dump(build_user_content(resolve_profile(n), config))
                  for n in builtin_users()}, sort_keys=True))
"""


def test_content_is_byte_identical_across_processes(contents):
    # No content cache: with one, the other process would read what this one built. Its
    # hash seed differs from this process's (a random one unless $PYTHONHASHSEED says).
    seed = "2" if os.environ.get("PYTHONHASHSEED") == "1" else "1"
    (there,) = side_by_side(
        {"args": [sys.executable, "-c", SCRIPT], "cwd": ROOT,
         "env": {**os.environ, "PYTHONHASHSEED": seed, "HF_HUB_OFFLINE": "1",
                 "PYTHONPATH": str(ROOT), "MOBILEINTENT_GYM_CACHE": "off"}}, timeout=300)
    here = json.dumps({n: dump(c) for n, c in contents.items()}, sort_keys=True)
    assert json.loads(there) == json.loads(here)


def test_phones_without_a_user_share_each_apps_built_in_state():
    # Every new phone built the ten apps' content again (32 ms of its 36); app states are
    # immutable, so phones share them.
    first, second = SimPhone(), SimPhone()
    assert all(first.state.apps[a] is second.state.apps[a] for a in first.apps)
    chat = registry.get("chat")
    kept = random_state(chat.contexts, chat.build_state, "chat", 0)
    assert kept is first.state.apps["chat"]
    assert random_state(chat.contexts, chat.build_state, "chat", 1) != kept  # another seed
    # Other context objects, even equal ones, are built from: their pools may differ.
    copies = [dataclasses.replace(spec) for spec in chat.contexts]
    rebuilt = random_state(copies, chat.build_state, "chat", 0)
    assert rebuilt is not kept and rebuilt == kept


@pytest.mark.parametrize("bundle", registry.bundles(), ids=lambda b: b.id)
def test_a_phone_without_a_user_shows_random_lists_of_the_pools(bundle):
    lists = random_lists(bundle.contexts, 3)
    assert lists == random_lists(bundle.contexts, 3) != random_lists(bundle.contexts, 4)
    for spec in bundle.contexts:
        records = lists[spec.key]
        assert len(records) == (spec.size or PairConfig.top_k)
        assert set(spec.common) <= {r.id for r in records}
        assert {r.id for r in records} <= {r.id for r in spec.pool.records()}
    for a in bundle.contexts:  # lists that share a pool never share a record
        for b in bundle.contexts:
            if a.key < b.key and a.pool == b.pool:
                assert not {r.id for r in lists[a.key]} & {r.id for r in lists[b.key]}


@pytest.mark.parametrize("key", list(CONTEXTS))
def test_pools_are_large_unique_and_their_cues_hide_their_labels(key):
    entities = pool(key)
    assert len(entities) >= 1.5 * PairConfig().size(CONTEXTS[key])
    assert len({e.id for e in entities}) == len(entities)
    assert len({e.label.casefold() for e in entities}) == len(entities)
    assert all(e.label.casefold() not in e.cue.casefold() for e in entities)
    assert all(e.text and e.keys for e in entities)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"sizes": {"music:nowhere": 5}}, "unknown contexts"),
    ({"sizes": {"music:home": 1}}, "needs room for its 2 common"),
    ({"top_k": 1}, "needs room"),
    ({"top_k": 5.5}, "top_k must be an integer, got 5.5"),
    ({"top_k": "20"}, "top_k must be an integer, got '20'"),
    ({"seed": -1}, "non-negative"),
    # Each was taken (a string's letters as attributes, 2.7 cut to 2) or failed deep inside.
    ({"skip_attributes": "Price Range"}, "skip_attributes must be a collection of attribute"),
    ({"skip_attributes": None}, "skip_attributes must be a collection of attribute names"),
    ({"skip_attributes": ["Price Range", 3]}, "skip_attributes must be a collection"),
    ({"sizes": {"music:liked": 2.7}}, r"context key and an integer size, got \('music:liked', "
                                      r"2.7\)"),
    ({"sizes": {"music:liked": "abc"}}, "context key and an integer size"),
    ({"sizes": "x"}, r"context key and an integer size, got 'x'"),
    ({"sizes": 5}, "sizes must be \\(context, size\\) pairs or a mapping, got 5"),
    ({"encoder": 42}, "encoder must be 'auto', 'sentence', 'lexical' or an Encoder"),
])
def test_bad_configs_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        PairConfig(**kwargs)


def test_skip_attributes_may_be_any_iterable_of_names():
    # A generator was used up by the check and became ().
    names = PairConfig(skip_attributes=(n for n in ["Price Range", "B"])).skip_attributes
    assert names == ("B", "Price Range")


def test_an_encoder_that_cannot_be_hashed_is_named():
    class Unhashable:
        name = "mine"
        __hash__ = None

        def encode(self, texts):
            return np.zeros((len(texts), 3), np.float32)

    with pytest.raises(ValueError, match="must be hashable"):
        PairConfig(encoder=Unhashable())


def test_config_is_hashable_and_sizes_take_a_mapping():
    config = PairConfig(sizes={"music:home": 6})
    assert config.size(CONTEXTS["music:home"]) == 6 and config.size(CONTEXTS["chat:chats"]) == 20
    assert PairConfig().size("music:home") == 8  # the context's own size, by key too
    assert hash(config) == hash(PairConfig(sizes=(("music:home", 6),)))


def test_numpy_integers_configure_like_python_ones():
    config = PairConfig(top_k=np.int64(20), seed=np.int32(0))
    assert repr(config) == repr(PairConfig())  # the disk cache is keyed by the repr
    # A set's order differs between processes (hash randomisation).
    assert repr(PairConfig(skip_attributes={"Price Range", "Gaming Platforms", "B"})) == repr(
        PairConfig(skip_attributes=["B", "Gaming Platforms", "Price Range", "B"]))
