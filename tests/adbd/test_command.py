"""``serve-adb --user``: the served phone holds the user's PAIR content."""

import json
import signal
import socket
import subprocess
import sys

import pytest

from mobileintent_gym.adbd.command import build_phone
from mobileintent_gym.apps import registry
from mobileintent_gym.cli import main
from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.users import PairConfig, build_user_content, resolve_profile
from tests.helpers import exit_status


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv("MOBILEINTENT_GYM_PROFILES", raising=False)


def test_without_a_user_the_phone_holds_the_default_content():
    phone, ranked_by = build_phone(None, PairConfig(seed=3), 720, 1600)
    assert ranked_by is None
    assert phone.state.apps["music"].liked == registry.get("music").app.initial_state(3).liked
    assert (phone.width, phone.height) == (720, 1600)


def test_a_user_gets_their_pair_state():
    phone, ranked_by = build_phone("demo-ana", PairConfig(), 1080, 2400)
    built = build_user_content(resolve_profile("demo-ana"))
    expected = built.state
    assert ranked_by == built.encoder  # what the served phone reports
    assert phone.state.apps["music"].liked == expected.apps["music"].liked
    assert [c.id for c in phone.state.apps["chat"].chats] == [
        c.id for c in expected.apps["chat"].chats]
    assert phone.route() == "launcher"


def test_content_ranked_by_another_model_than_announced_is_refused():
    ranked_by = build_user_content(resolve_profile("demo-ana")).encoder
    phone, _ = build_phone("demo-ana", PairConfig(), 540, 1200, encoder=ranked_by)
    assert phone.route() == "launcher"
    with pytest.raises(MobileIntentError, match=rf"'demo-ana' was ranked by {ranked_by}, not "
                                                r"by org/other-model \(the encoder announced"):
        build_phone("demo-ana", PairConfig(), 540, 1200, encoder="org/other-model")


def test_profiles_folder_is_searched_first(tmp_path):
    ana = resolve_profile("demo-ana").to_dict()
    (tmp_path / "zoe.json").write_text(json.dumps({**ana, "user_id": "zoe"}))
    phone, _ = build_phone("zoe", PairConfig(), 1080, 2400, profiles=str(tmp_path))
    liked = phone.state.apps["music"].liked
    assert sorted(liked) == sorted(build_user_content(resolve_profile("demo-ana")).state.apps[
        "music"].liked)


