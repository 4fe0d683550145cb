"""``Act2Intent-Predict-v0``: predict a user's next intention from their history.

Each episode is one day of one user after ``history_days`` days of history (the predicted
days before it are history too). At every step the observation holds the last ``history``
(n = 50) intentions, one per line as
``<time> | <app> | <intention> | <event class>``; a persona summarised from the whole
history (:func:`~mobileintent_gym.intents.persona_text`); and the current time and place
(the start of the intention to predict). The action is the study's JSON answer
``{"Event": <class>, "Behaviour": <text>}``, optionally with ``"Confidence"`` in [0, 1]
(default 1). Then the truth is revealed (``info["truth"]``), joins the history, and the next
intention of the day is asked for; the episode ends after the day's last one. An intention
the user interrupted for another (``GeneratorConfig.interleave``) is one intention, asked
for where the user finished it.

Reward = Acc-C of the step: 1 when the event class equals the truth's exactly, else 0.
``info`` also holds the step's Acc-S (all-MiniLM-L6-v2) and BLEU-4 (characters) of the
behaviour, and, when the episode ends, ``info["day_scores"]``: Acc-C, Acc-S, BLEU-4 over the
day with the confidence fallback — ``all`` (every prediction pushed), ``0.60`` and ``0.80``
(only predictions whose confidence reaches the threshold are pushed; each has its
``push_rate``). A part of the answer that cannot be read scores as wrong, and an answer
with no JSON object, or a confidence that is no number in [0, 1], has confidence 0;
``info["malformed"]`` says why. It never raises.

Version History:
    v0: Initial version.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

import gymnasium as gym
from gymnasium import spaces

from mobileintent_gym.checks import check_render_mode, check_seed
from mobileintent_gym.envs.days import check_config, check_counts, draw_day
from mobileintent_gym.envs.scoring import scoring_encoder
from mobileintent_gym.envs.screenless import Screenless
from mobileintent_gym.envs.spaces import UnicodeText
from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.intents.generator import GeneratorConfig
from mobileintent_gym.intents.persona import persona_text
from mobileintent_gym.intents.schema import Context, IntentionSegment
from mobileintent_gym.metrics.act2intent import Prediction, parse_prediction, prediction_scores
from mobileintent_gym.phone.state import weekday_name
from mobileintent_gym.users.encoders import Encoder
from mobileintent_gym.users.sets import UserSpec, env_users, refusable_reset

HISTORY_LENGTH = 1 << 15
TEXT_LENGTH = 2048
THRESHOLDS = (0.60, 0.80)


def history_line(segment: IntentionSegment) -> str:
    """One intention as the observation lists it: ``time | app | intention | class``."""
    return f"{segment.time:%Y-%m-%d %H:%M} | {segment.app} | {segment.intention} | {segment.event}"


def history_text(past: Sequence[IntentionSegment], count: int) -> str:
    """The last ``count`` intentions of ``past``, one :func:`history_line` each."""
    lines = "\n".join(history_line(s) for s in past[-count:])
    return lines[-HISTORY_LENGTH:] or "(none)"


def time_text(when: datetime, context: Context | None) -> str:
    """A time and, when known, its scene: ``2026-03-05 08:14 Thursday, weekday morning, home``."""
    place = f", {context.scene}" if context is not None else ""
    return f"{when:%Y-%m-%d %H:%M} {weekday_name(when)}{place}"


class PredictEnv(Screenless, gym.Env[dict[str, str], str]):
    """Predict each next intention of a user's day from their history and persona.

    Args:
        users: A set of built-in users (``"test"`` …), profile names or paths, or a list
            mixing them.
        history_days: Days of history before the predicted days (an episode's history also
            holds the predicted days before its own).
        predict_days: Days that episodes predict (drawn from, after the history).
        history: Intentions shown (n).
        seed: Seed of the generated sessions (the data set).
        encoder: Sentence encoder of Acc-S (default all-MiniLM-L6-v2, extra ``[embed]``).
        config: How sessions are generated.
        render_mode: ``None``: the env renders nothing (it shows no screen).

    Reset options: ``user`` (a profile, or a set to draw from) and ``day`` (index among the
    predicted days) pick the episode.
    """

    def __init__(self, users: UserSpec = "test", *, history_days: int = 7,
                 predict_days: int = 2, history: int = 50, seed: int = 0,
                 encoder: Encoder | None = None, config: GeneratorConfig | None = None,
                 render_mode: None = None) -> None:
        self.render_mode = check_render_mode(render_mode, self.metadata["render_modes"])
        history_days, predict_days, history = check_counts(
            history_days=history_days, predict_days=predict_days, history=history)
        seed = check_seed(seed)
        check_config(config)
        self.config = config or GeneratorConfig()
        self.users, self.data_seed = env_users(users, self.config.profiles_dir), seed
        self.history_days, self.predict_days, self.history = history_days, predict_days, history
        self.encoder = scoring_encoder(encoder)
        self.observation_space = spaces.Dict({"history": UnicodeText(HISTORY_LENGTH),
                                              "persona": UnicodeText(TEXT_LENGTH),
                                              "time": UnicodeText(TEXT_LENGTH)})
        self.action_space = UnicodeText(TEXT_LENGTH)
        self.past: list[IntentionSegment] = []
        self.targets: tuple[IntentionSegment, ...] = ()
        self.persona = ""
        self._t = 0
        self._guesses: list[Prediction] = []

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, str], dict[str, Any]]:
        """Draw a user and a predicted day (or take those ``options`` name)."""
        with refusable_reset(self, seed) as rng:  # a refused one changes no later episode
            _, history, session, day = draw_day(options, rng, self.users,
                                                   self.history_days, self.predict_days,
                                                   self.data_seed, self.config)
        self.past = [s for past in history for s in past.done()]
        self.targets = session.done()
        self.persona = persona_text(self.past)
        # Acc-S compares behaviours, and an agent may well predict one of the history's.
        self.encoder.keep_known([s.intention for s in (*self.past, *self.targets)])
        self._t, self._guesses = 0, []
        return self._obs(), {"user": session.user, "day": day, "intentions": len(self.targets)}

    def _obs(self) -> dict[str, str]:
        target = self.targets[min(self._t, len(self.targets) - 1)]
        return {"history": history_text(self.past, self.history), "persona": self.persona,
                "time": time_text(target.time, target.context)}

    def truth(self) -> Prediction:
        """The intention to predict now (what an oracle answers).

        Raises:
            MobileIntentError: Before a reset, or once the day's last intention was
                predicted.
        """
        if not self.targets or self._t >= len(self.targets):
            raise MobileIntentError("no intention is under way: call reset() before truth()")
        target = self.targets[self._t]
        return Prediction(target.event, target.intention)

    def step(self, action: str) -> tuple[dict[str, str], float, bool, bool, dict[str, Any]]:
        """Score one prediction, reveal the truth, move to the next intention.

        Raises:
            MobileIntentError: Before a reset, or once the day's last intention was
                predicted (the episode has ended).
        """
        if not self.targets:
            raise MobileIntentError("call reset() before step()")
        if self._t >= len(self.targets):
            raise MobileIntentError("the day's last intention was predicted (the episode "
                                    "has ended): call reset() before step()")
        truth = self.truth()
        guess = parse_prediction(action)
        malformed = guess.error
        scores = prediction_scores([guess], [truth], self.encoder)
        self._guesses.append(guess)
        self.past.append(self.targets[self._t])
        self._t += 1
        done = self._t == len(self.targets)
        info = {"truth": {"Event": truth.event, "Behaviour": truth.behaviour},
                "malformed": malformed, **{k: scores[k] for k in ("acc_c", "acc_s", "bleu4")}}
        if done:
            info["day_scores"] = self._episode_scores()
        return self._obs(), float(scores["acc_c"]), done, False, info

    def _episode_scores(self) -> dict[str, dict[str, float]]:
        truths = [Prediction(t.event, t.intention) for t in self.targets]
        out = {"all": prediction_scores(self._guesses, truths, self.encoder)}
        for threshold in THRESHOLDS:
            out[f"{threshold:.2f}"] = prediction_scores(self._guesses, truths, self.encoder,
                                                        threshold)
        return out
