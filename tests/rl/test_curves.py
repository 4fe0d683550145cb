"""Learning-curve plots: a PNG with each series drawn in its colour, round axis ticks."""

import numpy as np
import pytest
from PIL import Image

from mobileintent_gym.rl.curves import COLOURS, _ticks, plot_curves
from mobileintent_gym.rl.runs import RunLog, plot_log


def test_each_series_is_drawn_into_the_png(tmp_path):
    path = plot_curves({"ppo": ([0, 5000, 10000], [0.0, 0.5, 1.0]), "random": ([0, 10000],
                                                                            [0.03, 0.03])},
                       tmp_path / "sub" / "curve.png", "title", "steps", "success",
                       ylim=(0.0, 1.0), target=0.8)
    pixels = np.asarray(Image.open(path).convert("RGB"))
    assert pixels.shape[2] == 3 and pixels.shape[0] > 300
    for colour in COLOURS[:2]:
        rgb = tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))
        assert (pixels == rgb).all(axis=2).sum() > 100, colour


def test_ticks_are_round_and_span_the_range():
    assert _ticks(0, 151552) == [0, 50000, 100000, 150000]
    assert [round(t, 6) for t in _ticks(0.0, 1.0)] == [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    assert [round(t, 6) for t in _ticks(0.1, 0.37)] == [0.1, 0.15, 0.2, 0.25, 0.3, 0.35]


def test_the_run_curve_skips_updates_whose_sar_is_undefined(tmp_path):
    """SAR has no value (an empty log cell) when no subgoal's context was reached."""
    rows = [{"update": "1", "sar": "", "val_sar": ""},
            {"update": "2", "sar": "0.5", "val_sar": "0.25"},
            {"update": "3", "sar": "0.75", "val_sar": ""}]
    pixels = np.asarray(Image.open(plot_log(rows, tmp_path / "curve.png")).convert("RGB"))
    for colour in COLOURS[:2]:  # both series are drawn
        rgb = tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))
        assert (pixels == rgb).all(axis=2).sum() > 30, colour
    assert plot_log(rows[:1], tmp_path / "empty.png").stat().st_size > 1000  # axes only


def test_a_resumed_log_drops_the_rows_and_events_after_its_checkpoint(tmp_path):
    accumulator = pytest.importorskip(
        "tensorboard.backend.event_processing.event_accumulator",
        reason="TensorBoard is a test extra")
    pytest.importorskip("torch", reason="TensorBoard is written through torch")
    for resume_after, values in ((None, (10.0, 20.0, 30.0, 40.0)), (2, (0.3, 0.4))):
        log = RunLog(tmp_path, ["update", "sar"], resume_after)
        for update, sar in enumerate(values, start=1 if resume_after is None else 3):
            log.write({"update": update, "sar": sar})
        log.close()
    assert [(r["update"], r["sar"]) for r in log.rows()] == [
        ("1", "10"), ("2", "20"), ("3", "0.3"), ("4", "0.4")]
    events = accumulator.EventAccumulator(str(tmp_path / "tensorboard"))
    events.Reload()
    assert [(e.step, round(e.value, 6)) for e in events.Scalars("sar")] == [
        (1, 10.0), (2, 20.0), (3, 0.3), (4, 0.4)]
