"""What the language agent asks in each env, and what it sends for the model's answer.

The agent's mode follows the env's observation fields (:func:`mode_of`), so one agent class
serves every env:

* ``understand`` (a ``steps`` field: ``Act2Intent-Understand``): the numbered actions go
  in (:func:`~.intent_prompts.understand_prompt`); a segmentation found in the answer is
  sent as JSON;
* ``predict`` (``persona`` and ``time``: ``Act2Intent-Predict``): history, persona and
  time go in (:func:`~.intent_prompts.predict_prompt`); ``{"Event", "Behaviour"}`` found in
  the answer is sent as JSON;
* ``propose`` (``frames``: ``Act2Intent-Proactive``): persona, history, time, the newest
  screen's dump (``hierarchy=True``) and the known intentions (``candidates=True``) go in
  (:func:`~.intent_prompts.propose_prompt`); "no action" or ``{"Intent": ...}`` is sent;
* ``assist`` (``mode``: ``Act2Intent-Assist``): ``propose`` while the env watches the
  user (with the app in front and the screen), ``execute`` while it executes;
* ``execute`` (anything else: ``Act2Intent-Execute``, ``Act2Intent-Session``): one
  Act2Intention action per step (:mod:`.prompts`).

An answer in which nothing could be read is sent as it is to the text envs, whose own
parsers then flag it in ``info["malformed"]`` and score it as wrong; in ``execute`` it is
sent as :func:`no_action`, which the env flags in ``info["invalid_action"]``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import gymnasium as gym

from mobileintent_gym.agents.intent_prompts import (
    history_intentions,
    parse_next_intention,
    parse_segmentation,
    predict_prompt,
    propose_prompt,
    understand_prompt,
)
from mobileintent_gym.agents.understand import answer as understand_answer
from mobileintent_gym.agents.understand import numbered_steps
from mobileintent_gym.envs.proposals import answer, parse_proposal
from mobileintent_gym.metrics.prediction import casefolded, first_json_object

EXECUTE, UNDERSTAND, PREDICT, PROPOSE, ASSIST = (
    "execute", "understand", "predict", "propose", "assist")
MODES = (EXECUTE, UNDERSTAND, PREDICT, PROPOSE, ASSIST)
ANSWER_TOKENS = MappingProxyType({EXECUTE: 32, UNDERSTAND: 768, PREDICT: 128, PROPOSE: 128})
"""Longest answer in tokens a question of each mode allows by default: room for its
answer format's longest right answer (SmolLM2's tokens, measured: the oracle's actions in 12
demo-ana episodes 5-12, a predicted intention with its confidence up to 56 over up to 30
steps of three users, the segmentations of every built-in user, two episodes each, 197-454)."""

Messages = list[dict[str, str]]


def no_action(answer_text: str) -> str:
    """What the agent sends in ``execute`` for an answer without an action (the env flags it)."""
    return f"no action in the model's answer {answer_text[:200]!r}"


def mode_of(env: gym.Env | None) -> str:
    """The agent's mode for ``env``, from its observation fields (see the module notes).

    ``None`` (no env) is ``execute``.
    """
    fields = set(getattr(getattr(env, "observation_space", None), "spaces", None) or ())
    if "steps" in fields:
        return UNDERSTAND
    if "mode" in fields:
        return ASSIST
    if "frames" in fields:
        return PROPOSE
    if {"persona", "time"} <= fields:
        return PREDICT
    return EXECUTE


def _as_is(text: str) -> str:
    return text


@dataclass(frozen=True, slots=True)
class Question:
    """One prompt and how its answer is read.

    Attributes:
        messages: The chat messages.
        read: The model's text -> what to send to the env, or ``None`` when nothing could
            be read in it.
        tokens: The longest answer it allows by default (:data:`ANSWER_TOKENS`).
        unread: The text -> what to send instead when ``read`` gave ``None``.
        turns: Where the prompt and answer are kept for training (an Execute episode's
            turns), or ``None`` when they are not kept.
    """

    messages: Messages
    read: Callable[[str], Any]
    tokens: int
    unread: Callable[[str], Any] = field(default=_as_is)
    turns: list[Any] | None = None


def _segmentation(text: str) -> str | None:
    segments = parse_segmentation(text)
    return None if segments is None else understand_answer(segments)


def _prediction(text: str) -> str | None:
    guess = parse_next_intention(text)
    if guess is None:
        return None
    said = {"Event": guess.event, "Behaviour": guess.behaviour}
    confidence = casefolded(first_json_object(text) or {}).get("confidence")
    if confidence is not None:  # the model's own, which the env's fallback pushes by
        said["Confidence"] = confidence
    return json.dumps(said, ensure_ascii=False)


def _proposal(text: str) -> str | None:
    said = parse_proposal(text)
    return None if said.error else answer(said.intent, said.memory)


def understand_question(observation: Mapping[str, Any]) -> Question:
    """The question of an Understand observation: segment its numbered steps."""
    return Question(understand_prompt(numbered_steps(dict(observation))), _segmentation,
                    ANSWER_TOKENS[UNDERSTAND])


def predict_question(observation: Mapping[str, Any]) -> Question:
    """The question of a Predict observation: the user's next intention."""
    return Question(predict_prompt(history_intentions(observation["history"]),
                                   observation["persona"], observation["time"]), _prediction,
                    ANSWER_TOKENS[PREDICT])


def propose_question(observation: Mapping[str, Any], screen: str | None) -> Question:
    """The question of a Proactive observation, or of an Assist one while it watches.

    Args:
        observation: Its ``profile``, ``history`` and ``context`` are read, and ``app``
            and ``candidates`` when present.
        screen: The user's screen as text, if known.
    """
    candidates = observation.get("candidates", "")
    return Question(propose_prompt(history_intentions(observation["history"]),
                                   observation["profile"], observation["context"], screen,
                                   observation.get("app"), candidates.splitlines()),
                    _proposal, ANSWER_TOKENS[PROPOSE])
