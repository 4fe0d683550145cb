import pytest

from mobileintent_gym.phone import SimPhone, ui, widgets
from mobileintent_gym.phone.paint import (
    fitted,
    line_height,
    text_length,
    text_width,
    tile,
    wrap,
)
from mobileintent_gym.phone.render import ops_of
from mobileintent_gym.phone.ui import Column, Node, scroll_list, split_row
from mobileintent_gym.phone.widgets import Ctx


def test_column_hands_out_stacked_rectangles():
    col = Column((0, 0, 100, 500))
    assert col.take(50) == (0, 0, 100, 50)
    assert col.take_bottom(60) == (0, 440, 100, 500)
    assert col.rest() == (0, 50, 100, 440)


def test_split_row_shares_what_fixed_widths_leave():
    assert split_row((0, 0, 100, 10), [20, None, None]) == [
        (0, 0, 20, 10), (20, 0, 60, 10), (60, 0, 100, 10)]


def item(rect):
    return Node(ui.TEXT_VIEW, rect, text=str(rect[1])).add(
        Node(ui.IMAGE_VIEW, (rect[0], rect[1], rect[0] + 10, rect[1] + 10)))


def test_scroll_list_builds_only_visible_items_and_clips_bounds():
    items = [(100, item)] * 20
    node = scroll_list((0, 50, 300, 400), "k", items, 180)
    assert node.scroll_range == (180, 1650) and node.scrollable
    tops = [c.frame[1] for c in node.children]
    assert tops == [-30, 70, 170, 270, 370]
    assert node.children[0].bounds == (0, 50, 300, 70)
    assert node.children[0].children == []  # its icon is scrolled away
    assert node.children[-1].bounds == (0, 370, 300, 400)


def test_scroll_offset_is_clamped_to_the_content():
    node = scroll_list((0, 0, 300, 400), "k", [(100, item)] * 3, 999)
    assert node.scroll_range == (0, 0) and not node.scrollable
    assert len(node.children) == 3


def test_wrap_breaks_at_spaces_within_the_width_and_cuts_past_the_last_line():
    text = " ".join(["the quick brown fox jumps over the lazy dog"] * 3)
    lines = wrap(text, 40, False, 300, 99)
    assert len(lines) >= 5 and all(text_width(line, 40) <= 300 for line in lines)
    assert " ".join(lines).split() == text.split()  # every word, in order, none cut
    cut = wrap(text, 40, False, 300, 2)
    assert cut[0] == lines[0] and cut[1].endswith("…") and len(cut) == 2
    assert text_width(cut[1], 40) <= 300
    assert wrap("", 40, False, 300, 3) == ("",)


def test_a_word_wider_than_a_line_is_broken_across_lines_not_cut():
    # A link in a chat bubble was drawn as "https://example.com/a/very/long/pa…" and its
    # end never shown, while the dump held it whole.
    link = "https://example.com/a/very/long/path/that/has/no/spaces/at/all/END"
    lines = wrap(f"see {link} ok", 40, False, 300, 99)
    assert lines[0] == "see" and lines[-1].endswith(" ok") and len(lines) >= 4
    assert "".join(lines[1:]) == link + " ok"  # every character, in order
    assert all(text_width(line, 40) <= 300 for line in lines)
    cut = wrap("x" * 200, 40, False, 300, 3)
    assert cut[0] == cut[1] and set(cut[0]) == {"x"} and cut[2].endswith("…")
    assert text_width(cut[0] + "x", 40) > 300  # each piece as long as fits
    assert len(wrap("W", 40, False, 5, 2)) == 1  # a glyph wider than the line: one line
    # Broken between whole characters: no line ends in a joiner or starts with a skin tone.
    for text in ("👨\u200d👩\u200d👧" * 6, "ab👍🏽" * 10):
        lines = wrap(text, 16, False, 60, 9)
        assert "".join(lines) == text and len(lines) > 1
        assert not any(line.endswith("\u200d") or line[0] in "🏽\u200d" for line in lines)


