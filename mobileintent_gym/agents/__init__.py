"""Agents that act in the environments: scripted baselines, references and language models.

The language-model agent (:class:`TransformersAgent`) needs the ``[llm]`` extra, imported
when a model is loaded.
"""

from mobileintent_gym.agents.base import Agent
from mobileintent_gym.agents.hf import hf_agent
from mobileintent_gym.agents.oracle import OracleAgent
from mobileintent_gym.agents.random import RandomAgent
from mobileintent_gym.agents.transformers_agent import TransformersAgent

# Name -> factory(env, seed) of the built-in agents the command line can run; ``hf`` and
# ``hf:<model>`` are resolved apart, as they need the ``[llm]`` extra.
AGENTS = {"oracle": OracleAgent, "random": RandomAgent}

__all__ = ["AGENTS", "Agent", "OracleAgent", "RandomAgent", "TransformersAgent", "hf_agent"]
