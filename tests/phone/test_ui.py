from mobileintent_gym.phone import ui
from mobileintent_gym.phone.ui import Column, Node, scroll_list, split_row


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
