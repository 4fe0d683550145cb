import numpy as np
import pytest

from mobileintent_gym.actions import Action
from mobileintent_gym.phone import SimPhone, chrome
from mobileintent_gym.phone.paint import Fill, Label, Round
from mobileintent_gym.phone.render import Renderer, initials, ops_of
from tests.helpers import press

STEPS = ("SWIPE[UP]", "SWIPE[UP]", "SWIPE[DOWN]", "PRESS[BACK]", "PRESS[HOME]")


def fresh_frame(phone):
    """The current screen drawn from scratch by a renderer with no history or cache."""
    return Renderer(phone.width, phone.height, cache=False).render(
        chrome.frame_ops(phone, phone._current())[0])


def test_incremental_frames_equal_frames_drawn_from_scratch():
    phone = SimPhone()
    phone.screenshot()
    press(phone, text="Music", resource_id="icon")
    walk = [lambda: press(phone, desc="Your Library"),
            lambda: press(phone, resource_id="liked_songs"),
            *[lambda s=s: phone.act(s) for s in STEPS[:3]],
            lambda: press(phone, resource_id="more"),
            lambda: phone.act("PRESS[BACK]"),
            lambda: press(phone, resource_id="track"),
            lambda: phone.act("PRESS[HOME]"),
            lambda: press(phone, text="Chat", resource_id="icon"),
            lambda: press(phone, resource_id="chat"),
            lambda: press(phone, resource_id="input"),
            lambda: phone.act("TYPE[hello there]"),
            lambda: press(phone, resource_id="send")]
    for step in walk:
        step()
        assert np.array_equal(phone.screenshot(), fresh_frame(phone))


def test_frames_are_read_only_and_never_change_afterwards():
    phone = SimPhone()
    phone.open("music", "music/library/liked")
    first = phone.screenshot()
    kept = first.copy()
    with pytest.raises(ValueError):
        first[0, 0] = 0
    phone.act("SWIPE[UP]")
    second = phone.screenshot()
    assert not np.array_equal(first, second)
    assert np.array_equal(first, kept)


def test_unchanged_screen_returns_the_same_frame():
    phone = SimPhone()
    phone.open("music")
    frame = phone.screenshot()
    phone.act(Action.click(5, 700))  # empty space: no effect
    assert phone.screenshot() is frame


def test_frame_shows_what_the_ops_say():
    renderer = Renderer(400, 300)
    ops = [((0, 0, 400, 300), Fill((10, 20, 30)), None),
           ((100, 100, 200, 150), Fill((200, 0, 0)), None)]
    frame = renderer.render(ops)
    assert tuple(frame[0, 0]) == (10, 20, 30) and tuple(frame[120, 150]) == (200, 0, 0)
    moved = [ops[0], ((100, 160, 200, 210), Fill((200, 0, 0)), (0, 0, 400, 200))]
    frame = renderer.render(moved)
    assert tuple(frame[120, 150]) == (10, 20, 30)
    assert tuple(frame[180, 150]) == (200, 0, 0) and tuple(frame[205, 150]) == (10, 20, 30)


def test_text_tiles_draw_dark_pixels_on_light_background():
    renderer = Renderer(400, 100)
    frame = renderer.render([((0, 0, 400, 100), Fill((255, 255, 255)), None),
                             ((10, 10, 390, 90), Label("Hello", 40, (0, 0, 0),
                                                       (255, 255, 255)), None)])
    dark = (frame.sum(axis=2) < 200)
    assert dark.sum() > 200
    cols = np.flatnonzero(dark.any(axis=0))
    assert cols.min() >= 10 and cols.max() < 200  # left aligned, cropped to the text


@pytest.mark.parametrize("align", ["left", "center", "right"])
def test_text_lines_up_as_asked(align):
    white = (255, 255, 255)
    frame = Renderer(400, 100).render([
        ((0, 0, 400, 100), Fill(white), None),
        ((10, 10, 390, 90), Label("-310.00", 40, (0, 0, 0), white, True, align), None)])
    cols = np.flatnonzero((frame.sum(axis=2) < 200).any(axis=0))
    left, right = cols.min() - 10, 390 - cols.max()
    assert {"left": left < 8, "center": abs(left - right) < 8, "right": right < 8}[align]
    assert left + right > 200  # the text is narrow: only one side can be near its edge


def test_tile_cache_stays_within_budget():
    renderer = Renderer(600, 600, budget_bytes=200_000)
    for i in range(50):
        renderer.render([((0, 0, 600, 600), Fill((0, 0, 0)), None),
                         ((0, 0, 600, 100), Label(f"row {i}", 30, (255, 255, 255),
                                                  (0, 0, 0)), None)])
    assert renderer.tiles.bytes <= 200_000


