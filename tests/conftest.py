import pytest

from mobileintent_gym.phone import SimPhone


@pytest.fixture(scope="session", autouse=True)
def offline(tmp_path_factory):
    """Nothing in the suite may try the network: models load from the packaged weights.

    Built user content goes to a folder of the session, not the user's cache.
    """
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HF_HUB_OFFLINE", "1")
        patch.setenv("MOBILEINTENT_GYM_CACHE", str(tmp_path_factory.mktemp("cache")))
        yield


@pytest.fixture
def phone():
    device = SimPhone()
    yield device
    device.close()
