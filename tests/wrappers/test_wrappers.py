"""Element actions and screen observations: exact mapping, and a real SB3 PPO run on them."""

import re

import gymnasium as gym
import numpy as np
import pytest

import mobileintent_gym  # noqa: F401  (registers the envs)
from mobileintent_gym.agents import OracleAgent
from mobileintent_gym.errors import InvalidActionError, MobileIntentError
from mobileintent_gym.tasks import task_ids
from mobileintent_gym.wrappers import ElementActions, ElementFeatures, ScreenObservation
from mobileintent_gym.wrappers.element_actions import FIXED, touchable_points
from tests.helpers import frame_bounds_bytes

TASK = {"user": "demo-ana", "task": "G-WCT-02:common:explicit"}


@pytest.fixture
def env():
    env = ElementActions(gym.make("Act2Intent-Execute-v0", device="sim:540x1200"))
    yield env
    env.close()


@pytest.mark.parametrize("task", task_ids())
def test_every_oracle_path_is_expressible_in_element_actions(env, task):
    obs, info = env.reset(seed=0, options={"user": "demo-ana", "task": task})
    base = env.unwrapped
    oracle, done, rewards = OracleAgent(env), False, 0.0
    while not done:
        wanted = oracle.act(obs, info)
        points = touchable_points(base.device.hierarchy())
        if wanted.x is not None:  # the oracle's click lands on one listed element
            index = next(i for i, p in enumerate(points) if _same_target(base, p, wanted))
        elif wanted.text is not None:
            index = env.max_elements + FIXED.index("TYPE_TASK_TEXT")
        else:
            index = env.max_elements + FIXED.index("SWIPE_" + wanted.direction)
        obs, reward, terminated, truncated, info = env.step(index)
        rewards += reward
        done = terminated or truncated
    assert info["success"] and rewards == len(info["subgoals"])


def _same_target(base, point, action):
    from mobileintent_gym.phone import hierarchy, touch

    candidates = touch.targets(hierarchy.parse(base.device.hierarchy()))
    return touch.target_at(candidates, *point) is touch.target_at(candidates, action.x,
                                                                   action.y)


def test_indices_past_the_screen_are_flagged_and_change_nothing(env):
    env.reset(seed=0, options=TASK)
    xml = env.unwrapped.device.hierarchy()
    count = len(touchable_points(xml))
    assert 0 < count < env.max_elements
    _, reward, _, _, info = env.step(count)
    assert reward == 0 and "outside" in info["invalid_action"]
    assert env.unwrapped.device.hierarchy() == xml
    _, _, _, _, info = env.step(env.max_elements + FIXED.index("BACK"))
    assert info["event"].action == "PRESS[BACK]"


def test_points_under_a_sheet_are_not_listed():
    from mobileintent_gym.phone import SimPhone, hierarchy, touch
    from mobileintent_gym.phone.query import find

    phone = SimPhone(540, 1200)
    phone.open("music", "music/library/liked")
    rows = len(touchable_points(phone.hierarchy()))
    b = find(phone.hierarchy(), resource_id="more").bounds
    phone.act(f"CLICK[{(b[0] + b[2]) // 2},{(b[1] + b[3]) // 2}]")
    assert phone.route() == "music/track_menu"
    on_sheet = touchable_points(phone.hierarchy())
    assert len(on_sheet) < rows
    candidates = touch.targets(hierarchy.parse(phone.hierarchy()))
    reached = {touch.target_at(candidates, *p).resource_id.rpartition("/")[2]
               for p in on_sheet}
    # The sheet's items and the scrim, never the rows behind them.
    assert {"add_to_playlist", "like"} <= reached and not reached & {"track", "more"}


def test_screen_observation_strides_the_frame():
    env = ScreenObservation(gym.make("Act2Intent-Execute-v0", device="sim:540x1200"), 4)
    obs, _ = env.reset(seed=0)
    assert obs.shape == (300, 135, 3) and env.observation_space.contains(obs)
    assert frame_bounds_bytes(env.observation_space) == 4 * 135 * 3  # one pixel row each
    full = env.unwrapped.device.screenshot()
    assert np.array_equal(obs, full[::4, ::4])
    with pytest.raises(ValueError, match="0"):
        ScreenObservation(gym.make("Act2Intent-Execute-v0"), 0)
    with pytest.raises(ValueError, match="screenshot"):
        ScreenObservation(gym.make("Act2Intent-Execute-v0", observation=("instruction",)))
    env.close()


