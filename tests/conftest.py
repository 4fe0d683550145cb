import pytest

from mobileintent_gym.phone import SimPhone


@pytest.fixture
def phone():
    device = SimPhone()
    yield device
    device.close()
