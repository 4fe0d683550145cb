"""The tour's steps do what their names and frames say."""

from __future__ import annotations

import re

import pytest

from mobileintent_gym.actions import Action
from mobileintent_gym.phone import SimPhone, hierarchy
from mobileintent_gym.phone.query import find_all, rid_suffix
from mobileintent_gym.phone.tour import fixed, plan, walk


@pytest.fixture(scope="module")
def steps():
    """Each step of the tour: its name → (the dump before it, what it did, the dump after)."""
    phone, out = SimPhone(), {}
    for name, xml, result in walk(phone):
        out[name] = (xml, result, phone.hierarchy())
    return out


@pytest.mark.parametrize("name", ["reader_recommended_book", "music_track_menu", "pay_bill"])
def test_a_tap_after_scrolling_opens_a_row_the_screen_shows_whole(steps, name):
    # Each tapped the first match: a strip of a row scrolled nearly out of its list (31 of
    # 291 pixels), so the next frame opened a record the frame before did not show.
    before, result, _ = steps[name]
    hit = result.event.hit
    heights = [n.bounds[3] - n.bounds[1]
               for n in find_all(before, resource_id=rid_suffix(hit.resource_id))]
    assert hit.bounds[3] - hit.bounds[1] >= 0.9 * max(heights) > 100


def state_of(xml: str, rid: str, bounds: tuple[int, int, int, int]) -> tuple[str, str]:
    node = next(n for n in hierarchy.parse(xml).walk()
                if n.bounds == bounds and rid_suffix(n.resource_id) == rid)
    return node.text, node.desc


def test_the_social_tour_likes_follows_and_unfollows_as_named(steps):
    # "liked" and "followed" tapped a post already liked and an author already followed.
    _, liked, after = steps["social_liked"]
    assert state_of(after, "like", liked.event.hit.bounds)[1] == "Liked"
    for name, shown in (("social_followed", "Following"), ("social_unfollowed", "Follow")):
        _, result, after = steps[name]
        assert state_of(after, "follow", result.event.hit.bounds)[0] == shown


def test_an_app_step_named_like_an_opening_does_not_turn_launcher_pages(monkeypatch):
    # The forum's own step "home" was taken for the step opening the forum (both
    # "forum_home"): the tour swiped left 16 times inside the forum before taking it.
    phone = SimPhone()
    forum = type(phone.apps["forum"])
    monkeypatch.setattr(forum, "tour", (*forum.tour, ("home", fixed(Action.press("BACK")))))
    taken, act = [], phone.act
    monkeypatch.setattr(phone, "act", lambda a: taken.append((phone.route(), str(a))) or act(a))
    names = [name for name, *_ in walk(phone)]

    assert names.count("forum_home") == 2
    assert {route for route, action in taken if action == "SWIPE[LEFT]"} <= {"launcher"}


def test_a_step_that_does_not_fit_its_screen_is_named_with_the_screen(monkeypatch):
    # "tour: no element with {'resource_id': 'add_to_lst'} on screen" named neither the
    # app's step nor where it was; an app's failing handler was named without its line.
    from mobileintent_gym.phone.tour import TourError, tap

    phone = SimPhone(540, 1200)
    forum = type(phone.apps["forum"])
    monkeypatch.setattr(forum, "tour", (("typo", tap(resource_id="add_to_lst")),))
    with pytest.raises(TourError, match=r"^tour step 'forum_typo' on forum/\S+: no element "
                                        r"with \{'resource_id': 'add_to_lst'\}"):
        list(walk(phone))

    def failing(nav, post_id):  # an app's bug, in its own handler
        raise ZeroDivisionError("a bug of the app")

    line = failing.__code__.co_firstlineno + 1
    social = phone.apps["social"]
    monkeypatch.setattr(forum, "tour", ())
    monkeypatch.setattr(type(social), "tour", (("liked", tap(resource_id="like")),))
    monkeypatch.setattr(social, "on_like", failing)
    with pytest.raises(TourError, match=rf"^tour step 'social_liked' on social/home: "
                                        rf"CLICK\[.*\] failed on social/home and was undone: "
                                        rf"ZeroDivisionError\('a bug of the app'\) at "
                                        rf"{re.escape(__file__)}:{line}$"):
        list(walk(phone))


@pytest.mark.parametrize("seed", [1, 7, 12])
def test_the_tour_runs_on_other_content(seed):
    # The tests replay the tour's steps on other seeds and devices: a step asking for a
    # toggle in one state ("Following") stopped it where the content had the other.
    phone = SimPhone(540, 1200)
    phone.reset(seed=seed)
    for _, step in plan(phone.apps.values()):
        phone.act(step(phone.hierarchy()))
    assert phone.route() == "launcher"