def test_large_rounded_rectangle_becomes_a_nine_patch_with_the_same_pixels():
    paint = Round((40, 40, 40), (0, 0, 0), 30)
    frame = (20, 20, 580, 480)
    ops = ops_of(frame, paint, None)
    assert len(ops) == 7
    patched = Renderer(600, 500).render([((0, 0, 600, 500), Fill((0, 0, 0)), None), *ops])
    whole = Renderer(600, 500).render([((0, 0, 600, 500), Fill((0, 0, 0)), None),
                                       (frame, paint, None)])
    assert np.abs(patched.astype(int) - whole.astype(int)).max() <= 40
    assert (patched != whole).any(axis=2).mean() < 0.001


def test_a_frame_held_only_through_a_view_or_a_buffer_is_not_drawn_over():
    phone = SimPhone()
    phone.open("music", "music/library/liked")
    half = phone.screenshot()[::2]  # the frame itself is dropped, a view keeps it alive
    kept = half.copy()
    phone.act("SWIPE[UP]")
    buffer = memoryview(phone.screenshot())  # as a tensor sharing its memory would
    pixels = bytes(buffer)
    phone.act("SWIPE[UP]")
    phone.screenshot()
    assert np.array_equal(half, kept)
    assert bytes(buffer) == pixels


def test_a_dropped_frame_is_reused_in_place():
    phone = SimPhone()
    phone.open("music", "music/library/liked")
    address = phone.screenshot().__array_interface__["data"][0]
    phone.act("SWIPE[UP]")
    assert phone.screenshot().__array_interface__["data"][0] == address


def test_frames_held_two_deep_are_never_drawn_over():
    phone = SimPhone()
    phone.open("music", "music/library/liked")
    frames = [phone.screenshot()]
    for step in ["SWIPE[UP]", "SWIPE[UP]", "SWIPE[DOWN]", "PRESS[BACK]"]:
        phone.act(step)
        frames.append(phone.screenshot())
    kept = [f.copy() for f in frames]
    phone.act("PRESS[HOME]")
    phone.screenshot()
    assert all(np.array_equal(f, k) for f, k in zip(frames, kept, strict=True))
    assert len({f.__array_interface__["data"][0] for f in frames}) == len(frames)


def test_artwork_initials_skip_words_that_are_not_words():
    assert initials("Hearth & Home Goods") == "HH"
    assert initials("Paper Lanterns") == "PL" and initials("Ana") == "A"
    assert initials("- 42 Steps") == "4S" and initials("& -") == "?"


def test_a_fresh_frame_is_a_copy_only_while_the_last_one_is_held():
    phone = SimPhone()
    phone.open("music")
    frame = phone.screenshot()
    again = phone.screenshot(fresh=True)
    assert again is not frame and np.array_equal(again, frame) and not again.flags.writeable
    address = again.__array_interface__["data"][0]
    del frame, again
    assert phone.screenshot(fresh=True).__array_interface__["data"][0] == address


