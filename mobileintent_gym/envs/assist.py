"""``Act2Intent-Assist-v0``: watch a simulated user's day; propose; do what they accept.

The closed loop of proactive assistance. Each episode is one generated day of one user
after ``history_days`` days of history (the users, routines and behaviour of the other
intention envs, with about one noise stretch per intention). The user lives the day on
their phone action by action (:mod:`.lived_day`). While the agent **watches**
(observation ``mode`` 0) it sees the screen before each of the user's actions and answers
``"no action"`` or a proposal ``{"Intent": "<intention>"}`` (:mod:`.proposals`); then:

* the user **accepts** a proposal that names the intention they are carrying out — the
  same rule as the Proactive env's match
  (:class:`~mobileintent_gym.metrics.pira.IntentMatcher`) — and hands the phone over;
* they **reject** any other (a proposal on noise, of another task, or of an intention
  they are finishing by hand after the assistant failed it) and take their next action;
* without a proposal they take their next action.

After an acceptance the agent **executes** the intention (``mode`` 1) with the Execute
env's semantics: the intention's app opens at its home screen, ``instruction`` is the
task's instruction, actions are Act2Intention actions (an
:class:`~mobileintent_gym.actions.Action`, its string form or a sample of Execute's
action space), every step is judged and earns the subgoals it newly achieves, and the
execution ends on success, ``COMPLETE`` or the task's step limit. The user then goes on
with their day from the phone as the assistant left it — after a failed execution they
first finish the intention by hand — and the agent watches again.

Reward: Execute's subgoal rewards while executing, −``false_alarm_cost`` for each rejected
proposal, 0 otherwise. ``info`` holds ``mode`` (of the step taken), ``proposal`` (the
intent proposed or ``None``), ``accepted`` (left out without a proposal), ``malformed``,
the user's ``user_action`` (``None`` when none was taken) and, while executing, Execute's
fields. The episode ends after the day's last user action; ``info["day_scores"]`` then holds
the closed loop's scores (:mod:`~mobileintent_gym.metrics.assist`, docs/scores.md):
proposals accepted and rejected, the false-alarm rate, end-to-end success of accepted
intentions and the user steps saved.

Version History:
    v0: Initial version.
"""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from mobileintent_gym.actions import ActionLike
from mobileintent_gym.checks import check_flags, check_render_mode, check_seed
from mobileintent_gym.envs.days import (
    check_config,
    check_counts,
    check_number,
    draw_day,
)
from mobileintent_gym.envs.execute import ExecuteEnv
from mobileintent_gym.envs.lived_day import LivedDay
from mobileintent_gym.envs.predict import HISTORY_LENGTH, TEXT_LENGTH, history_text, time_text
from mobileintent_gym.envs.proposals import ANSWER_LENGTH, intent_matcher, parse_proposal
from mobileintent_gym.envs.scoring import scoring_encoder
from mobileintent_gym.envs.session import CarriedDevice
from mobileintent_gym.envs.spaces import (
    HIERARCHY_LENGTH,
    INSTRUCTION_LENGTH,
    FrameBox,
    UnicodeText,
)
from mobileintent_gym.envs.tape import TapedPhone
from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.intents.describe import app_of
from mobileintent_gym.intents.generator import GeneratorConfig, UserLife, profile_key
from mobileintent_gym.intents.persona import persona_text
from mobileintent_gym.intents.schema import TIME_FORMAT
from mobileintent_gym.metrics.assist import assist_scores
from mobileintent_gym.metrics.pira import MATCH_THRESHOLD, IntentMatcher
from mobileintent_gym.phone import SimPhone
from mobileintent_gym.tasks import TaskInstance
from mobileintent_gym.users.encoders import Encoder
from mobileintent_gym.users.sets import UserSpec, env_users, refusable_reset

WATCH, EXECUTE = 0, 1
ASSIST_PACE = 2.0  # seconds the phone's clock advances per assistant action
ASSIST_NOISE = 0.8
"""The users' days: about one noise stretch per intention, no interleaving."""


