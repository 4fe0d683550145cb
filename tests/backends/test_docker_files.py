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


def test_compose_runs_an_evaluation_the_cli_accepts():
    """The gym service's command line parses with the real CLI parser."""
    yaml = pytest.importorskip("yaml", reason="PyYAML is not installed")
    from mobileintent_gym.cli import build_parser

    command = yaml.safe_load((DOCKER / "compose.yaml").read_text())["services"]["gym"]["command"]
    argv = command[0].split("python -m mobileintent_gym.cli ", 1)[1].split()
    args = build_parser().parse_args(argv)
    assert (args.command, args.device, args.device_has_state) == (
        "evaluate", "adb:emulator:5555", True)


def test_dockerfile_installs_adb_and_the_android_extra():
    text = (DOCKER / "Dockerfile").read_text()
    assert text.startswith("# ") and "\nFROM python:3.11-slim\n" in text
    assert "apt-get install -y --no-install-recommends adb" in text
    assert "'.[android,embed]'" in text
    cpu_torch = text.index("download.pytorch.org/whl/cpu")
    assert cpu_torch < text.index("'.[android,embed]'")  # torch's CPU wheel comes first
