"""``mobileintent-gym contact-sheet``: each app's main target list for users side by side.

For every app of the registry the sheet shows the screen of its *main target context* —
the context most of its task templates draw their target from (on a tie, the one of the
earliest template) — as each user's phone shows it, so that how PAIR personalises each app
can be seen at a glance. The screen is reached the way an agent reaches it: from the app's
opening screen, by the oracle of the first template on that context, up to the entry
screen of its first user-conditioned (UC) subgoal. An app without templates shows its
opening screen.

Example::

    mobileintent-gym contact-sheet                       # writes docs/contact-sheet.png
    mobileintent-gym contact-sheet --users val --out out/val.png
"""

from __future__ import annotations

import argparse
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from mobileintent_gym.apps import registry
from mobileintent_gym.apps.plugin import AppBundle
from mobileintent_gym.checks import check_items, positive_integer
from mobileintent_gym.console import (
    Repeated,
    UsageError,
    add_require_encoder,
    path_text,
    plain,
    profiles_folder,
    run_encoder,
    size_text,
)
from mobileintent_gym.envs.days import check_size
from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.phone import SimPhone
from mobileintent_gym.phone.paint import fit_text, font
from mobileintent_gym.report.images import image_format, save_image
from mobileintent_gym.results import check_writable
from mobileintent_gym.tasks import Oracle, instantiate, task_ids
from mobileintent_gym.tasks.spec import TaskTemplate
from mobileintent_gym.users import PairConfig, UserContent, load_user_content, resolve_profile
from mobileintent_gym.users.sets import distinct_users, resolve_users

DEFAULT_USERS = ("chiara", "kwame")  # two test users of unlike tastes
DEFAULT_OUT = "docs/contact-sheet.png"
SIZE = (360, 800)  # drawn unscaled, so every label stays legible
APPS_PER_ROW = 3
GAP, MARGIN, TEXT = 12, 24, 18
LINE = TEXT * 3 // 2
INK, PAPER, RULE = (33, 33, 33), (250, 250, 250), (189, 189, 189)


def main_template(bundle: AppBundle) -> TaskTemplate | None:
    """The first of ``bundle``'s templates on its main target context (``None``: no template)."""
    if not bundle.templates:
        return None
    counts = Counter(t.context for t in bundle.templates)  # keeps first-seen order for ties
    main = max(counts, key=counts.__getitem__)
    return next(t for t in bundle.templates if t.context == main)


def target_screen(phone: SimPhone, content: UserContent, bundle: AppBundle) -> np.ndarray:
    """The screen of ``bundle``'s main target context on the phone holding ``content``.

    Raises:
        MobileIntentError: When the oracle does not reach that screen within the template's
            step limit.
    """
    phone.reset(content.state)
    phone.open(bundle.id)
    template = main_template(bundle)
    if template is not None:
        _walk_to_target_list(phone, content, template)
    return phone.screenshot()


def _walk_to_target_list(phone: SimPhone, content: UserContent, template: TaskTemplate) -> None:
    entry = next((g.screens for g in template.subgoals if g.context == "UC"),
                 template.subgoals[0].screens)
    oracle = Oracle(instantiate(task_ids((template.id,))[0], content))
    for _ in range(template.step_limit):
        if phone.route() in entry:
            return
        phone.act(oracle.act(phone.route(), phone.hierarchy()))
    raise MobileIntentError(f"the oracle of {template.id} did not reach {list(entry)} for "
                            f"user {content.user_id!r}; it stopped on {phone.route()!r}")


def user_line(user: str, profiles_dir: str | os.PathLike[str] | None = None) -> str:
    """``user``'s id and who they are, from their profile's demographics, on one line.

    The id, not ``user``: a profile given by its path would show its folders, cut short.
    """
    profile = resolve_profile(user, profiles_dir)
    about = profile.demographics
    facts = [str(about[k]) for k in ("age", "occupation", "city", "reside_country") if about.get(k)]
    return ": ".join((profile.user_id, ", ".join(facts))) if facts else profile.user_id


def contact_sheet(users: Sequence[str], *, pair: PairConfig | None = None,
                  profiles_dir: str | os.PathLike[str] | None = None,
                  size: tuple[int, int] = SIZE, per_row: int = APPS_PER_ROW) -> Image.Image:
    """The sheet: per registered app, its main target screen for each of ``users``.

    Args:
        users: Profile names or paths (see :func:`~mobileintent_gym.users.resolve_users`).
        pair: How PAIR builds each user's content.
        profiles_dir: Where profile names are looked up first.
        size: The simulated phone's screen size; screens are drawn at this size.
        per_row: Apps per row of the sheet.

    Raises:
        UnknownProfileError: When a user's profile is not found.
        MobileIntentError: When an app's target screen cannot be reached, or naming
            ``users`` or ``size`` of another kind (before any screen is drawn).
        ValueError: Naming a ``per_row`` that is no integer of at least 1.
    """
    check_items("users", users, lambda user: isinstance(user, str | os.PathLike),
                "a profile name or path")
    size = check_size("size", size)
    per_row = positive_integer("per_row", per_row)
    contents = [load_user_content(u, pair, profiles_dir) for u in users]
    phone = SimPhone(*size)
    try:
        cells = [(_caption(b), [target_screen(phone, c, b) for c in contents])
                 for b in registry.bundles()]
    finally:
        phone.close()
    header = [user_line(u, profiles_dir) for u in users]
    names = [c.user_id for c in contents]
    return _compose(names, header, cells, Layout(len(cells), len(users), size, per_row))


