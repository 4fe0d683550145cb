import pytest

from mobileintent_gym.phone import SimPhone


@pytest.fixture(scope="session", autouse=True)
def offline(tmp_path_factory):
    """Nothing in the suite may try the network: models load from the packaged weights.

    Built user content goes to a folder of the session, not the user's cache, and
    stable-baselines3's loggers to one of the session rather than a new folder in /tmp per
    ``learn``.
    """
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HF_HUB_OFFLINE", "1")
        patch.setenv("MOBILEINTENT_GYM_CACHE", str(tmp_path_factory.mktemp("cache")))
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
