"""The reader app: its screens, what its controls change and its PAIR lists.

Every check after an action reads the screen (the dump), not only the app's state.
"""

import json

import pytest

from mobileintent_gym.phone.query import find
from mobileintent_gym.users import load_user_content
from tests.helpers import nodes, press, tap_node, texts


def reader(phone):
    return phone.state.apps["reader"]


def text_in(row, name):
    return next(n.text for n in row.walk() if n.resource_id.endswith(f":id/{name}"))


def shown(phone, resource_id):
    """The texts inside the first element with ``resource_id``, in tree order."""
    return [n.text for n in nodes(phone, resource_id=resource_id)[0].walk() if n.text]


def scrolled_through(phone, resource_id):
    """Entity ids of every row with ``resource_id``, swiping up until the list ends."""
    seen = []
    while True:
        seen += [n.entity for n in nodes(phone, resource_id=resource_id) if n.entity not in seen]
        if not phone.act("SWIPE[UP]").effect:
            return seen


def test_a_book_of_the_reading_list_opens_its_page(phone):
    phone.open("reader")
    row = nodes(phone, resource_id="shelf_book")[1]
    book = reader(phone).books[row.entity]
    assert text_in(row, "title") == book.title and text_in(row, "subtitle") == book.author
    assert find(phone.hierarchy(), resource_id="progress").desc.endswith("% read")
    tap_node(phone, row)
    assert phone.route() == "reader/book"
    assert nodes(phone, resource_id="book_header")[0].entity == book.id
    assert shown(phone, "book_header") == [book.title, book.author]
    assert texts(phone, "about") == [book.blurb]
    read = f"{reader(phone).progress[book.id]}%"
    assert shown(phone, "facts") == [f"{book.rating:.1f}", "Rating", book.genre.capitalize(),
                                     "Genre", read, "Read"]
    assert texts(phone, "read") == ["Continue reading"]
    assert texts(phone, "topics") == ["  ".join(f"#{t}" for t in book.topics)]
    press(phone, resource_id="read")  # a reading session gets one percent further
    assert shown(phone, "facts")[4] == f"{reader(phone).progress[book.id]}%" != read
    assert int(shown(phone, "facts")[4][:-1]) == int(read[:-1]) + 1
    phone.act("PRESS[BACK]")
    assert nodes(phone, resource_id="shelf_book")[0].entity == book.id  # now on top


def test_a_book_page_suggests_books_of_its_genre_that_open_their_own_page(phone):
    phone.open("reader")
    state = reader(phone)
    book = state.books[state.reading[0]]
    tap_node(phone, nodes(phone, resource_id="shelf_book")[0])
    while phone.act("SWIPE[UP]").effect:
        pass
    similar = nodes(phone, resource_id="similar_book")
    same = [b for b in state.books.values() if b.genre == book.genre and b.id != book.id]
    assert len(similar) == 3 and book.id not in [n.entity for n in similar]
    assert [n.entity for n in similar[:len(same)]] == [b.id for b in same[:3]]
    other = state.books[similar[0].entity]
    assert text_in(similar[0], "title") == other.title
    tap_node(phone, similar[0])
    assert nodes(phone, resource_id="book_header")[0].entity == other.id
    phone.act("PRESS[BACK]")
    assert nodes(phone, resource_id="book_header")[0].entity == book.id


def test_reading_a_recommended_book_puts_it_on_top_of_the_reading_list(phone):
    phone.open("reader")
    press(phone, desc="Discover")
    row = nodes(phone, resource_id="recommended_book")[0]
    assert text_in(row, "blurb") == reader(phone).books[row.entity].blurb  # two lines fit
    tap_node(phone, row)
    assert texts(phone, "read") == ["Read"] and shown(phone, "facts")[4] == "Not started"
    press(phone, resource_id="read")
    assert texts(phone, "read") == ["Continue reading"] and shown(phone, "facts")[4] == "1%"
    assert find(phone.hierarchy(), resource_id="progress").desc == "1% read"
    phone.act("PRESS[BACK]")
    press(phone, desc="Reading")
    first = nodes(phone, resource_id="shelf_book")[0]
    assert first.entity == row.entity
    assert find(phone.hierarchy(), resource_id="progress").desc == "1% read"


def open_add_favorite_book(phone):
    phone.open("reader")
    press(phone, desc="Me")
    press(phone, resource_id="book_list_entry")
    assert phone.route() == "reader/book_list"
    press(phone, resource_id="edit_list")
    assert phone.route() == "reader/list_editor"
    press(phone, resource_id="add_favorite")
    assert phone.route() == "reader/add_book"


