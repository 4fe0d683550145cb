"""Execution prompts and answer parsing: the screen text and the round trip to actions."""

import gymnasium as gym
import pytest

import mobileintent_gym  # noqa: F401  (registers the envs)
from mobileintent_gym.actions import Action
from mobileintent_gym.agents import OracleAgent
from mobileintent_gym.agents.prompts import (
    EXECUTE_SYSTEM,
    describe_action,
    element_line,
    execute_prompt,
    parse_answer,
    screen_text,
    step_prompt,
)
from mobileintent_gym.phone import hierarchy, touch
from mobileintent_gym.phone.elements import ScreenElement, element_at, read_screen
from mobileintent_gym.tasks import task_ids


@pytest.fixture(scope="module")
def env():
    env = gym.make("Act2Intent-Execute-v0", device="sim:540x1200",
                   observation=("instruction", "hierarchy"))
    yield env
    env.close()


def answers_for(action: Action, index: int) -> list[str]:
    """Ways a model may write ``action`` (element ``index`` holds a click's point)."""
    text = str(action)
    head, bracket, rest = text.partition("[")
    styles = [text, f"Next action: {text}\n", head.lower() + bracket + rest,
              f'{{"action": "{text}"}}',
              f"I will do {text} now. Then maybe SWIPE[DOWN]."]
    if action.x is not None:
        kind = text.split("[")[0]
        styles += [f"{kind}({action.x}, {action.y})", f"{kind}[{index}]"]
    return styles


@pytest.mark.parametrize("task", task_ids())
def test_each_oracle_step_round_trips_through_the_prompt_and_the_parser(env, task):
    obs, info = env.reset(seed=0, options={"user": "demo-ben", "task": task})
    oracle, history, done = OracleAgent(env), [], False
    while not done:
        action = oracle.act(obs, info)
        messages, elements = step_prompt(obs["instruction"], obs["hierarchy"], history)
        prompt = messages[1]["content"]
        assert obs["instruction"] in prompt
        assert all(f"{i}. {line}" in prompt for i, line in enumerate(history, 1))
        candidates = touch.targets(hierarchy.parse(obs["hierarchy"]))
        aimed = None if action.x is None else element_at(elements, action.x, action.y)
        if action.x is not None:  # the element the oracle taps is listed, with its text
            assert aimed is not None and element_line(aimed, elements.index(aimed)) in prompt
            wanted = touch.target_at(candidates, action.x, action.y)
        for answer in answers_for(action, elements.index(aimed) if aimed else 0):
            parsed = parse_answer(answer, elements)
            if action.x is None:
                assert parsed == action, answer
            else:  # the listed point or index reaches the element the oracle's tap reaches
                assert parsed.type is action.type, answer
                assert touch.target_at(candidates, parsed.x, parsed.y) is wanted, answer
        history.append(describe_action(action, elements))
        obs, _, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    assert info["success"]


def test_the_screen_lists_what_a_touch_reaches_with_its_own_text(env):
    env.reset(seed=0, options={"user": "demo-ana", "task": "G-SPT-01:common:explicit"})
    env.unwrapped.device.open("music", "music/library/liked")
    elements, others = read_screen(env.unwrapped.device.hierarchy())
    kinds = [e.kind for e in elements]
    assert kinds[:3] == ["nav_home", "nav_search", "nav_your_library"]
    track = elements[kinds.index("track")]
    # A row's texts are its title and artist, not those of the menu button inside it,
    # which is an element of its own.
    more = elements[kinds.index("track") + 1]
    assert len(track.texts) == 2 and more.kind == "more"
    assert more.texts == (f"More options for {track.texts[0]}",)
    assert "Liked Songs" in others
    text = screen_text(elements, others, max_elements=3)
    assert text.splitlines() == [element_line(e, i) for i, e in enumerate(elements[:3])] + [
        "Other text: " + "; ".join(f'"{t}"' for t in others)]
    assert screen_text([], ["Title"]) == '(nothing to touch)\nOther text: "Title"'


def test_a_sheet_hides_what_lies_under_it(env):
    env.reset(seed=0, options={"user": "demo-ana", "task": "G-SPT-01:common:explicit"})
    device = env.unwrapped.device
    device.open("music", "music/library/liked")
    more = next(e for e in read_screen(device.hierarchy())[0] if e.kind == "more")
    device.act(Action.click(*more.point))
    assert device.route() == "music/track_menu"
    elements, others = read_screen(device.hierarchy())
    kinds = [e.kind for e in elements]
    assert "add_to_playlist" in kinds and "track" not in kinds and "more" not in kinds
    # Its texts too: the list's 40 texts behind the scrim came first and the prompt's
    # first 12 left out the sheet's own header, the track whose menu it is.
    title = more.texts[0].removeprefix("More options for ")
    assert others[0] == title and "Liked Songs" not in others and len(others) == 2


