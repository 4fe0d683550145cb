import pytest

from mobileintent_gym.backends import Device
from mobileintent_gym.backends.loader import DeviceConfigError, load_device
from mobileintent_gym.phone import SimPhone


def test_sim_specs_build_simulated_phones():
    phone = load_device("sim")
    assert isinstance(phone, SimPhone) and isinstance(phone, Device)
    assert (load_device("sim:720x1600").width, load_device("sim:720x1600").height) == (720, 1600)


@pytest.mark.parametrize("spec", ["", "sim:big", "adb:", "appium:ftp://x", "usb:123"])
def test_bad_specs_are_rejected_with_the_spec(spec):
    with pytest.raises(DeviceConfigError, match=r"unknown device|WIDTHxHEIGHT") as caught:
        load_device(spec)
    assert repr(spec) in str(caught.value)


def test_adb_spec_builds_an_adb_device(local, monkeypatch):
    from mobileintent_gym.backends.adb import AdbDevice

    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(local.server_port))
    device = load_device(f"adb:{local.serial}")
    assert device.route() == "launcher"
    assert isinstance(device, AdbDevice) and isinstance(device, Device)
