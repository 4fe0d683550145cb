import pytest

from mobileintent_gym.phone import SimPhone
from tests.helpers import served_over_adb


@pytest.fixture(scope="module")
def local(tmp_path_factory):
    """The virtual device connected to a private adb server of its own."""
    phone = SimPhone()
    phone.reset(seed=0)
    with served_over_adb(phone, tmp_path_factory.mktemp("adbhome")) as adb:
        yield adb
