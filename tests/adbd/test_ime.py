"""The virtual device's input methods: ``ime``, the settings behind it, ADBKeyboard's typing."""

import pytest

from mobileintent_gym.adbd.device import VirtualDevice
from mobileintent_gym.phone import SimPhone
from tests.adbd.test_device import focus_chat_input, out

ADB = "com.android.adbkeyboard/.AdbIME"
LATIN = "com.android.inputmethod.latin/.LatinIME"


@pytest.fixture
def device():
    return VirtualDevice(SimPhone(540, 1200))


def typed(device: VirtualDevice, text: str) -> list[str]:
    """What ADBKeyboard's broadcast of ``text`` typed (the phone's typing events)."""
    before = len(device.phone.events)
    said = out(device, f"am broadcast -a ADB_INPUT_TEXT --es msg {text}")
    assert said.endswith("Broadcast completed: result=0\n")  # whoever received it
    return [event.typed for event in device.phone.events[before:]]


def test_adbkeyboard_is_installed_enabled_and_in_use_as_a_harness_checks(device):
    # The settings said Android's keyboard was in use while ADBKeyboard typed, `ime` was
    # "not found" and `pm list packages` did not list ADBKeyboard: a harness that checks,
    # enables and selects it (ime enable / ime set) failed before its first step.
    assert out(device, "settings get secure default_input_method") == f"{ADB}\n"
    assert out(device, "pm list packages adbkeyboard") == "package:com.android.adbkeyboard\n"
    assert out(device, "ime list -s") == f"{LATIN}\n{ADB}\n"  # the settings' order
    assert out(device, f"ime enable {ADB}") == f"Input method {ADB}: already enabled for user #0\n"
    assert out(device, f"ime set {ADB}") == f"Input method {ADB} selected for user #0\n"
    assert "mCurMethodId=com.android.adbkeyboard/.AdbIME\n" in out(
        device, "dumpsys input_method | grep mCurMethodId")
    focus_chat_input(device)
    assert typed(device, "hello") == ["hello"]


def test_adbkeyboard_types_only_while_it_is_the_input_method_in_use(device):
    focus_chat_input(device)
    assert out(device, f"ime set {LATIN}") == f"Input method {LATIN} selected for user #0\n"
    assert typed(device, "lost") == []  # on a phone its receiver is not running
    assert out(device, "settings get secure default_input_method") == f"{LATIN}\n"
    out(device, f"settings put secure default_input_method {ADB}")  # as ime set does
    assert typed(device, "back") == ["back"]
    before = len(device.phone.events)  # a broadcast for another package reaches it not
    out(device, "am broadcast -a ADB_INPUT_TEXT -p com.other --es msg x")
    assert len(device.phone.events) == before


def test_disabling_the_input_method_in_use_hands_over_and_it_cannot_be_selected(device):
    said = out(device, f"ime disable {ADB}")
    assert said == f"Input method {ADB}: now disabled for user #0\n"
    assert out(device, "settings get secure default_input_method") == f"{LATIN}\n"
    assert out(device, "ime list -s") == f"{LATIN}\n"
    assert out(device, "ime list -a -s") == f"{ADB}\n{LATIN}\n"  # installed all the same
    refused = device.run(f"ime set {ADB}")
    assert (refused.code, refused.stderr) == (
        255, f"Unknown input method {ADB} cannot be selected for user #0\n".encode())
    assert out(device, f"ime enable --user 0 {ADB}") == (
        f"Input method {ADB}: now enabled for user #0\n")
    assert out(device, "settings get secure enabled_input_methods") == f"{LATIN}:{ADB}\n"
    out(device, f"ime set -u current {ADB}")
    assert out(device, "settings get secure default_input_method") == f"{ADB}\n"
    assert out(device, "ime reset") == (f"Reset current and enabled IMEs for user #0\n"
                                        f"  Selected: {LATIN}\n   Enabled: {LATIN}\n")
    assert out(device, "ime list -s") == f"{LATIN}\n"


