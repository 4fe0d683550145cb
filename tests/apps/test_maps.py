"""The maps app: what its screens show after each action and its content per user."""

import json
import unicodedata

import numpy as np
import pytest

from mobileintent_gym.apps.maps import mapview
from mobileintent_gym.apps.maps.app import CHIPS
from mobileintent_gym.apps.maps.state import MODES, duration, minutes
from mobileintent_gym.phone import SimPhone
from mobileintent_gym.phone.query import find
from mobileintent_gym.users import builtin_users, load_user_content
from tests.helpers import nodes, press, tap_node, texts


def entities(phone, rid):
    return [n.entity for n in nodes(phone, resource_id=rid)]


def scroll_all(phone, rid, also="section_title"):
    """Entity ids of every row ``rid`` of the list in front, swiping to its end, and the
    texts of every ``also`` on the way."""
    seen, other = list(entities(phone, rid)), texts(phone, also)
    while phone.act("SWIPE[UP]").effect:
        seen += [e for e in entities(phone, rid) if e not in seen]
        other += [t for t in texts(phone, also) if t not in other]
    return seen, other


def test_search_lists_both_sections_of_recent_searches_in_order(phone):
    phone.open("maps")
    press(phone, resource_id="search_bar")
    assert phone.route() == "maps/search"
    maps = phone.state.apps["maps"]
    assert len(maps.recent) >= 20 and len(maps.food) >= 20
    assert scroll_all(phone, "recent") == ([*maps.recent, *maps.food],
                                           ["Recent", "Recent food & drink"])


def test_a_place_shows_its_details_and_saving_shows_on_the_place_and_in_saved(phone):
    maps = phone.state.apps["maps"]
    place = maps.places[next(i for i in maps.recent if i not in maps.saved)]
    phone.open("maps", "maps/search")
    row = next(n for n in nodes(phone, resource_id="recent") if n.entity == place.id)
    tap_node(phone, row)
    assert phone.route() == "maps/place"
    assert texts(phone, "title")[0] == texts(phone, "place_name")[0] == place.name
    assert find(phone.hierarchy(), resource_id="rating").desc == (
        f"Rated {place.rating:.1f} of 5 by {place.reviews:,} reviewers")
    assert place.address in texts(phone, "title")
    save = find(phone.hierarchy(), resource_id="save")
    assert (save.text, save.checked) == ("Save", False)
    press(phone, resource_id="save")
    save = find(phone.hierarchy(), resource_id="save")
    assert (save.text, save.checked) == ("Saved", True)
    phone.open("maps", "maps/saved")
    assert entities(phone, "saved_place")[0] == place.id
    assert texts(phone, "section_title") == [f"{len(maps.saved) + 1} saved places"]
    tap_node(phone, nodes(phone, resource_id="saved_place")[0])
    press(phone, resource_id="save")  # unsave
    phone.act("PRESS[BACK]")
    assert place.id not in entities(phone, "saved_place")


def test_directions_preview_then_navigate_shows_on_every_screen(phone):
    maps = phone.state.apps["maps"]
    place = maps.places[maps.food[0]]
    phone.open("maps", "maps/place", id=place.id)
    press(phone, resource_id="directions")
    assert phone.route() == "maps/directions"
    assert entities(phone, "destination") == [place.id]
    drive = duration(minutes(place, "drive"))
    assert texts(phone, "route_summary")[0].startswith(drive)
    assert texts(phone, "route_status")[0].startswith("Route preview")
    assert [n.desc for n in nodes(phone, resource_id="mode") if n.selected] == ["Drive"]
    press(phone, desc="Walk")
    walk = duration(minutes(place, "walk"))
    assert [n.desc for n in nodes(phone, resource_id="mode") if n.selected] == ["Walk"]
    assert texts(phone, "route_summary")[0].startswith(walk) and walk != drive
    press(phone, resource_id="start")
    assert texts(phone, "route_status")[0] == f"Navigating · arrive in {walk}"
    assert texts(phone, "end_navigation") == ["End"] and not texts(phone, "start")
    phone.open("maps", "maps/go")
    trip = nodes(phone, resource_id="trip")[0]
    assert trip.entity == place.id
    assert f"{walk} on foot · {place.address}" in [n.text for n in trip.walk()]
    press(phone, desc="Explore")
    banner = find(phone.hierarchy(), resource_id="nav_banner")
    assert banner.entity == place.id
    assert f"Navigating to {place.name}" in [n.text for n in banner.walk()]
    press(phone, resource_id="resume")
    assert phone.route() == "maps/directions" and entities(phone, "destination") == [place.id]
    press(phone, resource_id="end_navigation")
    assert texts(phone, "route_status")[0].startswith("Route preview")
    phone.act("PRESS[BACK]")
    assert not nodes(phone, resource_id="nav_banner")


