import pytest

from mobileintent_gym.apps.pay.state import THEM
from mobileintent_gym.phone import SimPhone, hierarchy
from mobileintent_gym.phone.query import find
from tests.helpers import nodes, press, tap_node, texts


def test_unread_badges_and_opening_a_chat_marks_it_read(phone):
    phone.open("chat")
    chat = phone.state.apps["chat"]
    unread = [c for c in chat.chats if c.unread]
    assert unread
    badge = find(phone.hierarchy(), resource_id="nav_chats")
    total = sum(c.unread for c in chat.chats)
    assert badge.selected and badge.desc == f"Chats, {total} new notifications"
    target = unread[0]
    rows = texts(phone, "badge")
    assert str(target.unread) in rows
    position = [c.id for c in chat.chats].index(target.id)
    rows = [n for n in phone._current().targets if n.entity == target.id]
    b = rows[0].bounds
    phone.act(f"CLICK[{(b[0] + b[2]) // 2},{(b[1] + b[3]) // 2}]")
    assert phone.route() == "chat/conversation"
    assert phone.state.apps["chat"].chats[position].unread == 0


def test_reply_understood_moves_the_chat_to_the_top(phone):
    phone.open("chat")
    last = phone.state.apps["chat"].chats[-1]
    for _ in range(4):
        phone.act("SWIPE[UP]")
    rows = [n for n in phone._current().targets if n.entity == last.id]
    b = rows[0].bounds
    phone.act(f"CLICK[{(b[0] + b[2]) // 2},{(b[1] + b[3]) // 2}]")
    assert not find(phone.hierarchy(), resource_id="send").enabled
    press(phone, resource_id="input")
    phone.act("TYPE[Understood]")
    assert find(phone.hierarchy(), resource_id="send").enabled
    press(phone, resource_id="send")
    chats = phone.state.apps["chat"].chats
    assert chats[0].id == last.id and chats[0].messages[-1].text == "Understood"
    assert texts(phone, "message_out")[-1] == "Understood"


def test_moments_author_opens_their_profile(phone):
    phone.open("chat")
    press(phone, desc="Discover")
    press(phone, resource_id="moments")
    assert phone.route() == "chat/moments"
    author = phone.state.apps["chat"].moments[0].author
    result = press(phone, resource_id="author")
    assert result.event.hit.entity == author
    assert phone.route() == "chat/profile"
    name = phone.state.apps["chat"].contacts[author].name
    assert name in texts(phone, "title")
    press(phone, resource_id="messages")
    assert phone.route() == "chat/conversation"
    assert texts(phone, "title")[0] == name


def test_messaging_a_contact_without_a_chat_starts_one(phone):
    from mobileintent_gym.apps.chat import ChatState

    state = phone.state.copy()
    chat = state.apps["chat"]
    without = chat.chats[-1]
    state.apps["chat"] = ChatState(chat.contacts, chat.chats[:-1], chat.moments)
    phone.reset(state)
    phone.open("chat", "chat/profile", id=without.contact)
    press(phone, resource_id="messages")
    assert phone.route() == "chat/conversation"
    started = phone.state.apps["chat"].chats[0]
    assert (started.contact, started.messages) == (without.contact, ())
    assert texts(phone, "title")[0] == chat.contacts[without.contact].name
    phone.open("chat")
    assert nodes(phone, resource_id="chat")[0].entity == without.id  # listed on top


def test_long_conversations_scroll_and_open_at_the_newest_message(phone):
    chat = max(phone.state.apps["chat"].chats, key=lambda c: len(c.messages))
    phone.open("chat", "chat/conversation", id=chat.id)
    shown = [n.text for n in hierarchy.parse(phone.hierarchy()).walk()
             if n.resource_id.endswith(("message_in", "message_out"))]
    assert shown[-1] == chat.messages[-1].text
    assert chat.messages[0].text not in shown
    assert phone.act("SWIPE[DOWN]").effect


# What the screen shows after each action that changes the app's data (read from the dump).

def subtitle(row):
    return next(n.text for n in row.walk() if n.resource_id.endswith(":id/subtitle"))


def test_opening_an_unread_chat_clears_its_badge_in_the_list(phone):
    phone.open("chat")
    row = next(r for r in nodes(phone, resource_id="chat")
               if any(n.resource_id.endswith(":id/badge") for n in r.walk()))
    tap_node(phone, row)
    phone.act("PRESS[BACK]")
    again = next(r for r in nodes(phone, resource_id="chat") if r.entity == row.entity)
    assert not any(n.resource_id.endswith(":id/badge") for n in again.walk())


def test_a_reply_shows_as_a_bubble_and_tops_the_chat_list(phone):
    phone.open("chat")
    row = nodes(phone, resource_id="chat")[3]
    tap_node(phone, row)
    press(phone, resource_id="input")
    phone.act("TYPE[Understood]")
    press(phone, resource_id="send")
    assert texts(phone, "message_out")[-1] == "Understood"
    assert texts(phone, "input") == [""]
    phone.act("PRESS[BACK]")
    phone.act("PRESS[BACK]")
    top = nodes(phone, resource_id="chat")[0]
    assert top.entity == row.entity and subtitle(top) == "Understood"