@pytest.mark.parametrize("stack", ["features", "pixels"])
def test_gymnasiums_checker_passes_and_the_spec_remakes_the_wrapped_env(stack):
    # The wrappers recorded no constructor arguments: Gymnasium's check_env (which remakes
    # the env from its spec for the render and close checks) and gym.make(spec) refused.
    from gymnasium.utils.env_checker import check_env

    def made() -> gym.Env:
        if stack == "features":
            base = gym.make("Act2Intent-Execute-v0", device="sim:540x1200",
                            observation=("instruction",))
            return ElementFeatures(ElementActions(base, 12), 12)
        pixels = gym.make("Act2Intent-Execute-v0", device="sim:540x1200")
        return ScreenObservation(ElementActions(pixels, 12), factor=4)

    env = made()
    check_env(env)
    again = gym.make(env.spec)
    assert again.action_space == env.action_space
    assert again.observation_space == env.observation_space
    first, _ = env.reset(seed=3)
    remade, _ = again.reset(seed=3)
    assert np.array_equal(first, remade)
    env.close()
    again.close()


def test_a_screen_with_more_targets_than_slots_is_said_once_per_wrapper():
    # Targets past max_elements could be neither observed nor clicked, silently: the
    # README's 24 slots left G-SPT-01's target out on a scrolled Liked Songs list.
    import warnings

    base = gym.make("Act2Intent-Execute-v0", device="sim:540x1200",
                    observation=("instruction",))
    env = ElementFeatures(ElementActions(base, 4), 4)
    with pytest.warns(UserWarning) as caught:
        env.reset(seed=0, options=TASK)
        env.env.action_masks()
    said = [str(w.message) for w in caught if "touch targets" in str(w.message)]
    assert len(said) == 2  # ElementFeatures, then ElementActions: each once
    assert "more than max_elements=4: ElementFeatures leaves the rest out" in said[0]
    assert "ElementActions leaves the rest out" in said[1]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env.step(4 + FIXED.index("SWIPE_UP"))  # another screen: said already
        env.env.action_masks()
    env.close()


def test_typing_before_the_first_reset_is_named():
    env = ElementActions(gym.make("Act2Intent-Execute-v0", device="sim:540x1200"))
    with pytest.raises(MobileIntentError, match=r"call reset\(\) before step\(\)"):
        env.step(env.max_elements + FIXED.index("TYPE_TASK_TEXT"))  # was an AttributeError
    env.close()


@pytest.mark.parametrize("env_id", ["Act2Intent-Understand-v0", "Act2Intent-Assist-v0"])
@pytest.mark.parametrize("wrapper", [ElementActions, ElementFeatures])
def test_an_env_of_text_actions_is_refused_when_wrapped(env_id, wrapper):
    # Both wrapped it, then failed at the first reset or step with an AttributeError (or,
    # on Assist, "call reset() before step()" after a reset).
    env = gym.make(env_id)
    with pytest.raises(ValueError, match=rf"^{wrapper.__name__} needs an env of screen "
                       rf"actions on a device for a task .*, got {env_id} with action space"):
        wrapper(env)
    env.close()


def test_the_session_env_takes_element_actions():
    env = ElementFeatures(ElementActions(gym.make("Act2Intent-Session-v0"), 24), 24)
    observation, _ = env.reset(seed=0)
    assert env.observation_space.contains(observation)
    env.close()


def test_sb3_checks_the_wrapped_env_and_ppo_learns_on_it():
    sb3 = pytest.importorskip("stable_baselines3", reason="stable-baselines3 is a test extra")
    from stable_baselines3.common.env_checker import check_env
    from stable_baselines3.common.logger import Logger

    env = ScreenObservation(ElementActions(gym.make(
        "Act2Intent-Execute-v0", device="sim:540x1200", tasks=["G-SPT-03:common:explicit"])),
        factor=4)
    check_env(env, warn=False)
    model = sb3.PPO("CnnPolicy", env, n_steps=32, batch_size=16, n_epochs=1, seed=0,
                    device="cpu")
    model.set_logger(Logger(None, []))  # SB3's default leaves a folder in /tmp
    model.learn(64)
    assert model.num_timesteps == 64  # two full rollouts of 32 steps through the wrappers
    # SB3's Monitor saw whole episodes: returns within G-SPT-03's one subgoal, lengths
    # within its step limit of 20.
    episodes = list(model.ep_info_buffer)
    assert len(episodes) >= 3
    assert all(0 <= e["r"] <= 1 and 1 <= e["l"] <= 20 for e in episodes)
    action, _ = model.predict(env.reset(seed=0)[0], deterministic=True)
    assert env.action_space.contains(int(action))
    env.close()


@pytest.mark.parametrize("bad", [-1, 70, 10**20, 1.5, 2.0, np.float64(3.0), True, np.True_,
                                 "3", None, np.array([1]), np.array(1.0)])
