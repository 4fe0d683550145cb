"""A messenger's parts: bubbles on their sender's side as wide as their text, Send enabled
by a draft, and taking the draft."""

from mobileintent_gym.phone import messenger
from mobileintent_gym.phone.app import Entry
from mobileintent_gym.phone.paint import Avatar, Label, line_height, wrap
from mobileintent_gym.phone.widgets import MAX_FIELD_LENGTH, Ctx, Theme

WHITE, GREEN, GREY = (255, 255, 255), (149, 236, 105), (237, 237, 237)
THEME = Theme(WHITE, GREY, (25, 25, 25), (128, 128, 128), GREEN, GREY, (229, 229, 229))
CTX = Ctx(1080, 2400, 2.625, (0, 0, 1080, 2400), THEME, "com.example.talk")
STYLE = messenger.BubbleStyle(GREEN, (25, 25, 25), WHITE, GREY)
FACE = Avatar("a", "Ana Lima", GREY)


def bubble(text, mine):
    rect = (0, 0, 1080, messenger.bubble_height(CTX, text))
    row = messenger.bubble_row(CTX, rect, text, FACE, mine=mine, style=STYLE)
    return next(n for n in row.walk() if n.text == text)


def test_own_messages_stand_right_and_others_left_as_wide_as_their_text():
    mine, theirs = bubble("ok", mine=True), bubble("ok", mine=False)
    assert mine.resource_id == "com.example.talk:id/message_out"
    assert theirs.resource_id == "com.example.talk:id/message_in"
    assert mine.bounds[0] > 540 > theirs.bounds[2]
    assert mine.bounds[2] - mine.bounds[0] == theirs.bounds[2] - theirs.bounds[0] < 200


def test_a_long_message_wraps_into_a_taller_bubble_and_its_row_follows():
    short, long = "See you", "The pitch is booked for Thursday at eight, bring the ball " * 3
    assert messenger.bubble_height(CTX, long) > 2 * messenger.bubble_height(CTX, short)
    tall = bubble(long, mine=False)
    assert tall.bounds[3] - tall.bounds[1] > 3 * (bubble(short, False).bounds[3]
                                                  - bubble(short, False).bounds[1]) / 2
    assert tall.bounds[2] < 1080 - CTX.dp(40)  # never under the other side's avatar column


def test_a_message_of_several_lines_is_a_bubble_of_as_many_lines():
    heights = [messenger.bubble_height(CTX, text) for text in (
        "See you", "See you\nat eight", "See you\nat eight\nby the pitch")]
    assert heights[0] < heights[1] < heights[2]


def test_send_is_enabled_by_a_draft_of_more_than_spaces():
    def send(draft):
        entry = Entry("talk/conversation", fields={messenger.DRAFT: draft})
        bar = messenger.input_bar(CTX, (0, 2200, 1080, 2368), entry, ("send", "c1"),
                                  hint="Message", color=WHITE)
        return next(n for n in bar.walk() if n.resource_id.endswith(":id/send"))

    assert [send(d).enabled for d in ("", "   ", "hi")] == [False, False, True]
    assert send("hi").on_click == ("send", "c1")


def test_taking_the_draft_empties_the_field_and_rewinds_the_conversation():
    entry = Entry("talk/conversation", scroll={messenger.MESSAGE_LIST: 300},
                  fields={messenger.DRAFT: "  Understood "})
    assert messenger.take_draft(entry) == "Understood"
    assert entry.fields[messenger.DRAFT] == "" and messenger.MESSAGE_LIST not in entry.scroll
    blank = Entry("talk/conversation", fields={messenger.DRAFT: "  "})
    assert messenger.take_draft(blank) == "" and blank.fields[messenger.DRAFT] == "  "


def test_a_message_as_long_as_a_field_holds_is_shown_whole():
    # Bubbles and paragraphs stopped at 99 lines with "…": the end of a long message, which
    # a field holds up to 4,000 characters of, was never to be seen.
    text = ("word " * 800)[:MAX_FIELD_LENGTH]
    row = messenger.bubble_row(CTX, (0, 0, 1080, messenger.bubble_height(CTX, text)), text,
                               FACE, mine=True, style=STYLE)
    node = next(n for n in row.walk() if isinstance(n.paint, Label))
    label = node.paint
    lines = wrap(text, label.size, False, node.bounds[2] - node.bounds[0], label.lines)
    assert len(lines) > 99 and lines[-1].endswith("word") and "…" not in "".join(lines)
    assert node.bounds[3] - node.bounds[1] >= len(lines) * line_height(label.size)
