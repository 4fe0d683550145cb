"""SB3 learning on the package's vector envs (and Gymnasium's) through ``SB3VecEnv``."""

import gymnasium as gym
import numpy as np
import pytest

import mobileintent_gym  # noqa: F401  (registers the envs)
from mobileintent_gym.envs.vector import SharedMemoryVectorEnv
from mobileintent_gym.errors import InvalidArgumentError
from mobileintent_gym.wrappers import ElementActions, ElementFeatures

pytest.importorskip("stable_baselines3", reason="needs the [rl] extra")
from mobileintent_gym.rl.sb3_vec import SB3VecEnv, unbatched_infos

SLOTS = 12
ACTIONS = SLOTS + 6  # the element slots, then the fixed actions (COMPLETE ends episodes)


def features_env() -> gym.Env:
    """An Execute env as the README wraps it for MLP policies (module level: workers
    started by spawn import it)."""
    base = gym.make("Act2Intent-Execute-v0", device="sim:540x1200", users=["demo-ana"],
                    observation=("instruction",))
    return ElementFeatures(ElementActions(base, SLOTS), SLOTS)


VECTOR_ENVS = {
    "shared memory": lambda: SharedMemoryVectorEnv([features_env] * 2),
    "shared memory, worker in parent": lambda: SharedMemoryVectorEnv(
        [features_env] * 2, worker_in_parent=True),
    "gymnasium sync": lambda: gym.vector.SyncVectorEnv([features_env] * 2),
}


@pytest.mark.parametrize("made", list(VECTOR_ENVS))
def test_sb3_steps_a_vector_env_as_it_steps_its_own_dummy_vec_env(made):
    # SB3 refused them ("not a Gymnasium environment"); and a vector env of next-step
    # autoreset returns an episode's last observation where SB3 wants the next one's first.
    from stable_baselines3.common.vec_env import DummyVecEnv

    ours, theirs = SB3VecEnv(VECTOR_ENVS[made]()), DummyVecEnv([features_env] * 2)
    try:
        for env in (ours, theirs):
            env.seed(7)
        assert np.array_equal(ours.reset(), theirs.reset())
        rng, ends, cut = np.random.default_rng(0), 0, 0
        for _ in range(70):
            actions = rng.integers(0, ACTIONS, 2)
            obs, rewards, dones, infos = ours.step(actions)
            their_obs, their_rewards, their_dones, their_infos = theirs.step(actions)
            assert np.array_equal(obs, their_obs)
            assert np.array_equal(rewards, their_rewards) and rewards.dtype == np.float32
            assert np.array_equal(dones, their_dones)
            for info, their in zip(infos, their_infos, strict=True):
                assert info["TimeLimit.truncated"] == their["TimeLimit.truncated"]
                assert info["success"] == their["success"] and info["task"] == their["task"]
                assert ("terminal_observation" in info) == ("terminal_observation" in their)
                if "terminal_observation" in their:
                    assert np.array_equal(info["terminal_observation"],
                                          their["terminal_observation"])
                    ends += 1
                    cut += their["TimeLimit.truncated"]
        assert ends >= 3 and cut >= 1  # episodes ended both ways (COMPLETE, the step limit)
        masks = ours.env_method("action_masks")  # what MaskablePPO asks of every sub-env
        assert [m.tolist() for m in masks] == [m.tolist() for m in
                                               theirs.env_method("action_masks")]
    finally:
        ours.close()
        theirs.close()


def test_ppo_learns_on_the_shared_memory_vector_env():
    from stable_baselines3 import PPO

    from mobileintent_gym.rl.element_policy import ElementPolicy

    envs = SB3VecEnv(SharedMemoryVectorEnv([features_env] * 2, worker_in_parent=True))
    try:
        model = PPO(ElementPolicy, envs, n_steps=16, batch_size=16, n_epochs=1, seed=0)
        before = [p.detach().clone() for p in model.policy.parameters()]
        model.learn(64)
        assert model.num_timesteps == 64
        assert any(not np.array_equal(a.numpy(), b.detach().numpy())
                   for a, b in zip(before, model.policy.parameters(), strict=True))
    finally:
        envs.close()


def text_env() -> gym.Env:
    """Element actions over instructions alone: a text field in the batch."""
    return ElementActions(gym.make("Act2Intent-Execute-v0", device="sim:540x1200",
                                   users=["demo-ana"], observation=("instruction",)), SLOTS)


