import pytest

from mobileintent_gym.phone import SimPhone


@pytest.fixture(scope="session", autouse=True)
def offline():
    """Nothing in the suite may try the network: models load from the packaged weights."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HF_HUB_OFFLINE", "1")
        yield


@pytest.fixture
def phone():
    device = SimPhone()
    yield device
    device.close()
