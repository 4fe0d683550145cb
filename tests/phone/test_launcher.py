"""The launcher: a centred grid of the installed apps that pages when they need more room."""

from dataclasses import dataclass
from typing import ClassVar

import pytest

from mobileintent_gym.phone import SimPhone, launcher, widgets
from mobileintent_gym.phone.app import App, Screen
from tests.helpers import nodes, press, tap_node, texts


@dataclass(frozen=True)
class Nothing:
    """The data of an app that holds none."""


class Blank(App):
    """A minimal app: one empty screen."""

    color = (120, 120, 120)
    icon = "home"
    theme = launcher.THEME
    state_type = Nothing
    routes: ClassVar[dict[str, Screen]] = {}

    def initial_state(self, seed):
        return Nothing()

    def home_screen(self, ctx, entry, state):
        return widgets.page(ctx, "root")[0]


def blanks(count):
    """``count`` distinct minimal apps, ``demo0``…"""
    made = []
    for i in range(count):
        home = f"demo{i}/home"
        kind = type(f"Demo{i}", (Blank,), {
            "id": f"demo{i}", "package": f"com.example.demo{i}", "label": f"Demo {i}",
            "home": home, "routes": {home: Screen("home_screen", tab=True)}})
        made.append(kind())
    return made


def icon_rows(phone):
    rows = {}
    for icon in nodes(phone, resource_id="icon"):
        rows.setdefault(icon.bounds[1], []).append(icon.bounds)
    return list(rows.values())


def test_the_grid_is_centred_and_a_short_row_too(phone):
    width = phone.width
    for row in icon_rows(phone):  # every installed app's
        assert row[0][0] - 0 == width - row[-1][2]  # as much room left of the row as right
    many = SimPhone(apps=blanks(6))
    full, short = icon_rows(many)
    assert (full[0][0], full[-1][2]) == (0, width) and len(full) == 4
    assert short[0][0] == width - short[-1][2] > 0
    assert not nodes(many, resource_id="page_indicator")


