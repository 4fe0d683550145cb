"""The report's screens, marks and GIF: re-rendered screens are the run's own screens."""

import base64
import json
import re
import shutil
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from PIL import Image

from mobileintent_gym.agents import RandomAgent
from mobileintent_gym.cli import main
from mobileintent_gym.report import ScreenSource
from mobileintent_gym.report.marks import COLOR, Arrow, Caption, Dot, draw_marks, marks, svg_marks
from mobileintent_gym.report.page import thumb_size, thumbnail
from mobileintent_gym.results import ResultsFileError, RunRecord, read_run
from mobileintent_gym.rollouts import record_episode
from mobileintent_gym.users.profile import PROFILES_ENV, builtin_profiles_dir


def test_replayed_screens_are_the_screens_the_run_showed(tmp_path):
    out = tmp_path / "run.json"
    assert main(["evaluate", "--agent", "random", "--users", "demo-dara", "--seed", "2",
                 "--device", "sim:540x1200", "--templates", "G-SPT-01", "--out", str(out)]) == 0
    run = read_run(out)
    env = gym.make("Act2Intent-Execute-v0", device="sim:540x1200", users=["demo-dara"],
                   observation=("instruction", "hierarchy"))
    source = ScreenSource(run.provenance)
    for episode in run.episodes:
        seen: list[np.ndarray] = []
        record_episode(env, RandomAgent(env, episode["seed"]), episode["user"],
                       episode["task"], episode["seed"], frames=seen.append)
        screens = source.screens(episode)
        assert screens.problem is None
        assert len(screens.frames) == len(seen) == len(episode["steps"]) + 1
        assert all(np.array_equal(a, b) for a, b in zip(screens.frames, seen, strict=True))
    source.close()


@pytest.mark.parametrize(("field", "value", "says"), [
    ("route_after", "music/nowhere", "left the recorded run at step 2"),
    # A run of another version (another action grammar) or an edited file: the replay's
    # step was refused, its event None, and view crashed on it (AttributeError).
    ("action", "SWIPE[sideways]", "refused step 2, which the run took (SWIPE direction"),
])
def test_a_replay_that_leaves_the_recorded_run_stops_and_says_where(scripted_run, field,
                                                                    value, says):
    run = read_run(scripted_run)
    episode = run.episodes[0]
    episode["steps"][1][field] = value
    screens = ScreenSource(run.provenance).screens(episode)
    assert len(screens.frames) == 2
    assert says in screens.problem and value.rstrip("]").split("[")[-1] in screens.problem


def test_the_index_flags_an_episode_whose_screens_stop(scripted_run, tmp_path):
    # Only the episode's own section said it; the table of episodes looked whole.
    data = json.loads(scripted_run.read_text())
    data["episodes"][0]["steps"][1]["route_after"] = "music/nowhere"
    (tmp_path / "left.json").write_text(json.dumps(data))
    assert main(["view", str(tmp_path / "left.json")]) == 0
    page = (tmp_path / "left.html").read_text()
    rows = page[page.index("<tbody>"):page.index("</tbody>")].split("<tr ")[1:]
    steps = len(data["episodes"][0]["steps"])
    assert f'(screens: 2 of {steps + 1})</span></td></tr>' in rows[0]
    assert 'title="the replay left the recorded run at step 2' in rows[0]
    assert all("(screens:" not in row for row in rows[1:])


def test_a_replay_with_another_reward_stops_there(scripted_run):
    # A tap that opens another record of the same list keeps the routes, not the reward.
    run = read_run(scripted_run)
    episode = run.episodes[0]
    episode["steps"][1]["reward"] = 7.0
    screens = ScreenSource(run.provenance).screens(episode)
    assert len(screens.frames) == 2
    assert "left the recorded run at step 2 (reward" in screens.problem
    assert "recorded 7.0)" in screens.problem


