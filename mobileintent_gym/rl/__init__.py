"""Reinforcement learning on subgoal rewards: RePAIR's group advantages and GRPO loss.

:func:`grpo_loss` needs the ``[rl]`` extra (torch); it is imported where used.
"""

from mobileintent_gym.rl.grpo import GrpoLoss, grpo_loss
from mobileintent_gym.rl.repair import group_advantages

__all__ = ["GrpoLoss", "group_advantages", "grpo_loss"]