def test_add_favorite_book_puts_the_book_in_the_list(phone):
    listed = len(reader(phone).favorites)
    open_add_favorite_book(phone)
    candidate = nodes(phone, resource_id="candidate")[2]
    tap_node(phone, candidate)
    assert phone.route() == "reader/confirm_add"
    assert nodes(phone, resource_id="confirm_book")[0].entity == candidate.entity
    press(phone, resource_id="confirm")
    assert phone.route() == "reader/list_editor"
    rows = nodes(phone, resource_id="list_book")
    assert rows[0].entity == candidate.entity and len(rows) == listed + 1
    assert f"In this list ({listed + 1})" in texts(phone, "section_title")
    press(phone, resource_id="add_favorite")  # the book is marked as added, and cannot be again
    again = next(n for n in nodes(phone, resource_id="candidate") if n.entity == candidate.entity)
    assert not again.clickable
    assert [n.desc for n in again.walk() if n.desc] == ["Added"]
    phone.act("PRESS[BACK]")
    phone.act("PRESS[BACK]")
    assert phone.route() == "reader/book_list"
    assert nodes(phone, resource_id="list_book")[0].entity == candidate.entity
    assert shown(phone, "list_header")[1] == f"{listed + 1} books · by Alex Morgan"


def test_cancel_adds_nothing_and_remove_takes_a_book_off_the_list(phone):
    before = reader(phone).favorites
    open_add_favorite_book(phone)
    tap_node(phone, nodes(phone, resource_id="candidate")[0])
    press(phone, resource_id="cancel")
    assert phone.route() == "reader/add_book" and reader(phone).favorites == before
    phone.act("PRESS[BACK]")
    gone = nodes(phone, resource_id="list_book")[0].entity
    press(phone, resource_id="remove")
    shown = [n.entity for n in nodes(phone, resource_id="list_book")]
    assert gone not in shown and shown == list(before[1:])


@pytest.mark.parametrize(("tab", "rows", "field"), [
    (None, "shelf_book", "reading"),
    ("Discover", "recommended_book", "recommended"),
    ("add", "candidate", "candidates"),
])
def test_every_target_context_is_a_scrolling_list_of_at_least_20_books(phone, tab, rows, field):
    if tab == "add":
        open_add_favorite_book(phone)
    else:
        phone.open("reader")
        if tab:
            press(phone, desc=tab)
    shown = scrolled_through(phone, rows)
    assert len(shown) >= 20 and shown == list(getattr(reader(phone), field))


def test_two_users_get_different_books_and_share_the_common_ones():
    ana, ben = (load_user_content(u) for u in ("demo-ana", "demo-ben"))
    for key in ("reader:reading", "reader:recommended", "reader:favorites"):
        assert ana.contexts[key].common == ben.contexts[key].common
        assert len(set(ana.contexts[key].personal) - set(ben.contexts[key].personal)) >= 10
    state = ben.state.apps["reader"]
    # Ben reads biographies, history and mysteries: his reading list is mostly those.
    genres = [state.books[b].genre for b in state.reading]
    assert sum(g in ("biography", "history", "mystery") for g in genres) >= 12


@pytest.fixture(scope="module")
def poetry_lover(tmp_path_factory):
    """A profile of this test's own: poetry and nature books, hiking trips."""
    path = tmp_path_factory.mktemp("profiles") / "poetry-lover.json"
    path.write_text(json.dumps({
        "user_id": "poetry-lover",
        "demographics": {"age": "55-64 years old"},
        "interests": {"Books": 1, "Travel": 1, "Music": 0},
        "affinities": {"Books": {"Genre": ["poetry", "nature"], "Favourite Authors": []},
                       "Travel": {"Preferred Activities": ["hiking", "bird watching"]}},
        "interactions": {"Books": "Reads poems at dawn."},
    }))
    return str(path)


def test_a_profile_of_the_tests_own_gets_its_genres_on_top(poetry_lover):
    content = load_user_content(poetry_lover)
    state = content.state.apps["reader"]
    personal = content.contexts["reader:reading"].personal[0]
    assert state.books[personal].genre in ("poetry", "nature")  # an exact match ranks first


def test_reading_a_book_on_the_list_again_moves_it_on_top_once_and_stops_at_100(phone):
    from dataclasses import replace

    state = phone.state.copy()
    book = reader(phone).reading[2]
    state.apps["reader"] = replace(reader(phone), progress={**reader(phone).progress,
                                                            book: 100})
    phone.reset(state)
    phone.open("reader", "reader/book", id=book)
    press(phone, resource_id="read")
    assert reader(phone).reading[0] == book and reader(phone).reading.count(book) == 1
    assert reader(phone).progress[book] == 100  # a finished book stays finished
    assert find(phone.hierarchy(), resource_id="progress").desc == "100% read"
