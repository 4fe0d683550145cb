"""Action descriptions: the study's format, from the step's event and screens."""

import re

from mobileintent_gym.actions import Action
from mobileintent_gym.intents import describe
from mobileintent_gym.intents.behaviour import delete_key
from mobileintent_gym.intents.describe import MAX_WORDS
from mobileintent_gym.phone import SimPhone, hierarchy
from mobileintent_gym.tasks import TEMPLATES
from tests.helpers import press

FORMAT = re.compile(r'^(On the home screen|In [A-Z][a-z]+), [a-z-]+ .+, to [a-z].+$')
APPS = {"music": "Music", "chat": "Chat", "video": "Video", "maps": "Maps"}


def _described(phone, action):
    before = hierarchy.parse(phone.hierarchy())
    event = (action(phone) if callable(action) else phone.act(action)).event
    return describe(event, before, hierarchy.parse(phone.hierarchy()), APPS)


def test_steps_are_described_from_what_changed_on_screen():
    phone = SimPhone()
    assert (_described(phone, lambda p: press(p, desc="Music"))
            == 'On the home screen, tap "Music", to open Music')
    assert (_described(phone, lambda p: press(p, desc="Your Library"))
            == 'In Music, tap "Your Library", to open Your Library')
    assert (_described(phone, lambda p: press(p, resource_id="recently_played"))
            == 'In Music, tap "Recently played", to show Recently played')
    assert (_described(phone, Action.swipe("UP"))
            == "In Music, swipe up on Your Library, to see more of Your Library")
    assert (_described(phone, Action.press("BACK")) == "In Music, press Back, to leave Music")


def test_a_screen_is_named_by_its_own_title_not_by_an_item_of_its_lists():
    # The video page was named after the first related video under the one playing, the
    # search screen after its first result, and a video card after its duration.
    phone = SimPhone()
    phone.open("video")
    press(phone, resource_id="nav_following")
    press(phone, resource_id="tab_videos")
    opened = _described(phone, lambda p: press(p, resource_id="video"))
    [playing] = [n.text for n in hierarchy.parse(phone.hierarchy()).walk()
                 if n.resource_id.endswith("/video_title")]
    assert opened.endswith(f"to open {playing}")
    # The card tapped is named by its title, not by the first text in it (its duration).
    assert opened.startswith(f'In Video, tap "{" ".join(playing.split()[:6])}…"')
    related = [n.text for n in hierarchy.parse(phone.hierarchy()).walk()
               if n.resource_id.endswith("/title")]
    assert related and playing not in related
    phone.open("maps")
    assert (_described(phone, lambda p: press(p, resource_id="search_bar"))
            == 'In Maps, tap "Search here", to open search')


def test_typing_keys_going_back_and_the_deciding_step_described_as_any_other():
    phone = SimPhone()
    phone.open("chat")
    press(phone, resource_id="chat")
    assert (_described(phone, lambda p: press(p, resource_id="input"))
            == 'In Chat, tap the "input" field, to start typing there')
    assert (_described(phone, Action.type_text("Understoox"))
            == 'In Chat, type "Understoox", to fill in the field')
    assert (_described(phone, Action.click(*delete_key(phone)))
            == "In Chat, tap the delete key, to fix a typo")
    phone.act(Action.type_text("d"))
    # It was told the intention's operation ("to reply to the chat"), which no screen
    # shows: every intention's last step said where the intention ended.
    assert (_described(phone, lambda p: press(p, resource_id="send"))
            == 'In Chat, tap "Send", to select Send')
    assert _described(phone, Action.press("BACK")) == "In Chat, press Back, to hide the keyboard"
    assert _described(phone, Action.press("BACK")) == "In Chat, press Back, to go back to Chats"


def test_every_generated_description_has_the_format_and_at_most_20_words(week):
    descriptions = [step.description for session in week for s in session.segments
                    for step in s.steps]
    assert len(descriptions) > 300
    assert all(FORMAT.match(d) for d in descriptions), [d for d in descriptions
                                                        if not FORMAT.match(d)][:3]
    assert max(len(d.split()) for d in descriptions) <= MAX_WORDS


def test_no_generated_step_names_its_intentions_operation(week):
    # The step that achieved an intention took the operation of its task as its purpose:
    # cutting after each such step found every boundary (Acc-G 1.000).
    operations = {t.text.replace("; ", " and ") for t in TEMPLATES.values()}
    purposes = {step.description.rpartition(", to ")[2] for session in week
                for s in session.segments for step in s.steps}
    assert len(purposes) > 20 and not purposes & operations


def test_long_labels_are_clipped_to_keep_20_words():
    phone = SimPhone()
    phone.open("chat")
    press(phone, resource_id="chat")
    press(phone, resource_id="input")
    long = " ".join(["word"] * 30)
    assert (_described(phone, Action.type_text(long))
            == 'In Chat, type "word word word word word word…", to fill in the field')


def test_typed_text_ending_in_a_bracket_is_described_whole():
    # The action's closing bracket was stripped with every "]" before it.
    phone = SimPhone()
    phone.open("chat")
    press(phone, resource_id="chat")
    press(phone, resource_id="input")
    assert 'type "see [1]"' in _described(phone, Action.type_text("see [1]"))


def test_going_back_to_a_screen_of_the_same_title_is_described_as_going_back():
    from mobileintent_gym.phone.events import StepEvent
    from mobileintent_gym.phone.ui import Node

    def titled(text):
        root = Node("android.widget.FrameLayout", (0, 0, 10, 10))
        root.add(Node("android.widget.TextView", (0, 0, 5, 1), text=text,
                      resource_id="com.mobileintent.music:id/title"))
        return root

    back = StepEvent(0, "PRESS[BACK]", "music/library/recent", "music/library", None, (), (),
                     None, True, "", "2026-03-02 09:41:04")
    assert (describe(back, titled("Your Library"), titled("Your Library"), APPS)
            == "In Music, press Back, to go back to Your Library")
