"""The Assist strip: tiles with bands for actors and proposals, and the ``assist`` command."""

import json

import gymnasium as gym
import numpy as np
import pytest
from PIL import Image

from mobileintent_gym.agents.assist import ASSISTANTS
from mobileintent_gym.cli import main
from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.intents import GeneratorConfig
from mobileintent_gym.report.assist_command import step_range
from mobileintent_gym.report.strip import (
    ACCEPTED,
    ASSISTANT,
    GAP,
    PLAIN,
    REJECTED,
    StripFrame,
    draw_strip,
    record_assist,
)

SCREEN = (540, 1200)


def _frame(**kwargs):
    return StripFrame(Image.new("RGB", (90, 200), (10, 10, 10)), **kwargs)


def _top(strip, n, columns, tile):
    """The pixel above the text in the middle of tile ``n``'s band."""
    x = GAP + (n % columns) * (tile[0] + GAP) + tile[0] // 2
    y = GAP + (n // columns) * (tile[1] + GAP) + 1
    return strip.getpixel((x, y))


def test_bands_show_who_acted_and_what_the_user_answered():
    frames = [_frame(actor="user", action="CLICK[270,600]"),
              _frame(actor="user", action="SWIPE[UP]", proposal="Play a song", accepted=False),
              _frame(actor="user", action=None, proposal="Reply to Lucas", accepted=True),
              _frame(actor="assistant", action="CLICK[100,100]"),
              _frame(actor="assistant", action="TYPE[hi]")]
    strip = draw_strip(frames, SCREEN, columns=3)
    tile_height = 200 + 3 * 12 + 4  # the screen under three lines of 12 px
    assert strip.size == (3 * (90 + GAP) + GAP, 2 * (tile_height + GAP) + GAP)
    tops = [_top(strip, n, 3, (90, tile_height)) for n in range(5)]
    assert tops == [PLAIN, REJECTED, ACCEPTED, ASSISTANT, ASSISTANT]  # (the blue frame)
    x, y = GAP, GAP + tile_height + GAP  # tile 4 is framed all round
    assert strip.getpixel((x + 1, y + 100)) == strip.getpixel((x + 88, y + 150)) == ASSISTANT
    screen = np.asarray(strip)[GAP + 40:GAP + tile_height, GAP:GAP + 90]
    assert (screen == (229, 57, 53)).all(axis=2).any()  # the tap is drawn in red


def test_a_strip_needs_frames():
    with pytest.raises(ValueError, match="0 frames"):
        draw_strip([], SCREEN)


@pytest.mark.parametrize(("text", "count", "expected"), [
    (":", 30, slice(0, 30)), ("1:40", 30, slice(0, 40)), ("5:", 30, slice(4, 30)),
    ("3:3", 30, slice(2, 3))])
def test_step_ranges(text, count, expected):
    assert step_range(text, count) == expected


@pytest.mark.parametrize("text", ["²:3", "1", "a:b", "3:1"])
def test_bad_step_ranges_are_named(text):
    from mobileintent_gym.console import UsageError

    with pytest.raises(UsageError, match=repr(text)):
        step_range(text, 30)


@pytest.mark.parametrize("text", ["5:2", "0:5"])
def test_a_range_is_checked_before_the_day_is_played_without_a_made_up_count(text):
    # The early check used a count of 2**30: "selects none of the episode's 1073741824
    # steps".
    from mobileintent_gym.console import UsageError

    with pytest.raises(UsageError, match="FIRST comes no later than LAST") as caught:
        step_range(text)
    assert "1073741824" not in str(caught.value)


def test_the_command_draws_a_day_and_names_bad_steps(tmp_path, capsys):
    out = tmp_path / "day.png"
    assert main(["assist", "--agent", "oracle", "--steps", "1:12", "--columns", "4",
                 "--out", str(out)]) == 0
    printed, err = capsys.readouterr()
    printed = printed.splitlines()
    assert "\nencoder: " in "\n" + err  # the model that ranked the content is named
    scores = json.loads(printed[0])
    assert scores["rejected"] == 0 and scores["accepted"] == scores["intentions"] > 0
    assert printed[1] == f"strip: {out}"
    assert Image.open(out).size == (4 * (180 + GAP) + GAP, 3 * (400 + 3 * 15 + 4 + GAP) + GAP)
    assert main(["assist", "--steps", "500:", "--out", str(out)]) == 2
    assert "selects none of the episode's" in capsys.readouterr().err


@pytest.mark.parametrize(("option", "value"), [("--columns", "0"), ("--frame-width", "-5"),
                                               ("--frame-width", "wide"),
                                               # read "history_days=-1: must be integers >= 1"
                                               ("--history-days", "-1"), ("--play-days", "0"),
                                               ("--day", "-1")])
def test_strip_sizes_are_checked_before_the_day_is_played(tmp_path, capsys, option, value):
    with pytest.raises(SystemExit) as stopped:
        main(["assist", option, value, "--out", str(tmp_path / "day.png")])
    assert stopped.value.code == 2
    least = 0 if option == "--day" else 1
    assert (f"argument {option}: must be an integer of at least {least}, got '{value}'"
            in capsys.readouterr().err)


def test_a_day_past_the_played_ones_is_named_by_its_option(tmp_path, capsys):
    # It read "reset option day must be one of [0, 1] …", after the days were generated.
    assert main(["assist", "--day", "5", "--out", str(tmp_path / "day.png")]) == 2
    assert capsys.readouterr().err == ("mobileintent-gym assist: --day 5: the played days are "
                                       "0 to 1 (--play-days 2)\n")


@pytest.mark.parametrize("steps", ["foo", "1-40", "9:3"])
def test_the_form_of_steps_is_checked_before_the_day_is_played(tmp_path, capsys, steps):
    # It was checked only after the whole day had been played.
    assert main(["assist", "--steps", steps, "--out", str(tmp_path / "day.png")]) == 2
    err = capsys.readouterr().err
    assert f"--steps {steps!r}" in err or f"got {steps!r}" in err
    assert "encoder:" not in err and not (tmp_path / "day.png").exists()


def test_a_frame_wider_than_the_screen_is_refused_before_the_day_is_played(tmp_path, capsys):
    # Every frame of the day was kept at --width: 100000 took 23 GB before the OOM killer.
    assert main(["assist", "--frame-width", "541", "--out", str(tmp_path / "day.png")]) == 2
    err = capsys.readouterr().err
    assert "--frame-width 541 is wider than the screen (540 px)" in err and "encoder:" not in err


def test_a_day_cut_by_the_step_limit_ends_the_recording_naming_the_cut():
    env = gym.make("Act2Intent-Assist-v0", users=["demo-ana"], max_episode_steps=5,
                   config=GeneratorConfig(width=540, height=1200, noise=0.8))
    with pytest.raises(MobileIntentError, match="cut the Assist day after 5 steps"):
        record_assist(env, ASSISTANTS["oracle"](env, 0), 90)
    env.close()
