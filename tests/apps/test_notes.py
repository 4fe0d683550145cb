"""The notes app: what its screens show after each action (read from the dump, as an
agent would) and its user-conditioned lists."""

import itertools

import pytest

from mobileintent_gym.apps import registry
from mobileintent_gym.errors import UnknownRouteError
from mobileintent_gym.users import load_user_content
from tests.helpers import entities, nodes, press, scrolled_entities, shown_count, tap_node, texts


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
    assert header_counts(phone)["Followers"] == state.followers != len(state.follows)
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
