"""A simulated person finds an app's icon wherever the launcher was left."""

import numpy as np
import pytest

from mobileintent_gym.apps import registry
from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.intents.behaviour import Attempt, Hand, Manner, wander
from mobileintent_gym.phone import SimPhone, hierarchy
from mobileintent_gym.tasks import instantiate
from mobileintent_gym.users import PairConfig, load_user_content
from tests.helpers import press
from tests.phone.test_launcher import blanks

from .conftest import USER

STEADY = Manner(detour=0, overshoot=0, retry=0, typo=0)


def searched(phone, query):
    """``phone`` on its launcher, with ``query`` typed into the search bar."""
    phone.act("PRESS[HOME]")
    press(phone, resource_id="search")
    phone.act(f"TYPE[{query}]")


@pytest.fixture
def ana_phone():
    content = load_user_content(USER, PairConfig(encoder="lexical"))
    phone = SimPhone(540, 1200)
    phone.reset(content.state)
    yield phone, content
    phone.close()


def test_an_intention_after_a_search_left_open_closes_it_first(ana_phone):
    # The icon was looked for with next() and none: StopIteration ended the person's day.
    phone, content = ana_phone
    searched(phone, "zz")
    attempt = Attempt(Hand(phone, np.random.default_rng(0), STEADY),
                      instantiate("G-WCT-02:common:explicit", content))
    assert attempt.run()
    first, second = attempt.hand.steps[:2]
    assert first.event.action == "PRESS[HOME]" and first.event.route_after == "launcher"
    assert second.event.action.startswith("CLICK[") and second.event.route_after == "chat/chats"


def test_a_noise_segment_after_a_search_left_open_opens_its_app(ana_phone):
    phone, _ = ana_phone
    searched(phone, "mus")  # shows Music only
    hand = Hand(phone, np.random.default_rng(0), STEADY)
    wander(hand, "accidental", "chat")
    routes = [step.event.route_after for step in hand.steps]
    assert routes[:2] == ["launcher", "chat/chats"] and routes[-1] == "launcher"


def test_an_icon_on_another_page_is_reached_by_turning_pages():
    music = registry.get("music")
    phone = SimPhone(apps=[*blanks(40), music])
    hand = Hand(phone, np.random.default_rng(0), STEADY)
    taken = []
    while phone.route() == "launcher":
        taken.append(str(hand.open_app("music")))
        phone.act(taken[-1])
    assert phone.route() == music.app.home and taken[-1].startswith("CLICK[")
    assert set(taken[:-1]) == {"SWIPE[LEFT]"} and len(taken) > 2
    phone.act("PRESS[HOME]")
    while phone.route() == "launcher":  # back from the last page to the first
        taken.append(str(hand.open_app("demo0")))
        phone.act(taken[-1])
    assert phone.route() == "demo0/home" and "SWIPE[RIGHT]" in taken


def test_an_app_the_launcher_does_not_show_is_named(monkeypatch):
    # No installed app is missing from the launcher: the hand is shown another phone's
    # launcher, without the second app, to see what it says then.
    apps = blanks(3)
    phone, other = SimPhone(apps=apps), SimPhone(apps=[apps[0], apps[2]])
    hand = Hand(phone, np.random.default_rng(0), STEADY)
    monkeypatch.setattr(hand, "screen", lambda: hierarchy.parse(other.hierarchy()))
    with pytest.raises(MobileIntentError, match="the launcher shows no icon of 'demo1'"):
        hand.open_app("demo1")


@pytest.mark.parametrize(("kwargs", "named"), [
    # Each crashed inside the day (comparing a float with a str; None with an int), or
    # dropped every intention as given up (max_steps=0).
    ({"detour": "0.1"}, "Manner detour must be a number in [0, 1], got '0.1'"),
    ({"typo": 1.5}, "Manner typo must be a number in [0, 1], got 1.5"),
    ({"long_pause": float("nan")}, "Manner long_pause must be a number in [0, 1], got nan"),
    ({"max_steps": 0}, "Manner max_steps must be a positive integer, got 0"),
    ({"patience": None}, "Manner patience must be a positive integer, got None"),
])
def test_a_manner_out_of_range_is_named(kwargs, named):
    with pytest.raises(ValueError) as err:
        Manner(**kwargs)
    assert str(err.value) == named
