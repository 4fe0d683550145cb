"""The phone shows its owner's own name: the profile's, else one made of the user id."""

import json
import re
from collections import Counter

import pytest

from mobileintent_gym.apps.pay.state import money
from mobileintent_gym.apps.plugin import DEFAULT_OWNER, user_handle
from mobileintent_gym.phone import SimPhone, hierarchy
from mobileintent_gym.phone.widgets import counted
from mobileintent_gym.users import PairConfig, build_user_content, load_profile, load_user_content
from mobileintent_gym.users.profile import builtin_profiles_dir

LEXICAL = PairConfig(encoder="lexical")
# The page of each app that shows its owner (the forum shows a pseudonym, the others none).
ME_PAGES = {"chat": "chat/me", "notes": "notes/me", "pay": "pay/me", "reader": "reader/me",
            "meeting": "meeting/me", "social": "social/me", "video": "video/me"}


def shown(phone):
    """Every text and content description of the phone's current screen."""
    return [t for n in hierarchy.parse(phone.hierarchy()).walk() for t in (n.text, n.desc) if t]


def phone_of(content):
    phone = SimPhone()
    phone.reset(content.state)
    return phone


def me_pages(phone):
    """What each app's Me page shows, by route."""
    pages = {}
    for app, route in ME_PAGES.items():
        phone.open(app, route)
        pages[route] = shown(phone)
    return pages


@pytest.mark.parametrize(("user", "name", "handle"), [
    ("kwame", "Kwame Mensah", "kwame_mensah"),
    ("lucia", "Lucía Hernández", "lucia_hernandez"),
    ("jun", "Jun-ho Park", "jun_ho_park"),
])
def test_every_me_page_shows_the_users_own_name_and_handles_made_of_it(user, name, handle):
    phone = phone_of(load_user_content(user, LEXICAL))
    pages = me_pages(phone)
    assert [route for route, texts in pages.items() if name not in texts] == []
    first, *rest = handle.split("_")
    assert f"Chat ID: {handle}" in pages["chat/me"]
    assert f"ID: {handle}_notes" in pages["notes/me"]
    assert f"{first}.{rest[0][0]}•••@mail.com" in pages["pay/me"]
    assert f"@{handle.replace('_', '')}" in pages["social/me"]
    phone.open("reader", "reader/book_list")
    assert any(t.endswith(f"· by {name}") for t in shown(phone))
    chat = phone.state.apps["chat"].chats[0]
    phone.open("chat", "chat/conversation", id=chat.id)
    assert name in shown(phone)  # the face beside the user's own messages


def test_each_users_account_details_are_their_own_and_shown_on_the_me_pages():
    # Every user had the forum name quiet_otter, meeting ID 6182 0473, a balance of
    # 1,024.36 with 11,377.80 saved on 3 cards, account level 4 and the same notes bio.
    details = []
    for user in ("kwame", "lucia", "jun"):
        phone = phone_of(load_user_content(user, LEXICAL))
        apps, pages = phone.state.apps, me_pages(phone)
        forum, pay, notes = apps["forum"], apps["pay"], apps["notes"]
        assert apps["meeting"].account in pages["meeting/me"]
        assert f"Lv {apps['video'].level} · Watching, learning and liking" in pages["video/me"]
        shown_pay = [money(pay.balance, sign=False), money(pay.savings, sign=False),
                     money(pay.balance + pay.savings, sign=False), counted(pay.cards, "card")]
        assert set(shown_pay) <= set(pages["pay/me"])
        phone.open("pay", "pay/home")
        earned = round(pay.savings * 0.04 / 365)
        said = f"+{earned // 100}.{earned % 100:02d}"
        assert f"Savings fund earned {said} yesterday" in shown(phone)
        # The Savings Fund's messages (jun has them) said +1.23 whatever the home page said.
        funds = [c.messages[0].text for c in pay.conversations if c.name == "Savings Fund"]
        assert funds == ([f"Yesterday's earnings: {said}"] if user == "jun" else [])
        kept = Counter(notes.notes[n].topic for n in (*notes.saved, *notes.liked))
        top = [topic for topic, _ in kept.most_common(2)]
        assert notes.bio == f"{top[0].capitalize()}, {top[1]} and saving everything for later"
        assert notes.bio in pages["notes/me"]
        phone.open("forum", "forum/profile")
        assert forum.me in shown(phone) and re.fullmatch(r"[a-z]+_[a-z]+\d\d", forum.me)
        details.append((forum.me, apps["meeting"].account, pay.balance, pay.savings, notes.bio))
    assert all(len(set(column)) == 3 for column in zip(*details, strict=True))


