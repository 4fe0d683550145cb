import xml.etree.ElementTree as ET

import numpy as np
import pytest

from mobileintent_gym.actions import Action
from mobileintent_gym.errors import DeviceError, InvalidArgumentError
from mobileintent_gym.phone import SimPhone, hierarchy, query, touch, ui
from mobileintent_gym.phone.tour import plan
from mobileintent_gym.phone.ui import Node

REAL_DUMP = (
    "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
    '<node index="0" text="" resource-id="" class="android.widget.FrameLayout" '
    'package="com.android.settings" content-desc="" checkable="false" checked="false" '
    'clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" '
    'long-clickable="false" password="false" selected="false" bounds="[0,0][1080,2400]">'
    '<node index="0" text="Wi‑Fi &amp; network" resource-id="android:id/title" '
    'class="android.widget.TextView" package="com.android.settings" content-desc="" '
    'checkable="false" checked="false" clickable="true" enabled="true" focusable="true" '
    'focused="false" scrollable="false" long-clickable="false" password="false" '
    'selected="false" bounds="[42,310][600,371]" /></node></hierarchy>')


def sample_tree():
    root = Node(ui.FRAME, (0, 0, 1080, 2400))
    field = Node(ui.EDIT_TEXT, (10, 20, 500, 80), text='say "hi" <b> & \x07bye\n',
                 resource_id="pkg:id/input", focusable=True, focused=True, clickable=True)
    row = Node(ui.VIEW_GROUP, (0, 100, 1080, 268), desc="Row", long_clickable=True,
               selected=True, checkable=True, checked=True, password=True, entity='t"1 & <2>')
    sheet = Node(ui.LINEAR, (0, 1800, 1080, 2400), modal=True, entity="chat_c00")
    return root.add(field, row.add(Node(ui.TEXT_VIEW, (10, 110, 300, 150), text="Ünïcödé 中文")),
                    sheet)


def test_dump_is_valid_uiautomator_xml_with_every_attribute():
    xml = hierarchy.dump(sample_tree(), "com.example")
    assert xml.startswith(hierarchy.HEADER + '<hierarchy rotation="0"><node index="0" text=""')
    root = ET.fromstring(xml)
    first = root[0][0]
    assert list(first.attrib) == [
        "index", "text", "resource-id", "class", "package", "content-desc", "checkable",
        "checked", "clickable", "enabled", "focusable", "focused", "scrollable",
        "long-clickable", "password", "selected", "bounds"]
    assert first.get("bounds") == "[10,20][500,80]"
    assert first.get("text") == 'say "hi" <b> & bye\n'  # control character dropped
    row, sheet = root[0][1], root[0][2]
    assert list(row.attrib)[-2:] == ["bounds", "entity-id"]
    assert row.get("entity-id") == 't"1 & <2>'
    assert sheet.get("focusable") == "true"  # a modal surface holds the touches on it


def test_parse_round_trips_the_dump():
    tree = sample_tree()
    parsed = hierarchy.parse(hierarchy.dump(tree, "com.example"))
    for a, b in zip(tree.walk(), parsed.walk(), strict=True):
        assert (a.cls, a.bounds, a.resource_id, a.desc) == (b.cls, b.bounds, b.resource_id,
                                                              b.desc)
        assert (a.clickable, a.long_clickable, a.focused, a.selected, a.checked, a.password) \
            == (b.clickable, b.long_clickable, b.focused, b.selected, b.checked, b.password)
        assert (a.entity, a.focusable or a.modal) == (b.entity, b.focusable)
        assert b.package == "com.example"
    assert list(parsed.walk())[-2].text == "Ünïcödé 中文"


def test_parse_reads_a_real_device_dump():
    root = hierarchy.parse(REAL_DUMP)
    title = root.children[0]
    assert title.text == "Wi‑Fi & network" and title.clickable and title.focusable
    assert title.entity is None and root.entity is None
    assert title.bounds == (42, 310, 600, 371) and root.package == "com.android.settings"


@pytest.mark.parametrize("bad, reason", [
    ("<hierarchy><node", "not a uiautomator dump"),
    ("<html></html>", "<html>"),
    ("<hierarchy></hierarchy>", "no node"),
    ('<hierarchy><node bounds="[1,2]" /></hierarchy>', "[1,2]"),
])
def test_parse_rejects_what_is_not_a_dump(bad, reason):
    with pytest.raises(DeviceError, match=None) as err:
        hierarchy.parse(bad)
    assert reason in str(err.value)