def test_typing_lists_matches_and_a_picked_match_tops_the_recent_searches(phone):
    maps = phone.state.apps["maps"]
    unsearched = next(p for p in maps.places.values()
                      if p.id not in maps.recent + maps.food and not p.food)
    phone.open("maps", "maps/search")
    press(phone, resource_id="search_field")
    phone.act(f"TYPE[{unsearched.name.upper()}]")
    assert entities(phone, "result") == [unsearched.id]
    press(phone, resource_id="result")
    assert phone.route() == "maps/place" and texts(phone, "place_name") == [unsearched.name]
    while phone.route() != "maps/explore":  # the place, the keyboard, the search
        phone.act("PRESS[BACK]")
    press(phone, resource_id="search_bar")
    assert entities(phone, "recent")[0] == unsearched.id
    phone.act("PRESS[BACK]")
    press(phone, text="Museums")
    shown = entities(phone, "result")
    assert shown and all("museum" in maps.places[i].category.lower() for i in shown)
    press(phone, resource_id="search_field")
    phone.act("TYPE[zzz]")
    assert texts(phone, "empty") == ['No places match "museumzzz"']


def test_the_map_is_drawn_with_streets_water_a_pin_and_the_route(phone):
    maps = phone.state.apps["maps"]
    phone.open("maps", "maps/directions", id=maps.recent[0])
    area = find(phone.hierarchy(), resource_id="map").bounds
    frame = phone.screenshot()[area[1]:area[3], area[0]:area[2]].reshape(-1, 3)
    colours = {tuple(c) for c in np.unique(frame, axis=0)}
    for colour in (mapview.LAND, mapview.STREET, mapview.WATER, mapview.ROUTE, mapview.PIN):
        assert colour in colours
    pin = find(phone.hierarchy(), resource_id="pin")
    assert pin.entity == maps.recent[0]
    me = find(phone.hierarchy(), resource_id="my_location").bounds
    assert me[1] > pin.bounds[1] and me[0] < pin.bounds[0]  # from below left to the place


def test_two_users_see_different_recent_searches():
    first, second = (load_user_content(u) for u in builtin_users()[:2])
    for key in ("maps:recent", "maps:food"):
        a, b = first.contexts[key], second.contexts[key]
        assert a.common == b.common and len(a.common) + len(a.personal) >= 20
        assert set(a.personal) != set(b.personal)


PROFILE = {
    "user_id": "test-maps-foodie",
    "demographics": {"age": "25-34 years old"},
    "interests": {"Restaurants": 1, "Travel": 1, "Sports": 0},
    "affinities": {"Restaurants": {"Cuisine Preference": ["Thai", "Ethiopian"]},
                   "Travel": {"Preferred Destination Types": ["wildlife", "birdwatching"]}},
    "interactions": {},
}


@pytest.fixture(scope="module")
def own_user(tmp_path_factory):
    folder = tmp_path_factory.mktemp("profiles")
    (folder / "test-maps-foodie.json").write_text(json.dumps(PROFILE))
    return str(folder)