def test_no_screen_of_a_built_in_users_phone_shows_the_default_name():
    phone = phone_of(load_user_content("kwame", LEXICAL))
    opened = []
    for app in phone.apps.values():
        params = app.samples(phone.state.apps[app.id])
        for route in app.routes:
            phone.open(app.id, route, **params.get(route, {}))
            opened.append(route)
            assert "alex" not in phone.hierarchy().casefold(), route
    assert len(opened) == sum(len(app.routes) for app in phone.apps.values()) > 60


def test_a_phone_without_a_user_shows_the_default_name():
    phone = SimPhone()
    pages = me_pages(phone)
    assert [route for route, texts in pages.items() if DEFAULT_OWNER not in texts] == []
    assert "alex.m•••@mail.com" in pages["pay/me"]
    phone.close()


def test_a_profile_without_a_name_shows_one_made_of_its_id(tmp_path):
    data = json.loads((builtin_profiles_dir() / "kwame.json").read_text(encoding="utf-8"))
    del data["demographics"]["name"]
    data["user_id"] = data["demographics"]["user_id"] = "user12"
    path = tmp_path / "user12.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    pages = me_pages(phone_of(build_user_content(load_profile(path), LEXICAL)))
    assert [route for route, texts in pages.items() if "User 12" not in texts] == []
    assert "user.1•••@mail.com" in pages["pay/me"]


def test_a_renamed_user_is_built_anew_not_served_the_old_name_from_the_cache(tmp_path):
    data = json.loads((builtin_profiles_dir() / "kwame.json").read_text(encoding="utf-8"))
    path = tmp_path / "kwame.json"
    names = []
    for name in ("Kwame Mensah", "Kwame Asante"):
        data["demographics"]["name"] = name
        path.write_text(json.dumps(data), encoding="utf-8")
        state = build_user_content(load_profile(path), LEXICAL).state
        names.append({app: state.apps[app].me for app in ME_PAGES})
    assert names == [dict.fromkeys(ME_PAGES, "Kwame Mensah"),
                     dict.fromkeys(ME_PAGES, "Kwame Asante")]


@pytest.mark.parametrize(("name", "joiner", "handle"), [
    ("Lucía Hernández", "_", "lucia_hernandez"),
    ("Dr. Alan Reyes", "_", "dr_alan_reyes"),
    ("Jun-ho Park", "", "junhopark"),
    ("Mei Ling Tan", ".", "mei.ling.tan"),
    ("---", "_", "me"),
    # Letters without a decomposition were kept: a handle and an e-mail address of "ø".
    ("Sølvi Ødegård", "_", "solvi_odegard"),
    ("Łukasz Żółć", ".", "lukasz.zolc"),
    ("Þórdís Ævarsdóttir", "_", "thordis_aevarsdottir"),
    ("Jürgen Straße", "", "jurgenstrasse"),
    ("Đorđe Ðokić", "_", "dorde_dokic"),
    ("王伟", "_", "王伟"),  # another script: as it is
])
def test_a_handle_is_the_names_letters_and_digits_lower_cased_without_accents(name, joiner,
                                                                             handle):
    assert user_handle(name, joiner) == handle


def test_no_built_in_users_full_name_is_someone_else_in_any_apps_content():
    # hana's Social had another "Hana Sato", kwame wrote a book in Reader, sipho hosted a
    # meeting and chatted in Pay with himself.
    from pathlib import Path

    import mobileintent_gym.apps

    data = "\n".join(path.read_text(encoding="utf-8") for path in
                     Path(mobileintent_gym.apps.__file__).parent.glob("*/data/*.jsonl"))
    names = [json.loads(path.read_text(encoding="utf-8"))["demographics"]["name"]
             for path in builtin_profiles_dir().glob("*.json")]
    assert len(names) == 24 and len(data) > 100_000
    assert [name for name in names if name in data] == []
