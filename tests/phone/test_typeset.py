"""Text set from cached glyphs equals Pillow's own drawing of it, pixel for pixel.

Pillow's ``ImageDraw.text`` is the reference: tiles were drawn with it before the glyph
cache, and screenshots must not change because text is now set from cached glyphs.
"""

import math
import random

import numpy as np
import pytest
from PIL import Image, ImageDraw

from mobileintent_gym.phone import icons, typeset
from mobileintent_gym.phone.characters import cut_after, cut_before
from mobileintent_gym.phone.paint import (
    Fill,
    Icon,
    Label,
    Round,
    fit_end,
    fit_text,
    fitted,
    font,
    line_height,
    tile,
    wrap,
)
from mobileintent_gym.phone.render import Renderer, ops_of

WORDS = ["The", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "Ärger", "café",
         "naïve", "Тест", "Ωmega", "fjord", "tiffany", "rt", "ff", "12:45", "$3.99", "…", "«»",
         "¿?", "—", "中文", "\x07", "☺", "‘quoted’", "Wy", "To", "LT"]


def pillow_line(size, bold, x, y, text, ink, under, width, height):
    image = Image.new("RGB", (width, height), under)
    ImageDraw.Draw(image).text((x, y), text, fill=ink, font=font(size, bold), anchor="lm")
    return np.asarray(image)


def cases(count, seed):
    rng = random.Random(seed)
    for _ in range(count):
        size = rng.choice([14, 18, 21, 28, 36, 42, 48, 63, 91])
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 6)))
        # Positions off the canvas and fractional ones on both sides of zero included.
        x = rng.choice([0, 0.5, 3.25, -7.5, -0.5, rng.uniform(-40, 300)])
        y = rng.choice([10.5, 20, rng.uniform(-10, 90)])
        yield (size, rng.random() < 0.4, x, y, text, tuple(rng.randrange(256) for _ in range(3)),
               tuple(rng.randrange(256) for _ in range(3)), rng.randint(1, 500),
               rng.randint(1, 100))


@pytest.mark.parametrize("seed", range(4))
def test_set_line_equals_pillow_text(seed):
    for size, bold, x, y, text, ink, under, width, height in cases(250, seed):
        alpha = np.zeros((height, width), np.uint8)
        typeset.set_line(alpha, x, y, text, font(size, bold))
        ours = typeset.ink_table(ink, under)[alpha]
        expected = pillow_line(size, bold, x, y, text, ink, under, width, height)
        assert np.array_equal(ours, expected), (text, size, bold, x, y, width, height)


def test_overlapping_glyphs_join_as_pillow_joins_them():
    # "ff", "fj" and "rt" overlap in Roboto: the second glyph's coverage adds to the first.
    alpha = np.zeros((60, 200), np.uint8)
    typeset.set_line(alpha, 2, 30, "ffjrt", font(48))
    expected = pillow_line(48, False, 2, 30, "ffjrt", (255, 255, 255), (0, 0, 0), 200, 60)
    assert np.array_equal(np.repeat(alpha[..., None], 3, axis=2), expected)
    assert alpha.max() == 255


