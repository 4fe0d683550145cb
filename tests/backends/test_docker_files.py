import argparse
from pathlib import Path

import pytest

DOCKER = Path(__file__).resolve().parents[2] / "docker"


def test_compose_file_parses_and_wires_the_gym_to_the_emulator():
    yaml = pytest.importorskip("yaml", reason="PyYAML is not installed")
    compose = yaml.safe_load((DOCKER / "compose.yaml").read_text())
    services = compose["services"]
    assert set(services) == {"emulator", "gym"}
    assert services["gym"]["depends_on"]["emulator"]["condition"] == "service_healthy"
    assert services["gym"]["build"]["dockerfile"] == "docker/Dockerfile"
    assert "adb connect emulator:5555" in services["gym"]["command"][0]
    assert all(port.startswith("127.0.0.1:") for port in services["emulator"]["ports"])
    health = services["emulator"]["healthcheck"]["test"]
    assert health[0] == "CMD-SHELL" and "sys.boot_completed | grep -q 1" in health[1]


def test_compose_runs_an_existing_command_or_says_it_is_awaited():
    """The gym service runs ``cli evaluate``; until that exists, the file must say so."""
    from mobileintent_gym.cli import build_parser

    subcommands = next(action.choices for action in build_parser()._actions
                       if isinstance(action, argparse._SubParsersAction))
    text = (DOCKER / "compose.yaml").read_text()
    assert "mobileintent_gym.cli evaluate" in text
    assert ("evaluate" in subcommands) == ("does not exist yet" not in text)


def test_dockerfile_installs_adb_and_the_android_extra():
    text = (DOCKER / "Dockerfile").read_text()
    assert text.startswith("# ") and "\nFROM python:3.11-slim\n" in text
    assert "apt-get install -y --no-install-recommends adb" in text
    assert "'.[android]'" in text
