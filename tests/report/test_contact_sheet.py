"""``mobileintent-gym contact-sheet``: every registered app's main target list, per user."""

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from mobileintent_gym.apps import registry
from mobileintent_gym.cli import main
from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.phone import SimPhone, hierarchy
from mobileintent_gym.report import contact_sheet as contact_sheet_module
from mobileintent_gym.report.contact_sheet import (
    Layout,
    contact_sheet,
    main_template,
    target_screen,
    user_line,
)
from mobileintent_gym.users import load_user_content
from tests.helpers import exit_status

USERS = ("demo-ana", "demo-ben")
COMMITTED = Path(__file__).resolve().parents[2] / "docs" / "contact-sheet.png"
SIZE = (360, 800)


@pytest.fixture(scope="module")
def sheet(tmp_path_factory):
    out = tmp_path_factory.mktemp("sheet") / "sheet.png"
    assert main(["contact-sheet", "--users", *USERS, "--size", "360x800",
                 "--out", str(out)]) == 0
    return np.asarray(Image.open(out).convert("RGB"))


@pytest.fixture(scope="module")
def screens():
    """Each app's target screen (its route and dump too) per user, taken here."""
    phone = SimPhone(*SIZE)
    found = {}
    for user in USERS:
        content = load_user_content(user)
        for bundle in registry.bundles():
            frame = target_screen(phone, content, bundle)
            found[bundle.id, user] = (frame, phone.route(), phone.hierarchy(), content)
    phone.close()
    return found


def test_a_user_given_by_path_is_named_by_their_id(tmp_path):
    # The sheet labelled each screen with the path, cut short: "1. /tmp/long/folder/…".
    profiles = Path(__file__).resolve().parents[2] / "mobileintent_gym" / "users" / "profiles"
    path = tmp_path / ("a-folder-with-a-long-name-" * 4) / "someone.json"
    path.parent.mkdir()
    path.write_text((profiles / "amara.json").read_text())
    assert user_line(str(path)) == user_line("amara")
    assert user_line("amara").startswith("amara: ")
    # Labelled by id, the two would look alike: refused, as evaluate refuses them.
    out = tmp_path / "sheet.png"
    assert main(["contact-sheet", "--users", "amara", str(path), "--out", str(out)]) == 2
    assert not out.exists()


def test_the_main_template_is_on_the_context_most_templates_target_first_one_on_a_tie():
    music = registry.get("music")
    first, second, third = music.templates
    assert main_template(music) is first  # one template per context: the first wins
    twice = replace(music, templates=(first, second, replace(second, id="G-SPT-99"), third))
    assert main_template(twice) is second
    assert main_template(replace(music, templates=())) is None


def test_an_app_without_templates_is_shown_at_its_home_screen():
    # What the loop below accepts for such an app (no shipped app has none), taken here.
    music = registry.get("music")
    phone = SimPhone(*SIZE)
    frame = target_screen(phone, load_user_content(USERS[0]), replace(music, templates=()))
    assert phone.route() == music.app.home and frame.shape == (SIZE[1], SIZE[0], 3)
    phone.close()


def test_each_app_shows_the_entry_screen_of_its_uc_subgoal_with_the_users_own_list(screens):
    for (app, user), (_, route, xml, content) in screens.items():
        template = main_template(registry.get(app))
        if template is None:  # an app without templates (allowed) shows its home screen
            assert route == registry.get(app).app.home, (app, user)
            continue
        entry = next(g.screens for g in template.subgoals if g.context == "UC")
        assert route in entry, (app, user)
        shown = {n.text for n in hierarchy.parse(xml).walk()}
        personal = content.contexts[template.context].personal
        # A row shows a record's label, or starts with it (a post shows its whole text).
        assert any(text.startswith(content.labels[i]) for i in personal for text in shown), (
            app, user)


def test_the_users_see_different_lists(screens):
    for bundle in registry.bundles():
        ana, ben = (screens[bundle.id, u][0] for u in USERS)
        assert not np.array_equal(ana, ben), bundle.id


def test_the_sheet_holds_every_apps_screen_for_each_user_in_order(sheet, screens):
    layout = Layout(len(registry.bundles()), len(USERS), SIZE)
    assert sheet.shape == (layout.sheet[1], layout.sheet[0], 3)
    for a, bundle in enumerate(registry.bundles()):
        for u, user in enumerate(USERS):
            x, y = layout.screen_at(a, u)
            shown = sheet[y:y + SIZE[1], x:x + SIZE[0]]
            assert np.array_equal(shown, screens[bundle.id, user][0]), (bundle.id, user)


@pytest.mark.parametrize(("args", "named"), [
    (["--users", "demo-ana"], "--users demo-ana names 1 user; the sheet compares two or more"),
    (["--users", "demo-ana", "nobody"], "'nobody'"),
    # It read "sim size must be WIDTHxHEIGHT, got '--size 12'".
    (["--size", "12"], "argument --size: a screen size is written WIDTHxHEIGHT (as 1080x2400), "
                       "got '12'"),
    (["--profiles", "/nonexistent"], "--profiles '/nonexistent' is not a folder"),
])
def test_bad_arguments_are_one_line_and_write_nothing(tmp_path, capsys, args, named):
    out = tmp_path / "sub" / "sheet.png"
    assert exit_status(["contact-sheet", *args, "--out", str(out)]) == 2
    assert named in capsys.readouterr().err
    assert not out.parent.exists()


@pytest.mark.parametrize(("kwargs", "error", "named"), [
    # After every screen was drawn: ZeroDivisionError, PIL's "Width and height must be >=
    # 0"; a size as text failed in SimPhone, a user's name as text was read letter by letter.
    ({"per_row": 0}, ValueError, "per_row must be a positive integer, got 0"),
    ({"per_row": -1}, ValueError, "per_row must be a positive integer, got -1"),
    ({"size": "320x480"}, MobileIntentError, r"size must be \(width, height\), got '320x480'"),
    ({"users": "demo-ana"}, MobileIntentError, "users must be a list or other collection"),
])
def test_the_functions_arguments_are_named_before_any_screen_is_drawn(kwargs, error, named,
                                                                      monkeypatch):
    def load(*args):
        raise AssertionError("a user's content was loaded before the arguments were checked")

    monkeypatch.setattr(contact_sheet_module, "load_user_content", load)
    with pytest.raises(error, match=named):
        contact_sheet(**{"users": ["demo-ana"], **kwargs})


def test_the_committed_sheet_covers_every_registered_app():
    """The sheet in docs/ is the command's, with its defaults, made after the last app."""
    committed = np.asarray(Image.open(COMMITTED).convert("RGB"))
    layout = Layout(len(registry.bundles()), 2, SIZE)
    redo = "run `mobileintent-gym contact-sheet` to redraw docs/contact-sheet.png"
    assert committed.shape[1::-1] == layout.sheet, redo
    for app in range(layout.apps):  # a screen in every cell, none missing
        x, y = layout.screen_at(app, 1)
        screen = committed[y:y + SIZE[1], x:x + SIZE[0]].reshape(-1, 3)
        assert len(np.unique(screen, axis=0)) > 8, redo
