"""The docker files: the images cannot be built here (no Docker engine), so the compose
files are parsed, their command lines read by the real CLI parser, and compose.yaml's
services run here as their containers would run them."""

import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mobileintent_gym.results import read_run
from tests.helpers import ADB, free_port

DOCKER = Path(__file__).resolve().parents[2] / "docker"
GYM = f"{sys.executable} -m mobileintent_gym"  # the image's `mobileintent-gym`


def services(name: str) -> dict:
    yaml = pytest.importorskip("yaml", reason="PyYAML is not installed")
    return yaml.safe_load((DOCKER / name).read_text())["services"]


def test_emulator_file_wires_the_gym_to_the_emulator():
    emulator = services("emulator.yaml")
    assert set(emulator) == {"emulator", "gym"}
    assert emulator["gym"]["depends_on"]["emulator"]["condition"] == "service_healthy"
    assert emulator["gym"]["build"]["dockerfile"] == "docker/Dockerfile"
    assert "adb connect emulator:5555" in emulator["gym"]["command"][0]
    assert all(port.startswith("127.0.0.1:") for port in emulator["emulator"]["ports"])
    health = emulator["emulator"]["healthcheck"]["test"]
    assert health[0] == "CMD-SHELL" and "sys.boot_completed | grep -q 1" in health[1]


@pytest.mark.parametrize(("name", "device"), [("compose.yaml", "adb:phone:15555"),
                                              ("emulator.yaml", "adb:emulator:5555")])
def test_each_compose_file_runs_an_evaluation_the_cli_accepts(name, device):
    from mobileintent_gym.cli import build_parser

    command = services(name)["gym"]["command"][0]
    argv = shlex.split(command.split("mobileintent-gym ", 1)[1])
    args = build_parser().parse_args(argv)
    assert (args.command, args.device, args.device_has_state, args.out) == (
        "evaluate", device, True, "/out/evaluate.json")


def test_compose_services_share_one_image_and_start_in_order():
    # A one-shot service that made the keys ended the run under --exit-code-from (its exit
    # stops every container); the phone makes them.
    compose = services("compose.yaml")
    assert set(compose) == {"phone", "gym"}
    assert all(s["build"] == {"context": "..", "dockerfile": "docker/Dockerfile"}
               for s in compose.values())
    assert compose["gym"]["depends_on"]["phone"]["condition"] == "service_healthy"
    assert "restart" not in compose["phone"] and "depends_on" not in compose["phone"]


@pytest.mark.skipif(ADB is None, reason="the adb binary is not installed (apt-get install adb)")
def test_compose_services_run_as_written_give_the_oracles_scores(tmp_path):
    """phone (with its healthcheck) and gym, each command as compose runs it, with the
    volumes as folders here, the phone's host name as loopback, a free port for 15555 and
    two templates added to the gym's evaluation to keep it short."""
    compose, port = services("compose.yaml"), str(free_port())

    def here(text: str) -> str:
        return (text.replace("/keys", str(tmp_path / "keys")).replace("/out", str(tmp_path / "out"))
                .replace("15555", port).replace("phone:", "127.0.0.1:")
                .replace("mobileintent-gym ", f"{GYM} "))  # adb: the one on PATH

    (tmp_path / "keys").mkdir()
    env = {**os.environ, "HOME": str(tmp_path), "ANDROID_ADB_SERVER_PORT": str(free_port()),
           **{k: here(v) for k, v in compose["gym"]["environment"].items()}}
    assert compose["phone"]["entrypoint"] == compose["gym"]["entrypoint"] == ["sh", "-c"]
    phone = subprocess.Popen(["sh", "-c", here(compose["phone"]["command"][0])], env=env,
                             stderr=subprocess.PIPE, text=True)  # exec: the server itself
    try:
        _wait_healthy(compose["phone"]["healthcheck"], here, phone)
        gym = here(compose["gym"]["command"][0])
        done = subprocess.run(["sh", "-c", f"{gym} --templates G-SPT-02 G-WCT-02"], env=env,
                              capture_output=True, text=True, timeout=240)
    finally:
        phone.terminate()
        phone.wait(timeout=30)
        subprocess.run([ADB, "kill-server"], env=env, capture_output=True, timeout=30)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "demo-ana     solved 8/8 tasks" in done.stdout
    run = read_run(tmp_path / "out" / "evaluate.json")
    assert len(run.episodes) == 8 and run.scores["task_sr"] == 1.0
    assert run.provenance["device"] == f"adb:127.0.0.1:{port}"


def _wait_healthy(check: dict, here, server: subprocess.Popen) -> None:
    """Run the healthcheck until it passes, as compose would (its retries at most)."""
    command = [sys.executable if part == "python" else here(part) for part in check["test"][1:]]
    for _ in range(check["retries"]):
        if subprocess.run(command, capture_output=True, timeout=30).returncode == 0:
            return
        assert server.poll() is None, server.stderr.read()
        time.sleep(1)
    pytest.fail("the phone never became healthy")


def test_dockerfile_installs_adb_and_the_android_extra():
    text = (DOCKER / "Dockerfile").read_text()
    assert text.startswith("# ") and "\nFROM python:3.11-slim\n" in text
    assert "apt-get install -y --no-install-recommends adb" in text
    assert "'.[android,embed]'" in text
    cpu_torch = text.index("download.pytorch.org/whl/cpu")
    assert cpu_torch < text.index("'.[android,embed]'")  # torch's CPU wheel comes first
