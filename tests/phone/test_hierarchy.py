import xml.etree.ElementTree as ET

import pytest

from mobileintent_gym.errors import DeviceError
from mobileintent_gym.phone import hierarchy, ui
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
               selected=True, checkable=True, checked=True, password=True)
    return root.add(field, row.add(Node(ui.TEXT_VIEW, (10, 110, 300, 150), text="Ünïcödé 中文")))


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


def test_parse_round_trips_the_dump():
    tree = sample_tree()
    parsed = hierarchy.parse(hierarchy.dump(tree, "com.example"))
    for a, b in zip(tree.walk(), parsed.walk(), strict=True):
        assert (a.cls, a.bounds, a.resource_id, a.desc) == (b.cls, b.bounds, b.resource_id,
                                                              b.desc)
        assert (a.clickable, a.long_clickable, a.focused, a.selected, a.checked, a.password) \
            == (b.clickable, b.long_clickable, b.focused, b.selected, b.checked, b.password)
        assert b.package == "com.example"
    assert list(parsed.walk())[-1].text == "Ünïcödé 中文"


def test_parse_reads_a_real_device_dump():
    root = hierarchy.parse(REAL_DUMP)
    title = root.children[0]
    assert title.text == "Wi‑Fi & network" and title.clickable and title.focusable
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
