"""The notes app: what its screens show after each action (read from the dump, as an
agent would), its user-conditioned lists, and its tasks for a profile written here."""

import itertools
import json

import gymnasium as gym
import pytest

import mobileintent_gym  # noqa: F401  (registers the envs)
from mobileintent_gym.agents import OracleAgent, RandomAgent
from mobileintent_gym.apps import registry
from mobileintent_gym.errors import UnknownRouteError
from mobileintent_gym.rollouts import evaluate
from mobileintent_gym.tasks import task_ids
from mobileintent_gym.users import load_user_content, resolve_profile
from tests.helpers import entities, nodes, press, scrolled_entities, shown_count, tap_node, texts

TASKS = task_ids(("G-RBK-01", "G-RBK-02", "G-RBK-03"))


def header_counts(phone):
    """Me's header: {label: count} for Following, Followers and Likes & saves."""
    header = nodes(phone, resource_id="profile_header")[0]
    shown = [n.text for n in header.walk() if n.text]
    return {label: int(count.replace(",", "")) for count, label in itertools.pairwise(shown)
            if label in ("Following", "Followers", "Likes & saves")}


def test_saving_a_discover_note_shows_on_its_page_and_tops_the_saved_tab(phone):
    phone.open("notes")
    card = nodes(phone, resource_id="note_card")[1]
    tap_node(phone, card)
    assert phone.route() == "notes/note"
    assert nodes(phone, resource_id="toolbar")[0].entity == card.entity
    saved, before = shown_count(phone, "save")
    assert not saved
    press(phone, resource_id="save")
    assert shown_count(phone, "save") == (True, before + 1)
    assert shown_count(phone, "like")[0] is False  # the other toggle stays as it was
    phone.open("notes", "notes/me/saved")
    assert entities(phone, "note_card")[0] == card.entity
    phone.open("notes", "notes/note", id=card.entity)
    press(phone, resource_id="save")  # a second tap takes the save back
    assert shown_count(phone, "save") == (False, before)
    phone.open("notes", "notes/me/saved")
    assert card.entity not in scrolled_entities(phone, "note_card")


def test_liking_fills_the_heart_on_the_page_and_on_the_cards(phone):
    note = phone.state.apps["notes"].discover[0]
    phone.open("notes", "notes/note", id=note)
    likes = shown_count(phone, "like")[1]
    press(phone, resource_id="like")
    assert shown_count(phone, "like") == (True, likes + 1)
    phone.open("notes", "notes/me/liked")
    first = nodes(phone, resource_id="note_card")[0]
    assert first.entity == note
    assert [n.desc for n in first.walk() if n.resource_id.endswith(":id/likes")] == [
        f"{likes + 1:,} likes"]


def test_likes_and_saves_of_your_own_notes_count_on_me(phone):
    own = phone.state.apps["notes"].mine[0]
    phone.open("notes", "notes/me")
    assert entities(phone, "note_card")[0] == own
    total = header_counts(phone)["Likes & saves"]
    phone.open("notes", "notes/note", id=own)
    assert not nodes(phone, resource_id="follow")  # no Follow on your own note
    press(phone, resource_id="like")
    press(phone, resource_id="save")
    phone.open("notes", "notes/me")
    assert header_counts(phone)["Likes & saves"] == total + 2


def test_following_an_author_shows_on_the_button_and_on_me(phone):
    state = phone.state.apps["notes"]
    note = next(state.notes[n] for n in state.discover
                if state.notes[n].author not in state.follows)
    phone.open("notes", "notes/me")
    following = header_counts(phone)["Following"]
    assert following == len(state.follows)
    phone.open("notes", "notes/note", id=note.id)
    assert texts(phone, "follow") == ["Follow"]
    assert not nodes(phone, resource_id="follow")[0].checked
    press(phone, resource_id="follow")
    assert texts(phone, "follow") == ["Following"]
    assert nodes(phone, resource_id="follow")[0].checked
    phone.open("notes", "notes/me")
    assert header_counts(phone)["Following"] == following + 1


def test_a_comment_shows_under_the_note_and_counts(phone):
    note = phone.state.apps["notes"].discover[0]
    phone.open("notes", "notes/note", id=note)
    comments = shown_count(phone, "comment")[1]
    press(phone, resource_id="comment_box")
    assert texts(phone, "send") == ["Send"] and not nodes(phone, resource_id="send")[0].enabled
    assert not nodes(phone, resource_id="like")  # Send takes the counts' place while typing
    phone.act("TYPE[Which size did you take?]")
    press(phone, resource_id="send")
    mine = nodes(phone, resource_id="my_comment")
    assert [[n.text for n in c.walk() if n.text] for c in mine] == [
        ["Alex Morgan", "Which size did you take?", "Today 09:41"]]
    assert f"{comments + 1:,} comments" in [n.text for n in nodes(phone)]
    assert shown_count(phone, "comment") == (False, comments + 1)
    assert texts(phone, "comment_box") == ["Say something…"]  # the box empties
    press(phone, resource_id="comment_box")
    phone.act("TYPE[   ]")
    phone.act("PRESS[ENTER]")  # a blank comment is not posted
    assert len(phone.state.apps["notes"].comments) == 1


