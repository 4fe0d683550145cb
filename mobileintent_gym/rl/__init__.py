"""Reinforcement learning on subgoal rewards: RePAIR's advantages, GRPO loss and trainer.

:func:`grpo_loss` needs torch (the ``[rl]`` or ``[llm]`` extra); the trainers
(:mod:`.trainer`, :mod:`.sft`) need the ``[llm]`` extra. Both are imported where used.
"""

from mobileintent_gym.rl.grpo import GrpoLoss, grpo_loss
from mobileintent_gym.rl.repair import group_advantages

__all__ = ["GrpoLoss", "group_advantages", "grpo_loss"]
