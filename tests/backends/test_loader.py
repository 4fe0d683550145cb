import tracemalloc

import pytest

from mobileintent_gym.backends import Device
from mobileintent_gym.backends.loader import (
    DeviceConfigError,
    appium_arguments,
    load_device,
    parse_device,
)
from mobileintent_gym.errors import DeviceError
from mobileintent_gym.phone import SimPhone


def test_sim_specs_build_simulated_phones():
    phone = load_device("sim")
    assert isinstance(phone, SimPhone) and isinstance(phone, Device)
    assert (load_device("sim:720x1600").width, load_device("sim:720x1600").height) == (720, 1600)


@pytest.mark.parametrize("spec", ["", "sim:big", "sim:\u00b2x\u00b2", "sim:\u0663\u0663\u0663x900",
                                  "sim:720x", "sim:", "sim: ", "adb:", "appium:ftp://x",
                                  "usb:123"])
def test_bad_specs_are_rejected_with_the_spec(spec):
    with pytest.raises(DeviceConfigError, match=r"unknown device|WIDTHxHEIGHT") as caught:
        load_device(spec)
    assert repr(spec) in str(caught.value)


@pytest.mark.parametrize("spec", ["", "sim:big", "sim:100x100", "sim:", "adb:",
                                  "appium:ftp://x"])
def test_parse_device_refuses_what_load_device_refuses_in_the_same_words(spec):
    with pytest.raises(DeviceConfigError) as parsed:
        parse_device(spec)
    with pytest.raises(DeviceConfigError) as loaded:
        load_device(spec)
    assert str(parsed.value) == str(loaded.value)


def test_an_appium_address_without_its_scheme_is_given_one_to_try():
    # It said "unknown device": the backend was right, the URL lacked http://.
    for load in (parse_device, load_device):
        with pytest.raises(DeviceConfigError, match=r"device 'appium:localhost:4723': an "
                                                    r"Appium server is named by its URL; did "
                                                    r"you mean 'appium:http://localhost:4723'"):
            load("appium:localhost:4723")


@pytest.mark.parametrize(("url", "named"), [
    ("http://k:SECRET@127.0.0.1:99999", r"address is malformed \(Port out of range"),
    ("http://127.0.0.1:abc/wd/hub", "address is malformed"), ("http://:4723", "names no host"),
    ("https://k:SECRET@[::1:4723", r"malformed \(Invalid IPv6 URL\)")])
def test_an_appium_address_that_is_none_is_a_config_error(url, named):
    # A DeviceUnavailableError from urllib3 ("LocationParseError") once a session was tried.
    for load in (parse_device, load_device):
        with pytest.raises(DeviceConfigError, match=named) as refused:
            load(f"appium:{url}")
        assert "SECRET" not in str(refused.value)


def test_parse_device_names_the_backend_and_its_argument():
    assert parse_device(" sim ") == ("sim", "")
    assert parse_device("sim:720x1600") == ("sim", "720x1600")
    assert parse_device("adb:127.0.0.1:15555") == ("adb", "127.0.0.1:15555")  # not reached
    # The serial ' 127.0.0.1:15555' was looked for, and not found.
    assert parse_device("adb: 127.0.0.1:15555 ") == ("adb", "127.0.0.1:15555")
    assert parse_device("appium:http://127.0.0.1:4723") == ("appium", "http://127.0.0.1:4723")
    assert parse_device("appium:http://h:4723?udid=emulator-5554") == (
        "appium", "http://h:4723?udid=emulator-5554")
    with pytest.raises(DeviceConfigError, match="a device config is a text such as 'sim', "
                                                "got None"):
        load_device(None)  # was an AttributeError from .strip()


@pytest.mark.parametrize("size", ["99999x99999", "319x800", "720x479", "3841x2400",
                                  "1080x3841", "0x0", "1" * 40 + "x2400"])
def test_screen_sizes_out_of_range_are_refused_before_any_allocation(size):
    tracemalloc.start()
    try:
        with pytest.raises(DeviceConfigError, match=r"outside 320-3840 x 480-3840|WIDTHxHEIGHT"):
            load_device(f"sim:{size}")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20  # unfixed: a 28 GiB frame was tried for 99999x99999


def test_the_size_range_is_inclusive_and_simphone_checks_it_too():
    assert (load_device("sim:320x480").width, load_device("sim:320x480").height) == (320, 480)
    with pytest.raises(DeviceError, match="outside"):
        SimPhone(99999, 99999)
    with pytest.raises(DeviceError, match="integers"):
        SimPhone(True, 2400)


def test_adb_spec_builds_an_adb_device(local, monkeypatch):
    from mobileintent_gym.backends.adb import AdbDevice

    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(local.server_port))
    device = load_device(f"adb:{local.serial}")
    assert device.route() == "launcher"
    assert isinstance(device, AdbDevice) and isinstance(device, Device)


def test_an_appium_spec_tells_the_device_and_the_lock_after_its_url():
    assert appium_arguments("https://u:k@farm/wd/hub?udid=R58M%2F1&exclusive=False", "s") == (
        "https://u:k@farm/wd/hub", {"udid": "R58M/1", "exclusive": False})
    assert appium_arguments("http://127.0.0.1:4723", "s") == ("http://127.0.0.1:4723", {})


@pytest.mark.parametrize(("options", "message"), [
    ("serial=emulator-5554", r"unknown option 'serial' \(after the URL's '\?' come udid: "),
    ("udid=", "option 'udid' must be given once, with a value"),
    ("udid", "option 'udid' must be given once, with a value"),
    ("udid=a&udid=b", "option 'udid' must be given once, with a value"),
    ("exclusive=maybe", "exclusive must be true or false, got 'maybe'"),
])
def test_an_appium_option_it_does_not_know_or_cannot_read_is_named_before_any_server(
        options, message):
    spec = f"appium:http://user:s3cr3t@127.0.0.1:9?{options}"  # nothing listens there
    for load in (parse_device, load_device):
        with pytest.raises(DeviceConfigError, match=message) as caught:
            load(spec)
        assert "s3cr3t" not in str(caught.value) and "***@127.0.0.1:9" in str(caught.value)