def test_phone_dump_lists_only_rows_inside_the_viewport(phone):
    phone.open("music", "music/library/liked")
    root = hierarchy.parse(phone.hierarchy())
    rows = [n for n in root.walk() if n.resource_id.endswith(":id/track")]
    assert 8 <= len(rows) < len(phone.state.apps["music"].liked)
    view = next(n for n in root.walk() if n.cls == ui.RECYCLER)
    assert view.scrollable
    for row in rows:
        assert view.bounds[1] <= row.bounds[1] < row.bounds[3] <= view.bounds[3]


def screens():
    """Distinct views met on the tour and on a seeded random walk (sheets, dialogs, keyboard)."""
    phone, rng, views = SimPhone(), np.random.default_rng(5), {}
    phone.reset()  # loaded: _current() reads the state
    tour = plan(phone.apps.values())
    steps = [lambda view, s=s: s(view.xml()) for _, s in tour] + [None] * 250
    for step in steps:
        view = phone._current()
        views.setdefault(id(view), view)
        if step is not None:
            phone.act(step(view))
            continue
        roll, targets = rng.random(), view.targets
        if roll < 0.7 and targets:
            b = targets[int(rng.integers(len(targets)))].bounds
            phone.act(Action.click((b[0] + b[2]) // 2, (b[1] + b[3]) // 2))
        else:
            phone.act(("SWIPE[UP]", "TYPE[hi]", "PRESS[BACK]", "PRESS[HOME]")[int(rng.integers(4))])
    return list(views.values())


def test_a_dump_gives_the_same_touch_target_as_the_phone_on_every_point():
    """SimPhone hands a touch to its keyboard, else to the top screen's target; the rule of
    :mod:`touch` on the dump (the whole window, no keyboard in it) must agree: on a grid,
    and just inside and outside the corners of every element that takes or stops touches."""
    views = screens()
    assert len(views) >= 40
    assert {"music/track_menu", "music/new_playlist", "launcher"} <= {v.route for v in views}
    assert {"music/new_playlist", "chat/conversation"} <= {
        v.route for v in views if v.keyboard is not None}
    grid = [(x, y) for y in range(1, 2400, 23) for x in range(1, 1080, 19)]
    for view in views:
        dump = touch.ScreenDump(view.xml())
        assert dump.visible == view.visible
        edges = [(x, y) for n in dump.targets for x, y in (
            (n.bounds[0], n.bounds[1]), (n.bounds[2] - 1, n.bounds[3] - 1),
            (n.bounds[0] - 1, n.bounds[1] - 1), (n.bounds[2], n.bounds[3]))]
        for x, y in grid + edges:
            on_key = view.keyboard is not None and view.keyboard.key_at(x, y) is not None
            node = None if on_key else view.target_at(x, y)
            expected = None if node is None else touch.hit_of(node)
            assert dump.hit_at(x, y) == expected, (view.route, x, y)


def test_appium_page_sources_with_class_named_elements_parse_like_dumps():
    """UiAutomator2's page source tags each element with its class instead of ``node``."""
    phone = SimPhone()
    phone.open("music", "music/library/liked")
    dump = phone.hierarchy()
    tree = ET.fromstring(dump)
    for element in tree.iter("node"):
        element.tag = element.get("class")
    source = ET.tostring(tree, encoding="unicode")
    assert "<node" not in source and "<android.widget.FrameLayout" in source
    assert [(n.cls, n.bounds, n.text, n.entity) for n in hierarchy.parse(source).walk()] == [
        (n.cls, n.bounds, n.text, n.entity) for n in hierarchy.parse(dump).walk()]
    assert touch.ScreenDump(source).visible == touch.ScreenDump(dump).visible


@pytest.mark.parametrize(("criteria", "error", "named"), [
    ({}, InvalidArgumentError, "name the element by its text"),  # tapped the root's centre
    ({"text": None}, InvalidArgumentError, "name the element by its text"),
    ({"txt": "Wi‑Fi & network"}, TypeError, "unexpected keyword argument 'txt'"),
])
def test_an_element_is_found_by_criteria_it_has(criteria, error, named):
    with pytest.raises(error, match=named):
        query.tap(REAL_DUMP, **criteria)
    assert query.tap(REAL_DUMP, text="Wi‑Fi & network") == Action.click(321, 340)