def _node(cls, bounds, text="", clickable=False, rid="", kids="", focusable=False):
    return (f'<node index="0" text="{text}" resource-id="{rid}" class="{cls}" package="com.x" '
            f'content-desc="" checkable="false" checked="false" '
            f'clickable="{str(clickable).lower()}" enabled="true" '
            f'focusable="{str(focusable).lower()}" focused="false" scrollable="false" '
            f'long-clickable="false" password="false" selected="false" bounds="{bounds}">'
            f"{kids}</node>")


@pytest.mark.parametrize("surface", [{"clickable": True}, {"focusable": True}])
def test_a_clickable_surface_over_a_card_hides_none_of_its_texts(surface):
    # Real apps lay a transparent clickable (or focusable) view over a card: the texts
    # under it were taken for covered, as if a sheet were open, and left the prompt.
    card = _node("android.widget.FrameLayout", "[0,200][1080,400]", kids=(
        _node("android.widget.TextView", "[40,220][1040,300]", "Order 123 shipped")
        + _node("android.widget.TextView", "[40,300][1040,380]", "Arrives Friday")
        + _node("android.view.View", "[0,200][1080,400]", **surface)))
    title = _node("android.widget.TextView", "[40,80][1040,160]", "Orders")
    window = _node("android.widget.FrameLayout", "[0,0][1080,2400]", kids=title + card)
    xml = f'<?xml version="1.0" encoding="UTF-8"?><hierarchy rotation="0">{window}</hierarchy>'
    assert read_screen(xml)[1] == ["Orders", "Order 123 shipped", "Arrives Friday"]
    scrim = _node("android.view.View", "[0,0][1080,2400]", clickable=True,
                  rid="android:id/touch_outside")  # a dialog's dim area: it covers them
    dimmed = _node("android.widget.FrameLayout", "[0,0][1080,2400]",
                   kids=title + card + scrim)
    xml = f'<?xml version="1.0" encoding="UTF-8"?><hierarchy rotation="0">{dimmed}</hierarchy>'
    assert read_screen(xml)[1] == []


def test_a_focused_field_says_so():
    field = ScreenElement("input", ("Understood",), (215, 840), (10, 800, 420, 880), True, True)
    assert element_line(field, 2) == '[2] input (text field, focused) "Understood" at (215,840)'
    blank = ScreenElement("up", (), (36, 73), (0, 40, 72, 106))
    assert element_line(blank, 0) == "[0] up at (36,73)"
    long = ScreenElement("row", ("x" * 100,), (1, 1), (0, 0, 2, 2))
    assert len(element_line(long, 0)) == len('[0] row "" at (1,1)') + 80


ELEMENTS = [ScreenElement("nav_home", ("Home",), (90, 1132), (0, 1095, 180, 1170)),
            ScreenElement("chat", ("Li Wei", "See you"), (270, 660), (0, 610, 540, 710))]


@pytest.mark.parametrize(("answer", "expected"), [
    ("CLICK[270,660]", Action.click(270, 660)),
    ("  click [ 270 , 660 ]  ", Action.click(270, 660)),
    ("Tap(90, 1132)", Action.click(90, 1132)),
    ("LONG_CLICK[1]", Action.long_click(270, 660)),
    ("CLICK[#0]", Action.click(90, 1132)),
    ('```json\n{"action": "TYPE[Rainy Night]"}\n```', Action.type_text("Rainy Night")),
    # A JSON field is unescaped, as JSON reads it; a broken escape is read as written.
    ('{"action": "TYPE[caf\\u00e9 \\"au lait\\"]"}', Action.type_text('café "au lait"')),
    ('{"action": "TYPE[C:\\\\new]"}', Action.type_text("C:\\new")),
    ('{"action": "TYPE[a\\qb]"}', Action.type_text("a\\qb")),
    # Its escaped line breaks and tabs are typed, not a backslash and a letter; an action
    # the field holds is the answer's, never the field read undecoded.
    ('{"action": "TYPE[line 1\\nline 2]"}', Action.type_text("line 1\nline 2")),
    ('{"action": "TYPE[a\\tb]"}', Action.type_text("a\tb")),
    ('{"action": "type[one\\ntwo]"}', Action.type_text("one\ntwo")),  # any case, as elsewhere
    ('{"action": "TYPE[\\u0000]"}', None),
    ('{"action": "TYPE[a] and CLICK[1,2]"}', Action.type_text("a")),
    # Typed text runs to the "]" that closes its "[" (as parse_action reads it).
    ("TYPE[see [you] soon]", Action.type_text("see [you] soon")),
    ("TYPE[see [you soon] and more", Action.type_text("see [you soon")),
    ("TYPE[a] then CLICK[1,2]", Action.type_text("a")),
    ("CLICK[270.5, 945.4]", Action.click(270, 945)),
    # A JSON action field without an action hides nothing of the rest.
    ('{"action": "tap the search bar"} CLICK[1,2]', Action.click(1, 2)),
    # A COMPLETE of the answer's own, beside a copied form, is the answer.
    ("Since SWIPE[UP] shows what is further down and I saw the whole list, COMPLETE",
     Action.complete()),
    ("The format is CLICK[x,y]. The task is done: COMPLETE", Action.complete()),
    ("CLICK[x,y]\nCOMPLETE", Action.complete()),
    # Words without brackets cost nothing: many of them do not hide the action.
    ("I should click the search bar, then type the query. " * 40 + "CLICK[270,945]",
     Action.click(270, 945)),
    # Quotes around all of the text are the model's, not the user's.
    ('TYPE["Rainy Night"]', Action.type_text("Rainy Night")),
    ("TYPE[ 'Li Wei' ]", Action.type_text("Li Wei")),
    ('TYPE["Li" and "Wei"]', Action.type_text('"Li" and "Wei"')),
    ('TYPE["x]', Action.type_text('"x')),
    ("PRESS_BACK", Action.press("BACK")),
    ("press[enter]", Action.press("ENTER")),
    ("SWIPE['up']", Action.swipe("UP")),
    ("The task is done. COMPLETE", Action.complete()),
    ("CLICK on the chat, then CLICK[270,660]", Action.click(270, 660)),
    ("SWIPE[SIDEWAYS] or rather SWIPE[DOWN]", Action.swipe("DOWN")),
    # "complete" in a sentence is prose; the action is what follows.
    ("To complete the intention, CLICK[270,660]", Action.click(270, 660)),
    ("Complete the form: TYPE[hello]", Action.type_text("hello")),
    ("complete.", Action.complete()),
    ('{"action": "complete"}', Action.complete()),
    # What an answer copies of the system prompt's own actions is prose.
    ("Answer with one action only: CLICK[x,y], LONG_CLICK[x,y], TYPE[text],\n"
     "SWIPE[UP|DOWN|LEFT|RIGHT], PRESS[HOME|BACK|ENTER] or COMPLETE. CLICK[270,660]",
     Action.click(270, 660)),
    ("SWIPE[UP] shows what is further down. So: TYPE[Li Wei]", Action.type_text("Li Wei")),
])
def test_answers_are_read_leniently(answer, expected):
    assert parse_answer(answer, ELEMENTS) == expected