def test_apps_past_one_page_go_to_a_next_page_reached_by_swiping():
    phone = SimPhone(apps=blanks(30))
    first = [n.text for n in nodes(phone, resource_id="icon")]
    assert first[0] == "Demo 0" and 4 <= len(first) < 30 and len(first) % 4 == 0
    dots = nodes(phone, resource_id="page_indicator")[0]
    pages = -(-30 // len(first))
    assert dots.desc == f"Page 1 of {pages}"
    assert not phone.act("SWIPE[RIGHT]").effect  # nothing before the first page
    result = phone.act("SWIPE[LEFT]")
    assert result.effect and phone.route() == "launcher"
    second = [n.text for n in nodes(phone, resource_id="icon")]
    assert second[0] == f"Demo {len(first)}" and not set(first) & set(second)
    assert nodes(phone, resource_id="page_indicator")[0].desc == f"Page 2 of {pages}"
    tap_node(phone, nodes(phone, resource_id="icon")[0])
    assert phone.route() == f"demo{len(first)}/home"
    phone.act("PRESS[HOME]")
    assert nodes(phone, resource_id="page_indicator")[0].desc == f"Page 2 of {pages}"
    assert phone.act("PRESS[HOME]").effect  # HOME on the launcher goes to the first page
    assert [n.text for n in nodes(phone, resource_id="icon")] == first
    for _ in range(pages + 2):
        phone.act("SWIPE[LEFT]")
    last = [n.text for n in nodes(phone, resource_id="icon")]
    assert last[-1] == "Demo 29" and not phone.act("SWIPE[LEFT]").effect


@pytest.mark.parametrize("count", [1, 2, 5, 9])
def test_every_installed_app_opens_from_its_icon(count):
    phone = SimPhone(apps=blanks(count))
    for i in range(count):
        press(phone, text=f"Demo {i}", resource_id="icon")
        assert phone.route() == f"demo{i}/home"
        phone.act("PRESS[HOME]")


def icon_labels(phone):
    return [n.text for n in nodes(phone, resource_id="icon")]


def test_a_search_finds_apps_by_the_start_of_a_word_of_their_label():
    apps = [*blanks(2), *SimPhone().apps.values()]
    found = [app.label for app in launcher.matching(apps, "  MU ")]
    assert found == ["Music"]
    assert [a.label for a in launcher.matching(apps, "demo 1")] == ["Demo 1"]
    assert launcher.matching(apps, "sic") == [] and launcher.matching(apps, "") == apps


def test_the_search_bar_types_filters_and_opens_the_first_app_found(phone):
    everything = icon_labels(phone)
    assert nodes(phone, resource_id="search")[0].text == "Search apps"
    press(phone, resource_id="search")
    assert phone.key_center("m") is not None  # the keyboard shows on the launcher
    phone.act("TYPE[m]")
    assert icon_labels(phone) == [app for app in everything if app.startswith("M")]
    phone.act(f"CLICK[{','.join(map(str, phone.key_center('a')))}]")  # a key of the keyboard
    assert nodes(phone, resource_id="search")[0].text == "ma"
    assert icon_labels(phone) == ["Maps"] and phone.route() == "launcher"
    phone.act("PRESS[ENTER]")
    assert phone.route() == "maps/explore"
    phone.act("PRESS[HOME]")  # the search closed when the app opened
    assert icon_labels(phone) == everything and phone.key_center("m") is None


def test_a_search_that_finds_nothing_says_so_and_enter_opens_nothing(phone):
    press(phone, resource_id="search")
    phone.act("TYPE[sic]")
    assert icon_labels(phone) == []
    assert texts(phone, "no_results") == ['No apps match "sic"']
    result = phone.act("PRESS[ENTER]")
    assert not result.effect and result.note == "nothing to submit"
    assert phone.route() == "launcher"


def test_back_hides_the_keyboard_then_closes_the_search_and_home_closes_it_too(phone):
    everything = icon_labels(phone)
    press(phone, resource_id="search")
    phone.act("TYPE[vid]")
    assert phone.act("PRESS[BACK]").note == "keyboard hidden"
    assert phone.key_center("v") is None and icon_labels(phone) == ["Video"]
    assert phone.act("PRESS[BACK]").effect
    assert icon_labels(phone) == everything
    assert nodes(phone, resource_id="search")[0].text == "Search apps"
    back = phone.act("PRESS[BACK]")
    assert not back.effect and back.note == "already home"
    press(phone, resource_id="search")
    phone.act("TYPE[chat]")
    assert phone.act("PRESS[HOME]").effect
    assert icon_labels(phone) == everything and phone.key_center("c") is None
    assert not phone.act("TYPE[x]").effect  # no field has the focus any more


def test_home_closes_the_search_after_the_pages_were_turned_too():
    # HOME only cleared the page of a launcher once swiped: the search stayed open.
    phone = SimPhone(apps=blanks(60))
    phone.act("SWIPE[LEFT]")
    phone.act("SWIPE[RIGHT]")
    press(phone, resource_id="search")
    phone.act("TYPE[demo 5]")
    assert phone.act("PRESS[HOME]").effect
    assert nodes(phone, resource_id="search")[0].text == "Search apps"
    assert icon_labels(phone)[0] == "Demo 0" and phone.key_center("a") is None
    home = phone.act("PRESS[HOME]")
    assert not home.effect and home.note == "already home"


def test_a_search_shows_its_results_from_their_first_page_and_enter_opens_the_first():
    # Searching from page 2 showed page 2 of the results, and ENTER opened an app not shown.
    phone = SimPhone(apps=blanks(60))
    phone.act("SWIPE[LEFT]")
    press(phone, resource_id="search")
    assert icon_labels(phone)[0] == "Demo 0"  # the keyboard's smaller pages, from the first
    phone.act("TYPE[demo]")
    assert icon_labels(phone)[0] == "Demo 0"
    assert nodes(phone, resource_id="page_indicator")[0].desc.startswith("Page 1 of ")
    phone.act("SWIPE[LEFT]")
    assert icon_labels(phone)[0] != "Demo 0"
    phone.act("TYPE[ 1]")  # another query: its results from their first page
    assert icon_labels(phone)[:2] == ["Demo 1", "Demo 10"]
    phone.act("PRESS[ENTER]")
    assert phone.route() == "demo1/home"
    phone.act("PRESS[HOME]")
    assert nodes(phone, resource_id="page_indicator")[0].desc.startswith("Page 2 of ")