def pillow_frame(p, width, height):
    """A label drawn with Pillow the way tiles were drawn before the glyph cache: in a box
    as wide as the text (one line) and as tall as its lines, centred in the frame."""
    frame = np.empty((height, width, 3), np.uint8)
    frame[...] = p.under
    shown = wrap(p.text, p.size, p.bold, width, p.lines) if p.lines > 1 else (p.text,)
    box_width, dx = width, 0
    if p.lines == 1:
        box_width = min(width, math.ceil(fitted(p.text, p.size, p.bold, width)[1]) + 4)
        dx = {"left": 0, "right": width - box_width}.get(p.align, (width - box_width) // 2)
    step = line_height(p.size)
    dy = max(0, (height - step * len(shown)) // 2)
    image = Image.new("RGB", (box_width, min(height, step * len(shown))), p.under)
    draw = ImageDraw.Draw(image)
    for i, text in enumerate(shown):
        line, length = fitted(text, p.size, p.bold, box_width)
        x = {"left": 0, "right": box_width - length - 2}.get(p.align, (box_width - length) / 2)
        draw.text((x, i * step + step / 2), line, fill=p.color, font=font(p.size, p.bold),
                  anchor="lm")
    frame[dy:dy + image.height, dx:dx + box_width] = np.asarray(image)
    return frame


def pillow_lines(p, width, height):
    """A wrapping label as its lines, each drawn as a one-line label in a box one line tall."""
    frame = np.empty((height, width, 3), np.uint8)
    frame[...] = p.under
    shown = wrap(p.text, p.size, p.bold, width, p.lines)
    step = line_height(p.size)
    top = max(0, (height - step * len(shown)) // 2)
    for i, line in enumerate(shown):
        one = pillow_frame(Label(line, p.size, p.color, p.under, p.bold, p.align), width, step)
        frame[top + i * step:top + (i + 1) * step] = one[:max(0, height - top - i * step)]
    return frame


def rendered(p, width, height):
    """``p`` drawn by the renderer in a ``width × height`` frame on its background."""
    box = (0, 0, width, height)
    return Renderer(width, height).render([(box, Fill(p.under), None), *ops_of(box, p, None)])


def random_label(rng, lines, align=None):
    text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 12)))
    return Label(text, rng.choice([21, 36, 42]), (20, 20, 20), (250, 248, 240),
                 rng.random() < 0.5, align or rng.choice(["left", "center", "right"]), lines)


def test_label_tiles_cut_to_their_ink_paint_what_pillow_paints():
    rng = random.Random(1)
    for _ in range(120):
        p, width = random_label(rng, 1), rng.randint(60, 900)
        pixels, dx, dy = tile(p, width, 300)
        frame = np.empty((300, width, 3), np.uint8)
        frame[...] = p.under
        frame[dy:dy + pixels.shape[0], dx:dx + pixels.shape[1]] = pixels
        assert np.array_equal(frame, pillow_frame(p, width, 300)), (p.text, width)
        assert np.array_equal(rendered(p, width, 300), frame)
        # Cut to the ink: every edge row and column of the tile has some.
        assert (pixels[0] != p.under).any() and (pixels[-1] != p.under).any()
        assert (pixels[:, 0] != p.under).any() and (pixels[:, -1] != p.under).any()


@pytest.mark.parametrize("lines", [2, 3])
def test_wrapping_text_is_drawn_line_by_line_as_pillow_draws_it(lines):
    rng = random.Random(lines)
    for _ in range(60):
        p, width = random_label(rng, lines), rng.randint(60, 900)
        height = rng.choice([300, line_height(p.size) * lines - 7])  # roomy, or cut short
        assert np.array_equal(rendered(p, width, height), pillow_lines(p, width, height)), (
            p.text, width, height)
    for _ in range(30):  # left-aligned paragraphs: exactly Pillow's drawing of the block
        p, width = random_label(rng, lines, "left"), rng.randint(60, 900)
        height = rng.choice([300, line_height(p.size) * lines - 7])
        assert np.array_equal(rendered(p, width, height), pillow_frame(p, width, height)), (
            p.text, width, height)


def test_wrapped_lines_out_of_view_are_not_drawn():
    p = Label(" ".join(WORDS[:20]), 36, (20, 20, 20), (250, 248, 240), lines=6)
    step = line_height(36)
    clip = (0, 0, 400, step * 2)  # a scrolling parent showing the first two lines
    ops = ops_of((0, 0, 400, step * 6), p, clip)
    lines = wrap(p.text, 36, False, 400, 6)
    assert len(lines) > 2 and [op[1].text for op in ops] == list(lines[:2])
    renderer = Renderer(400, step * 6)
    renderer.render([((0, 0, 400, step * 6), Fill(p.under), None), *ops])
    assert {key[0].text for key in renderer.tiles._tiles} == set(lines[:2])


