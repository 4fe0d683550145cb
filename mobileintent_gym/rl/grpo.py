"""RePAIR's policy update: the GRPO loss with a KL penalty to the SFT reference.

For rollout i with advantage A_i (from :func:`~mobileintent_gym.rl.repair.group_advantages`)
and its response tokens t, with ρ_it = π_θ / π_old and d_it = log π_ref − log π_θ:

    L = −(1/G) Σ_i (1/|o_i|) Σ_t [ min(ρ_it A_i, clip(ρ_it, 1−ε, 1+ε) A_i) − β (e^d_it − d_it − 1) ]

Each rollout counts equally, averaged over its own tokens (a long response does not
outweigh a short one); ε = 0.2 and β = 0.01 as in the study. Needs the ``[rl]`` extra.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mobileintent_gym.errors import require

CLIP_EPSILON = 0.2
KL_BETA = 0.01


@dataclass(frozen=True, slots=True)
class GrpoLoss:
    """The loss and what to log about it.

    Attributes:
        loss: The scalar to minimise (a tensor carrying gradients).
        kl: Mean per-token KL estimate to the reference (over rollouts, as the loss).
        clipped: Share of response tokens where the clipped term was the one taken.
    """

    loss: Any
    kl: float
    clipped: float


def grpo_loss(logp: Any, logp_old: Any, logp_ref: Any, advantages: Any, mask: Any,
              epsilon: float = CLIP_EPSILON, beta: float = KL_BETA) -> GrpoLoss:
    """The GRPO loss of a group of G rollouts padded to T tokens.

    Args:
        logp: G × T log-probabilities of the sampled tokens under the policy being trained.
        logp_old: The same under the policy that sampled them (no gradient).
        logp_ref: The same under the SFT reference (no gradient).
        advantages: The G rollout advantages (a tensor, or the array that
            :func:`~mobileintent_gym.rl.repair.group_advantages` returns).
        mask: G × T, 1 for response tokens and 0 for padding and prompt.
        epsilon: Clipping range of the ratio.
        beta: Weight of the KL penalty.

    Raises:
        ValueError: When the shapes disagree or a rollout has no response token.
    """
    torch = require("torch", "llm")
    advantages = torch.as_tensor(advantages, device=logp.device)
    if not (logp.shape == logp_old.shape == logp_ref.shape == mask.shape) or (
            advantages.shape != logp.shape[:1]):
        raise ValueError(f"need G x T log-probabilities and mask and G advantages, got "
                         f"{tuple(logp.shape)}, {tuple(logp_old.shape)}, "
                         f"{tuple(logp_ref.shape)}, {tuple(mask.shape)} and "
                         f"{tuple(advantages.shape)}")
    response = mask.bool()
    mask = response.to(logp.dtype)
    tokens = mask.sum(dim=1)
    if bool((tokens == 0).any()):
        raise ValueError(f"every rollout needs a response token; token counts {tokens.tolist()}")
    # Padding may hold any sentinel (-inf, -1e9): zero the log-ratios there before exp.
    zero = torch.zeros_like(logp)
    ratio = torch.exp(torch.where(response, logp - logp_old.detach(), zero))
    adv = advantages.detach().to(logp.dtype)[:, None]
    clipped = ratio.clamp(1 - epsilon, 1 + epsilon)
    surrogate = torch.minimum(ratio * adv, clipped * adv)
    d = torch.where(response, logp_ref.detach() - logp, zero)
    kl = torch.exp(d) - d - 1
    per_rollout = ((surrogate - beta * kl) * mask).sum(dim=1) / tokens
    with torch.no_grad():  # tokens whose clipped term was the one taken by min
        active = (clipped * adv < ratio * adv) & response
        kl_mean = float(((kl * mask).sum(dim=1) / tokens).mean())
        clipped_share = float(active.sum() / mask.sum())
    return GrpoLoss(-per_rollout.mean(), kl_mean, clipped_share)
