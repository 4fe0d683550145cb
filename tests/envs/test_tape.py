"""TapedPhone: what was done since the last reset is redone on another phone exactly."""

from datetime import datetime

import pytest

from mobileintent_gym.actions import Action
from mobileintent_gym.envs.tape import TapedPhone
from mobileintent_gym.errors import InvalidActionError
from mobileintent_gym.phone import SimPhone
from mobileintent_gym.phone.state import PhoneState
from mobileintent_gym.users import load_user_content


def test_resets_opens_and_actions_are_redone_with_their_pace():
    content = load_user_content("demo-ana")
    taped, other = TapedPhone(SimPhone(540, 1200)), SimPhone(540, 1200)
    taped.act(Action.swipe("UP"))  # before the reset: not redone
    taped.reset(PhoneState(content.state.apps, datetime(2026, 3, 2, 8, 0)))
    taped.open("chat")
    taped.seconds_per_action = 7
    taped.act(Action.click(270, 160))
    taped.seconds_per_action = 3
    taped.act("PRESS[BACK]")
    with pytest.raises(InvalidActionError):
        taped.act(Action.click(9999, 5))  # refused: nothing changed, nothing recorded
    other.act(Action.swipe("UP"))
    taped.copy_to(other)
    assert other.clock == taped.clock == "2026-03-02 08:00:10"
    assert other.hierarchy() == taped.hierarchy() and other.route() == "chat/chats"
    assert other.state.apps == taped.state.apps
    assert [e.action for e in other.events] == ["CLICK[270,160]", "PRESS[BACK]"]
    taped.close()
    other.close()