def test_values_outside_the_discrete_space_are_invalid_actions_and_send_nothing(env, bad):
    env.reset(seed=0, options=TASK)
    base = env.unwrapped
    xml, steps = base.device.hierarchy(), base._steps
    with pytest.raises(InvalidActionError, match=r"element action must be an integer in \[0, 70\)"):
        env.step(bad)  # unfixed: -1 clicked the last element, 1.5 and True became action 1
    assert (base.device.hierarchy(), base._steps) == (xml, steps)


def test_numpy_integers_and_0d_arrays_are_actions(env):
    env.reset(seed=0, options=TASK)
    back = env.max_elements + FIXED.index("BACK")
    for action in (np.int64(back), np.array(back, dtype=np.int32)):
        assert env.step(action)[4]["event"].action == "PRESS[BACK]"


def test_action_masks_are_the_listed_elements_and_the_fixed_actions(env):
    env.reset(seed=0, options=TASK)
    for _ in range(3):
        mask = env.action_masks()
        count = len(touchable_points(env.unwrapped.device.hierarchy()))
        assert mask.dtype == bool and mask.shape == (env.action_space.n,)
        assert mask[:count].all() and not mask[count : env.max_elements].any()
        assert mask[env.max_elements :].all()
        env.step(0)  # the first element: a new screen, a new mask
    for wrapper in (ElementActions, ElementFeatures):
        for bad in (0, -1, 2.5, True):
            with pytest.raises(ValueError, match=rf"max_elements must be a positive integer, "
                                                 rf"got {re.escape(repr(bad))}"):
                wrapper(env.unwrapped, bad)


class InvalidActions(gym.Wrapper):
    """Counts the steps the env flagged as invalid."""

    def __init__(self, env):
        super().__init__(env)
        self.invalid = self.steps = 0

    def step(self, action):
        result = self.env.step(action)
        self.steps += 1
        self.invalid += bool(result[4].get("invalid_action"))
        return result


def test_maskable_ppo_only_ever_picks_actions_the_mask_allows():
    contrib = pytest.importorskip("sb3_contrib", reason="sb3-contrib is a test extra")
    from stable_baselines3.common.logger import Logger
    counter = InvalidActions(ElementActions(gym.make(
        "Act2Intent-Execute-v0", device="sim:540x1200", users=["demo-ana"],
        tasks=["G-SPT-03:common:explicit"])))
    env = ScreenObservation(counter, factor=8)
    model = contrib.MaskablePPO("CnnPolicy", env, n_steps=16, batch_size=16, n_epochs=1, seed=0,
                                device="cpu")
    model.set_logger(Logger(None, []))
    model.learn(32)
    assert model.num_timesteps == 32 and counter.steps >= 32
    assert counter.invalid == 0  # without the mask, indices past the screen's elements come up
    env.close()


def test_the_fixed_actions_keep_their_documented_indices(env):
    # Tests elsewhere look indices up with FIXED.index, so two swapped entries (SWIPE[UP]
    # and SWIPE[DOWN]) passed them while an agent's actions changed meaning.
    env.reset(seed=0, options={"user": "demo-ana", "task": "G-WCT-02:common:explicit"})
    slots = env.max_elements
    assert [str(env.action(slots + i)) for i in (0, 1, 2, 4, 5)] == [
        "PRESS[BACK]", "SWIPE[UP]", "SWIPE[DOWN]", "PRESS[ENTER]", "COMPLETE"]



@pytest.mark.parametrize("env_id", ["Act2Intent-Execute-v0", "Act2Intent-Session-v0"])
def test_a_wrapped_step_reads_the_screen_once_for_judge_observation_mask_and_action(env_id):
    # Each of them read the device: up to five uiautomator dumps a step on a phone (1-2 s
    # each), and the click of slot i looked up in a later dump than slot i's features.
    from mobileintent_gym.phone import SimPhone

    phone, reads = SimPhone(540, 1200), []
    read = phone.hierarchy
    phone.hierarchy = lambda: reads.append(1) or read()  # counts the real reads
    base = gym.make(env_id, device=phone, observation=("instruction", "hierarchy"))
    env = ElementFeatures(ElementActions(base, 24), 24)
    env.reset(seed=0)
    reads.clear()
    rng = np.random.default_rng(0)
    for _ in range(40):
        masks = env.get_wrapper_attr("action_masks")()
        _, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(masks))))
        # One screen a step; two where a Session step ends an intention and opens the next.
        assert len(reads) == 1 + ("finished" in info and not (terminated or truncated)), info
        assert base.unwrapped.screen_dump() == read()  # what the step left, read once
        reads.clear()
        if terminated or truncated:
            env.reset()
            reads.clear()
    env.close()