def test_me_tabs_switch_in_place_and_show_their_lists_in_order(phone):
    state = phone.state.apps["notes"]
    phone.open("notes")
    press(phone, resource_id="nav_me")
    assert nodes(phone, resource_id="tab_notes")[0].selected
    assert scrolled_entities(phone, "note_card") == list(state.mine)
    for tab, route, field in (("tab_saved", "notes/me/saved", "saved"),
                              ("tab_liked", "notes/me/liked", "liked")):
        phone.open("notes", "notes/me")
        press(phone, resource_id=tab)
        assert phone.route() == route and nodes(phone, resource_id=tab)[0].selected
        assert scrolled_entities(phone, "note_card") == list(getattr(state, field))
    assert phone.act("PRESS[BACK]").route == "launcher"  # the tab switches replaced


def test_covers_show_the_initials_of_the_title_beside_them(phone):
    for route in ("notes/discover", "notes/me/saved", "notes/me/liked"):
        phone.open("notes", route)
        cards = [n for n in phone._current().root.walk()
                 if n.resource_id.endswith(":id/note_card") and n.bounds == n.frame]
        assert len(cards) >= 2, route
        for card in cards:
            art = next(n.paint for n in card.walk() if n.cls.endswith("ImageView"))
            title = next(n.text for n in card.walk() if n.resource_id.endswith(":id/title"))
            assert (art.label, art.seed) == (title, card.entity)


def test_an_unknown_note_is_refused_by_name_and_changes_nothing(phone):
    phone.open("notes", "notes/discover")
    with pytest.raises(UnknownRouteError, match="nope"):
        phone.open("notes", "notes/note", id="nope")
    assert phone.route() == "notes/discover"


def test_two_users_get_their_own_twenty_notes_in_each_list_and_share_the_common_ones():
    contexts = registry.get("notes").contexts
    ana, chen = (load_user_content(u) for u in ("demo-ana", "demo-chen"))
    for spec in contexts:
        a, c = ana.contexts[spec.key], chen.contexts[spec.key]
        assert a.common == c.common == spec.common
        assert len(a.common + a.personal) == 20 and len(c.common + c.personal) == 20
        assert len(set(a.personal) & set(c.personal)) <= 10, spec.key
    # Chen saves keyboards and games; Ana saves jewellery and festival notes.
    tags = {r.id: set(r["tags"]) for r in contexts[0].pool.records()}
    saved = {name: set().union(*(tags[n] for n in c.contexts["notes:saved"].personal))
             for name, c in (("ana", ana), ("chen", chen))}
    assert {"mechanical keyboards", "board games"} <= saved["chen"] - saved["ana"]
    assert {"jewelry", "music festivals"} <= saved["ana"] - saved["chen"]


@pytest.fixture(scope="module")
def reader(tmp_path_factory):
    """A profile of this test's own: a reader and home cook who travels to cities."""
    profile = resolve_profile("demo-dara").to_dict()
    profile["user_id"] = profile["demographics"]["user_id"] = "test-reader"
    profile["interests"] = {k: int(k in ("Books", "Travel", "Restaurants"))
                            for k in profile["interests"]}
    profile["affinities"] = {
        "Books": {"Genre": ["mystery", "poetry"]},
        "Travel": {"Preferred Destination Types": ["city", "cultural"]},
        "Restaurants": {"Cuisine Preference": ["Japanese", "vegetarian"]}}
    path = tmp_path_factory.mktemp("profiles") / "test-reader.json"
    path.write_text(json.dumps(profile))
    return str(path)


def test_the_oracle_solves_every_notes_task_for_a_profile_of_the_tests_own(reader):
    env = gym.make("Act2Intent-Execute-v0", observation=("instruction",), users=[reader])
    runs = evaluate(env, lambda e, seed: OracleAgent(e), [reader], TASKS)
    assert [r.success for r, _ in runs] == [True] * 12
    assert all(r.rewards == (1.0,) * len(r.rewards) for r, _ in runs)
    random = evaluate(env, lambda e, seed: RandomAgent(e, seed), [reader], TASKS)
    assert sum(r.success for r, _ in random) <= 2  # a random agent stays near zero
    env.close()
