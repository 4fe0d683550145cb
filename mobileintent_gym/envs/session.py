"""``Act2Intent-Session-v0``: carry out a user's day of intentions on one phone.

Each episode is one generated day of one user. The agent carries out the day's intentions
one after another on the same phone, whose data carries over from one to the next (a
playlist made in the morning is there at night). Each intention runs with the semantics of
``Act2Intent-Execute-v0`` — the phone's clock is set to the intention's time, its app opens
at its home screen, the observation gives its instruction, every step is judged and the
reward is the rise in achieved subgoals — and it ends when the task succeeds, the agent
declares ``COMPLETE`` or the task's step limit is used up; the next intention then starts.
The episode ends after the day's last intention. An intention the user interrupted for
another (``GeneratorConfig.interleave``) is carried out once, where the user finished it.

``info`` carries Execute's fields for the current intention plus ``segment`` (its index),
``segments`` (how many the day has), ``intention``, ``event_class`` and
``segment_success`` (the verdict of each finished intention so far). With
``guidance=True`` the observation adds ``guidance``: the action list of the most similar
earlier intention of the same event class in the user's history (cosine similarity of
all-MiniLM-L6-v2 embeddings of the intention texts), one ``<action> | <description>`` per
line, empty when there is none — the study's experience-guided execution.

Version History:
    v0: Initial version.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from mobileintent_gym.actions import ActionLike
from mobileintent_gym.backends.base import Device
from mobileintent_gym.backends.loader import load_device
from mobileintent_gym.checks import check_flags, check_render_mode, check_seed, check_type
from mobileintent_gym.envs.days import check_config, check_counts, draw_day
from mobileintent_gym.envs.execute import ExecuteEnv
from mobileintent_gym.envs.scoring import scoring_encoder
from mobileintent_gym.envs.spaces import UnicodeText, observation_fields
from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.intents.generator import GeneratorConfig
from mobileintent_gym.intents.schema import IntentionSegment, Session
from mobileintent_gym.phone import SimPhone
from mobileintent_gym.phone.state import PhoneState
from mobileintent_gym.tasks import TaskInstance
from mobileintent_gym.users.encoders import Encoder, unit_rows
from mobileintent_gym.users.sets import UserSpec, env_users, refusable_reset

GUIDANCE_LENGTH = 1 << 14


class CarriedDevice:
    """A device whose state carries over: ``reset()`` without a state changes nothing.

    Execute's reset reloads a device's state unless told the device already holds it; this
    view makes every such reset keep the day's phone as the previous intention left it.

    Args:
        device: The device to keep.
    """

    def __init__(self, device: Device) -> None:
        self.device, self.width, self.height = device, device.width, device.height

    def reset(self, state: Any = None, seed: int | None = None) -> None:
        """Load ``state`` if one is given; otherwise keep everything."""
        if state is not None:
            self.device.reset(state, seed)

    def screenshot(self, fresh: bool = False) -> np.ndarray:
        """The device's screen."""
        return self.device.screenshot(fresh)

    def hierarchy(self) -> str:
        """The device's view hierarchy."""
        return self.device.hierarchy()

    def route(self) -> str:
        """The device's current route."""
        return self.device.route()

    def open(self, app_id: str) -> None:
        """Open ``app_id`` on the device at its home screen."""
        self.device.open(app_id)

    def act(self, action: Any) -> Any:
        """Carry out one action on the device."""
        return self.device.act(action)

    def close(self) -> None:
        """Nothing: the session env closes the device it owns."""


def guidance_text(segment: IntentionSegment | None) -> str:
    """The action list of ``segment``, one ``<action> | <description>`` per line."""
    if segment is None:
        return ""
    return "\n".join(f"{s.action} | {s.description}" for s in segment.steps)


def _check_size(device: Device, config: GeneratorConfig) -> None:
    """Refuse a device of another size than the sessions are generated at.

    Their steps and guidance are in the generated phone's pixels: on another screen the
    clicks land elsewhere, or off it.

    Raises:
        MobileIntentError: Naming both sizes.
    """
    if (device.width, device.height) != (config.width, config.height):
        raise MobileIntentError(
            f"the device is {device.width}x{device.height}, the sessions are generated at "
            f"{config.width}x{config.height}: leave config's size to the device's, or give a "
            "device of the config's size")