@pytest.mark.parametrize("answer", [
    "", "I am not sure.", "CLICK[7]", "CLICK[1,2,3]", "CLICK[-5,10]", "TYPE[]",
    "PRESS[POWER]", "(1) action_search \"Search\" at (270,160)", None, 42, b"CLICK[1,2]",
    "I will complete the task next.",
    # The system prompt, or part of its list, copied back: no action of its own.
    EXECUTE_SYSTEM, EXECUTE_SYSTEM.upper(), "CLICK[x,y], LONG_CLICK[x,y], TYPE[text], SWIPE",
    # A numbered or partial copy of the list ends with COMPLETE: that is no answer.
    "1. CLICK[x,y]\n2. LONG_CLICK[x,y]\n3. TYPE[text]\n4. SWIPE[UP|DOWN|LEFT|RIGHT]\n"
    "5. PRESS[HOME|BACK|ENTER]\n6. COMPLETE", "PRESS[HOME|BACK|ENTER] or COMPLETE",
    "You can answer CLICK[x,y] or COMPLETE",
    # The Kelvin sign matched "k" case-insensitively, then raised KeyError.
    "CLIC\u212a[1,2]", "LONG_CLIC\u212a[1,2]",
])
def test_answers_without_an_action_give_none_and_never_raise(answer):
    assert parse_answer(answer, ELEMENTS) is None


def test_the_prompt_follows_the_execution_input_format():
    messages = execute_prompt("In Chat, open the conversation with Li Wei.",
                              ["SWIPE[UP]", 'CLICK[270,660] on chat "Li Wei"'], "SCREEN",
                              guidance=["CLICK[1,2]", "TYPE[hi]"])
    assert messages[0] == {"role": "system", "content": EXECUTE_SYSTEM}
    assert messages[1]["content"].split("\n\n") == [
        "Intention: In Chat, open the conversation with Li Wei.",
        "Guidance (actions of a similar past intention):\n- CLICK[1,2]\n- TYPE[hi]",
        'Actions so far:\n1. SWIPE[UP]\n2. CLICK[270,660] on chat "Li Wei"',
        "Screen:\nSCREEN", "Next action:"]
    assert "(none yet)" in execute_prompt("x", [], "S")[1]["content"]


def test_history_lines_name_the_element_aimed_at():
    assert describe_action(Action.click(270, 650), ELEMENTS) == \
        'CLICK[270,650] on chat "Li Wei | See you"'
    assert describe_action(Action.click(5, 5), ELEMENTS) == "CLICK[5,5]"
    assert describe_action(Action.swipe("UP"), ELEMENTS) == "SWIPE[UP]"
    assert describe_action(None, ELEMENTS).startswith("(an answer without an action")


def test_many_unclosed_action_words_are_read_in_bounded_time(monkeypatch):
    # Each "CLICK[" without "]" read to the end of the line: 120 KB took 9.5 s.
    from mobileintent_gym.agents import prompts

    tried = []
    real = prompts._candidate
    monkeypatch.setattr(prompts, "_candidate", lambda *a: tried.append(1) or real(*a))
    assert parse_answer("CLICK[" * 20_000) is None
    assert len(tried) <= prompts.MAX_CANDIDATES
