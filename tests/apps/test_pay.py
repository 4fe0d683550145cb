"""The pay app (mirrors Alipay): billing history, message list, replies and its PAIR
content, read from the screen as an agent would."""

from mobileintent_gym.apps.pay.content import BILLS, CONVERSATIONS
from mobileintent_gym.apps.pay.state import money
from mobileintent_gym.phone.query import find
from mobileintent_gym.users import UserProfile, build_user_content, load_user_content
from tests.helpers import nodes, press, tap_node, texts

PROFILE = {  # a profile of the test's own: Korean food, basketball, coworkers
    "user_id": "pay-tester",
    "demographics": {"age": "25-34 years old", "employment_status": "Working full-time"},
    "interests": {"Restaurants": 1, "Sports": 1, "Messaging": 1, "Shopping": 0},
    "affinities": {"Restaurants": {"Cuisine Preference": ["Korean", "ramen"]},
                   "Sports": {"Favorite Sports": ["basketball"]},
                   "Messaging": {"Frequent Contact": ["coworkers"]}},
    "interactions": {},
}


def child(row, rid):
    """The text of the node with resource id ``rid`` inside ``row``."""
    return next(n.text for n in row.walk() if n.resource_id.endswith(f":id/{rid}"))


def test_the_billing_history_lists_transactions_newest_first_under_month_headings(phone):
    pay = phone.state.apps["pay"]
    assert len(pay.bills) >= 20
    assert [b.time for b in pay.bills] == sorted((b.time for b in pay.bills), reverse=True)
    phone.open("pay", "pay/bills")
    march = [b for b in pay.bills if b.time.startswith("2026-03")]
    heading = [n.text for n in nodes(phone, resource_id="month")[0].walk() if n.text]
    out = money(sum(b.amount for b in march if b.amount < 0), sign=False)
    came = money(sum(b.amount for b in march if b.amount > 0), sign=False)
    assert heading == ["March 2026", f"Out {out}  In {came}"]
    row = nodes(phone, resource_id="bill")[0]
    assert row.entity == pay.bills[0].id
    assert (child(row, "title"), child(row, "amount")) == (pay.bills[0].title,
                                                            money(pay.bills[0].amount))
    seen, months = [], []
    for _ in range(15):  # scrolling shows every transaction, in the state's order
        seen += [n.entity for n in nodes(phone, resource_id="bill") if n.entity not in seen]
        months += [m for m in (next(n.text for n in h.walk() if n.text)
                               for h in nodes(phone, resource_id="month")) if m not in months]
        phone.act("SWIPE[UP]")
    assert seen == [b.id for b in pay.bills]
    assert months == ["March 2026", "February 2026"]  # the older month has its own heading


def test_a_transaction_opens_on_its_details(phone):
    pay = phone.state.apps["pay"]
    phone.open("pay", "pay/me")
    press(phone, resource_id="bills")
    assert phone.route() == "pay/bills"
    row = nodes(phone, resource_id="bill")[2]
    tap_node(phone, row)
    bill = pay.bill(row.entity)
    assert phone.route() == "pay/bill"
    header = nodes(phone, resource_id="bill_header")[0]
    assert header.entity == bill.id
    assert [n.text for n in header.walk() if n.text] == [bill.title, money(bill.amount),
                                                         "Completed"]
    details = [[n.text for n in row.walk() if n.text] for row in nodes(phone, resource_id="detail")]
    assert details == [["Payment method", bill.method], ["Item", bill.item],
                       ["Category", bill.category], ["Time", bill.time],
                       ["Order number", bill.order]]
    phone.act("PRESS[BACK]")
    assert phone.route() == "pay/bills"


def test_opening_an_unread_conversation_clears_its_badge_and_the_tabs_count(phone):
    pay = phone.state.apps["pay"]
    phone.open("pay", "pay/messages")
    total = sum(c.unread for c in pay.conversations)
    assert total and find(phone.hierarchy(), resource_id="nav_messages").selected
    row = next(r for r in nodes(phone, resource_id="conversation")
               if any(n.resource_id.endswith(":id/badge") for n in r.walk()))
    unread = int(child(row, "badge"))
    tap_node(phone, row)
    assert phone.route() == "pay/conversation"
    assert texts(phone, "title")[0] == pay.conversation(row.entity).name
    phone.act("PRESS[BACK]")
    again = next(r for r in nodes(phone, resource_id="conversation") if r.entity == row.entity)
    assert not any(n.resource_id.endswith(":id/badge") for n in again.walk())
    # The tab's count (drawn on its icon) follows the state, and the dump says it as
    # Material's badge does, in the item's description (it had no word of it).
    left = sum(c.unread for c in phone.state.apps["pay"].conversations)
    assert left == total - unread
    tab = find(phone.hierarchy(), resource_id="nav_messages")
    assert tab.desc == f"Messages, {left} new notification{'' if left == 1 else 's'}"


