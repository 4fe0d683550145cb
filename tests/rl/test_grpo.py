"""The GRPO loss on hand-computed groups (torch, the [rl] extra)."""

import math

import pytest

from mobileintent_gym.rl import grpo_loss

torch = pytest.importorskip("torch", reason="the [rl] extra is not installed")


def tensors(*rows):
    return torch.tensor(rows, dtype=torch.float64)


MASK = tensors([1, 1, 1], [1, 0, 0])  # rollout 0 has three response tokens, rollout 1 one


def test_on_policy_without_drift_the_loss_is_minus_the_mean_advantage():
    logp = tensors([-1.0, -2.0, -0.5], [-0.3, -9.0, -9.0])
    out = grpo_loss(logp, logp.clone(), logp.clone(), torch.tensor([1.0, 0.0],
                                                                   dtype=torch.float64), MASK)
    assert out.loss.item() == pytest.approx(-0.5) and out.kl == 0 and out.clipped == 0


def test_each_rollout_counts_once_whatever_its_length():
    zeros = torch.zeros(2, 3, dtype=torch.float64)
    adv = torch.tensor([1.0, -1.0], dtype=torch.float64)
    assert grpo_loss(zeros, zeros, zeros, adv, MASK).loss.item() == pytest.approx(0.0)


def test_ratios_are_clipped_on_the_pessimistic_side():
    old = torch.zeros(2, 3, dtype=torch.float64)
    logp = tensors([0.5, 0.0, 0.0], [0.5, 0.0, 0.0])  # ratio e^0.5 = 1.6487 on token 0
    adv = torch.tensor([1.0, -1.0], dtype=torch.float64)
    out = grpo_loss(logp, old, logp.clone(), adv, MASK)
    # rollout 0: min(1.6487, 1.2) = 1.2, then 1, 1 -> mean 3.2 / 3
    # rollout 1: min(-1.6487, -1.2) = -1.6487 (a bad step is never clipped away)
    expected = -((3.2 / 3) + (-math.exp(0.5))) / 2
    assert out.loss.item() == pytest.approx(expected)
    assert out.clipped == pytest.approx(1 / 4)  # only rollout 0's token 0 took the clip


def test_the_kl_penalty_uses_the_k3_estimator_against_the_reference():
    logp = torch.zeros(2, 3, dtype=torch.float64)
    ref = torch.full((2, 3), 0.1, dtype=torch.float64)  # d = log pi_ref - log pi = 0.1
    k3 = math.exp(0.1) - 0.1 - 1
    out = grpo_loss(logp, logp.clone(), ref, torch.zeros(2, dtype=torch.float64), MASK,
                    beta=0.01)
    assert out.kl == pytest.approx(k3) and out.loss.item() == pytest.approx(0.01 * k3)
    # Rollouts of unequal length: the logged KL is the one in the loss (each rollout's
    # token mean, then the mean over rollouts), not a mean over all tokens.
    ref = torch.tensor([[0.0, 0.0, 0.0], [0.5, 0.0, 0.0]], dtype=torch.float64)
    out = grpo_loss(logp, logp.clone(), ref, torch.zeros(2, dtype=torch.float64),
                    torch.tensor([[1, 1, 1], [1, 0, 0]], dtype=torch.float64), beta=1.0)
    k3 = math.exp(0.5) - 0.5 - 1
    assert out.kl == pytest.approx(k3 / 2) and out.loss.item() == pytest.approx(k3 / 2)


def test_gradients_raise_the_probability_of_advantaged_tokens_only_on_the_response():
    logp = torch.zeros(2, 3, dtype=torch.float64, requires_grad=True)
    out = grpo_loss(logp, logp.detach().clone(), logp.detach().clone(),
                    torch.tensor([1.0, -1.0], dtype=torch.float64), MASK)
    out.loss.backward()
    grad = logp.grad
    assert (grad[0] < 0).all() and grad[1, 0] > 0  # descent raises rollout 0, lowers 1
    assert grad[1, 1:].abs().sum() == 0  # padding gets no gradient
    assert grad[0, 0].item() == pytest.approx(-1 / 2 / 3)


def test_bad_shapes_and_empty_rollouts_are_named():
    zeros = torch.zeros(2, 3)
    with pytest.raises(ValueError, match=r"\(2, 3\).*\(3,\)"):
        grpo_loss(zeros, zeros, zeros, torch.zeros(3), zeros + 1)
    with pytest.raises(ValueError, match=r"token counts \[3.0, 0.0\]"):
        grpo_loss(zeros, zeros, zeros, torch.zeros(2), torch.tensor([[1, 1, 1], [0, 0, 0]]))


@pytest.mark.parametrize("pad", [-1e9, -math.inf, math.nan])
def test_padding_sentinels_do_not_leak_into_the_loss(pad):
    logp = tensors([-1.0, -2.0, -0.5], [-0.3, pad, pad]).requires_grad_()
    old = tensors([-1.1, -2.0, -0.5], [-0.2, pad, pad])
    ref = tensors([-1.0, -1.9, -0.4], [-0.3, 0.0, 0.0])
    adv = torch.tensor([1.0, -1.0], dtype=torch.float64)
    clean = grpo_loss(logp.detach().nan_to_num(0.0), old.nan_to_num(0.0), ref, adv, MASK)
    out = grpo_loss(logp, old, ref, adv, MASK)
    assert out.loss.item() == pytest.approx(clean.loss.item())
    assert math.isfinite(out.kl) and out.kl == pytest.approx(clean.kl)
    out.loss.backward()
    assert torch.isfinite(logp.grad).all()


def test_the_advantages_group_advantages_returns_are_taken_as_they_are():
    # An ndarray (what group_advantages returns) raised AttributeError: no .detach().
    from mobileintent_gym.rl import group_advantages

    advantages = group_advantages([[1.0], [0.0]], ["UC"])  # about (1, -1)
    logp = tensors([-1.0, -2.0, -0.5], [-0.3, -9.0, -9.0])
    # Off policy (ratios e^0.1 and e^-0.1, inside the clip), so the advantages weigh the
    # rollouts unequally: on policy the loss is -mean(A) = 0, whatever A says.
    old_logp = logp - tensors([0.1, 0.1, 0.1], [-0.1, 0.0, 0.0])
    out = grpo_loss(logp, old_logp, logp.clone(), advantages, MASK)
    expected = -(math.exp(0.1) * advantages[0] + math.exp(-0.1) * advantages[1]) / 2
    assert out.loss.item() == pytest.approx(expected) and expected < -0.05
    as_tensor = grpo_loss(logp, old_logp, logp.clone(), torch.from_numpy(advantages), MASK)
    assert out.loss.item() == as_tensor.loss.item()