def test_fill_rows_are_kept_for_recent_colours_only():
    renderer = Renderer(64, 32)
    for i in range(1000):  # artwork brings a colour per record
        color = (i % 256, i // 256, 7)
        frame = renderer.render([((0, 0, 64, 32), Fill(color), None)])
        assert tuple(frame[5, 5]) == color
    assert len(renderer._rows) == 256


def canvases(phone, count):
    """``count`` canvases over one buffer, as rows of shared memory are, added as 0, 1 …

    Only the phone holds the canvases; the caller reads and writes them through the whole
    buffer that comes back (``count × H × W × 3``), which holds none of them.
    """
    backing = bytearray(count * phone.height * phone.width * 3)
    shape = (phone.height, phone.width, 3)
    for key in range(count):
        phone.add_canvas(key, np.ndarray(shape, np.uint8, backing, key * int(np.prod(shape))))
    return np.frombuffer(backing, np.uint8).reshape(count, *shape)


def test_frames_drawn_into_canvases_equal_frames_drawn_from_scratch():
    # Two canvases taking turns with the phone's own buffers: each frame is drawn over
    # what that canvas showed one or more frames before, and must come out whole.
    phone = SimPhone()
    rows = canvases(phone, 2)
    phone.open("music", "music/library/liked")
    steps = [*STEPS, "SWIPE[UP]", "PRESS[BACK]"]
    for step, key in zip(steps, [0, 0, 1, 1, 0, 1, 0], strict=True):
        phone.act(step)
        phone.draw_into(key)
        frame = phone.screenshot()
        phone.draw_into(None)
        assert np.shares_memory(frame, rows[key]) and not frame.flags.writeable
        assert np.array_equal(frame, fresh_frame(phone))
        del frame
        assert not np.shares_memory(phone.screenshot(), rows)


def test_a_canvas_held_through_a_view_is_not_drawn_over():
    phone = SimPhone()
    rows = canvases(phone, 1)
    phone.open("music", "music/library/liked")
    phone.draw_into(0)
    half = phone.screenshot()[::2]  # the frame itself is dropped, a view keeps it alive
    kept = half.copy()
    phone.act("SWIPE[UP]")
    frame = phone.screenshot()
    assert np.array_equal(half, kept) and not np.shares_memory(frame, rows)
    assert np.array_equal(frame, fresh_frame(phone))
    del half, frame
    phone.act("SWIPE[UP]")
    assert np.shares_memory(phone.screenshot(), rows)  # let go of: drawn there again


def test_a_canvas_added_again_after_a_write_is_drawn_whole():
    phone = SimPhone()
    rows = canvases(phone, 1)
    phone.draw_into(0)
    phone.screenshot()
    rows[0] = 7  # written by someone else: the canvas no longer shows its last frame
    phone.add_canvas(0, np.ndarray(rows.shape[1:], np.uint8, rows.base))
    frame = phone.screenshot()
    assert np.shares_memory(frame, rows) and np.array_equal(frame, fresh_frame(phone))


def test_a_bad_canvas_or_key_is_refused_by_name():
    phone = SimPhone(540, 1200)
    expected = r"\(1200, 540, 3\).*int64 array of shape \(1200, 540, 3\)"
    with pytest.raises(ValueError, match=expected):
        phone.add_canvas(0, np.zeros((1200, 540, 3), np.int64))
    with pytest.raises(ValueError, match=r"shape \(540, 1200, 3\)"):
        phone.add_canvas(0, np.zeros((540, 1200, 3), np.uint8))
    with pytest.raises(ValueError, match="not a writable C array"):
        phone.add_canvas(0, np.zeros((1200, 1080, 3), np.uint8)[:, ::2])
    with pytest.raises(ValueError, match="no canvas named 'left'"):
        phone.draw_into("left")
    for call in (phone.draw_into, lambda key: phone.add_canvas(key, np.zeros((1200, 540, 3),
                                                                             np.uint8))):
        with pytest.raises(ValueError, match=r"a canvas key must be hashable, got \['k'\]"):
            call(["k"])  # a TypeError from inside the renderer's dict
    assert np.array_equal(phone.screenshot(), fresh_frame(phone))  # nothing changed


def test_the_own_buffer_is_kept_while_frames_are_taken_from_it_between_canvas_frames():
    # As a vector env worker whose env is also rendered between steps: the own buffer
    # stays and is drawn over incrementally; once frames go to the canvas only, it goes.
    phone = SimPhone()
    canvases(phone, 1)
    renderer = phone._renderer
    phone.open("music", "music/library/liked")
    for index, step in enumerate(["SWIPE[UP]", "SWIPE[UP]", "SWIPE[DOWN]"]):
        phone.act(step)
        phone.draw_into(0)
        phone.screenshot()
        phone.draw_into(None)
        assert index == 0 or renderer._own.pixels is not None  # kept since the first
        assert np.array_equal(phone.screenshot(), fresh_frame(phone))
    phone.draw_into(0)
    for step in ["SWIPE[DOWN]", "SWIPE[UP]"]:  # each changes the screen
        phone.act(step)
        assert np.array_equal(phone.screenshot(), fresh_frame(phone))
    assert renderer._own.pixels is None


def test_a_canvas_behind_the_last_frame_copies_what_changed_instead_of_painting(monkeypatch):
    # The vector env's pattern: two canvases in turn, each a frame or two behind.
    phone = SimPhone()
    rows = canvases(phone, 2)
    phone.open("music", "music/library/liked")
    painted = []
    paint = Renderer._paint
    monkeypatch.setattr(Renderer, "_paint", lambda self, buf, ops, region, *rest: (
        painted.append((region[2] - region[0]) * (region[3] - region[1])),
        paint(self, buf, ops, region, *rest)))
    whole = phone.width * phone.height
    # Canvas 0 drawn whole; canvas 1, never drawn, copies that frame and paints nothing;
    # canvas 0 paints what the swipe changed; canvas 1, a frame behind, copies it.
    for key, step, area in [(0, None, whole), (1, None, 0), (0, "SWIPE[UP]", "some"),
                            (1, None, 0)]:
        if step:
            phone.act(step)
        painted.clear()
        phone.draw_into(key)
        frame = phone.screenshot()
        phone.draw_into(None)
        drawn = sum(painted)
        assert drawn > 0 if area == "some" else drawn == area
        assert np.shares_memory(frame, rows[key])
        assert np.array_equal(frame, fresh_frame(phone))
        del frame
