import shutil

import pytest

from mobileintent_gym.adbd.harness import LocalAdb
from mobileintent_gym.phone import SimPhone

ADB = shutil.which("adb")


@pytest.fixture(scope="module")
def local(tmp_path_factory):
    """The virtual device connected to a private adb server on port 15038."""
    if ADB is None:
        pytest.skip("the adb binary is not installed (apt-get install adb)")
    pytest.importorskip("adbutils", reason="adbutils is not installed (pip install adbutils)")
    phone = SimPhone()
    phone.reset(seed=0)
    with LocalAdb(phone, ADB, 15038, home=tmp_path_factory.mktemp("adbhome")) as adb:
        assert adb.connect() == "device"
        yield adb
