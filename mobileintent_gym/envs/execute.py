"""``Act2Intent-Execute-v0``: carry out a user's intention on their personalised phone.

Each episode is one task instance of the PAIR study: a template on one user's phone, with a
common or personal target and an explicit or implicit instruction. The phone — simulated,
or a device behind the same :class:`~mobileintent_gym.backends.Device` contract — holds
that user's PAIR content and starts in the task's app. The agent acts with the
Act2Intention action space; every step's event is judged (docs/scores.md, "Subgoal
rewards") and the reward is the rise in achieved subgoals, so an episode's return is the
number of subgoals achieved.

Version History:
    v0: Initial version (Spotify and WeChat templates of the PAIR study). Before the first
        release its judge moved to the study's rules in full: UC subgoals need the
        target's screen or a click on the target, expected clicks count anywhere after the
        entry screen, controls also match by label, and ``info`` reports reached subgoals.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np

from mobileintent_gym.actions import ActionLike, action_space, to_action
from mobileintent_gym.backends.base import Device
from mobileintent_gym.backends.loader import load_device
from mobileintent_gym.checks import check_flags, check_render_mode, check_type, reset_options
from mobileintent_gym.envs.kept_content import KeptContent
from mobileintent_gym.envs.spaces import observation_fields, observation_space
from mobileintent_gym.errors import (
    InvalidActionError,
    InvalidArgumentError,
    InvalidOptionsError,
    MobileIntentError,
    brief,
)
from mobileintent_gym.phone import hierarchy
from mobileintent_gym.phone.events import ActResult
from mobileintent_gym.phone.state import PhoneState
from mobileintent_gym.phone.ui import Node
from mobileintent_gym.tasks import (
    Judge,
    TaskInstance,
    Verdict,
    chosen_tasks,
    instantiate,
    parse_task_id,
)
from mobileintent_gym.users import PairConfig, build_user_content, resolve_profile
from mobileintent_gym.users.encoders import check_ranked_by
from mobileintent_gym.users.sets import UserSpec, env_users, pick_user, refusable_reset


class ExecuteEnv(gym.Env[dict[str, Any], dict[str, Any]]):
    """Execute a user intention (a PAIR task) on a phone and earn subgoal rewards.

    Args:
        device: A device, or a config string for :func:`~mobileintent_gym.backends.load_device`
            (``"sim"``, ``"adb:127.0.0.1:15555"`` …).
        users: Users episodes are drawn from: a set of built-in users (``"test"``,
            ``"train"`` …, see :mod:`mobileintent_gym.users.sets`), profile names or paths,
            or a list mixing them (default: the test set).
        tasks: Task ids episodes are drawn from (one id, or several; default: every task).
        observation: Observation fields: ``screenshot``, ``instruction``, ``hierarchy``.
        load_state: Load the user's PAIR state into the device at reset. Turn it off for a
            device that already holds it (``mobileintent-gym serve-adb --user …``): each
            reset then asks the device to restore that content, or warns what may carry
            over from earlier episodes (:mod:`mobileintent_gym.envs.kept_content`).
        carries_state: With ``load_state`` off, the caller carries the device's content
            from episode to episode on purpose (the Session and Assist envs: a day on one
            simulated phone), so it is neither restored nor warned about.
        pair: How PAIR builds each user's content.
        profiles_dir: Where user profiles named by ``users`` are looked up first.
        render_mode: ``"rgb_array"`` or ``None``.
        require_encoder: The model (a full id, or its part after ``/``) that must have
            ranked each user's content; a reset whose content another one ranked (the
            lexical fallback, another model in this process's cache) raises
            :class:`~mobileintent_gym.errors.MobileIntentError` naming both.

    Reset options: ``user`` (a profile name or path, or a set to draw the user from) and
    ``task`` (a task id) pick the episode instead of drawing it; anything else, an empty
    value or a non-dict raises :class:`~mobileintent_gym.errors.InvalidOptionsError`.

    Observations are dicts of the chosen fields; ``info`` carries the task, the per-subgoal
    rewards and whether each subgoal's entry context was reached (``subgoals_reached``),
    ``success``, ``sar`` (achieved / reached subgoals; NaN while none is reached),
    ``sar_all_subgoals`` (achieved / every subgoal) and the step's event. An action that
    is malformed or off screen changes nothing on the phone: the step returns reward 0 with
    ``info["invalid_action"]`` naming the problem, and counts toward the step limit as a
    step spent on that screen (whose subgoal it reaches, as any action does).

    Raises:
        UnknownProfileError: When ``users`` names neither a set nor a profile (before any
            device is opened).
        MobileIntentError: When two of ``users`` are one user (same ``user_id``).
        UnknownTaskError: When ``tasks`` holds an id of no task, or is empty (before any
            device is opened).
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["rgb_array"], "render_fps": 4}
    keeps_screenshots: ClassVar[bool] = False
    """The env holds no screenshot once it returned it, so a vector env worker may have its
    device draw them straight into shared memory (a frame held there would be drawn over)."""

    def __init__(self, device: Device | str = "sim", *, users: UserSpec = "test",
                 tasks: str | Iterable[str] | None = None,
                 observation: str | Sequence[str] = ("screenshot", "instruction"),
                 load_state: bool = True, carries_state: bool = False,
                 pair: PairConfig | None = None,
                 profiles_dir: str | None = None, render_mode: str | None = None,
                 require_encoder: str | None = None) -> None:
        render_mode = check_render_mode(render_mode, self.metadata["render_modes"])
        self.users = env_users(users, profiles_dir)
        self.tasks = chosen_tasks(tasks)
        self.fields = observation_fields(observation)
        check_type("device", device, (Device, str), "a Device or a config text such as 'sim'")
        check_flags(load_state=load_state, carries_state=carries_state)
        check_type("pair", pair, (PairConfig, type(None)), "a PairConfig or None")
        if not (require_encoder is None or (isinstance(require_encoder, str)
                                            and require_encoder.strip())):
            raise InvalidArgumentError(f"require_encoder must be a model's name or None, got "
                                       f"{brief(require_encoder, 60)}")
        self._owns_device = isinstance(device, str)
        self.device: Device = load_device(device) if isinstance(device, str) else device
        self.load_state, self.carries_state = load_state, carries_state
        self.pair = pair or PairConfig()
        self.profiles_dir, self.require_encoder = profiles_dir, require_encoder
        self.render_mode = render_mode
        self.observation_space = observation_space(self.device.width, self.device.height,
                                                   self.fields)
        self.action_space = action_space(self.device.width, self.device.height)
        self.task: TaskInstance | None = None
        self._judge: Judge | None = None
        self._steps, self._ended = 0, False
        self._dump: str | None = None  # the screen's hierarchy, read once per reset or step
        self._kept = KeptContent()

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start an episode: pick a user and task, load the phone, open the task's app."""
        with refusable_reset(self, seed) as rng:  # a refused one changes no later episode
            chosen = _reset_choices(options)
            user = pick_user(chosen.get("user"), self.users, rng, self.profiles_dir)
            task_id = chosen.get("task") or self.tasks[rng.integers(len(self.tasks))]
            profile = resolve_profile(user, self.profiles_dir)
            if self._restores:  # before a minute's build
                self._kept.vet(self.device, profile.user_id, self.pair)
            content = build_user_content(profile, self.pair)
            self._check_encoder(user, content.encoder)
            task = instantiate(task_id, content)
        self._dump = None
        try:
            if self._restores:
                self._kept.finished(self.task,
                                    bool(self._judge and self._judge.verdict().success))
                self._kept.start(self.device, task, self.pair, content.encoder)
            self.device.reset(content.state if self.load_state else _kept_state(self.device))
            self.device.open(task.template.app)
            self.task, self._judge, self._steps, self._ended = task, Judge(task), 0, False
            self._judge.start(self.device.route(), self._screen)
        except BaseException:
            self._lose_episode()  # the phone has left the old one: it cannot be stepped on
            raise
        return self._obs(), self._info(self._judge.verdict(), None)

    @property
    def _restores(self) -> bool:
        """The device keeps its content: each reset restores it (where it can), not loads."""
        return not (self.load_state or self.carries_state)

    def _lose_episode(self) -> None:
        """Forget the episode after a device failure: ``step`` then asks for a reset."""
        self.task, self._judge = None, None

    def _check_encoder(self, user: str, name: str) -> None:
        """Refuse content ranked by another model than ``require_encoder``."""
        if self.require_encoder is not None:
            check_ranked_by(user, name, self.require_encoder, "require_encoder")

    def step(self, action: ActionLike) -> tuple[dict[str, Any], float, bool, bool,
                                                 dict[str, Any]]:
        """Carry out one action; reward = subgoals newly achieved by it.

        Raises:
            MobileIntentError: Before the first reset, and once the env has ended the
                episode (terminated, or truncated at the task's step limit): an ended
                intention scores nothing more. Gymnasium's ``TimeLimit`` (a shorter
                ``max_episode_steps``) truncates outside the env and does not stop steps.
            DeviceError: When the device failed (a real one that timed out, went offline):
                the action may have run unseen, so the episode ends with it and the next
                call must be ``reset``. A failed ``reset`` leaves no episode either.
        """
        if self._judge is None or self.task is None:
            raise MobileIntentError("call reset() before step()")
        if self._ended:
            raise MobileIntentError("the episode has ended (terminated or truncated): call "
                                    "reset() before step()")
        before = self._judge.verdict()
        result, invalid = self._act(action)
        self._steps += 1  # once the device has acted (or refused the action)
        truncated = self._steps >= self.task.template.step_limit
        if result is None:
            info = self._info(self._judge.refused(), None)  # reached, and earns nothing
            info["invalid_action"] = invalid
            self._ended = truncated
            return self._obs(), 0.0, False, truncated, info
        verdict = self._judge.update(result.event, self._screen)
        reward = sum(verdict.rewards) - sum(before.rewards)
        terminated = verdict.success or result.event.action == "COMPLETE"
        self._ended = terminated or truncated
        return self._obs(), float(reward), terminated, truncated, self._info(verdict, result)

    def _act(self, action: ActionLike) -> tuple[ActResult | None, str | None]:
        """The device's result of ``action``, or ``None`` and why it was refused.

        The action is read before the device is asked: an error reading it leaves the
        episode as it was, where the device's may have changed the phone unseen.
        """
        try:
            parsed = to_action(action)
        except InvalidActionError as err:
            return None, str(err)
        self._dump = None
        try:
            return self.device.act(parsed), None
        except InvalidActionError as err:
            return None, str(err)
        except BaseException:  # the judge cannot know what the device did
            self._lose_episode()
            raise

    def render(self) -> np.ndarray | None:
        """The current screen (``rgb_array``), or ``None`` without a render mode."""
        return self.device.screenshot() if self.render_mode == "rgb_array" else None

    def close(self) -> None:
        """Release the device if this env built it from a config string."""
        if self._owns_device:
            self.device.close()

    def screen_dump(self) -> str:
        """The hierarchy (uiautomator dump XML) of the screen the last reset or step left.

        Read from the device once per reset or step, whoever asks — the judge, the
        ``hierarchy`` observation, the element wrappers — where each read the device
        again (a ``uiautomator dump`` of 1–2 s on a phone, up to five a step): one dump
        and the same screen for all of them.
        """
        if self._dump is None:
            self._dump = self.device.hierarchy()
        return self._dump

    def _screen(self) -> Node:
        return hierarchy.parse(self.screen_dump())

    def _obs(self) -> dict[str, Any]:
        obs: dict[str, Any] = {}
        if "screenshot" in self.fields:
            # The device's read-only frame, copied only when the screen is unchanged and an
            # earlier observation still holds it: no 7.8 MB copy a step, nothing shared.
            obs["screenshot"] = self.device.screenshot(fresh=True)
        if "instruction" in self.fields:
            obs["instruction"] = self.task.instruction
        if "hierarchy" in self.fields:
            obs["hierarchy"] = self.screen_dump()
        return obs

    def _info(self, verdict: Verdict, result: Any) -> dict[str, Any]:
        """The step's ``info``; each value keeps its type from step to step.

        Vector envs batch a key into an array typed by the first sub-env's value, so a
        ``None`` beside booleans would read as ``False``: ``sar`` is ``nan`` before any
        subgoal is reached, and ``target_exposed`` is left out until it is known.
        """
        task = self.task
        goals = task.template.subgoals
        info = {
            "task": task.id, "user": task.user, "instruction": task.instruction,
            "target": task.target.entity, "steps": self._steps,
            "subgoals": tuple(g.name for g in goals),
            "contexts": tuple(g.context for g in goals),
            "subgoal_rewards": verdict.rewards, "subgoals_reached": verdict.reached,
            "success": verdict.success,
            "sar": sum(verdict.rewards) / sum(verdict.reached) if any(verdict.reached)
            else math.nan,
            "sar_all_subgoals": sum(verdict.rewards) / len(goals),
            "event": None if result is None else result.event,
        }
        if verdict.exposed is not None:
            info["target_exposed"] = verdict.exposed
        return info


def _kept_state(device: Device) -> PhoneState | None:
    """What a reset of a device that keeps its content loads: the simulated phone's own data.

    ``None`` (its default state) wiped a simulated phone loaded with a user's content back
    to the built-in one; a real device's reset (HOME) keeps its own.
    """
    state = getattr(device, "state", None)
    return state if isinstance(state, PhoneState) else None


def _reset_choices(options: Any) -> dict[str, Any]:
    """The ``user`` and ``task`` that reset ``options`` pick (a ``None`` value picks none).

    Raises:
        InvalidOptionsError: When ``options`` is not a dict (or ``None``), names an unknown
            option, or gives an empty or non-string value.
        UnknownTaskError: When ``task`` is no task id (before the user's content is built).
    """
    options = reset_options(options, ("task", "user"))
    kinds = {"user": str | os.PathLike, "task": str}
    for key, value in options.items():
        if value is not None and not (isinstance(value, kinds[key]) and str(value).strip()):
            raise InvalidOptionsError(f"reset option {key!r} must be a non-empty "
                                      f"{'name or path' if key == 'user' else 'task id'}, "
                                      f"got {brief(value)}")
    if options.get("task") is not None:
        parse_task_id(options["task"])
    return {key: value for key, value in options.items() if value is not None}