def test_an_unknown_user_exits_naming_it_and_where_it_looked(tmp_path, capsys):
    assert main(["serve-adb", "--user", "nobody", "--profiles", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "no user profile 'nobody'" in err and str(tmp_path) in err
    assert "built-in" in err and "demo-ana" in err


def test_an_invalid_profile_exits_with_the_bad_value(tmp_path, capsys):
    (tmp_path / "bad.json").write_text(json.dumps({"interests": {"Music": 3}, "affinities": {}}))
    assert main(["serve-adb", "--user", "bad", "--profiles", str(tmp_path)]) == 2
    assert "interests['Music'] must be 0 or 1, got 3" in capsys.readouterr().err


@pytest.mark.parametrize(("args", "named"), [
    (["--user", "x" * 5000], "a user name is at most 255 characters, got 5000"),
    (["--user", "deep"], "deep.json: JSON nested too deeply"),
    (["--user", "long-id"], "user_id is 5000 bytes in UTF-8, more than a file name's 255"),
    (["--size", "99999x99999"], "screen 99999x99999 is outside 320-3840 x 480-3840"),
    (["--size", "\u00b2x\u00b2"], "a screen size is written WIDTHxHEIGHT"),
    (["--time-limit", "0"], "--time-limit must be a positive number, got 0.0"),
    (["--storage", "-1"], "--storage must be a positive number, got -1"),
    (["--keys", "/nonexistent/adb_keys"], "--keys /nonexistent/adb_keys: No such file"),
    (["--keys", "bad-key.txt"], "bad-key.txt:1: not base64: 'clé"),  # not ASCII
    # It served the default content, checked against nothing.
    (["--require-encoder", "foo/bar"], "--require-encoder checks what ranked --user's content"),
])
def test_bad_arguments_exit_2_naming_the_problem_before_serving(tmp_path, capsys, monkeypatch,
                                                             args, named):
    (tmp_path / "bad-key.txt").write_text("clé publique\n")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "deep.json").write_text('{"interests": {}, "affinities": ' + "[" * 50_000
                                        + "]" * 50_000 + "}")
    ana = resolve_profile("demo-ana").to_dict()
    (tmp_path / "long-id.json").write_text(json.dumps({**ana, "user_id": "u" * 5000}))
    assert exit_status(["serve-adb", "--port", "0", "--profiles", str(tmp_path), *args]) == 2
    assert named in capsys.readouterr().err


@pytest.mark.parametrize("count", ["0", "-3", "many"])
def test_max_connections_must_be_a_positive_integer_on_the_command_line(capsys, count):
    with pytest.raises(SystemExit) as stopped:
        main(["serve-adb", "--port", "0", "--max-connections", count])
    assert stopped.value.code == 2
    assert f"--max-connections: must be an integer of at least 1, got {count!r}" in \
        capsys.readouterr().err


@pytest.mark.parametrize("port", ["70000", "-1", "http"])
def test_a_port_that_is_no_tcp_port_is_a_usage_error(capsys, port):
    # 70000 and -1 ended in an OverflowError traceback, with exit 1.
    with pytest.raises(SystemExit) as stopped:
        main(["serve-adb", "--port", port])
    assert stopped.value.code == 2
    assert "--port: must be" in capsys.readouterr().err



def test_a_port_adb_scans_for_emulators_is_warned_of(caplog):
    # It was taken without a word, though the option's help says to avoid it.
    assert exit_status(["serve-adb", "--port", "5557", "--storage", "-1"]) == 2
    assert [r.getMessage() for r in caplog.records if r.levelname == "WARNING"] == [
        "--port 5557 is one an adb server scans for emulators (5555-5585): it may list the "
        "phone twice, once as an emulator; another port avoids that"]
    caplog.clear()
    assert exit_status(["serve-adb", "--port", "15557", "--storage", "-1"]) == 2
    assert not [r for r in caplog.records if r.levelname == "WARNING"]


def test_ctrl_c_stops_the_server_with_the_status_every_command_gives_it():
    # It exited 0, where the command line promises 130 for Ctrl-C.
    server = subprocess.Popen([sys.executable, "-m", "mobileintent_gym", "serve-adb", "--port",
                               "0"], stderr=subprocess.PIPE, text=True)
    try:
        for line in server.stderr:
            if "virtual adb device on" in line:
                break
        server.send_signal(signal.SIGINT)
        _, err = server.communicate(timeout=60)
    finally:
        server.kill()
    assert server.returncode == 130
    assert err.splitlines()[-1] == "mobileintent-gym serve-adb: interrupted"


def test_an_empty_allow_list_and_a_host_not_ours_are_refused_naming_them(tmp_path, capsys,
                                                                           test_key):
    # An empty --keys file served with authentication off, with no word; a host that is
    # not this machine's was blamed on the port ("choose another --port").
    empty = tmp_path / "empty_keys"
    empty.write_text("# nobody yet\n\n")
    assert main(["serve-adb", "--port", "0", "--keys", str(empty)]) == 2
    assert f"{empty} holds no key" in capsys.readouterr().err
    keys = tmp_path / "adb_keys"
    keys.write_text(test_key.public.encode() + "\n")
    assert main(["serve-adb", "--port", "0", "--host", "203.0.113.5", "--allow-remote",
                 "--keys", str(keys)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].endswith("choose another --host"), err


def test_a_port_in_use_is_refused_before_the_users_content_is_built(monkeypatch, capsys):
    # It was refused once the phone was built: half a minute with --user (the encoder
    # loaded, the content built or read).
    import mobileintent_gym.adbd.command as command

    monkeypatch.setattr(command, "build_phone", lambda *a: pytest.fail("phone built"))
    monkeypatch.setattr(command, "run_encoder", lambda *a: pytest.fail("encoder loaded"))
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        assert main(["serve-adb", "--port", str(port), "--user", "demo-ana"]) == 2
    assert capsys.readouterr().err.strip().endswith(
        f"cannot listen on 127.0.0.1:{port} (Address already in use); choose another --port")