@pytest.mark.parametrize("change", ["target", "encoder", "profile"])
def test_a_replay_of_other_content_shows_no_screens(scripted_run, change):
    # Viewed where another model ranks the content (lexical without [embed]), or after the
    # profile was edited, the replay drew other records under the agent's taps unmarked.
    run = read_run(scripted_run)
    episode = run.episodes[1]
    assert ScreenSource(run.provenance).screens(episode).problem is None  # as recorded
    if change == "target":
        episode["target"] = "t999"
    elif change == "encoder":
        run.provenance["pair"]["encoder"] = "lexical"  # what a process without [embed] loads
    else:
        run.provenance["profiles_content"]["demo-ana"] = "0" * 32
    screens = ScreenSource(run.provenance).screens(episode)
    says = {"target": "the replay's task has another target",
            "encoder": "was ranked by lexical, not by sentence-transformers/",
            "profile": "the profile of 'demo-ana' changed since the run"}[change]
    assert screens.frames == [] and says in screens.problem


def test_each_action_has_its_mark():
    assert marks("CLICK[10,20]", 100, 200) == [Dot(10, 20)]
    assert marks("LONG_CLICK[10,20]", 100, 200) == [Dot(10, 20, held=True)]
    assert marks("SWIPE[UP]", 100, 200) == [Arrow(50, 140, 50, 60)]  # the canonical gesture
    assert marks("TYPE[Rainy Night]", 100, 200) == [Caption("type “Rainy Night”")]
    assert marks("PRESS[BACK]", 100, 200) == [Caption("press BACK")]
    assert marks("COMPLETE", 100, 200) == [Caption("COMPLETE")]
    assert marks("'CLICK[oops]'", 100, 200, invalid="bad") == [Caption("invalid: 'CLICK[oops]'")]
    assert svg_marks([Dot(10, 20)], 100, 200).count('cx="10" cy="20"') == 2  # ring and dot


@pytest.mark.parametrize("size", [(1080, 2400), (1081, 2401), (720, 1601), (411, 915),
                                  (360, 800), (320, 480)])
def test_a_thumbnails_size_is_known_before_it_is_drawn(size):
    # The page gives each screen its height, so that an episode scrolls to its heading
    # before its screens load.
    frame = np.zeros((size[1], size[0], 3), np.uint8)
    assert thumbnail(frame).size == thumb_size(size)


def test_a_drawn_tap_lands_where_the_finger_was():
    frame = Image.new("RGB", (540, 1200), "white")
    drawn = np.asarray(draw_marks(frame.resize((270, 600)), [Dot(400, 1000)], 540))
    assert tuple(drawn[500, 200]) == COLOR  # (400, 1000) at half scale
    assert tuple(drawn[100, 100]) == (255, 255, 255)


def test_a_long_caption_is_cut_to_the_frame_with_a_margin():
    # Typed text longer than the frame ran off its right edge, cut without an ellipsis.
    drawn = np.asarray(draw_marks(Image.new("RGB", (270, 600), "white"),
                                  [Caption("type “" + "w" * 300 + "”")], 540))
    band = drawn[4:19]  # the caption's dark band, over the status bar
    assert (band[:, 20:100] > 128).any()  # the text is there
    assert (band[:, -8:] == (33, 33, 33)).all()  # and ends before the right margin