def test_a_reply_shows_at_the_bottom_and_tops_the_message_list(phone):
    phone.open("pay", "pay/messages")
    row = nodes(phone, resource_id="conversation")[4]
    tap_node(phone, row)
    assert not find(phone.hierarchy(), resource_id="send").enabled
    press(phone, resource_id="input")
    phone.act("TYPE[Understood]")
    press(phone, resource_id="send")
    assert texts(phone, "message_out")[-1] == "Understood"
    assert texts(phone, "input") == ["Send a message"]  # the hint: the draft is gone
    phone.act("PRESS[BACK]")
    phone.act("PRESS[BACK]")  # the keyboard first, then the conversation
    assert phone.route() == "pay/messages"
    top = nodes(phone, resource_id="conversation")[0]
    assert top.entity == row.entity and child(top, "subtitle") == "Understood"
    assert child(top, "meta") == phone.clock[11:16]  # sent now, by the phone's clock
    listed = [n.entity for n in nodes(phone, resource_id="conversation")]
    assert listed.count(row.entity) == 1  # moved on top, not listed twice
    ids = [c.id for c in phone.state.apps["pay"].conversations]
    assert len(ids) == len(set(ids))


def test_long_messages_wrap_in_bubbles_as_wide_as_their_text(phone):
    from dataclasses import replace

    from mobileintent_gym.apps.pay import Message

    state = phone.state.copy()
    pay = state.apps["pay"]
    long = "Your electricity and water bill for February is ready to pay " * 3
    first = replace(pay.conversations[0], messages=(Message("them", long, "2026-03-02 08:00"),
                                                    Message("them", "ok", "2026-03-02 08:01")))
    state.apps["pay"] = replace(pay, conversations=(first, *pay.conversations[1:]))
    phone.reset(state)
    phone.open("pay", "pay/conversation", id=first.id)
    tall, short = [n.bounds for n in nodes(phone, resource_id="message_in")]
    assert tall[3] - tall[1] > 3 * (short[3] - short[1]) / 2 and short[1] > tall[3]
    assert short[2] - short[0] < (tall[2] - tall[0]) / 3  # "ok" is narrow
    frame = phone.screenshot()
    inked = (frame[tall[1]:tall[3], tall[0]:tall[2]].min(axis=2) < 128).any(axis=1)
    assert inked.sum() > 3 * (inked.size // 10)  # several lines of text are drawn


def test_two_users_see_their_own_transactions_and_conversations():
    ana, chen = (load_user_content(u) for u in ("demo-ana", "demo-chen"))
    for key in ("pay:bills", "pay:messages"):
        a, c = ana.contexts[key], chen.contexts[key]
        assert a.common == c.common and len(a.common) + len(a.personal) >= 20
        assert len(set(a.personal) & set(c.personal)) < len(a.personal) / 2
    bills = {u.user_id: [b.title for b in u.state.apps["pay"].bills] for u in (ana, chen)}
    assert "Kota Corner" in bills["demo-ana"] or "Amapiano Nights" in bills["demo-ana"]
    assert "KeyForge Keyboards" in bills["demo-chen"] or "PixelCon Expo" in bills["demo-chen"]


def test_each_pool_is_large_and_every_cue_hides_its_label():
    for pool in (BILLS, CONVERSATIONS):
        records = pool.records()
        assert len(records) >= 60
        assert all(r.label.casefold() not in r.cue.casefold() for r in records)
        assert len({r.label for r in records}) == len(records)
    assert {r["kind"] for r in CONVERSATIONS.records()} == {"service", "merchant", "friend"}


def test_a_profile_of_the_tests_own_gets_its_tastes_on_top():
    content = build_user_content(UserProfile.from_dict(PROFILE))
    personal = content.labels[content.contexts["pay:bills"].personal[0]]
    assert personal in {"Seoul Kitchen BBQ", "Ichiran Ramen Bar", "Hoops Arena"}
