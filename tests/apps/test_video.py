"""The video app: what its screens show after each action (read from the dump, as an
agent would) and its user-conditioned lists."""

import pytest

from mobileintent_gym.apps import registry
from mobileintent_gym.errors import UnknownRouteError
from mobileintent_gym.users import load_user_content
from tests.helpers import entities, nodes, press, scrolled_entities, shown_count, tap_node, texts


def test_liking_a_followed_video_shows_on_its_page_and_tops_the_liked_list(phone):
    phone.open("video")
    press(phone, resource_id="nav_following")
    press(phone, resource_id="tab_videos")
    assert phone.route() == "video/following/videos"
    row = nodes(phone, resource_id="video")[1]
    tap_node(phone, row)
    assert phone.route() == "video/video"
    assert nodes(phone, resource_id="video_title")[0].entity == row.entity
    liked, before = shown_count(phone, "like")
    assert not liked
    press(phone, resource_id="like")
    assert shown_count(phone, "like") == (True, before + 1)
    phone.open("video", "video/space/liked")
    assert entities(phone, "video")[0] == row.entity
    assert "21 videos" in texts(phone, "")  # the count under the title
    phone.open("video", "video/video", id=row.entity)
    press(phone, resource_id="like")  # a second tap takes the like back
    assert shown_count(phone, "like") == (False, before)
    phone.open("video", "video/space/liked")
    assert row.entity not in scrolled_entities(phone, "video")


def test_coins_and_favourites_count_on_the_page_and_on_me(phone):
    video = phone.state.apps["video"].home[0]
    phone.open("video", "video/video", id=video)
    coins, favorites = shown_count(phone, "coin")[1], shown_count(phone, "favorite")[1]
    press(phone, resource_id="coin")
    press(phone, resource_id="favorite")
    assert shown_count(phone, "coin") == (True, coins + 1)
    assert shown_count(phone, "favorite") == (True, favorites + 1)
    assert shown_count(phone, "like")[0] is False  # the other toggles stay as they were
    phone.open("video", "video/me")
    counts = [n.text for n in nodes(phone) if n.text.isdigit()]
    assert counts[2] == "1"  # following, liked, favourites


def test_following_an_uploader_brings_their_videos_into_following_newest_first(phone):
    # Follow changed the button only: the feed held the videos it was built with alone.
    state = phone.state.apps["video"]
    first = {state.videos[v].uploader for v in state.following}
    video = next(state.videos[v] for v in state.home if state.videos[v].uploader not in first)
    theirs = [v.id for v in state.videos.values() if v.uploader == video.uploader]
    phone.open("video", "video/video", id=video.id)
    press(phone, resource_id="follow")
    phone.open("video", "video/following/videos")
    shown = scrolled_entities(phone, "video")
    assert set(theirs) <= set(shown) and set(state.following) <= set(shown)
    hours = [phone.state.apps["video"].videos[v].hours for v in shown]
    assert hours == sorted(hours) and len(shown) == len(state.following) + len(theirs)
    phone.open("video", "video/video", id=video.id)
    press(phone, resource_id="follow")  # unfollowed again: the feed it started with
    phone.open("video", "video/following/videos")
    assert scrolled_entities(phone, "video") == list(state.following)


def test_unfollowing_an_uploader_takes_their_videos_out_of_following(phone):
    state = phone.state.apps["video"]
    video = state.videos[state.following[0]]
    own = [v for v in state.following if state.videos[v].uploader == video.uploader]
    phone.open("video", "video/video", id=video.id)
    assert texts(phone, "follow") == ["Following"] and nodes(phone, resource_id="follow")[0].checked
    press(phone, resource_id="follow")
    assert texts(phone, "follow") == ["+ Follow"]
    assert not nodes(phone, resource_id="follow")[0].checked
    phone.open("video", "video/following/videos")
    shown = scrolled_entities(phone, "video")
    assert not set(own) & set(shown)
    assert shown == [v for v in state.following if v not in own]
    phone.open("video", "video/video", id=video.id)
    press(phone, resource_id="follow")
    phone.open("video", "video/following/videos")
    assert scrolled_entities(phone, "video") == list(state.following)


def test_following_has_an_all_tab_of_updates_and_a_videos_tab_that_switch_in_place(phone):
    state = phone.state.apps["video"]
    phone.open("video")
    press(phone, resource_id="nav_following")
    assert nodes(phone, resource_id="tab_all")[0].selected
    updates = nodes(phone, resource_id="update")
    assert updates and [u.entity for u in updates] == list(state.following[:len(updates)])
    first = state.videos[state.following[0]]
    assert any(n.text == f"Posted a video · {first.age}" for n in updates[0].walk())
    assert [n.desc for n in nodes(phone, resource_id="uploaders")[0].walk()
            if n.desc][:3] == list(state.follows[:3])
    press(phone, resource_id="tab_videos")
    assert nodes(phone, resource_id="tab_videos")[0].selected
    assert phone.act("PRESS[BACK]").route == "launcher"  # the tab switch replaced, not stacked


def test_me_opens_the_space_whose_liked_videos_open_the_list(phone):
    state = phone.state.apps["video"]
    phone.open("video", "video/me")
    press(phone, resource_id="space")
    assert phone.route() == "video/space"
    assert entities(phone, "video_card")[:2] == list(state.liked[:2])  # a preview
    press(phone, resource_id="liked_videos")
    assert phone.route() == "video/space/liked"
    assert scrolled_entities(phone, "video") == list(state.liked)
    phone.act("PRESS[BACK]")
    phone.act("PRESS[BACK]")
    press(phone, resource_id="profile")  # the user's card opens the space too
    assert phone.route() == "video/space"


def test_covers_show_the_initials_of_the_title_beside_them(phone):
    for route in ("video/home", "video/space/liked", "video/following/videos"):
        phone.open("video", route)
        items = [n for n in phone._current().root.walk()
                 if n.resource_id.endswith((":id/video", ":id/video_card")) and n.bounds == n.frame]
        assert len(items) >= 4, route
        for item in items:
            art = next(n.paint for n in item.walk() if n.cls.endswith("ImageView"))
            title = next(n.text for n in item.walk() if n.resource_id.endswith(":id/title"))
            assert (art.label, art.seed) == (title, item.entity)


def test_an_unknown_video_is_refused_by_name_and_changes_nothing(phone):
    phone.open("video", "video/home")
    with pytest.raises(UnknownRouteError, match="nope"):
        phone.open("video", "video/video", id="nope")
    assert phone.route() == "video/home"


def test_two_users_get_their_own_twenty_videos_in_each_list_and_share_the_common_ones():
    contexts = registry.get("video").contexts
    ana, chen = (load_user_content(u) for u in ("demo-ana", "demo-chen"))
    for spec in contexts:
        a, c = ana.contexts[spec.key], chen.contexts[spec.key]
        assert a.common == c.common == spec.common
        assert len(a.common + a.personal) == 20 and len(c.common + c.personal) == 20
        assert len(set(a.personal) & set(c.personal)) <= 10, spec.key
    # Chen's keyboards and anime lead his Following feed; Ana's fashion and music lead hers.
    tags = {r.id: set(r["tags"]) for r in contexts[0].pool.records()}
    first = {name: tags[c.contexts["video:following"].personal[0]]
             for name, c in (("ana", ana), ("chen", chen))}
    assert {"mechanical keyboards", "anime"} & first["chen"]
    assert {"jewelry", "amapiano", "sneakers"} & first["ana"]