def test_bubbles_and_posts_take_the_height_of_their_wrapped_text(phone):
    from dataclasses import replace

    import numpy as np

    from mobileintent_gym.apps.chat import Message
    from mobileintent_gym.phone.paint import line_height, wrap

    state = phone.state.copy()
    chat = state.apps["chat"]
    long = "Could you bring the blue folder with the contracts, the laptop charger " * 3
    first = replace(chat.chats[0], messages=(Message(chat.chats[0].contact, long, "09:00"),
                                             Message(chat.chats[0].contact, "ok", "09:01")))
    post = replace(chat.moments[0], text=long)
    state.apps["chat"] = replace(chat, chats=(first, *chat.chats[1:]),
                                 moments=(post, *chat.moments[1:]))
    phone.reset(state)
    phone.open("chat", "chat/conversation", id=first.id)
    tall, short = [n.bounds for n in nodes(phone, resource_id="message_in")]
    size = round(15 * phone.density)
    room = phone.width - 2 * (round(40 * phone.density) + 2 * round(12 * phone.density)) - 2 * (
        round(14 * phone.density))
    lines = len(wrap(long, size, False, room, 99))
    assert lines >= 4
    assert tall[3] - tall[1] == lines * line_height(size) + round(20 * phone.density)
    assert short[3] - short[1] == round(40 * phone.density)  # one line: an avatar high
    assert short[1] >= tall[3]  # the next row starts below the tall bubble
    frame = phone.screenshot()
    inked = (frame[tall[1]:tall[3], tall[0]:tall[2]].min(axis=2) < 128).any(axis=1)
    runs = np.flatnonzero(np.diff(inked.astype(int)) == 1)  # text lines start here
    assert len(runs) == lines  # painted on exactly the lines it was measured for
    phone.open("chat", "chat/moments")
    content = nodes(phone, resource_id="content")
    assert content[0].text == long
    assert content[0].bounds[3] - content[0].bounds[1] > 3 * (
        content[1].bounds[3] - content[1].bounds[1])


def test_a_profile_card_shows_who_it_is_what_they_post_and_how_to_reach_them(phone):
    chat = phone.state.apps["chat"]
    author = chat.moments[0].author
    contact = chat.contacts[author]
    phone.open("chat", "chat/profile", id=author)
    header = nodes(phone, resource_id="profile_header")[0]
    assert header.entity == author
    shown = [n.text for n in header.walk() if n.text]
    assert shown[0] == contact.name and shown[1].startswith("Chat ID: ")
    info = [next(n.text for n in row.walk() if n.resource_id.endswith(":id/subtitle"))
            for row in nodes(phone, resource_id="info")]
    assert info == [contact.signature or "-", chat.moments[0].text]
    assert texts(phone, "messages") == ["Messages"] and texts(phone, "call")
    phone.open("chat", "chat/me")
    assert texts(phone, "title")[:2] == ["Me", chat.me]
    assert len(nodes(phone, resource_id="me_settings")) == 1


def test_opening_an_unread_chat_leaves_the_other_chats_unread(phone):
    phone.open("chat")
    chats = phone.state.apps["chat"].chats
    unread = [c for c in chats if c.unread]
    assert len(unread) >= 2
    row = next(r for r in nodes(phone, resource_id="chat") if r.entity == unread[0].id)
    tap_node(phone, row)
    after = {c.id: c.unread for c in phone.state.apps["chat"].chats}
    assert after == {c.id: 0 if c.id == unread[0].id else c.unread for c in chats}


def test_enter_on_an_empty_draft_sends_nothing(phone):
    chat = phone.state.apps["chat"].chats[3]
    phone.open("chat", "chat/conversation", id=chat.id)
    press(phone, resource_id="input")
    phone.act("TYPE[   ]")
    phone.act("PRESS[ENTER]")
    assert phone.state.apps["chat"].chats[3] == chat  # no blank message, not moved on top


def test_messaging_a_contact_with_a_chat_opens_that_chat(phone):
    chat = phone.state.apps["chat"].chats[2]
    assert chat.messages
    phone.open("chat", "chat/profile", id=chat.contact)
    press(phone, resource_id="messages")
    assert phone.route() == "chat/conversation"
    assert [c.contact for c in phone.state.apps["chat"].chats].count(chat.contact) == 1
    shown = texts(phone, "message_in") + texts(phone, "message_out")
    assert chat.messages[-1].text in shown


@pytest.mark.parametrize("user", ["hana", "demo-ana", None])
def test_no_badge_counts_more_unread_than_the_contact_wrote_since_the_owners_last(user):
    # Badges of 2 and 3 stood over one message of the contact after the owner's reply.
    from mobileintent_gym.apps.plugin import since_owner
    from mobileintent_gym.users import load_user_content

    state = (load_user_content(user).state if user else SimPhone().state)
    chats = [(c.unread, since_owner([m.sender for m in c.messages], c.contact))
             for c in state.apps["chat"].chats]
    talks = [(c.unread, since_owner([m.sender for m in c.messages], THEM))
             for c in state.apps["pay"].conversations]
    assert all(unread <= theirs for unread, theirs in chats + talks)
    assert any(unread for unread, _ in chats + talks)  # badges there are


def test_a_navigation_badge_is_said_in_the_items_description():
    from mobileintent_gym.phone.widgets import _badged

    assert _badged("Chats", "1") == "Chats, 1 new notification"
    assert _badged("Chats", "12") == "Chats, 12 new notifications"
    assert _badged("Chats", "•") == "Chats, New notification"
    assert _badged("Me", "") == "Me"