def test_enabling_and_disabling_keep_the_other_entries_as_they_were(device):
    # enabled_input_methods lost its subtypes (ID;SUBTYPE…) and entries of input methods
    # not installed, and disabling the one in use could hand over to one not installed.
    out(device, f"settings put secure enabled_input_methods 'com.foo/.X:{LATIN};-9;52:{ADB}'")
    out(device, f"ime disable {ADB}")
    assert out(device, "settings get secure enabled_input_methods") == (
        f"com.foo/.X:{LATIN};-9;52\n")
    assert out(device, "settings get secure default_input_method") == f"{LATIN}\n"
    assert out(device, "ime list -s") == f"{LATIN}\n"  # com.foo/.X is not installed
    out(device, f"ime enable {ADB}")
    assert out(device, "settings get secure enabled_input_methods") == (
        f"com.foo/.X:{LATIN};-9;52:{ADB}\n")
    out(device, f"settings put secure enabled_input_methods 'com.foo/.X:{ADB}'")
    out(device, f"ime set {ADB}")
    out(device, f"ime disable {ADB}")  # no other installed one enabled: none in use
    assert out(device, "settings get secure default_input_method") == "\n"
    assert "mCurMethodId=null\n" in out(device, "dumpsys input_method")
    out(device, "ime reset")
    assert out(device, "settings get secure enabled_input_methods") == (
        f"{LATIN}:com.foo/.X\n")


@pytest.mark.parametrize(("line", "code", "stdout", "stderr"), [
    ("ime enable com.nope/.Ime", 255, b"",
     b"Unknown input method com.nope/.Ime cannot be enabled for user #0\n"),
    # Named after the last word read: the subcommand (d3cdc73 named "ime").
    ("ime enable", 255, b"", b"\nException occurred while executing 'ime':\njava.lang."
     b'IllegalArgumentException: Argument expected after "enable"\n'),
    ("ime enable --user 0", 255, b"", b"\nException occurred while executing 'ime':\n"
     b'java.lang.IllegalArgumentException: Argument expected after "0"\n'),
    ("ime set --user", 255, b"", b"\nException occurred while executing 'ime':\njava.lang."
     b'IllegalArgumentException: Argument expected after "--user"\n'),
    (f"ime set --user me {ADB}", 255, b"", b"\nException occurred while executing 'ime':\n"
     b"java.lang.IllegalArgumentException: Bad user number: me\n"),
    ("ime list -as", 255, b"", b"\nException occurred while executing 'ime':\njava.lang."
     b'IllegalArgumentException: No argument expected after "-as"\n'),
    ("ime frob", 255, b"Unknown command: frob\n", b""),
    # A user the device does not have: said (without a newline, as Android prints it),
    # status 0, nothing changed.
    (f"ime disable --user 10 {ADB}", 0, b"", b"User #10 does not exit."),
    (f"ime set -u -5 {LATIN}", 0, b"", b"Pseudo user ID -5 is not supported."),
    ("ime reset --user 3", 0, b"", b"User #3 does not exit."),
])
def test_bad_ime_lines_are_refused_and_change_nothing(device, line, code, stdout, stderr):
    settings = dict(device.settings.tables["secure"])
    result = device.run(line)
    assert (result.code, result.stdout, result.stderr) == (code, stdout, stderr)
    assert device.settings.tables["secure"] == settings


def test_ime_list_describes_each_input_method_and_help_shows_the_usage(device):
    listed = out(device, "ime list")
    assert listed.startswith(f"{LATIN}:\n  mId={LATIN} ")
    assert f"\n{ADB}:\n  mId={ADB} " in listed
    assert "      name=com.android.adbkeyboard.AdbIME\n      packageName=com.android." \
           "adbkeyboard\n" in listed
    for line in ("ime", "ime help", "ime -h"):  # the usage, status 0
        usage = device.run(line)
        assert usage.code == 0 and usage.stdout.startswith(b"ime <command>:\n  list [-a] [-s]")
    # Options ime does not have are ignored, as Android's ShellCommand reads them; -u0 is
    # user 0; what follows the id is not read.
    assert out(device, "ime list -s -x -u 0 extra") == f"{LATIN}\n{ADB}\n"
    assert out(device, f"ime set -x -u0 {LATIN} more") == (
        f"Input method {LATIN} selected for user #0\n")


def test_dumpsys_input_method_says_whether_the_keyboard_shows(device):
    def shown() -> str:
        return out(device, "dumpsys input_method | grep mInputShown").split("mInputShown=")[1]

    assert shown() == "false\n"
    focus_chat_input(device)
    assert shown() == "true\n"
    out(device, "input keyevent KEYCODE_BACK")  # BACK hides the keyboard first
    assert shown() == "false\n"