class AssistEnv(gym.Env[dict[str, Any], Any]):
    """Watch a user live their day, propose intentions, and execute the accepted ones.

    Args:
        users: A set of built-in users (``"test"`` …), profile names or paths, or a list
            mixing them.
        history_days: Days of history before the played days (an episode's history also
            holds the played days before its own).
        play_days: Days episodes are drawn from, after the history.
        history: Past intentions listed in ``history``.
        hierarchy: Add ``hierarchy``, the screen's view hierarchy.
        false_alarm_cost: What a rejected proposal costs.
        match_threshold: Least cosine similarity of an accepted paraphrase.
        seed: Seed of the generated days (the data set).
        encoder: Sentence encoder of the match (default all-MiniLM-L6-v2, extra ``[embed]``).
        config: How days are generated (default ``GeneratorConfig(noise=ASSIST_NOISE)``;
            its size is the phone's; interleaved intentions are not supported).
        render_mode: ``"rgb_array"`` or ``None``.

    Reset options: ``user`` and ``day`` (index among the played days).
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["rgb_array"], "render_fps": 4}

    def __init__(self, users: UserSpec = "test", *, history_days: int = 3,
                 play_days: int = 2, history: int = 50, hierarchy: bool = False,
                 false_alarm_cost: float = 1.0, match_threshold: float = MATCH_THRESHOLD,
                 seed: int = 0, encoder: Encoder | None = None,
                 config: GeneratorConfig | None = None, render_mode: str | None = None) -> None:
        history_days, play_days, history = check_counts(
            history_days=history_days, play_days=play_days, history=history)
        seed = check_seed(seed)
        check_flags(hierarchy=hierarchy)
        check_number("false_alarm_cost", false_alarm_cost, 0.0, float("inf"))
        check_number("match_threshold", match_threshold, 0.0, 1.0)
        check_config(config)
        render_mode = check_render_mode(render_mode, self.metadata["render_modes"])
        self.config = config or GeneratorConfig(noise=ASSIST_NOISE)
        if self.config.interleave:
            raise MobileIntentError("the Assist env lives days without interleaved intentions; "
                                    f"got a config with interleave={self.config.interleave}")
        self.users = env_users(users, self.config.profiles_dir)
        self.data_seed, self.history = seed, history
        self.history_days, self.play_days = history_days, play_days
        self.false_alarm_cost, self.render_mode = false_alarm_cost, render_mode
        self.encoder, self.match_threshold = scoring_encoder(encoder), match_threshold
        self.device = TapedPhone(SimPhone(self.config.width, self.config.height))
        self.execute = ExecuteEnv(CarriedDevice(self.device), users=self.users,
                                  observation=("instruction",), load_state=False,
                                  carries_state=True, pair=self.config.pair,
                                  profiles_dir=self.config.profiles_dir)
        self.observation_space = spaces.Dict(self._fields(hierarchy))
        self.action_space = UnicodeText(ANSWER_LENGTH)
        self.day: LivedDay | None = None
        self.matcher: IntentMatcher | None = None
        self.mode = WATCH
        self._lives: dict[str, tuple[str, UserLife]] = {}  # see _life: profile_key, life
        self._user = ""
        self._texts: dict[str, str] = {}
        self._answers: list[bool] = []
        self._agent_steps = 0

    def _fields(self, hierarchy: bool) -> dict[str, spaces.Space]:
        width, height = self.config.width, self.config.height
        fields: dict[str, spaces.Space] = {
            "mode": spaces.Discrete(2),
            "screenshot": FrameBox((height, width, 3)),
            "app": UnicodeText(TEXT_LENGTH, min_length=0),
            "instruction": UnicodeText(INSTRUCTION_LENGTH, min_length=0),
            "profile": UnicodeText(TEXT_LENGTH), "history": UnicodeText(HISTORY_LENGTH),
            "context": UnicodeText(TEXT_LENGTH)}
        if hierarchy:
            fields["hierarchy"] = UnicodeText(HIERARCHY_LENGTH)
        return fields

    @property
    def task(self) -> TaskInstance | None:
        """The task being executed (what an oracle completes), ``None`` while watching."""
        return self.execute.task if self.mode == EXECUTE else None

    def truth(self) -> str | None:
        """The intention the user would accept now (``None``: they would reject any)."""
        segment = self.day.intention() if self.day is not None else None
        return None if segment is None else segment.intention

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Draw a user and day (or take those ``options`` name); the user starts living it."""
        with refusable_reset(self, seed) as rng:  # a refused one changes no later episode
            user, history, session, day = draw_day(options, rng, self.users,
                                                   self.history_days, self.play_days,
                                                   self.data_seed, self.config)
        past = [s for earlier in history for s in earlier.done()]
        life = self._life(user)
        self.day = LivedDay(life, len(history), session.start, self.device, self.data_seed)
        self.matcher = intent_matcher(self.encoder, [*past, *session.segments],
                                      self.match_threshold, life.content)
        self._texts = {"profile": persona_text(past), "history": history_text(past, self.history)}
        self.mode, self._answers, self._agent_steps, self._user = WATCH, [], 0, user
        return self._obs(), {"user": session.user, "day": day}

    def _life(self, user: str) -> UserLife:
        """``user``'s life, reused across episodes.

        Once the profile changed it is lived anew, as its days are, and the old life is
        closed (each holds a phone).
        """
        key = profile_key(user, self.config)
        kept = self._lives.get(user)
        if kept is None or kept[0] != key:
            if kept is not None:
                kept[1].close()
            kept = self._lives[user] = key, UserLife(user, self.data_seed, self.config)
        return kept[1]

    def _obs(self) -> dict[str, Any]:
        route = self.device.route()
        app = app_of(route)
        segment = self.day.segment
        obs = {"mode": self.mode, "screenshot": self.device.screenshot(fresh=True),
               "app": self.device.phone.apps[app].label if app else "",
               "instruction": self.task.instruction if self.task is not None else "",
               **self._texts,
               "context": time_text(self._now(), segment.context if segment else None)}
        if "hierarchy" in self.observation_space.spaces:
            obs["hierarchy"] = self.device.hierarchy()
        return obs

    def _now(self) -> datetime:
        return datetime.strptime(self.device.clock, TIME_FORMAT)

    def step(self, action: str | ActionLike) -> tuple[dict[str, Any], float, bool, bool,
                                                       dict[str, Any]]:
        """Answer the user's next action (watching) or act on the phone (executing)."""
        if self.day is None or self.day.over:
            raise MobileIntentError("call reset() before step()")
        if self.mode == EXECUTE:
            reward, info = self._execute(action)
        else:
            reward, info = self._watch(action)
        done = self.day.over
        if done:
            info["day_scores"] = asdict(assist_scores(self._answers, self.day.outcomes,
                                                   self._agent_steps))
        return self._obs(), reward, done, False, info

    def _watch(self, answer: Any) -> tuple[float, dict[str, Any]]:
        said = parse_proposal(answer)
        info: dict[str, Any] = {"mode": WATCH, "proposal": said.intent,
                                "malformed": said.error, "user_action": None}
        if said.intent is not None:
            gold = self.truth()
            accepted = gold is not None and self.matcher(said.intent, gold)
            self._answers.append(accepted)
            info["accepted"] = accepted
            if accepted:
                self.mode = EXECUTE
                self.device.seconds_per_action = ASSIST_PACE
                self.execute.reset(options={"user": self._user, "task": self.day.segment.task})
                return 0.0, info
        info["user_action"] = self.day.user_acts().action
        return (-self.false_alarm_cost if info.get("accepted") is False else 0.0), info

    def _execute(self, action: ActionLike) -> tuple[float, dict[str, Any]]:
        _, reward, terminated, truncated, info = self.execute.step(action)
        self._agent_steps += 1
        info = {**info, "mode": EXECUTE, "proposal": None, "malformed": None,
                "user_action": None}
        if terminated or truncated:
            self.mode = WATCH
            self.day.take_back(bool(info["success"]))
        return reward, info

    def render(self) -> np.ndarray | None:
        """The current screen (``rgb_array``), or ``None`` without a render mode."""
        return self.device.screenshot() if self.render_mode == "rgb_array" else None

    def close(self) -> None:
        """Release the phones."""
        self.device.close()
        for _, life in self._lives.values():
            life.close()
