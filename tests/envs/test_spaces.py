"""Observation spaces: printed short, their text spaces built lazily and flattened whole."""

import gymnasium as gym
import pytest

import mobileintent_gym  # noqa: F401  (registers the envs)
from mobileintent_gym.phone.elements import read_screen


def test_the_observation_space_prints_short():
    env = gym.make("Act2Intent-Execute-v0", device="sim:540x1200",
                   observation=("screenshot", "instruction", "hierarchy"))
    text = str(env.observation_space)
    assert text == ("Dict('hierarchy': UnicodeText(1, 1048576), 'instruction': "
                    "UnicodeText(1, 512), 'screenshot': Box(0, 255, (1200, 540, 3), uint8))")
    assert repr(env.observation_space["instruction"]) == "UnicodeText(1, 512)"


def test_text_spaces_share_one_charset_built_on_first_use():
    import subprocess
    import sys

    from gymnasium.spaces import utils

    from mobileintent_gym.envs.spaces import UnicodeText

    short, long = UnicodeText(20), UnicodeText(512, min_length=0)
    assert short.character_set is long.character_set and len(short.character_list) > 50_000
    assert len(short.characters) == len(short.character_list)
    sample = short.sample()
    assert short.contains(sample) and set(sample) <= short.character_set
    assert utils.unflatten(short, utils.flatten(short, "héllo")) == "héllo"
    assert short == UnicodeText(20) and short != long
    # An env stepped in a fresh process never builds the tables (about 10 MB).
    code = ("import gymnasium as gym, mobileintent_gym\n"
            "from mobileintent_gym.envs.spaces import _charset_tables\n"
            "env = gym.make('Act2Intent-Execute-v0', device='sim:540x1200',"
            " observation=('instruction', 'hierarchy'), users=['demo-ana'])\n"
            "env.reset(seed=0)\n"
            "env.step('SWIPE[UP]')\n"
            "print(_charset_tables.cache_info().currsize)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.split()[-1] == "0"


@pytest.mark.parametrize("text", ["Café 😀", "a\nb", "x\u00a0y\u200dz", "", "末",
                                  "abcdefg😀"])  # the last fills the space: no padding
def test_any_text_a_unicode_space_holds_flattens_and_comes_back(text):
    from gymnasium.spaces import utils

    from mobileintent_gym.envs.spaces import UnicodeText

    space = UnicodeText(8, min_length=0)
    assert space.contains(text)
    flat = utils.flatten(space, text)
    assert utils.flatten_space(space).contains(flat) and utils.unflatten(space, flat) == text


def test_flatten_observation_takes_what_an_agent_types_into_the_hierarchy():
    env = gym.wrappers.FlattenObservation(gym.make(
        "Act2Intent-Execute-v0", device="sim:540x1200", users=["demo-ana"],
        observation=("instruction", "hierarchy")))
    env.reset(seed=0, options={"task": "G-WCT-02:common:explicit"})
    device = env.unwrapped.device
    device.open("chat", "chat/conversation", id="chat_c00")
    field = next(e for e in read_screen(device.hierarchy())[0] if e.field)
    env.step(f"CLICK[{field.point[0]},{field.point[1]}]")
    obs, *_ = env.step("TYPE[Thanks 😀]")
    assert env.observation_space.contains(obs)
    hierarchy = gym.spaces.utils.unflatten(env.unwrapped.observation_space, obs)["hierarchy"]
    assert "Thanks 😀" in hierarchy
    env.close()
