"""Reinforcement learning on subgoal rewards: RePAIR's cross-user group advantages."""

from mobileintent_gym.rl.repair import group_advantages

__all__ = ["group_advantages"]