def test_a_gif_of_one_episode_shows_each_step_then_the_end(scripted_run, capsys):
    episodes = json.loads(scripted_run.read_text())["episodes"]
    assert main(["view", str(scripted_run), "--gif", "2"]) == 0
    gif = scripted_run.with_suffix(".2.gif")
    assert f"gif: {gif}" in capsys.readouterr().out
    with Image.open(gif) as image:
        assert image.n_frames == len(episodes[2]["steps"]) + 1
        assert image.width == 360
    assert not scripted_run.with_suffix(".html").exists()  # only what was asked for
    assert main(["view", str(scripted_run), "--gif", "demo-ben/G-SPT-02:common:explicit",
                 "--gif-out", str(scripted_run.parent / "ben.gif")]) == 0
    capsys.readouterr()
    assert main(["view", str(scripted_run), "--gif", "99"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "names no episode; give its number (0-5)" in err[0]
    # The example was demo-ana's whatever the run: a run given profiles' paths names
    # its users by them.
    assert err[0].endswith(f"or USER/TASK as the run names them, e.g. {episodes[0]['user']}/"
                           f"{episodes[0]['task']}")


def test_a_gif_cut_short_by_the_replay_says_so(scripted_run, tmp_path, capsys):
    # The GIF stopped where the replay left the run, and only the report said why: a
    # one-frame GIF came out with "gif: …" alone.
    data = json.loads(scripted_run.read_text())
    data["episodes"][0]["steps"][1]["route_after"] = "music/nowhere"
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(data))
    assert main(["view", str(edited), "--gif", "0"]) == 0
    said = capsys.readouterr()
    shown = len(data["episodes"][0]["steps"]) + 1
    assert f"gif: {edited.with_suffix('.0.gif')}" in said.out
    assert (f"gif: 2 of {shown} screens: the replay left the recorded run at step 2"
            in said.err.splitlines()[-1])
    with Image.open(edited.with_suffix(".0.gif")) as image:
        assert image.n_frames == 2


def test_view_of_something_else_is_one_line(tmp_path, capsys):
    (tmp_path / "x.json").write_text("[1, 2]")
    (tmp_path / "x.png").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")  # not text at all
    for path in (tmp_path / "x.json", tmp_path / "missing.json", tmp_path / "x.png"):
        assert main(["view", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert "is not the record of an evaluate run" in err[0] and "cannot read" in err[1]
    assert len(err) == 3 and "x.png' is not the record of an evaluate run" in err[2]


@pytest.mark.parametrize(("field", "value", "named"), [
    ("episodes", None, "'episodes' must be a list of objects"),
    ("episodes", [3], "'episodes' must be a list of objects"),
    ("scores", None, "'scores' must be an object, got NoneType"),
    ("scores", {"task_sr": "abc"}, "score 'task_sr' must be a number or null, got 'abc'"),
    ("scores", {"sar": [1]}, "score 'sar' must be a number or null, got [1]"),
    ("provenance", {"device": "sim"}, "its provenance's 'screen' must be [width, height]"),
])
def test_a_results_file_of_the_wrong_shape_is_one_line(scripted_run, tmp_path, capsys, field,
                                                       value, named):
    # Each was a TypeError traceback.
    data = json.loads(scripted_run.read_text())
    (tmp_path / "run.json").write_text(json.dumps({**data, field: value}))
    assert main(["view", str(tmp_path / "run.json")]) == 2
    assert named in capsys.readouterr().err


@pytest.mark.parametrize(("field", "value", "named"), [
    # Tracebacks from deep in the page ("can only join an iterable", "'int' object has no
    # attribute 'replace'", "'list' object has no attribute 'get'"), or, for one text, its
    # letters shown as the users and a false "Partial run" warning.
    ("users", None, "its provenance's 'users' must be a list of texts, got None"),
    ("users", "amara", "its provenance's 'users' must be a list of texts, got 'amara'"),
    ("tasks", 3, "its provenance's 'tasks' must be a list of texts, got 3"),
    ("encoder_fallback", 5, "its provenance's 'encoder_fallback' must be a text or null"),
    ("profiles_content", ["x"], "its provenance's 'profiles_content' must be an object of "
                                "texts, or null"),
])
def test_a_provenance_field_of_the_wrong_kind_is_one_line(scripted_run, tmp_path, capsys,
                                                          field, value, named):
    data = json.loads(scripted_run.read_text())
    data["provenance"][field] = value
    (tmp_path / "run.json").write_text(json.dumps(data))
    assert main(["view", str(tmp_path / "run.json"), "--html", str(tmp_path / "r.html")]) == 2
    assert named in capsys.readouterr().err and not (tmp_path / "r.html").exists()


@pytest.mark.parametrize(("field", "change", "named"), [
    ("subgoals", lambda names: names[:-1], r"episode 0: \d subgoals named and \d rewards; "
                                           "each subgoal has one"),
    ("seed", lambda seed: -5, r"episode 0: 'seed' must be an integer >= 0, got -5"),
])
def test_an_episode_of_the_wrong_shape_is_one_line(scripted_run, tmp_path, capsys, field,
                                                   change, named):
    # One subgoal name short was read, then view crashed in a zip deep in the page.
    data = json.loads(scripted_run.read_text())
    episode = data["episodes"][0]
    episode[field] = change(episode[field])
    (tmp_path / "run.json").write_text(json.dumps(data))
    assert main(["view", str(tmp_path / "run.json")]) == 2
    assert re.search(named, capsys.readouterr().err)


def test_a_cut_off_file_is_read_up_to_its_last_episode_whatever_follows(scripted_run,
                                                                         tmp_path):
    # Any line that parsed was taken as an episode: '5' was a TypeError traceback in view,
    # a half-overwritten scores' line a KeyError on --resume.
    lines = scripted_run.read_text().split("\n")
    cut = "\n".join([*lines[:2], "5,", lines[2][:20]])
    (tmp_path / "cut.json").write_text(cut)
    assert read_run(tmp_path / "cut.json").episodes == []  # read up to the first non-episode
    # A scores' tail half overwritten over the last episode: JSON, but no episode.
    tail = "\n".join([*lines[:3], '{"indexes": {"task_sr": 1.0}},', lines[4][:10]])
    (tmp_path / "tail.json").write_text(tail)
    assert len(read_run(tmp_path / "tail.json").episodes) == 1
    # Cut right after the provenance, or within the episodes' opening: no episode yet (it
    # was "not the record of an evaluate run", so neither view nor --resume took it).
    for kept in (lines[0], f"{lines[0]}\n", f"{lines[0]}\n{lines[1][:5]}"):
        (tmp_path / "head.json").write_text(kept)
        run = read_run(tmp_path / "head.json")
        assert run.episodes == [] and run.provenance == json.loads(
            scripted_run.read_text())["provenance"]
    (tmp_path / "head.json").write_text(lines[0][:40])  # within the provenance: refused
    with pytest.raises(ResultsFileError, match="its provenance line is damaged"):
        read_run(tmp_path / "head.json")


def test_episodes_whose_screens_cannot_be_rebuilt_say_why_and_the_others_show(
        scripted_run, tmp_path, capsys):
    # A task unknown here, a provenance without its pair settings (an older version's), an
    # instruction with a lone surrogate: each aborted the whole report with a traceback.
    data = json.loads(scripted_run.read_text())
    data["episodes"][1]["task"] = "G-NOPE-09:common:explicit"
    data["episodes"][2]["instruction"] = "Play \ud800 now"
    (tmp_path / "run.json").write_text(json.dumps(data))
    assert main(["view", str(tmp_path / "run.json")]) == 0
    page = (tmp_path / "run.html").read_text()
    assert "its screens cannot be rebuilt from the file" in page and "G-NOPE-09" in page
    assert "Play ? now" in page and page.count("<img") >= 4
    del data["provenance"]["pair"]
    (tmp_path / "old.json").write_text(json.dumps(data))
    assert main(["view", str(tmp_path / "old.json")]) == 0
    assert "KeyError: &#x27;pair&#x27;" in (tmp_path / "old.html").read_text()


def test_a_report_is_never_written_over_its_own_run(scripted_run, capsys):
    before = scripted_run.read_text()
    for option in ("--html", "--gif-out"):
        extra = ["--gif", "0"] if option == "--gif-out" else []
        assert main(["view", str(scripted_run), *extra, option, str(scripted_run)]) == 2
        assert f"{option} '{scripted_run}' is the run's own file" in capsys.readouterr().err
    assert scripted_run.read_text() == before


def test_a_report_replaces_an_earlier_report_but_no_other_file(scripted_run, tmp_path,
                                                               capsys):
    # --html overwrote whatever it named: another run's results, the agent's own script.
    others = {"other_run.json": scripted_run.read_text(), "my_agent.py": "class Agent: ...\n",
              "notes.html": "<!doctype html><title>my notes</title>"}
    for name, text in others.items():
        (tmp_path / name).write_text(text)
        assert main(["view", str(scripted_run), "--html", str(tmp_path / name)]) == 2
        err = capsys.readouterr().err
        assert f"{str(tmp_path / name)!r} holds a file that is not a report" in err
        assert (tmp_path / name).read_text() == text
    for name in ("earlier.html", "empty.html"):
        (tmp_path / name).write_text("")
        assert main(["view", str(scripted_run), "--html", str(tmp_path / name)]) == 0
    earlier = (tmp_path / "earlier.html").read_text()
    assert main(["view", str(scripted_run), "--html", str(tmp_path / "earlier.html")]) == 0
    assert (tmp_path / "earlier.html").read_text() == earlier  # a report replaces a report
    capsys.readouterr()
    assert main(["view", str(scripted_run), "--html", str(tmp_path / "rep.png")]) == 2
    assert "'rep.png' is no web page's: give --html a path ending in .html" in (
        capsys.readouterr().err.replace(str(tmp_path) + "/", ""))  # a page was written there
    assert not (tmp_path / "rep.png").exists()
    # A report an editor saved with a byte-order mark, a blank line or <!DOCTYPE is one still.
    for name, touched in {"bom.html": "\ufeff" + earlier, "blank.html": "\n" + earlier,
                          "upper.html": earlier.replace("<!doctype", "<!DOCTYPE", 1),
                          "newline.html": "\n"}.items():
        (tmp_path / name).write_text(touched, encoding="utf-8")
        assert main(["view", str(scripted_run), "--html", str(tmp_path / name)]) == 0, name


@pytest.mark.parametrize("cut", [0.5, 0.8])
def test_a_cut_off_results_file_is_read_to_its_last_whole_episode(scripted_run, tmp_path, cut):
    text = scripted_run.read_text()
    lines = text.split("\n")
    assert len(lines) == 2 + 6 + 3  # provenance, "episodes", six episodes, tail
    part = tmp_path / "cut.json"
    part.write_text(text[:int(len(text) * cut)])
    run = read_run(part)
    whole = json.loads(text)
    assert run.provenance == whole["provenance"]
    assert 0 < len(run.episodes) < 6 and run.episodes == whole["episodes"][:len(run.episodes)]


def test_the_report_shows_the_episodes_scores_and_says_where_the_file_differs(
        scripted_run, tmp_path, capsys):
    # A file's stored scores were shown as they were: edited by hand, or written by a
    # version that scored otherwise, the report showed scores its episodes do not hold.
    data = json.loads(scripted_run.read_text())
    truth = data["scores"]
    data["scores"] = {**truth, "task_sr": 1.0, "sar": 0.9}
    (tmp_path / "edited.json").write_text(json.dumps(data))
    capsys.readouterr()
    assert main(["view", str(tmp_path / "edited.json")]) == 0
    page = (tmp_path / "edited.html").read_text()
    assert f"<th>task_sr</th><td>{truth['task_sr']:.3f}</td>" in page and truth["task_sr"] < 1
    assert f"<th>sar</th><td>{truth['sar']:.3f}</td>" in page
    err = capsys.readouterr().err
    assert (f"the file's scores are not its episodes' (task_sr 1.000 stored, "
            f"{truth['task_sr']:.3f} from its episodes; sar 0.900 stored, "
            f"{truth['sar']:.3f} from its episodes)") in err
    assert main(["view", str(scripted_run), "--html", str(tmp_path / "same.html")]) == 0
    assert "scores are not" not in capsys.readouterr().err


def test_the_report_of_a_cut_off_file_scores_its_episodes_and_says_it_is_partial(
        scripted_run, tmp_path, capsys):
    # Its scores table was empty, and nothing on the page said the run was incomplete.
    text = scripted_run.read_text()
    part = tmp_path / "cut.json"
    part.write_text(text[:int(len(text) * 0.6)])
    done = read_run(part).episodes
    assert main(["view", str(part)]) == 0
    page = (tmp_path / "cut.html").read_text()
    expected = sum(e["success"] for e in done) / len(done)
    assert f"<th>task_sr</th><td>{expected:.3f}</td>" in page
    assert "<th>all_success</th><td>n/a</td>" in page  # undefined until every user is in
    assert f"Partial run: {len(done)} of 6 episodes" in page
    whole = tmp_path / "whole.html"
    assert main(["view", str(scripted_run), "--html", str(whole)]) == 0
    assert "Partial run" not in whole.read_text()


def frame_uris(page):
    start = page.index('<script type="application/json" id="frames">')
    return json.loads(page[page.index(">", start) + 1:page.index("</script>", start)])


def test_screens_stay_inside_the_page_up_to_the_limit(scripted_run, tmp_path):
    from mobileintent_gym.report.page import screens_folder, write_report

    page = write_report(read_run(scripted_run), tmp_path / "run.html",
                        frames_dir=scripted_run.parent)
    uris = frame_uris(page.read_text())
    assert uris and all(u.startswith("data:image/jpeg;base64,") for u in uris.values())
    assert not screens_folder(page).exists()


@pytest.mark.parametrize("step", ["write", "prune"])
def test_a_report_interrupted_while_writing_keeps_a_whole_one(scripted_run, tmp_path,
                                                              monkeypatch, step):
    # The screens' folder used to be swapped whole before the page: stopped while the old
    # folder was being deleted, the earlier page was left with most of its screens gone.
    from mobileintent_gym.report import page as module

    run = read_run(scripted_run)
    path = module.write_report(run, tmp_path / "run.html", inline_bytes=0)
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    real = getattr(module.FrameStore, step)

    def killed(self, folder, *rest):
        real(self, folder, *rest)
        raise KeyboardInterrupt  # the job is stopped at the end of this step

    monkeypatch.setattr(module.FrameStore, step, killed)
    shorter = RunRecord(run.provenance, run.episodes[:1], run.scores)
    with pytest.raises(KeyboardInterrupt):
        module.write_report(shorter, path, inline_bytes=0)
    after = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    shown = set(frame_uris(path.read_text()).values())
    assert shown and all((tmp_path / uri).is_file() for uri in shown)  # the page is whole
    if step == "write":  # the earlier report, untouched
        assert before.items() <= after.items() and after[path] == before[path]


def test_a_report_stopped_while_old_screens_go_keeps_the_page_s_screens(scripted_run, tmp_path,
                                                                      monkeypatch):
    # The review's case: Ctrl-C while the earlier screens folder was being deleted left the
    # new folder beside the earlier page, which then missed most of its screens.
    from mobileintent_gym.report import page as module

    run = read_run(scripted_run)
    path = module.write_report(run, tmp_path / "run.html", inline_bytes=0)
    real = shutil.rmtree

    def interrupted(folder, *args, **kwargs):
        if str(folder).endswith("-old"):
            raise KeyboardInterrupt
        return real(folder, *args, **kwargs)

    monkeypatch.setattr("mobileintent_gym.files.shutil.rmtree", interrupted)
    module.write_report(RunRecord(run.provenance, run.episodes[:1], run.scores), path,
                        inline_bytes=0)
    shown = set(frame_uris(path.read_text()).values())
    assert shown and all((tmp_path / uri).is_file() for uri in shown)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.html", "run_screens"]


def test_a_report_keeps_the_screens_another_page_of_its_stem_shows(scripted_run, tmp_path):
    # run.htm's report removed from run_screens/ the screens run.html showed.
    from mobileintent_gym.report import page as module

    run = read_run(scripted_run)
    html = module.write_report(run, tmp_path / "run.html", inline_bytes=0)
    shorter = RunRecord(run.provenance, run.episodes[:1], run.scores)
    htm = module.write_report(shorter, tmp_path / "run.htm", inline_bytes=0)
    for page in (html, htm):
        shown = set(frame_uris(page.read_text()).values())
        assert shown and all((tmp_path / uri).is_file() for uri in shown)
    assert len(frame_uris(htm.read_text())) < len(frame_uris(html.read_text()))
    htm.unlink()  # a page gone: its screens go at the next write of another
    module.write_report(shorter, html, inline_bytes=0)
    assert {p.name for p in (tmp_path / "run_screens").iterdir()} == {
        Path(uri).name for uri in frame_uris(html.read_text()).values()}


def test_a_large_run_keeps_its_screens_in_a_folder_beside_the_page(scripted_run, tmp_path):
    from mobileintent_gym.report.page import screens_folder, write_report

    folder = screens_folder(tmp_path / "run.html")
    (folder / "notes").mkdir(parents=True)  # what a report did not put there stays
    (folder / "0123456789abcdef.jpg").write_bytes(b"a screen of an earlier report")
    run = read_run(scripted_run)
    page = write_report(run, tmp_path / "run.html", frames_dir=scripted_run.parent,
                        inline_bytes=0)
    inline = frame_uris(write_report(run, tmp_path / "inline.html").read_text())
    uris = frame_uris(page.read_text())
    assert folder == tmp_path / "run_screens"
    assert uris == {key: f"run_screens/{key}.jpg" for key in inline}  # the same screens
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        [*(f"{k}.jpg" for k in inline), "notes"])
    # A page of the same stem that holds its screens leaves the folder as it is.
    write_report(run, tmp_path / "run.htm")
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        [*(f"{k}.jpg" for k in inline), "notes"])
    for key, uri in inline.items():  # each file is the JPEG the page would have held
        assert (folder / f"{key}.jpg").read_bytes() == base64.b64decode(uri.split(",")[1])
    assert "data:image/jpeg" not in page.read_text()


@pytest.mark.parametrize(("argv", "named"), [
    (["view", "RUN", "--gif", "0", "--gif-out", "OUT/episode"], "--gif-out"),
    (["view", "RUN", "--gif", "0", "--gif-out", "OUT/episode.jpg"], "an animation"),
    (["assist", "--out", "OUT/strip"], "--out"),
    (["contact-sheet", "--users", "demo-ana", "demo-ben", "--out", "OUT/sheet.txt"], "--out"),
    (["assist", "--out", "OUT/strip.xbm"], "colour image"),  # PIL lists XBM: black and white
])
def test_an_image_path_pil_cannot_write_is_refused_before_the_work(scripted_run, tmp_path,
                                                                   capsys, argv, named):
    # PIL refused the extension when saving, after the replay, the day played (9 s) or
    # the sheet rendered (48 s): a traceback, and for the GIF a KeyError.
    argv = [a.replace("RUN", str(scripted_run)).replace("OUT", str(tmp_path)) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert named in err and "cannot write" in err and "encoder:" not in err
    assert not list(tmp_path.iterdir())


def test_a_teacher_forced_episode_shows_which_reference_steps_the_agent_matched(
        scripted_run, tmp_path):
    # The run recorded them (SSR is their mean) and the report showed none.
    data = json.loads(scripted_run.read_text())
    data["episodes"][1]["teacher_forced"] = [True, False, True]
    (tmp_path / "forced.json").write_text(json.dumps(data))
    assert main(["view", str(tmp_path / "forced.json")]) == 0
    page = (tmp_path / "forced.html").read_text()
    section = page[page.index('id="episode-1"'):page.index('id="episode-2"')]
    assert ('<code><span class="ok">1</span><span class="no">0</span><span class="ok">1</span>'
            "</code>, 2 of 3</p>") in section
    assert page.count('class="forced"') == 1


def test_a_gif_out_without_a_gif_is_refused(scripted_run, tmp_path, capsys):
    # It wrote the HTML report and no GIF, without a word.
    out = tmp_path / "lonely.gif"
    assert main(["view", str(scripted_run), "--html", str(tmp_path / "r.html"),
                 "--gif-out", str(out)]) == 2
    assert capsys.readouterr().err == (f"mobileintent-gym view: --gif-out {str(out)!r} names "
                                       "the GIF of --gif EPISODE; give --gif too\n")
    assert not list(tmp_path.iterdir())


def test_a_run_of_users_found_through_the_environment_is_replayed_without_it(
        tmp_path, monkeypatch):
    # A profile found only in $MOBILEINTENT_GYM_PROFILES could not be replayed once the
    # variable was gone: the record kept --profiles alone ("no user profile 'zoe'").
    profile = json.loads((builtin_profiles_dir() / "demo-ana.json").read_text())
    profile["user_id"] = "zoe"
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "zoe.json").write_text(json.dumps(profile))
    monkeypatch.setenv(PROFILES_ENV, str(tmp_path / "mine"))
    out = tmp_path / "run.json"
    assert main(["evaluate", "--agent", "random", "--users", "zoe", "--seed", "1",
                 "--device", "sim:360x800", "--templates", "G-SPT-01", "--out", str(out)]) == 0
    monkeypatch.delenv(PROFILES_ENV)
    run = read_run(out)
    assert run.provenance["profiles_env"] == str((tmp_path / "mine").resolve())
    source = ScreenSource(run.provenance)
    screens = [source.screens(episode) for episode in run.episodes]
    source.close()
    assert [s.problem for s in screens] == [None] * 4
    assert [len(s.frames) for s in screens] == [len(e["steps"]) + 1 for e in run.episodes]


def test_a_run_whose_profiles_folder_is_gone_still_replays_its_built_in_users(tmp_path):
    # Once profiles_dir had to be a folder, a run made with --profiles could not be
    # replayed after the folder moved (or on another machine), built-in users included;
    # and a user of that folder, not found, failed every episode, built-in users' too.
    profile = json.loads((builtin_profiles_dir() / "demo-ben.json").read_text())
    (tmp_path / "prof").mkdir()
    (tmp_path / "prof" / "zoe.json").write_text(json.dumps({**profile, "user_id": "zoe"}))
    out = tmp_path / "run.json"
    assert main(["evaluate", "--agent", "random", "--users", "zoe", "demo-ana", "--profiles",
                 str(tmp_path / "prof"), "--device", "sim:360x800", "--tasks",
                 "G-SPT-02:common:explicit", "--out", str(out)]) == 0
    (tmp_path / "prof").rename(tmp_path / "moved")
    run = read_run(out)
    source = ScreenSource(run.provenance)
    zoe, ana = [source.screens(episode) for episode in run.episodes]
    edited = source.screens({**run.episodes[1], "task": "NOPE-99"})  # ana's: not the folder
    source.close()
    assert ana.problem is None and len(ana.frames) == len(run.episodes[1]["steps"]) + 1
    assert "no user profile 'zoe'" in zoe.problem and zoe.problem.endswith(
        f"(the run's profiles folder {str(tmp_path / 'prof')!r} is gone)")
    assert "NOPE-99" in edited.problem and "is gone" not in edited.problem


def test_the_page_marks_subgoals_whose_context_was_not_reached(tmp_path):
    # The index wrote every reward as 0 or 1 ("000" where the CLI says "0.."), and the
    # episode's list did not say which were reached: a reader recounting SAR got the
    # all-subgoals ratio.
    run, page = tmp_path / "run.json", tmp_path / "run.html"
    assert main(["evaluate", "--agent", "random", "--users", "demo-ana", "--tasks",
                 "G-SPT-02:common:explicit", "--out", str(run)]) == 0
    (episode,) = json.loads(run.read_text())["episodes"]
    assert episode["reached"] == [True, False, False]  # the random agent's seed 0 run
    assert main(["view", str(run), "--html", str(page)]) == 0
    html = page.read_text()
    assert '<td>0..</td>' in html
    assert html.count('class="unreached"') == 2 and html.count("context not reached") == 2