def test_text_over_shapes_blends_with_the_shape_under_it():
    button = Round((33, 150, 243), (255, 255, 255), 24, "Follow", (255, 255, 255), 36)
    pixels, _, _ = tile(button, 300, 96)
    image = Image.new("RGB", (300, 96), button.under)
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((0, 0, 299, 95), radius=24, fill=button.color)
    line, length = fitted("Follow", 36, True, 300)
    draw.text(((300 - length) / 2, 48), line, fill=(255, 255, 255), font=font(36, True),
              anchor="lm")
    assert np.array_equal(pixels, np.asarray(image))
    assert (pixels == 255).all(axis=2).sum() > 300  # the white label is there


def test_badge_digits_are_set_on_the_badge():
    pixels, _, _ = tile(Icon("heart", (90, 90, 90), (255, 255, 255), 72, "12"), 96, 96)
    image = Image.new("RGB", (96, 96), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    icons.draw(draw, "heart", (12, 12, 72), (90, 90, 90), (255, 255, 255))
    draw.ellipse((57, 3, 93, 39), fill=(235, 64, 52))
    line, length = fitted("12", 21, True, 36)
    draw.text((57 + (36 - length) / 2, 21), line, fill=(255, 255, 255), font=font(21, True),
              anchor="lm")
    assert np.array_equal(pixels, np.asarray(image))


def test_a_size_keeps_its_face_and_glyphs_while_other_sizes_are_used():
    # Glyphs are cached per face: a face made again would render every glyph again.
    first = font(14)
    typeset.set_line(np.zeros((40, 200), np.uint8), 0, 20, "abc", first)
    misses = typeset._glyph.cache_info().misses
    for size in range(15, 90):  # more sizes and weights than a 64-face cache holds
        font(size), font(size, True)
    assert font(14) is first
    typeset.set_line(np.zeros((40, 200), np.uint8), 0, 20, "abc", font(14))
    assert typeset._glyph.cache_info().misses == misses


@pytest.mark.parametrize("text", [
    "Caf" + "e\u0301" * 40,  # an accent left alone, or its letter without it
    "\U0001f1fa\U0001f1f8\U0001f1ec\U0001f1e7" * 30,  # flags paired anew: US GB read BU
    "x\U0001f44d\U0001f3fd" * 30,  # a skin tone without its thumb
    " ".join(["\U0001f468\u200d\U0001f469\u200d\U0001f467"] * 20),
])
def test_a_line_cut_to_fit_keeps_whole_characters(text):
    cut, shown_end = fit_text(text, font(40, False), 300), fit_end(text, 40, 300)
    assert cut.endswith("…") and text.startswith(cut[:-1].rstrip())
    assert shown_end.startswith("…") and text.endswith(shown_end[1:])
    # what is kept ends or starts where a character of the whole text does
    assert cut_before(text, len(cut[:-1].rstrip())) == len(cut[:-1].rstrip())
    assert cut_after(text, len(text) - len(shown_end) + 1) == len(text) - len(shown_end) + 1


def test_a_line_breaks_at_spaces_but_never_at_a_no_break_space():
    # "1\u00a0234\u00a0567 km" (a number as many locales group it) broke inside the number.
    number = "1\u00a0234\u2007567\u202fkm"  # no-break, figure and narrow no-break spaces
    assert wrap(f"Total distance: {number}", 30, False, 260, 3) == ("Total distance:", number)
    assert fit_text(f"a  {number}", font(30, False), 1000) == f"a {number}"


def test_a_line_cut_to_fit_ends_in_no_space_before_its_ellipsis():
    face = font(40, False)
    for width in range(120, 400, 7):
        cut = fit_text("aaaa bbbb cccc dddd eeee ffff", face, width)
        assert not cut.endswith(" …") and cut.endswith("…")
