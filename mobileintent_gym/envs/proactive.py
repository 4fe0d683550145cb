"""``Act2Intent-Proactive-v0``: watch a noisy stream of a user's screens; propose or keep quiet.

PIRA-Bench's task on generated data. Each episode is one day of one user after
``history_days`` days of history, played as a stream of screens (:mod:`.stream`): the
screen each of the user's actions was taken on — intentions, noise stretches (idle on the
home screen, accidental opens, distractor browsing) and interleaved intentions, left for
another segment and resumed after it. Each turn the stream advances by ``stride`` frames
(1) and the observation holds the last ``window`` frames (N = 10; black before the start),
the user's profile (a persona summarised from the history), their last ``history``
intentions, the time and scene of the newest frame, and optionally each frame's view
hierarchy and the candidate intents.

The action is an answer (:mod:`.proposals`): ``"no action"`` or
``{"Intent": "<intention>", "Memory": "CREATE|RESUME|UPDATE|IDLE"}``. Per turn, gold is the
intention under way, or noise; the answer is a tp (an intent matching gold), fp (an intent
on noise, or one not matching gold) or fn ("no action" on an intention). An intent matches
when it names the same task (:class:`~mobileintent_gym.metrics.pira.IntentMatcher`: a known
wording of gold's task, or a text whose all-MiniLM-L6-v2 embedding is within cosine
``match_threshold`` of gold's task and closer to it than to any other known task);
``candidates=True`` lists the known intentions, so an agent may choose one.

Reward: +1 for a tp, −1 for an fp, 0 otherwise. An answer that cannot be read counts as
"no action", one whose memory operation alone is bad keeps its intent and drops the
operation, and ``info["malformed"]`` says why (it never raises). A step's info tells
nothing of gold: most turns continue the intention of the turn before, so the gold of one
would answer the next (agents are handed the info). When the day ends,
``info["day_scores"]`` holds PIRA's scores (docs/scores.md): precision, recall, F1,
FPS_norm, S_final, the counts, and the accuracy of the memory operations given (plain, and
balanced over gold's operations) with how many turns were given one; and
``info["outcomes"]`` and ``info["golds"]`` each turn's ``tp``, ``fp``, ``fn`` or ``tn`` and
gold intent (``None`` on noise). Evaluators may read them as the day goes:
:meth:`ProactiveEnv.truth` and :attr:`ProactiveEnv.outcomes`.

Version History:
    v0: Initial version.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from mobileintent_gym.checks import check_flags, check_render_mode, check_seed
from mobileintent_gym.envs.days import (
    check_config,
    check_counts,
    check_number,
    check_size,
    draw_day,
)
from mobileintent_gym.envs.predict import HISTORY_LENGTH, TEXT_LENGTH, history_text, time_text
from mobileintent_gym.envs.proposals import (
    ANSWER_LENGTH,
    Proposal,
    intent_matcher,
    parse_proposal,
)
from mobileintent_gym.envs.scoring import scoring_encoder
from mobileintent_gym.envs.spaces import HIERARCHY_LENGTH, FrameBox, UnicodeText
from mobileintent_gym.envs.stream import ScreenStream
from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.intents.generator import GeneratorConfig
from mobileintent_gym.intents.persona import persona_text
from mobileintent_gym.metrics.pira import (
    MATCH_THRESHOLD,
    IntentMatcher,
    memory_accuracy,
    memory_balanced_accuracy,
    pira_scores,
)
from mobileintent_gym.phone import SimPhone
from mobileintent_gym.users import build_user_content, resolve_profile
from mobileintent_gym.users.encoders import Encoder
from mobileintent_gym.users.sets import UserSpec, env_users, refusable_reset

CANDIDATES_LENGTH = 1 << 15
STREAM_NOISE, STREAM_INTERLEAVE = 0.8, 0.3
"""The stream's data set: about one noise stretch per intention, and an intention in three
interrupted by the next segment and resumed after it."""


MAX_WINDOW_BYTES = 2**30
"""Most bytes the frames of one observation may take (``window`` frames of ``frame_size``)."""


def check_window(window: int, frame_size: tuple[int, int]) -> None:
    """Refuse a ``window`` whose frames would take more than :data:`MAX_WINDOW_BYTES`.

    Such a window would be drawn at reset until memory ran out.

    Raises:
        MobileIntentError: Naming the window, the frame size and the most frames allowed.
    """
    width, height = frame_size
    frame = width * height * 3
    if window * frame > MAX_WINDOW_BYTES:
        raise MobileIntentError(
            f"window={window} frames of {width}x{height} take {window * frame / 2**30:.3g} "
            f"GiB an observation; at most {MAX_WINDOW_BYTES // frame} frames of that size "
            f"({MAX_WINDOW_BYTES // 2**30} GiB)")


class ProactiveEnv(gym.Env[dict[str, Any], str]):
    """Propose the user's intention from a stream of their screens, or stay quiet.

    Args:
        users: A set of built-in users (``"test"`` …), profile names or paths, or a list
            mixing them.
        history_days: Days of history before the played days (an episode's history also
            holds the played days before its own).
        play_days: Days episodes are drawn from, after the history.
        window: Frames per turn (N; all of them at most 1 GiB: :data:`MAX_WINDOW_BYTES`).
        stride: Frames the stream advances per turn.
        frame_size: (width, height) of the frames.
        hierarchy: Add ``hierarchies``, the view hierarchy of each frame.
        candidates: Add ``candidates``, the known intentions, sorted.
        history: Past intentions listed in ``history``.
        match_threshold: Least cosine similarity of a matching intent.
        seed: Seed of the generated sessions (the data set).
        encoder: Sentence encoder of the match (default all-MiniLM-L6-v2, extra ``[embed]``).
        config: How sessions are generated (default ``GeneratorConfig(noise=STREAM_NOISE,
            interleave=STREAM_INTERLEAVE)``).
        render_mode: ``"rgb_array"`` (:meth:`render` gives the newest frame at the
            phone's full size) or ``None``.

    Reset options: ``user`` and ``day`` (index among the played days).

    Attributes:
        outcomes: The outcome of each turn answered so far (``tp``, ``fp``, ``fn``,
            ``tn``), for evaluators: an agent learns them only when the day ends.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["rgb_array"], "render_fps": 1}

    def __init__(self, users: UserSpec = "test", *, history_days: int = 3,
                 play_days: int = 2, window: int = 10, stride: int = 1,
                 frame_size: tuple[int, int] = (216, 480), hierarchy: bool = False,
                 candidates: bool = False, history: int = 50,
                 match_threshold: float = MATCH_THRESHOLD, seed: int = 0,
                 encoder: Encoder | None = None, config: GeneratorConfig | None = None,
                 render_mode: str | None = None) -> None:
        self.render_mode = check_render_mode(render_mode, self.metadata["render_modes"])
        history_days, play_days, window, stride, history = check_counts(
            history_days=history_days, play_days=play_days, window=window, stride=stride,
            history=history)
        seed = check_seed(seed)
        check_flags(hierarchy=hierarchy, candidates=candidates)
        check_number("match_threshold", match_threshold, 0.0, 1.0)
        self.history_days, self.play_days, self.history = history_days, play_days, history
        self.window, self.stride = window, stride
        self.frame_size = check_size("frame_size", frame_size)
        check_window(window, self.frame_size)
        check_config(config)
        self.config = config or GeneratorConfig(noise=STREAM_NOISE,
                                                interleave=STREAM_INTERLEAVE)
        self.users = env_users(users, self.config.profiles_dir)
        self.data_seed = seed
        self.encoder, self.match_threshold = scoring_encoder(encoder), match_threshold
        self.observation_space = spaces.Dict(self._fields(hierarchy, candidates))
        self.action_space = UnicodeText(ANSWER_LENGTH)
        self._phone = SimPhone(self.config.width, self.config.height)
        self.stream: ScreenStream | None = None
        self.matcher: IntentMatcher | None = None
        self._texts: dict[str, str] = {}
        self._t = 0
        self._said: list[Proposal] = []
        self.outcomes: list[str] = []

    def _fields(self, hierarchy: bool, candidates: bool) -> dict[str, spaces.Space]:
        width, height = self.frame_size
        fields: dict[str, spaces.Space] = {
            "frames": FrameBox((self.window, height, width, 3)),
            "profile": UnicodeText(TEXT_LENGTH), "history": UnicodeText(HISTORY_LENGTH),
            "context": UnicodeText(TEXT_LENGTH)}
        if hierarchy:
            fields["hierarchies"] = spaces.Tuple(
                [UnicodeText(HIERARCHY_LENGTH, min_length=0)] * self.window)
        if candidates:
            fields["candidates"] = UnicodeText(CANDIDATES_LENGTH)
        return fields

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Draw a user and day (or take those ``options`` name) and show its first turn."""
        with refusable_reset(self, seed) as rng:  # a refused one changes no later episode
            user, history, session, day = draw_day(options, rng, self.users,
                                                   self.history_days, self.play_days,
                                                   self.data_seed, self.config)
        past = [s for earlier in history for s in earlier.done()]
        self.matcher = intent_matcher(self.encoder, [*past, *session.segments],
                                      self.match_threshold, build_user_content(
                                          resolve_profile(user, self.config.profiles_dir),
                                          self.config.pair))
        self.stream = ScreenStream(session, self._phone, self.window, self.stride,
                                   self.frame_size, self._shows("hierarchies"))
        self._texts = {"profile": persona_text(past), "history": history_text(past, self.history),
                       "candidates": "\n".join(self.matcher.known)}
        self._t, self._said, self.outcomes = 0, [], []
        return self._obs(), {"user": session.user, "day": day, "turns": self.stream.turns}

    def _obs(self) -> dict[str, Any]:
        turn = min(self._t, self.stream.turns - 1)
        frames, dumps = self.stream.frames(turn)
        newest = self.stream.last_frame(turn)
        when = self.stream.times[newest]
        obs = {"frames": frames, "profile": self._texts["profile"],
               "history": self._texts["history"],
               "context": time_text(when, self.stream.segment(turn).context)}
        if self._shows("hierarchies"):
            obs["hierarchies"] = dumps
        if self._shows("candidates"):
            obs["candidates"] = self._texts["candidates"]
        return obs

    def _shows(self, field: str) -> bool:
        return field in self.observation_space.spaces

    def truth(self) -> Proposal:
        """The current turn's gold intent (``None`` on noise) and memory operation.

        Raises:
            MobileIntentError: Before :meth:`reset`, or once the episode has ended (there
                is no current turn: the last turn's answer would be a wrong label).
        """
        if self.stream is None or self._t >= self.stream.turns:
            raise MobileIntentError("no turn is under way: call reset() before truth()")
        return Proposal(self.stream.gold(self._t), self.stream.memory(self._t))

    def step(self, action: str) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """Score the answer to the current turn; the stream moves on."""
        if self.stream is None or self._t >= self.stream.turns:
            raise MobileIntentError("call reset() before step()")
        said, gold = parse_proposal(action), self.stream.gold(self._t)
        if said.intent is None:
            outcome = "tn" if gold is None else "fn"
        else:
            outcome = "tp" if gold is not None and self.matcher(said.intent, gold) else "fp"
        self._said.append(said)
        self.outcomes.append(outcome)
        self._t += 1
        done = self._t == self.stream.turns
        info: dict[str, Any] = {"malformed": said.error}
        if done:
            golds = tuple(self.stream.gold(t) for t in range(self.stream.turns))
            info |= {"day_scores": self._episode(golds), "outcomes": tuple(self.outcomes),
                     "golds": golds}
        reward = {"tp": 1.0, "fp": -1.0}.get(outcome, 0.0)
        return self._obs(), reward, done, False, info

    def _episode(self, gold: tuple[str | None, ...]) -> dict[str, Any]:
        """The day's scores, ``gold`` the gold intent of each turn."""
        scores = asdict(pira_scores([s.intent for s in self._said], gold, self.matcher))
        said = [s.memory for s in self._said]
        ops = [self.stream.memory(t) for t in range(self.stream.turns)]
        scores |= {"memory_accuracy": memory_accuracy(said, ops),
                   "memory_balanced_accuracy": memory_balanced_accuracy(said, ops),
                   "memory_given": sum(op is not None for op in said)}
        return {**scores, "turns": len(gold),
                "malformed": sum(s.error is not None for s in self._said)}

    def render(self) -> np.ndarray | None:
        """The newest frame at the phone's size (``rgb_array``), or ``None``.

        Before the first reset that is the phone's home screen.
        """
        return self._phone.screenshot() if self.render_mode == "rgb_array" else None

    def close(self) -> None:
        """Release the replay phone."""
        self._phone.close()
