"""``ElementPolicy``: an SB3 actor-critic that scores every element slot with one network.

For envs wrapped in :class:`~mobileintent_gym.wrappers.ElementActions` and
:class:`~mobileintent_gym.wrappers.ElementFeatures`. A plain MLP must learn "click the
element the instruction names" once per slot, from the episodes where the target happened
to sit in that slot. Here one small network scores each slot from its own features and the
screen's (route, instruction words), so what it learns at one position holds at every
other: the policy is the same under any reordering of the elements, as a screen's content
is across users. The fixed actions (BACK, SWIPE, TYPE, ENTER, COMPLETE) and the value are
computed from the screen's features and the slots pooled by max. Empty slots are never
chosen. Needs the ``[rl]`` extra (torch, stable-baselines3).
"""

from __future__ import annotations

from typing import Any

from mobileintent_gym.errors import require
from mobileintent_gym.wrappers.element_actions import FIXED
from mobileintent_gym.wrappers.element_features import (
    KIND_BUCKETS,
    ROUTE_BUCKETS,
    SLOT_FLAGS,
    WORD_BUCKETS,
)

torch = require("torch", "rl")
nn = torch.nn
ActorCriticPolicy = require("stable_baselines3.common.policies", "rl").ActorCriticPolicy

SLOT_WIDTH = len(SLOT_FLAGS) + KIND_BUCKETS
SCREEN_WIDTH = ROUTE_BUCKETS + WORD_BUCKETS
EMPTY_LOGIT = -1e8  # an empty slot's logit: probability zero


def _mlp(inputs: int, hidden: int, outputs: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(inputs, hidden), nn.Tanh(), nn.Linear(hidden, hidden),
                         nn.Tanh(), nn.Linear(hidden, outputs))


class SlotScorer(nn.Module):
    """The policy's latent: per-slot logits then fixed-action logits; the value's latent.

    Args:
        slots: Element slots in the observation.
        hidden: Width of the hidden layers.
    """

    def __init__(self, slots: int, hidden: int = 64) -> None:
        super().__init__()
        self.slots = slots
        self.slot_net = _mlp(SLOT_WIDTH + SCREEN_WIDTH, hidden, 1)
        self.fixed_net = _mlp(SLOT_WIDTH + SCREEN_WIDTH, hidden, len(FIXED))
        self.value_net = _mlp(SLOT_WIDTH + SCREEN_WIDTH, hidden, hidden)
        self.latent_dim_pi = slots + len(FIXED)
        self.latent_dim_vf = hidden

    def _split(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Slots (B×S×W), the screen (B×G) and the screen with the slots' max (B×(W+G))."""
        slots = features[:, :self.slots * SLOT_WIDTH].reshape(-1, self.slots, SLOT_WIDTH)
        screen = features[:, self.slots * SLOT_WIDTH:]
        return slots, screen, torch.cat([slots.max(dim=1).values, screen], dim=1)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        """Logits: one per slot (empty slots excluded), then one per fixed action."""
        slots, screen, pooled = self._split(features)
        each = torch.cat([slots, screen[:, None].expand(-1, self.slots, -1)], dim=2)
        scores = self.slot_net(each)[..., 0]
        scores = torch.where(slots[..., 0] > 0, scores, torch.full_like(scores, EMPTY_LOGIT))
        return torch.cat([scores, self.fixed_net(pooled)], dim=1)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        """The value's latent, from the screen and the pooled slots."""
        return self.value_net(self._split(features)[2])

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Both latents."""
        return self.forward_actor(features), self.forward_critic(features)


class ElementPolicy(ActorCriticPolicy):
    """PPO/A2C policy over ``ElementFeatures`` observations and ``ElementActions``.

    Use as ``PPO(ElementPolicy, env)``; ``policy_kwargs={"hidden": 64}`` sets the width.
    The number of slots is read from the observation space.
    """

    def __init__(self, *args: Any, hidden: int = 64, **kwargs: Any) -> None:
        self.hidden = hidden
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        slots = (self.features_dim - SCREEN_WIDTH) // SLOT_WIDTH
        if slots * SLOT_WIDTH + SCREEN_WIDTH != self.features_dim or \
                self.action_space.n != slots + len(FIXED):
            raise ValueError(f"ElementPolicy needs ElementFeatures observations and "
                             f"ElementActions with as many slots; got {self.features_dim} "
                             f"features and {self.action_space.n} actions")
        self.mlp_extractor = SlotScorer(slots, self.hidden)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        """What :meth:`save` records to rebuild the policy, the width included."""
        return {**super()._get_constructor_parameters(), "hidden": self.hidden}

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        # The latent already is the logits; a linear layer would mix the slots again.
        self.action_net = nn.Identity()
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1),
                                              **self.optimizer_kwargs)
