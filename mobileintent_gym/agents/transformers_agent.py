"""``TransformersAgent``: a Hugging Face causal LM acting in any env of the gym through text.

The agent's mode follows the env it is given (:func:`~.lm_modes.mode_of`: its observation
fields; ``mode=`` overrides): it executes intentions on the phone (Execute, Session, and
Assist while executing), segments actions into intentions (Understand), predicts the next
intention (Predict) or proposes one (Proactive, Assist while watching). To execute, each step
it reads the screen from the hierarchy dump (:mod:`.prompts`), asks the model for one action
given the intention, its own action history and optional guidance, and parses the answer
into the Act2Intention action format. An answer in which nothing could be read is never
raised: the agent counts it in :attr:`TransformersAgent.stats` and sends something the env
flags (``info["invalid_action"]`` when executing, ``info["malformed"]`` in the text envs)
and scores as wrong. A batch of observations is answered by one batched generation, so a
vector env's sub-envs step together (:meth:`TransformersAgent.act_vector`).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import gymnasium as gym

from mobileintent_gym.actions import Action, action_to_dict, batch_actions
from mobileintent_gym.agents.lm import (
    MIN_TEMPERATURE,
    Generation,
    LanguageModel,
    generate,
    is_temperature,
    load_language_model,
)
from mobileintent_gym.agents.lm_modes import (
    ANSWER_TOKENS,
    ASSIST,
    EXECUTE,
    MODES,
    PREDICT,
    PROPOSE,
    UNDERSTAND,
    Question,
    mode_of,
    no_action,
    predict_question,
    propose_question,
    understand_question,
)
from mobileintent_gym.agents.prompts import (
    MAX_ELEMENTS,
    describe_action,
    parse_answer,
    prompt_elements,
    screen_text,
    step_prompt,
)
from mobileintent_gym.checks import is_count
from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.phone.elements import read_screen

Guidance = Callable[[Mapping[str, Any]], Sequence[str] | None]

__all__ = ["Guidance", "TransformersAgent", "Turn", "check_agent_settings", "no_action"]


@dataclass(frozen=True, slots=True)
class Turn:
    """One step of the agent, as a trainer needs it.

    Attributes:
        generation: The prompt and answer tokens.
        read: Whether anything could be read in the answer.
    """

    generation: Generation
    read: bool


def check_agent_settings(mode: Any = None, seed: Any = 0, max_new_tokens: Any = None,
                         temperature: Any = 0.0, max_elements: Any = MAX_ELEMENTS,
                         **others: Any) -> None:
    """Refuse :class:`TransformersAgent` settings that cannot work, naming them.

    Its other keyword arguments (``others``) are not checked.

    Raises:
        MobileIntentError: For a ``mode`` that is not one of the modes, a seed that is no
            integer >= 0, a count that is no integer >= 1 (``max_new_tokens`` may be
            ``None``), or a temperature that is neither 0 nor a finite number of at least
            :data:`~mobileintent_gym.agents.lm.MIN_TEMPERATURE`.
    """
    if mode is not None and mode not in MODES:
        raise MobileIntentError(f"mode must be one of {list(MODES)}, got {mode!r}")
    bad = {name: value for name, value in (("max_new_tokens", max_new_tokens),
                                           ("max_elements", max_elements))
           if not is_count(value)}
    if max_new_tokens is None:  # each question's own
        del bad["max_new_tokens"]
    if not is_count(seed, least=0):
        bad["seed"] = seed
    if not is_temperature(temperature):
        bad["temperature"] = temperature
    if bad:
        raise MobileIntentError(f"agent settings out of range: {bad} (seed: an integer >= 0; "
                                "max_new_tokens, max_elements: integers >= 1; temperature: "
                                f"0 for greedy decoding, or a finite number >= {MIN_TEMPERATURE})")


class TransformersAgent:
    """Acts with a causal language model in the mode of its env.

    Args:
        env: The environment: it sets the mode, and the agent reads its device and task
            when executing from observations without ``hierarchy`` or ``instruction``.
        lm: A loaded model; default :func:`~.lm.load_language_model` of ``model``.
        model: Hub id, folder or ``.gguf`` file to load when ``lm`` is not given.
        mode: One of :data:`~.lm_modes.MODES`; default :func:`~.lm_modes.mode_of` ``env``.
        seed: Seed of the sampling (each call draws from its own derived seed).
        max_new_tokens: Longest answer in tokens; ``None`` for each question's mode's
            own (:data:`~.lm_modes.ANSWER_TOKENS`: 32 for an action, 768 for a
            segmentation).
        temperature: 0 decodes greedily; above 0 samples.
        guidance: Gives, from a step's ``info``, the actions of a similar past intention;
            without it, the observation's ``guidance`` lines are given where it has them
            (``Act2Intent-Session-v0`` made with ``guidance=True``).
        max_elements: Screen elements listed in the prompt (shorter prompts run faster).

    Attributes:
        mode: The mode it acts in.
        stats: ``answers`` generated and ``unparsed`` ones (nothing could be read).
        last: The generations of the latest call (prompt and response token ids).

    An episode's turns (:meth:`episode_turns`) go into its record
    (:class:`~mobileintent_gym.rollouts.EpisodeRecord`), which is what the RePAIR trainer
    learns from, rollouts run here or on Ray actors.

    Raises:
        MobileIntentError: For a ``mode`` that is not one of the modes, or a setting out
            of range (before any model loads).
    """

    def __init__(self, env: gym.Env | None = None, lm: LanguageModel | None = None, *,
                 model: str | None = None, mode: str | None = None, seed: int = 0,
                 max_new_tokens: int | None = None, temperature: float = 0.0,
                 guidance: Guidance | None = None, max_elements: int = MAX_ELEMENTS) -> None:
        check_agent_settings(mode, seed, max_new_tokens, temperature, max_elements)
        self.env = None if env is None else env.unwrapped
        self.mode = mode or mode_of(env)
        self.lm = lm if lm is not None else load_language_model(model)
        self.seed, self.max_new_tokens, self.temperature = seed, max_new_tokens, temperature
        self.guidance, self.max_elements = guidance, max_elements
        self.stats = {"answers": 0, "unparsed": 0}
        self.last: list[Generation] = []
        self._histories: dict[int, list[str]] = {}
        self._turns: dict[int, list[Turn]] = {}
        self._calls = 0

    def act(self, observation: Mapping[str, Any], info: Mapping[str, Any]) -> Action | str:
        """The next action or answer for one env (see :meth:`act_batch`)."""
        return self.act_batch([observation], [info])[0]

    def act_batch(self, observations: Sequence[Mapping[str, Any]],
                  infos: Sequence[Mapping[str, Any]], slots: Sequence[int] | None = None
                  ) -> list[Action | str]:
        """The next action or answer of each of several envs, from one batched generation.

        Args:
            observations: One observation per env.
            infos: The info of each env's latest step or reset.
            slots: Which action history each entry continues (default 0, 1, …); a slot's
                history is cleared when its ``info["steps"]`` is 0 (the info of a reset).

        Returns:
            Executing: an :class:`Action` per entry, or the :func:`no_action` string for an
            answer that holds none. Otherwise the answer's text for the env: what was read
            in the model's answer, written as the env expects it, or the model's answer as
            it is when nothing could be read.

        Raises:
            ValueError: For no observations, or counts of infos or slots that differ.
        """
        slots = list(range(len(observations)) if slots is None else slots)
        if not observations or not len(observations) == len(infos) == len(slots):
            raise ValueError(f"act_batch takes one observation, info and slot per env, got "
                             f"{len(observations)} observations, {len(infos)} infos and "
                             f"{len(slots)} slots")
        questions = [self._question(slot, obs, info)
                     for slot, obs, info in zip(slots, observations, infos, strict=True)]
        tokens = self.max_new_tokens or max(q.tokens for q in questions)
        self.last = generate(self.lm, [q.messages for q in questions], tokens,
                             self.temperature, zlib.crc32(f"{self.seed}:{self._calls}".encode()))
        self._calls += 1
        return [self._answer(q, g) for q, g in zip(questions, self.last, strict=True)]

    def episode_turns(self, slot: int = 0) -> tuple[Turn, ...]:
        """The turns of ``slot`` since its episode began.

        Executing, an episode begins where ``info["steps"]`` is 0; the other modes keep no
        turns (nothing trains on them, and an agent answering for hours would hold them all).
        """
        return tuple(self._turns.get(slot, ()))

    def _question(self, slot: int, observation: Mapping[str, Any],
                  info: Mapping[str, Any]) -> Question:
        mode = self._mode(observation)
        if mode == UNDERSTAND:
            return understand_question(observation)
        if mode == PREDICT:
            return predict_question(observation)
        if mode == PROPOSE:
            return propose_question(observation, self._screen(observation))
        return self._execute_question(slot, observation, info)

    def _mode(self, observation: Mapping[str, Any]) -> str:
        if self.mode != ASSIST:
            return self.mode
        from mobileintent_gym.envs.assist import WATCH

        return PROPOSE if int(observation["mode"]) == WATCH else EXECUTE

    def _screen(self, observation: Mapping[str, Any]) -> str | None:
        """The screen a proposal is asked on, as text: the newest dump shown, if any."""
        if "hierarchies" in observation:
            dumps = [d for d in observation["hierarchies"] if d]
            xml = dumps[-1] if dumps else None
        else:
            xml = self._field(observation, "hierarchy") if self.mode == ASSIST else None
        return None if xml is None else screen_text(*read_screen(xml), self.max_elements)

    def teacher_force(self, observation: Mapping[str, Any], info: Mapping[str, Any],
                      action: Action, slot: int = 0) -> None:
        """Record ``action``, taken for the agent from ``observation``, in ``slot``'s history.

        Teacher-forced scoring replays the reference's steps so: the agent is then asked
        with the history it would have had (as its demonstrations show it), not an empty one.
        """
        elements = prompt_elements(self._field(observation, "hierarchy"), self.max_elements)
        self._history(slot, info).append(describe_action(action, elements))

    def _history(self, slot: int, info: Mapping[str, Any]) -> list[str]:
        """``slot``'s action history; cleared (with its turns) at an episode's first step."""
        if info.get("steps", 0) == 0:
            self._histories[slot], self._turns[slot] = [], []
        return self._histories.setdefault(slot, [])

    def _execute_question(self, slot: int, observation: Mapping[str, Any],
                          info: Mapping[str, Any]) -> Question:
        history = self._history(slot, info)
        turns = self._turns.setdefault(slot, [])
        guidance = (self.guidance(info) if self.guidance
                    else str(observation.get("guidance", "")).splitlines() or None)
        messages, elements = step_prompt(
            self._field(observation, "instruction"), self._field(observation, "hierarchy"),
            history, guidance, self.max_elements)

        def read(text: str) -> Action | None:
            action = parse_answer(text, elements)
            history.append(describe_action(action, elements))
            return action

        return Question(messages, read, ANSWER_TOKENS[EXECUTE], no_action, turns)

    def _answer(self, question: Question, generation: Generation) -> Action | str:
        said = question.read(generation.text)
        if question.turns is not None:
            question.turns.append(Turn(generation, said is not None))
        self.stats["answers"] += 1
        self.stats["unparsed"] += said is None
        return said if said is not None else question.unread(generation.text)

    def act_vector(self, observations: Mapping[str, Sequence[Any]], infos: Mapping[str, Any],
                   space: gym.spaces.Dict) -> dict[str, Any]:
        """The next actions of an Execute vector env's sub-envs, batched for its ``step``.

        Args:
            observations: The vector env's observation: a dict of per-env sequences.
            infos: The vector env's info: each sub-env's part (:func:`sub_env_info`) is
                what ``guidance`` is given, and its ``steps`` marks resets.
            space: The vector env's ``single_action_space``.

        Returns:
            The actions batched in the layout of ``space``. An answer without an action
            becomes a TYPE of empty text, which the env flags in ``invalid_action`` and
            ignores (a batch has no place for a string).

        Raises:
            MobileIntentError: When the agent's mode is not ``execute``.
        """
        if self.mode != EXECUTE:
            raise MobileIntentError(f"act_vector batches Act2Intention actions; this agent's "
                                    f"mode is {self.mode!r} (use act_batch)")
        count = len(next(iter(observations.values())))
        actions = self.act_batch([{k: v[i] for k, v in observations.items()}
                                  for i in range(count)],
                                 [sub_env_info(infos, i) for i in range(count)])
        return batch_actions([a if isinstance(a, Action) else
                              {**action_to_dict(Action.type_text(" ")), "text": ""}
                              for a in actions], space)

    def _field(self, observation: Mapping[str, Any], name: str) -> str:
        if name in observation:
            return str(observation[name])
        if self.env is None:
            raise MobileIntentError(f"the observation has no {name!r} field; observe it "
                                    "(observation=(..., 'hierarchy', 'instruction')) or "
                                    "give the agent the env")
        return self.env.device.hierarchy() if name == "hierarchy" else self.env.task.instruction


def sub_env_info(infos: Mapping[str, Any], index: int) -> dict[str, Any]:
    """Sub-env ``index``'s info out of a Gymnasium vector env's batched ``infos``.

    A key whose ``_key`` mask leaves the sub-env out is left out; nested dicts are split
    the same way.
    """
    mine: dict[str, Any] = {}
    for key, value in infos.items():
        mask = infos.get(f"_{key}")
        if key.startswith("_") or (mask is not None and not mask[index]):
            continue
        mine[key] = sub_env_info(value, index) if isinstance(value, Mapping) else value[index]
    return mine
