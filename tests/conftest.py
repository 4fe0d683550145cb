import copy
import os

import pytest

from mobileintent_gym.phone import SimPhone

# pytest-xdist's workers (`make test` runs TEST_WORKERS, two by default): each gives torch
# one thread, as the workers share the cores; torch reads this when it starts its threads.
# OpenBLAS keeps its own count (a vector env test compares its workers' with this one's).
WORKER = os.environ.get("PYTEST_XDIST_WORKER")
if WORKER:
    os.environ.setdefault("MKL_NUM_THREADS", "1")


@pytest.fixture(scope="session", autouse=True)
def offline(tmp_path_factory):
    """Nothing in the suite may try the network: models load from the packaged weights.

    Built user content goes to a folder of the session, not the user's cache (one folder for
    all of pytest-xdist's workers, which the cache is built to share), and
    stable-baselines3's loggers to one of the session rather than a new folder in /tmp per
    ``learn``.
    """
    # A worker's base folder lies in the session's, which all the workers share.
    cache = (tmp_path_factory.getbasetemp().parent / "cache" if WORKER
             else tmp_path_factory.mktemp("cache"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HF_HUB_OFFLINE", "1")
        patch.setenv("MOBILEINTENT_GYM_CACHE", str(cache))
        patch.setenv("SB3_LOGDIR", str(tmp_path_factory.mktemp("sb3")))
        yield


@pytest.fixture
def phone():
    device = SimPhone()
    yield device
    device.close()


@pytest.fixture(scope="session")
def small_lm():
    """The packaged SmolLM2-135M-Instruct (the default offline model), loaded once on the CPU.

    Tests that change the model (LoRA training) take a ``copy.deepcopy`` of it.
    """
    pytest.importorskip("transformers", reason="needs the [llm] extra")
    from mobileintent_gym.agents.lm import PACKAGED, load_language_model, packaged_gguf
    from mobileintent_gym.errors import DependencyNotInstalled

    try:
        packaged_gguf()
    except DependencyNotInstalled as err:
        pytest.skip(f"{err} (the Makefile's test install adds it)")
    return load_language_model(PACKAGED, device="cpu")


@pytest.fixture(scope="session")
def tiny_lm_folder(small_lm, tmp_path_factory):
    """A model folder: SmolLM2's tokenizer and architecture at two layers of width 64.

    Its weights are random (seed 0), drawn wide (standard deviation 0.3; at SmolLM2's 0.02
    every answer was its prompt's last token repeated, and the env's prompts all end in a
    newline), so that prompts get answers of their own and a batch that mixed them up
    would show. For tests of what
    trainers and runners do with any causal LM (logs, checkpoints, resumes, the same
    episodes on Ray as in lockstep): its 3.2M parameters (the embeddings nearly all of
    them) take about a fortieth of SmolLM2-135M's arithmetic per token, whose prompts of
    a thousand tokens took two minutes of such a test on one CPU thread.
    """
    import torch

    config = copy.deepcopy(small_lm.model.config)
    config.update({"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
                   "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
                   "initializer_range": 0.3})
    with torch.random.fork_rng():
        torch.manual_seed(0)
        model = type(small_lm.model)(config)
    model.generation_config = copy.deepcopy(small_lm.model.generation_config)
    folder = tmp_path_factory.mktemp("tiny_lm")
    model.save_pretrained(folder)
    small_lm.tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="session")
def tiny_lm(tiny_lm_folder):
    """The model of :func:`tiny_lm_folder`, loaded on the CPU (deep-copy it to change it)."""
    from mobileintent_gym.agents.lm import load_language_model

    return load_language_model(str(tiny_lm_folder), device="cpu")
