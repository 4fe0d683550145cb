"""Agents that act in the environments: scripted baselines and references."""

from mobileintent_gym.agents.base import Agent
from mobileintent_gym.agents.oracle import OracleAgent
from mobileintent_gym.agents.random import RandomAgent

# Name -> factory(env, seed) of the agents the command line can run.
AGENTS = {"oracle": lambda env, seed: OracleAgent(env), "random": RandomAgent}

__all__ = ["AGENTS", "Agent", "OracleAgent", "RandomAgent"]