def _caption(bundle: AppBundle) -> str:
    template = main_template(bundle)
    where = f"{template.context} ({template.id})" if template else "no task templates"
    return f"{bundle.app.label} · {where}"


@dataclass(frozen=True)
class Layout:
    """Where things go on a sheet of ``apps`` cells, each showing ``users`` screens.

    Attributes:
        apps: Cells, one per app, ``per_row`` to a row.
        users: Screens per cell (and lines of the header, after its title).
        size: A screen's size in pixels.
        per_row: Cells per row.
    """

    apps: int
    users: int
    size: tuple[int, int]
    per_row: int = APPS_PER_ROW

    @property
    def cell(self) -> tuple[int, int]:
        """Width and height of one app's cell: its caption, the names, the screens."""
        width = self.users * self.size[0] + (self.users - 1) * GAP
        return width, 2 * TEXT + GAP + self.size[1]

    @property
    def top(self) -> int:
        """Where the first row of cells starts, below the header."""
        return MARGIN + (self.users + 1) * LINE + GAP

    @property
    def sheet(self) -> tuple[int, int]:
        """Width and height of the whole sheet."""
        rows, columns = -(-self.apps // self.per_row), min(self.per_row, self.apps)
        return (2 * MARGIN + columns * (self.cell[0] + 2 * GAP) - 2 * GAP,
                self.top + rows * (self.cell[1] + 2 * GAP) + MARGIN)

    def cell_at(self, app: int) -> tuple[int, int]:
        """Top left corner of the cell of the ``app``-th app."""
        return (MARGIN + app % self.per_row * (self.cell[0] + 2 * GAP),
                self.top + app // self.per_row * (self.cell[1] + 2 * GAP))

    def screen_at(self, app: int, user: int) -> tuple[int, int]:
        """Top left corner of the ``user``-th user's screen of the ``app``-th app."""
        x, y = self.cell_at(app)
        return x + user * (self.size[0] + GAP), y + 2 * TEXT + GAP


def _compose(names: Sequence[str], header: list[str], cells: list[tuple[str, list[np.ndarray]]],
             layout: Layout) -> Image.Image:
    sheet = Image.new("RGB", layout.sheet, PAPER)
    draw = ImageDraw.Draw(sheet)
    wide = layout.sheet[0] - 2 * MARGIN
    _write(draw, (MARGIN, MARGIN), "Main target context of each app, per user "
           "(left to right)", wide, bold=True)
    for n, line in enumerate(header, 1):
        _write(draw, (MARGIN, MARGIN + n * LINE), f"{n}. {line}", wide)
    for i, (caption, screens) in enumerate(cells):
        x, y = layout.cell_at(i)
        _write(draw, (x, y), caption, layout.cell[0], bold=True)
        for n, screen in enumerate(screens):
            left, top = layout.screen_at(i, n)
            _write(draw, (left, y + TEXT + GAP // 2), f"{n + 1}. {names[n]}", layout.size[0])
            sheet.paste(Image.fromarray(screen), (left, top))
            draw.rectangle((left - 1, top - 1, left + layout.size[0], top + layout.size[1]),
                           outline=RULE)
    return sheet


def _write(draw: ImageDraw.ImageDraw, at: tuple[int, int], text: str, width: int,
           bold: bool = False) -> None:
    face = font(TEXT - 4, bold)
    draw.text(at, fit_text(text, face, width), font=face, fill=INK)


def _main(args: argparse.Namespace) -> int:
    users = resolve_users(args.users, profiles_folder(args.profiles))
    distinct_users(users, args.profiles, ", whose screens would be labelled alike")
    if len(users) < 2:
        raise UsageError(f"--users {' '.join(args.users)} names {len(users)} user; the sheet "
                         "compares two or more side by side")
    out = Path(args.out)
    check_writable(out, "--out")
    image_format(out, "--out")
    run_encoder(args.require_encoder)  # announces the model that ranks the content
    save_image(contact_sheet(users, profiles_dir=args.profiles, size=args.size), out)
    print(f"contact sheet: {out} ({len(registry.bundles())} apps x {len(users)} users)")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``contact-sheet`` sub-command."""
    parser = subparsers.add_parser(
        "contact-sheet", help="each app's main target screen for users side by side (PNG)",
        description=plain(__doc__), formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--users", nargs="+", action=Repeated, default=list(DEFAULT_USERS),
                        help="two or more users: sets (train, val, test, demo, all), profile "
                        f"names or paths (default: {' '.join(DEFAULT_USERS)})")
    parser.add_argument("--profiles", type=path_text, help="folder of profiles named by --users")
    parser.add_argument("--size", type=size_text, default="x".join(map(str, SIZE)),
                        help="phone screen size WIDTHxHEIGHT, drawn unscaled")
    parser.add_argument("--out", type=path_text, default=DEFAULT_OUT, help="PNG to write")
    add_require_encoder(parser)
    parser.set_defaults(func=_main)