class SessionEnv(gym.Env[dict[str, Any], ActionLike]):
    """Carry out a day's intentions one after another on the same phone.

    Args:
        device: A device or a config string (``"sim"``, ``"sim:540x1200"`` …). A device
            other than the simulated phone must already hold the user's content.
        users: A set of built-in users (``"test"`` …), profile names or paths, or a list
            mixing them.
        history_days: Days of history before the days episodes carry out (the guidance
            comes from them, and from the played days before the episode's own).
        play_days: Days episodes are drawn from, after the history.
        seed: Seed of the generated sessions (the data set).
        observation: Execute's observation fields.
        guidance: Add the ``guidance`` observation.
        encoder: Sentence encoder of the guidance's similarity (default all-MiniLM-L6-v2).
        config: How sessions are generated (default: at the device's screen size; another
            size is refused, as the sessions' steps are in its pixels).
        render_mode: ``"rgb_array"`` or ``None``.

    Reset options: ``user`` (a profile, or a set to draw from) and ``day`` (index among the
    played days).
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["rgb_array"], "render_fps": 4}

    def __init__(self, device: Device | str = "sim", *, users: UserSpec = "test",
                 history_days: int = 3, play_days: int = 2, seed: int = 0,
                 observation: Sequence[str] = ("screenshot", "instruction"),
                 guidance: bool = False, encoder: Encoder | None = None,
                 config: GeneratorConfig | None = None, render_mode: str | None = None) -> None:
        self.history_days, self.play_days = check_counts(history_days=history_days,
                                                         play_days=play_days)
        seed = check_seed(seed)
        check_flags(guidance=guidance)
        check_type("encoder", encoder, (Encoder, type(None)),  # used only with guidance
                   "an Encoder (with name and encode(texts)) or None")
        check_config(config)
        check_type("device", device, (Device, str), "a Device or a config text such as 'sim'")
        check_render_mode(render_mode, self.metadata["render_modes"])
        observation_fields(observation)  # as the Execute env reads it, before a device opens
        # Users first: a misspelt one is named before any device is opened.
        profiles_dir = (config or GeneratorConfig()).profiles_dir
        self.users, self.data_seed = env_users(users, profiles_dir), seed
        self._owns_device = isinstance(device, str)
        self.device: Device = load_device(device) if isinstance(device, str) else device
        try:
            self.config = config or GeneratorConfig(self.device.width, self.device.height)
            _check_size(self.device, self.config)
            self.execute = ExecuteEnv(CarriedDevice(self.device), users=self.users,
                                      observation=observation, load_state=False,
                                      carries_state=True, pair=self.config.pair,
                                      profiles_dir=self.config.profiles_dir,
                                      render_mode=render_mode)
        except BaseException:  # another size: the device opened goes
            if self._owns_device:
                self.device.close()
            raise
        self.render_mode = render_mode
        self.guidance = guidance
        self.encoder = scoring_encoder(encoder) if guidance else None
        fields = dict(self.execute.observation_space.spaces)
        if guidance:
            fields["guidance"] = UnicodeText(GUIDANCE_LENGTH, min_length=0)
        self.observation_space = spaces.Dict(fields)
        self.action_space = self.execute.action_space
        self.segments: tuple[IntentionSegment, ...] = ()
        self.user = ""
        self._session: Session | None = None
        self._past: tuple[IntentionSegment, ...] = ()
        self._index, self._results, self._guide = 0, [], ""

    @property
    def task(self) -> TaskInstance | None:
        """The task of the current intention (what an oracle completes)."""
        return self.execute.task

    def screen_dump(self) -> str:
        """The current intention's screen as its Execute env read it (see there)."""
        return self.execute.screen_dump()

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Draw a user and day (or take those ``options`` name); start its first intention."""
        with refusable_reset(self, seed) as rng:  # a refused one changes no later episode
            drawn = draw_day(options, rng, self.users, self.history_days,
                             self.play_days, self.data_seed, self.config)
        self._past = tuple(s for past in drawn.history for s in past.whole())
        self._session, self.user = drawn.session, drawn.user
        self.segments, self._index, self._results = self._session.done(), 0, []
        return self._start()

    def _start(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start the current intention: its time on the clock, its app open, its judge."""
        segment = self.segments[self._index]
        if isinstance(self.device, SimPhone) and self._session.start is not None:
            first = self._index == 0
            apps = self._session.start.apps if first else self.device.state.apps
            self.device.reset(PhoneState(apps, segment.time))
        obs, info = self.execute.reset(options={"user": self.user, "task": segment.task})
        self._guide = guidance_text(self._similar(segment)) if self.guidance else ""
        return self._observe(obs), self._info(info)

    def _similar(self, segment: IntentionSegment) -> IntentionSegment | None:
        same = [p for p in self._past if p.event == segment.event]
        if not same:
            return None
        # A cosine whatever the encoder returns: a longer row must not win by its length.
        # The texts are the user's own, never an agent's: kept on disk, as known texts.
        rows = unit_rows(self.encoder.encode_known([segment.intention,
                                                    *(p.intention for p in same)]))
        scores = rows[1:] @ rows[0]
        # Habits repeat an intention word for word: of equals, the latest experience.
        return same[len(same) - 1 - int(np.argmax(scores[::-1]))]

    def _observe(self, obs: dict[str, Any]) -> dict[str, Any]:
        return {**obs, "guidance": self._guide} if self.guidance else obs

    def _info(self, info: dict[str, Any]) -> dict[str, Any]:
        segment = self.segments[self._index]
        return {**info, "segment": self._index, "segments": len(self.segments),
                "intention": segment.intention, "event_class": segment.event,
                "segment_success": tuple(self._results)}

    def step(self, action: ActionLike) -> tuple[dict[str, Any], float, bool, bool,
                                                 dict[str, Any]]:
        """One action in the current intention; moves on when that intention ends.

        When an intention ends, the observation and ``info`` are the next intention's first
        ones and ``info["finished"]`` holds the ended one's index, task, success and
        subgoal rewards.
        """
        if not self.segments or self._index >= len(self.segments):
            raise MobileIntentError("call reset() before step()")
        obs, reward, terminated, truncated, info = self.execute.step(action)
        if not (terminated or truncated):
            return self._observe(obs), reward, False, False, self._info(info)
        self._results.append(bool(info["success"]))
        finished = {"segment": self._index, "task": info["task"], "success": info["success"],
                    "subgoal_rewards": info["subgoal_rewards"]}
        info = {**self._info(info), "finished": finished}
        self._index += 1
        if self._index == len(self.segments):
            return self._observe(obs), reward, True, False, info
        obs, info = self._start()
        return obs, reward, False, False, {**info, "finished": finished}

    def render(self) -> np.ndarray | None:
        """The current screen (``rgb_array``), or ``None`` without a render mode."""
        return self.device.screenshot() if self.render_mode == "rgb_array" else None

    def close(self) -> None:
        """Release the device if this env built it from a config string."""
        self.execute.close()
        if self._owns_device:
            self.device.close()
