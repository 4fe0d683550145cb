import json

from PIL import Image

from mobileintent_gym.cli import main
from mobileintent_gym.phone import SimPhone
from mobileintent_gym.phone.tour import plan


def test_tour_writes_a_frame_per_step_and_a_log(tmp_path, capsys):
    assert main(["tour", "--out", str(tmp_path)]) == 0
    frames = sorted(tmp_path.glob("*.png"))
    tour = plan(SimPhone().apps.values())
    assert len(frames) == len(tour)
    assert Image.open(frames[0]).size == (1080, 2400)
    log = json.loads((tmp_path / "tour.json").read_text())
    assert [r["name"] for r in log] == [name for name, _ in tour]
    routes = {r["name"]: r["route"] for r in log}
    assert routes["chat_profile"] == "chat/profile" and log[-1]["route"] == "launcher"
    assert all(r["effect"] for r in log[1:])
    assert "frames written" in capsys.readouterr().out


def test_tour_rejects_a_bad_size_before_creating_its_folder(tmp_path, capsys):
    out = tmp_path / "never"
    assert main(["tour", "--width", "10", "--out", str(out)]) == 2
    assert "screen 10x2400 is outside 320-3840 x 480-3840 pixels" in capsys.readouterr().err
    assert not out.exists()