def test_each_newline_starts_a_line_and_an_empty_paragraph_is_an_empty_line():
    # Newlines were spaces to the wrap: a message typed on four lines was drawn on one,
    # while the dump gave its four lines.
    assert wrap("first line\nsecond line\n\nfourth", 40, False, 500, 99) == (
        "first line", "second line", "", "fourth")
    assert wrap("\nhi\n", 40, False, 500, 99) == ("hi",)  # around the text: nothing
    assert wrap("a\nb", 40, False, 500, 1) == ("a…",)  # the next line is left over
    # A blank last line stays blank but for the "…": later paragraphs are not pulled up.
    assert wrap("a\n\n" + "b\n" * 100, 40, False, 300, 2) == ("a", "…")
    assert wrap("short\n" + "x" * 200, 40, False, 300, 2)[1].endswith("…")


def test_a_paragraph_is_as_high_as_its_lines_and_measured_once():
    phone = SimPhone()
    app = phone.apps["music"]
    ctx = Ctx(1080, 2400, 2.625, (0, 0, 1080, 2400), app.theme, app.package)
    text = "a paragraph long enough to need several lines on a phone screen " * 4
    wrap.cache_clear()
    node = widgets.paragraph(ctx, (0, 100, 600, 2000), text, 16)
    lines = wrap(text, ctx.dp(16), False, 600, widgets.WHOLE)
    assert node.frame == (0, 100, 600, 100 + len(lines) * line_height(ctx.dp(16)))
    drawn = ops_of(node.frame, node.paint, None)  # painting reads the same layout
    assert [op[1].text for op in drawn] == list(lines) and wrap.cache_info().misses == 1
    short = widgets.paragraph(ctx, (0, 100, 600, 2000), "one line", 16)
    assert short.frame[3] - short.frame[1] == line_height(ctx.dp(16))


def test_a_label_tile_measures_its_text_once():
    from mobileintent_gym.phone.paint import Label

    text_length.cache_clear()
    label = Label("Open Water · Lena Park", 40, (20, 20, 20), (255, 255, 255), align="center")
    pixels, dx, _ = tile(label, 1000, 60)  # cut to the text, then painted there
    assert text_length.cache_info().misses == 1 and dx > 0
    # Cut to the ink: no wider than the text's advance, short of it by the side bearings.
    assert text_width(label.text, 40) - 8 <= pixels.shape[1] <= text_width(label.text, 40)
    text = "A title far too long to fit on one narrow line of a card"
    line, length = fitted(text, 40, True, 300)
    assert line.endswith("…") and length == text_length(line, 40, True) <= 300
    assert text_length(text, 40, True) > 300


def test_a_focused_field_longer_than_its_box_shows_its_end_and_cursor():
    # It showed the start cut with "…": neither what was just typed nor the cursor.
    ctx = Ctx(720, 1280, 1.75, (0, 0, 720, 1280), widgets.Theme(*[(250, 250, 250)] * 7), "p")
    value = "Meet at the north entrance of the station at 7pm, bring tickets, ROOM 42"
    rect = (0, 0, 400, 80)

    def painted(focused):
        box = widgets.text_field(ctx, rect, "draft", value, "Message", focused=focused)
        assert box.text == value  # the dump holds the whole text either way
        return box.children[0].paint.text

    shown = painted(True)
    assert shown.startswith("…") and shown.endswith("ROOM 42|")
    assert value.endswith(shown[1:-1]) and text_width(shown, ctx.dp(16)) <= 400 - ctx.dp(24)
    assert painted(False) == value  # unfocused: the start, cut where it is painted


@pytest.mark.parametrize(("count", "shown", "text"), [
    (1, None, "1 like"), (0, None, "0 likes"), (7, None, "7 likes"),
    (1204, None, "1,204 likes"), (12_500, "12.5K", "12.5K likes"),
])
def test_counts_are_written_with_their_nouns_singular_for_one(count, shown, text):
    # "1 others" in a meeting room, "1 likes" under a Moment.
    assert widgets.counted(count, "like", shown) == text
