"""``Act2Intent-Understand-v0``: tell which intentions a run of actions was for.

Each episode is one window of ``window`` (m = 5) consecutive intention segments of a
generated session (noise segments are left out). The observation is the window's action
descriptions, numbered from 1 (and, if asked, the screen of each step); the action is the
Act2Intention answer, a JSON object mapping each intention's text to the indices of its
steps in order, ``{"<intention>": [1, 2, 3], "<intention>": [4, 5], …}``. The episode ends
after that one step.

Reward = (Acc-G + Acc-S + BLEU-4) / 3 of the answer against the truth
(:func:`~mobileintent_gym.metrics.act2intent.understanding_scores`; Acc-S with
all-MiniLM-L6-v2, BLEU-4 on characters), each term also in ``info``. The answer is read
as model output is (:func:`~mobileintent_gym.metrics.act2intent.read_segmentation`: the
first JSON object, inside prose or a code fence too; indices as numbers or numeric
strings). An answer that holds no such object, or one with a segment whose indices are
not integers from 1 (none, ``0``, ``2.5``), scores 0 on all three, whatever its other
segments hold, and ``info["malformed"]`` says why; it never raises. Two intentions of one
window may have the same text: the truth (``env.truth``, ``info["truth"]``) is therefore
a sequence of ``(text, indices)`` pairs in order, and an answer may repeat a key (JSON
allows it; :func:`mobileintent_gym.agents.understand.answer` writes such objects).

Version History:
    v0: Initial version.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from PIL import Image

from mobileintent_gym.checks import check_flags, check_render_mode, check_seed, reset_options
from mobileintent_gym.envs.days import check_config, check_counts, check_size
from mobileintent_gym.envs.scoring import scoring_encoder
from mobileintent_gym.envs.screenless import Screenless
from mobileintent_gym.envs.spaces import FrameBox, UnicodeText
from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.intents.generator import GeneratorConfig, cached_sessions
from mobileintent_gym.intents.replay import replay
from mobileintent_gym.intents.schema import IntentionSegment, Session
from mobileintent_gym.metrics.act2intent import understanding_scores
from mobileintent_gym.metrics.understanding import read_segmentation
from mobileintent_gym.phone import SimPhone
from mobileintent_gym.users.encoders import Encoder
from mobileintent_gym.users.sets import UserSpec, env_users, pick_user, refusable_reset

STEPS_LENGTH = 1 << 15
ANSWER_LENGTH = 1 << 13


class UnderstandEnv(Screenless, gym.Env[dict[str, Any], str]):
    """Segment a window of a user's actions into the intentions behind them.

    Args:
        users: A set of built-in users (``"test"`` …), profile names or paths, or a list
            mixing them (see :func:`~mobileintent_gym.users.resolve_users`).
        days: Days generated per user; windows come from all of them.
        window: Intention segments per window (m).
        seed: Seed of the generated sessions (the data set; episodes are drawn by the
            reset seed).
        screenshots: Add the screen each step was taken on (``screenshots``, one H×W×3
            frame per step, resized to ``screenshot_size``).
        screenshot_size: (width, height) of those frames.
        encoder: Sentence encoder of Acc-S (default all-MiniLM-L6-v2, extra ``[embed]``).
        config: How sessions are generated.
        render_mode: ``None``: the env renders nothing (its screens are in the
            observation's ``screenshots``).

    Reset options: ``user`` (a profile, or a set to draw from), ``day`` (index) and
    ``start`` (index of the window's first intention in that day) pick the window instead
    of drawing it.
    """

    def __init__(self, users: UserSpec = "test", *, days: int = 2, window: int = 5,
                 seed: int = 0, screenshots: bool = False,
                 screenshot_size: tuple[int, int] = (216, 480), encoder: Encoder | None = None,
                 config: GeneratorConfig | None = None, render_mode: None = None) -> None:
        self.render_mode = check_render_mode(render_mode, self.metadata["render_modes"])
        days, window = check_counts(days=days, window=window)
        seed = check_seed(seed)
        check_flags(screenshots=screenshots)
        check_config(config)
        if screenshots:
            screenshot_size = check_size("screenshot_size", screenshot_size)
        self.config = config or GeneratorConfig()
        self.users = env_users(users, self.config.profiles_dir)
        self.days, self.window, self.data_seed = days, window, seed
        self.encoder = scoring_encoder(encoder)
        self.screenshot_size = screenshot_size if screenshots else None
        fields: dict[str, spaces.Space] = {"steps": UnicodeText(STEPS_LENGTH)}
        if screenshots:
            width, height = screenshot_size
            fields["screenshots"] = spaces.Sequence(
                FrameBox((height, width, 3)), stack=False)
        self.observation_space = spaces.Dict(fields)
        self.action_space = UnicodeText(ANSWER_LENGTH)
        self.segments: tuple[IntentionSegment, ...] = ()
        self.truth: tuple[tuple[str, list[int]], ...] = ()
        self._session: Session | None = None
        self._obs: dict[str, Any] = {}
        self._done = True

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Draw a window (or take the one ``options`` name) and show its steps."""
        with refusable_reset(self, seed) as rng:  # a refused one changes no later episode
            options = reset_options(options, ("day", "start", "user"),
                                    integers=("start",), below={"day": self.days})
            user, day, start = (options.get(k) for k in ("user", "day", "start"))
            tried: dict[str, tuple[tuple[Session, ...], list[int]]] = {}

            def too_short(user: str) -> str | None:  # pick_user's refuse: kept as tried
                tried[user] = self._days(user)
                return None if tried[user][1] else (f"no day of {user!r} has {self.window} "
                                                    "intentions")

            user = pick_user(user, self.users, rng, self.config.profiles_dir, too_short)
            if user not in tried and (reason := too_short(user)):  # a user named, not drawn
                raise MobileIntentError(reason)
            sessions, candidates = tried[user]
            day = candidates[rng.integers(len(candidates))] if day is None else day
            if day not in candidates:
                raise MobileIntentError(f"reset option day must be one of {candidates} (days "
                                        f"with {self.window} intentions), got {day!r}")
            intentions = sessions[day].intentions()
            last = len(intentions) - self.window
            start = int(rng.integers(last + 1)) if start is None else start
            if not 0 <= start <= last:
                raise MobileIntentError(
                    f"reset option start must be in 0..{last}, got {start!r}")
            segments = intentions[start:start + self.window]
            obs = self._observe(sessions[day], segments)  # before any state changes
        self._session, self._done, self.segments = sessions[day], False, segments
        self.truth, self._obs = self._truth(), obs
        self.encoder.keep_known([text for text, _ in self.truth])  # what Acc-S compares
        return self._fresh_obs(), {"user": self._session.user, "day": int(day), "start": int(start),
                                   "segments": len(self.segments)}

    def _days(self, user: str) -> tuple[tuple[Session, ...], list[int]]:
        """``user``'s days, and which of them hold a whole window of intentions."""
        sessions = cached_sessions(user, self.days, self.data_seed, self.config)
        return sessions, [i for i, s in enumerate(sessions) if len(s.intentions()) >= self.window]

    def _truth(self) -> tuple[tuple[str, list[int]], ...]:
        pairs, index = [], 1
        for segment in self.segments:
            pairs.append((segment.intention, list(range(index, index + len(segment.steps)))))
            index += len(segment.steps)
        return tuple(pairs)

    def _observe(self, session: Session, segments: tuple[IntentionSegment, ...]
                 ) -> dict[str, Any]:
        steps = [step for segment in segments for step in segment.steps]
        text = "\n".join(f"{i}. {step.description}" for i, step in enumerate(steps, 1))
        obs: dict[str, Any] = {"steps": text[:STEPS_LENGTH]}
        if self.screenshot_size is not None:
            obs["screenshots"] = self._frames(session, segments)
        return obs

    def _frames(self, session: Session, segments: tuple[IntentionSegment, ...]
                ) -> tuple[np.ndarray, ...]:
        wanted = {id(step) for segment in segments for step in segment.steps}
        phone = SimPhone(self.config.width, self.config.height)
        frames = []
        try:
            for _, step in replay(session, phone):
                if id(step) in wanted:
                    image = Image.fromarray(phone.screenshot()).resize(self.screenshot_size)
                    frames.append(np.asarray(image))
        finally:
            phone.close()
        return tuple(frames)

    def step(self, action: str) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """Score the answer; the episode ends."""
        if self._done:
            raise MobileIntentError("call reset() before step()")
        info: dict[str, Any] = {"truth": [(text, list(indices)) for text, indices in self.truth],
                                "malformed": None}
        try:
            scores = understanding_scores(read_segmentation(action), self.truth, self.encoder)
        except ValueError as err:
            scores = {"acc_g": 0.0, "acc_s": 0.0, "bleu4": 0.0}
            info["malformed"] = str(err)
        info.update(scores)
        reward = (scores["acc_g"] + scores["acc_s"] + scores["bleu4"]) / 3
        self._done = True  # once scored: an error above leaves the episode to step again
        return self._fresh_obs(), float(reward), True, False, info

    def _fresh_obs(self) -> dict[str, Any]:
        """A copy of the observation, frames included.

        Gymnasium's checker asks that no two observations share an array, read-only or not.
        """
        obs = dict(self._obs)
        if "screenshots" in obs:
            obs["screenshots"] = tuple(frame.copy() for frame in obs["screenshots"])
        return obs