def test_the_next_episodes_instruction_comes_whole_however_long():
    # The batch's texts were copied into a NumPy array as wide as this step's longest, so
    # the next episode's longer instruction was cut there: "…a joint birthday prese".
    envs = SB3VecEnv(gym.vector.SyncVectorEnv([text_env] * 2))
    try:
        envs.seed(3)
        obs, longer = envs.reset(), 0
        for _ in range(12):
            widest = max(map(len, obs["instruction"]))
            ended = list(obs["instruction"])
            obs, _, dones, infos = envs.step(np.full(2, ACTIONS - 1))  # COMPLETE: all end
            assert dones.all()
            assert list(obs["instruction"]) == [info["instruction"] for info in envs.reset_infos]
            assert [info["terminal_observation"]["instruction"] for info in infos] == ended
            assert all(type(text) is str for text in obs["instruction"])  # as the env gave
            longer += max(map(len, obs["instruction"])) > widest
        assert longer >= 3  # next episodes' instructions longer than the last step's ones
    finally:
        envs.close()


def test_batched_infos_come_apart_per_sub_env_as_each_gave_them():
    infos = {"a": np.array([1, 0, 3]), "_a": np.array([True, False, True]),
             "nested": {"x": np.array([0.5, 0.25, 0.0]), "_x": np.array([False, True, False])},
             "_nested": np.array([False, True, False])}
    parts = unbatched_infos(infos, 3)
    assert parts == [{"a": 1}, {"nested": {"x": 0.25}}, {"a": 3}]
    assert type(parts[0]["a"]) is int  # as DummyVecEnv gives them: json.dumps takes them


def test_observations_are_the_callers_though_the_vector_env_reuses_its_memory():
    # With copy=False the vector env's arrays are overwritten by the next step, and SB3
    # stores the last observation only after that step: 22 of 30 were other screens.
    envs = SB3VecEnv(SharedMemoryVectorEnv([features_env] * 2, copy=False,
                                           worker_in_parent=True))
    try:
        envs.seed(0)
        first = envs.reset()
        returned = [(first, first.copy())]  # each as returned, and what it held then
        rng = np.random.default_rng(0)
        for _ in range(20):
            obs = envs.step(rng.integers(0, ACTIONS, 2))[0]
            returned.append((obs, obs.copy()))
        assert all(np.array_equal(held, then) for held, then in returned)
    finally:
        envs.close()


def rendered_env() -> gym.Env:
    return gym.make("Act2Intent-Execute-v0", device="sim:540x1200", users=["demo-ana"],
                    observation=("instruction",), render_mode="rgb_array")


def test_set_attr_gives_every_sub_env_the_value_and_render_draws_each():
    # A list was split across the sub-envs (one item each); render() was not implemented.
    envs = SB3VecEnv(gym.vector.SyncVectorEnv([features_env] * 2))
    try:
        envs.set_attr("note", [1, 2])
        assert envs.get_attr("note") == [[1, 2], [1, 2]]
    finally:
        envs.close()
    drawn = SB3VecEnv(gym.vector.SyncVectorEnv([rendered_env] * 2))
    try:
        drawn.reset()
        frames = drawn.get_images()
        assert [f.shape for f in frames] == [(1200, 540, 3)] * 2
        assert drawn.render().shape[2] == 3  # SB3 tiles them
    finally:
        drawn.close()


def test_indices_short_of_every_sub_env_are_refused_where_they_cannot_be_kept():
    envs = SB3VecEnv(gym.vector.SyncVectorEnv([features_env] * 2))
    try:
        assert envs.get_attr("max_elements", indices=[1]) == [SLOTS]
        with pytest.raises(ValueError, match=r"env_method reaches every sub-env .* \[0\]"):
            envs.env_method("action_masks", indices=[0])
        with pytest.raises(ValueError, match="set_attr reaches every sub-env"):
            envs.set_attr("warned", True, indices=1)
        assert envs.env_is_wrapped(gym.Wrapper) == [False, False]
    finally:
        envs.close()


def test_a_same_step_autoreset_vector_env_is_refused():
    venv = gym.vector.SyncVectorEnv([features_env],
                                    autoreset_mode=gym.vector.AutoresetMode.SAME_STEP)
    with pytest.raises(ValueError, match="next-step autoreset"):
        SB3VecEnv(venv)
    venv.close()


@pytest.mark.parametrize("given", [None, "single"])
def test_what_is_no_vector_env_is_named(given):
    # "'TimeLimit' object has no attribute 'num_envs'", "'NoneType' … 'metadata'".
    env = features_env() if given == "single" else None
    with pytest.raises(InvalidArgumentError, match="SB3VecEnv's venv must be a vector env"):
        SB3VecEnv(env)
    if env is not None:
        env.close()
