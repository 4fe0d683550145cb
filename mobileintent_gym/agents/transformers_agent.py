"""``TransformersAgent``: a Hugging Face causal LM acting on the phone through text.

Each step the agent reads the screen from the hierarchy dump (:mod:`.prompts`), asks the
model for one action given the intention, its own action history and optional guidance,
and parses the answer into the Act2Intention action format. An answer holding no action is
never raised: the agent counts it in :attr:`TransformersAgent.stats` and sends a string that
is no action, which the env flags in ``info["invalid_action"]`` (quoting the answer) while
changing nothing. A batch of observations is answered by one batched generation, so a
vector env's sub-envs step together (:meth:`TransformersAgent.act_vector`).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import gymnasium as gym
from gymnasium.vector.utils import concatenate, create_empty_array

from mobileintent_gym.actions import Action, action_to_dict
from mobileintent_gym.agents.lm import Generation, LanguageModel, generate, load_language_model
from mobileintent_gym.agents.prompts import MAX_ELEMENTS, describe_action, parse_answer, step_prompt
from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.phone.elements import ScreenElement

Guidance = Callable[[Mapping[str, Any]], Sequence[str] | None]


def no_action(answer: str) -> str:
    """What the agent sends for an answer without an action: a string the env flags."""
    return f"no action in the model's answer {answer[:200]!r}"


class TransformersAgent:
    """Acts with a causal language model.

    Args:
        env: The environment, needed only when observations lack ``hierarchy`` or
            ``instruction`` (the agent then reads the env's device and task).
        lm: A loaded model; default :func:`~.lm.load_language_model` of ``model``.
        model: Hub id, folder or ``.gguf`` file to load when ``lm`` is not given.
        seed: Seed of the sampling (each call draws from its own derived seed).
        max_new_tokens: Longest answer in tokens.
        temperature: 0 decodes greedily; above 0 samples.
        guidance: Gives, from a step's ``info``, the actions of a similar past intention.
        max_elements: Screen elements listed in the prompt (shorter prompts run faster).

    Attributes:
        stats: ``answers`` generated and ``unparsed`` ones (no action found).
        last: The generations of the latest call (prompt and response token ids).
    """

    def __init__(self, env: gym.Env | None = None, lm: LanguageModel | None = None, *,
                 model: str | None = None, seed: int = 0, max_new_tokens: int = 32,
                 temperature: float = 0.0, guidance: Guidance | None = None,
                 max_elements: int = MAX_ELEMENTS) -> None:
        self.env = None if env is None else env.unwrapped
        self.lm = lm if lm is not None else load_language_model(model)
        self.seed, self.max_new_tokens, self.temperature = seed, max_new_tokens, temperature
        self.guidance, self.max_elements = guidance, max_elements
        self.stats = {"answers": 0, "unparsed": 0}
        self.last: list[Generation] = []
        self._histories: dict[int, list[str]] = {}
        self._calls = 0

    def act(self, observation: Mapping[str, Any], info: Mapping[str, Any]) -> Action | str:
        """The next action for one env (see :meth:`act_batch`)."""
        return self.act_batch([observation], [info])[0]

    def act_batch(self, observations: Sequence[Mapping[str, Any]],
                  infos: Sequence[Mapping[str, Any]], slots: Sequence[int] | None = None
                  ) -> list[Action | str]:
        """The next action of each of several envs, from one batched generation.

        Args:
            observations: One observation per env.
            infos: The info of each env's latest step or reset.
            slots: Which action history each entry continues (default 0, 1, …); a slot's
                history is cleared when its ``info["steps"]`` is 0 (the info of a reset).

        Returns:
            An :class:`Action` per entry, or the :func:`no_action` string for an answer
            that holds none.
        """
        slots = list(range(len(observations)) if slots is None else slots)
        prompts, screens = [], []
        for slot, obs, info in zip(slots, observations, infos, strict=True):
            if info.get("steps", 0) == 0:
                self._histories[slot] = []
            messages, elements = step_prompt(
                self._field(obs, "instruction"), self._field(obs, "hierarchy"),
                self._histories.setdefault(slot, []),
                self.guidance(info) if self.guidance else None, self.max_elements)
            prompts.append(messages)
            screens.append(elements)
        self.last = generate(self.lm, prompts, self.max_new_tokens, self.temperature,
                             zlib.crc32(f"{self.seed}:{self._calls}".encode()))
        self._calls += 1
        return [self._answer(slot, generation, elements)
                for slot, generation, elements in zip(slots, self.last, screens, strict=True)]

    def _answer(self, slot: int, generation: Generation,
                elements: Sequence[ScreenElement]) -> Action | str:
        action = parse_answer(generation.text, elements)
        self._histories[slot].append(describe_action(action, elements))
        self.stats["answers"] += 1
        self.stats["unparsed"] += action is None
        return action if action is not None else no_action(generation.text)

    def act_vector(self, observations: Mapping[str, Sequence[Any]], infos: Mapping[str, Any],
                   space: gym.spaces.Dict) -> dict[str, Any]:
        """The next actions of a Gymnasium vector env's sub-envs, batched for its ``step``.

        Args:
            observations: The vector env's observation: a dict of per-env sequences.
            infos: The vector env's info (per-env ``steps`` marks resets).
            space: The vector env's ``single_action_space``.

        Returns:
            The actions batched in the layout of ``space``. An answer without an action
            becomes a TYPE of empty text, which the env flags in ``invalid_action`` and
            ignores (a batch has no place for a string).
        """
        count = len(next(iter(observations.values())))
        steps = infos.get("steps", [0] * count)
        actions = self.act_batch([{k: v[i] for k, v in observations.items()}
                                  for i in range(count)],
                                 [{"steps": int(steps[i])} for i in range(count)])
        samples = [action_to_dict(a) if isinstance(a, Action) else
                   {**action_to_dict(Action.type_text(" ")), "text": ""} for a in actions]
        return concatenate(space, samples, create_empty_array(space, count))

    def _field(self, observation: Mapping[str, Any], name: str) -> str:
        if name in observation:
            return str(observation[name])
        if self.env is None:
            raise MobileIntentError(f"the observation has no {name!r} field; observe it "
                                    "(observation=(..., 'hierarchy', 'instruction')) or "
                                    "give the agent the env")
        return self.env.device.hierarchy() if name == "hierarchy" else self.env.task.instruction