def test_a_profile_written_here_gets_its_tastes_on_top(own_user):
    content = load_user_content("test-maps-foodie", profiles_dir=own_user)
    food = [content.labels[i] for i in content.contexts["maps:food"].personal[:2]]
    assert set(food) == {"Baan Thai", "Abyssinia Kitchen"}  # exact cuisine matches first
    assert content.labels[content.contexts["maps:recent"].personal[0]] in (
        "Wild Heath Nature Reserve", "Saltmarsh Zoo", "Gull Rock Cove")


def test_a_recent_trip_shows_the_icon_of_how_it_goes(phone):
    # Every trip showed a car, beside "… on foot" too.
    maps = phone.state.apps["maps"]
    place = maps.places[maps.food[0]]
    icons = {}
    for _, label, how, *_ in MODES:
        phone.open("maps", "maps/place", id=place.id)
        press(phone, resource_id="directions")
        press(phone, desc=label)
        phone.open("maps", "maps/go")
        trip = nodes(phone, resource_id="trip")[0]
        assert any(n.text.endswith(f"{how} · {place.address}") for n in trip.walk())
        x1, y1, _, y2 = trip.bounds
        icons[label] = phone.screenshot()[y1:y2, x1:x1 + (y2 - y1)].tobytes()
    assert len(set(icons.values())) == len(MODES)


def test_every_mode_has_a_time_that_grows_with_distance():
    from mobileintent_gym.apps.maps.content import world

    near, far = sorted(world().values(), key=lambda p: p.distance)[::len(world()) - 1]
    for key, *_ in MODES:
        assert minutes(near, key) < minutes(far, key)


@pytest.mark.parametrize("size", [(1080, 2400), (720, 1280)])
def test_every_category_chip_is_reachable_by_swiping_the_row(size):
    # The row did not scroll: a chip past the screen's edge was left out at these sizes
    # (Markets), so the explore screen offered other controls by screen size.
    phone = SimPhone(*size)
    phone.open("maps")
    assert [n.text for n in nodes(phone, resource_id="chip")] == [n for n, _ in CHIPS]
    assert phone.act("SWIPE[LEFT]").effect
    markets = next(n for n in nodes(phone, resource_id="chip") if n.text == "Markets")
    assert markets.bounds[2] <= size[0]
    tap_node(phone, markets)
    assert phone.route() == "maps/search" and texts(phone, "search_field") == ["market"]


def test_picking_a_recent_search_again_moves_it_on_top_once(phone):
    maps = phone.state.apps["maps"]
    again = next(i for i in maps.recent[1:] if not maps.places[i].food)
    phone.open("maps", "maps/search")
    press(phone, resource_id="search_field")
    phone.act(f"TYPE[{maps.places[again].name}]")
    press(phone, resource_id="result")
    recent = phone.state.apps["maps"].recent
    assert recent[0] == again and recent.count(again) == 1
    assert sorted(recent) == sorted(maps.recent)  # the same searches, reordered


@pytest.mark.parametrize("size", [(320, 480), (540, 1200), (1080, 2400)])
def test_the_explore_map_pins_every_saved_place(size):
    # Four fixed blocks, dropped where a small grid had no room: 2 pins of 3 saved places
    # at 540 and 1080 pixels wide, 1 at 320.
    phone = SimPhone(*size)
    phone.reset(load_user_content("chiara").state)
    saved = phone.state.apps["maps"].saved
    phone.open("maps", "maps/explore")
    pins = [n for n in nodes(phone, resource_id="pin")]
    assert len(saved) >= 3 and sorted(n.entity for n in pins) == sorted(saved)
    assert len({n.bounds for n in pins}) == len(pins)  # each on a block of its own


def test_a_search_reads_an_accent_typed_decomposed_as_the_same_letter(phone):
    # "Taqueri\u0301a" (as some keyboards and macOS file names write it) found nothing.
    maps = phone.state.apps["maps"]
    place = next(p for p in maps.places.values() if "í" in p.name)
    phone.open("maps", "maps/search")
    press(phone, resource_id="search_field")
    phone.act(f"TYPE[{unicodedata.normalize('NFD', place.name)}]")
    assert entities(phone, "result") == [place.id]
