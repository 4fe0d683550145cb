"""The HTML report of a run: one file with its styles and script inline.

An index table lists the episodes, filtered by success, template and user; a click opens an
episode: its instruction, user, target and subgoals with their rewards, then per step the
screen with the action drawn on it, the route change, the reward and why an action was
refused. Each distinct screen is stored once (JPEG) and loaded when its episode opens:
inside the page while the screens total at most ``INLINE_BYTES``, else as files in a
folder beside it (``run.html`` → ``run_screens/``), so that the report of a run of
thousands of episodes stays a page a browser opens at once.
"""

from __future__ import annotations

import base64
import glob
import hashlib
import io
import json
import re
from html import escape
from pathlib import Path
from typing import Any
from urllib.parse import quote

import numpy as np
from PIL import Image

from mobileintent_gym.console import UsageError
from mobileintent_gym.files import partial_of, write_atomic
from mobileintent_gym.report.marks import caption, marks, svg_marks
from mobileintent_gym.report.screens import Screens, ScreenSource
from mobileintent_gym.results import RunRecord, score_text, subgoal_marks

THUMB_WIDTH = 360
SUBGOALS_LEGEND = ("one mark per subgoal, in order: 1 done, 0 its screen reached but not done, "
                   ". its screen never reached")
INLINE_BYTES = 16 * 2**20  # screens (JPEG) kept inside the page up to this total
TITLE = "mobileintent-gym run: "  # every report's title starts so (the agent follows)
_ASSETS = Path(__file__).with_name("assets")


def _whole_factor(frame_width: int, width: int) -> int:
    """How many times ``width`` goes into ``frame_width`` if a whole number > 1, else 0.

    A frame of such a width is reduced by it; any other is resized.
    """
    factor = frame_width / width
    return int(factor) if factor == int(factor) and factor > 1 else 0


def thumb_size(size: tuple[int, int], width: int = THUMB_WIDTH) -> tuple[int, int]:
    """The size of a ``size`` frame's :func:`thumbnail` (a reduction rounds up, as PIL)."""
    factor = _whole_factor(size[0], width)
    if factor:
        return -(-size[0] // factor), -(-size[1] // factor)
    return width, max(1, round(size[1] / (size[0] / width)))


def thumbnail(frame: np.ndarray, width: int = THUMB_WIDTH) -> Image.Image:
    """``frame`` scaled to ``width`` pixels wide (see :func:`thumb_size`)."""
    image = Image.fromarray(frame)
    factor = _whole_factor(image.width, width)
    if factor:
        return image.reduce(factor)
    return image.resize(thumb_size(image.size, width), Image.Resampling.BILINEAR)


_SCREEN = re.compile(r"[0-9a-f]{16}\.jpg")  # a screen's file: its key, a digest


class FrameStore:
    """Distinct screens as JPEG thumbnails, keyed by a digest of their pixels."""

    def __init__(self) -> None:
        self.jpegs: dict[str, bytes] = {}

    def add(self, frame: np.ndarray) -> str:
        """The key of ``frame``'s thumbnail (encoded once)."""
        image = thumbnail(frame)
        key = hashlib.blake2b(image.tobytes(), digest_size=8).hexdigest()
        if key not in self.jpegs:
            buffer = io.BytesIO()
            image.save(buffer, format="JPEG", quality=70)
            self.jpegs[key] = buffer.getvalue()
        return key

    def size(self) -> int:
        """Bytes of all the thumbnails."""
        return sum(map(len, self.jpegs.values()))

    def inline(self) -> dict[str, str]:
        """Key → the thumbnail as a data URI."""
        return {key: "data:image/jpeg;base64," + base64.b64encode(jpeg).decode("ascii")
                for key, jpeg in self.jpegs.items()}

    def paths(self, folder: str) -> dict[str, str]:
        """Key → the thumbnail's URL in a folder named ``folder`` beside the page.

        The folder's name is URL-quoted: a page named ``run#2.html`` has its screens in
        ``run#2_screens``, which as written would end the path at ``#``.
        """
        return {key: f"{quote(folder)}/{key}.jpg" for key in self.jpegs}

    def write(self, folder: Path) -> None:
        """Add the thumbnails ``folder`` lacks as ``<key>.jpg``, each file whole.

        A key is a digest of the thumbnail's pixels, so a file of that name holds it
        already and is left alone: an earlier report's screens stay as they were.
        """
        folder.mkdir(parents=True, exist_ok=True)
        for key, jpeg in self.jpegs.items():
            if not (folder / f"{key}.jpg").exists():
                write_atomic(folder / f"{key}.jpg", jpeg)

    def prune(self, folder: Path, shown_elsewhere: set[str] = frozenset()) -> None:
        """Remove from ``folder`` the screens (and half-written ones) this store does not hold.

        Only files named as a report names them go: anything else put there stays, as do
        the files named in ``shown_elsewhere`` (another page's screens).
        """
        kept = {f"{key}.jpg" for key in self.jpegs} | shown_elsewhere
        for path in folder.iterdir():
            ours = _SCREEN.fullmatch(partial_of(path.name) or path.name)
            if ours and path.name not in kept and path.is_file() and not path.is_symlink():
                path.unlink()


def screens_folder(path: str | Path) -> Path:
    """The folder of a report's screens when they are not inline: ``run.html`` → ``run_screens``."""
    path = Path(path)
    return path.with_name(f"{path.stem}_screens")


def _shown_by_other_pages(path: Path, folder: Path) -> set[str]:
    """The screens of ``folder`` that reports other than ``path`` show.

    ``run.html`` and ``run.htm`` (one stem) share one folder.
    """
    link = re.compile(re.escape(quote(folder.name)) + r"/(" + _SCREEN.pattern + ")")
    shown: set[str] = set()
    for other in path.parent.glob(f"{glob.escape(path.stem)}*"):
        if (other.resolve() != path.resolve() and other.is_file()
                and screens_folder(other) == folder and _is_report(other)):
            shown.update(link.findall(other.read_text(encoding="utf-8", errors="replace")))
    return shown


def _template(task: str) -> str:
    return task.split(":")[0]


def _scores(scores: dict[str, Any]) -> str:
    cells = "".join(f"<tr><th>{escape(k)}</th><td>{score_text(v)}</td></tr>"
                    for k, v in scores.items())
    return f'<table class="kv" id="scores">{cells}</table>'


def _provenance(prov: dict[str, Any], done: int) -> str:
    """The run's settings; a warning for an encoder fallback and for a run cut short."""
    shown = {k: prov.get(k) for k in ("agent", "device", "encoder", "seed", "version",
                                      "started", "profiles")}
    shown["users"] = ", ".join(prov.get("users", []))
    shown["tasks"] = len(prov.get("tasks", []))
    rows = "".join(f"<tr><th>{escape(k)}</th><td>{escape(str(v))}</td></tr>"
                   for k, v in shown.items() if v is not None)
    warnings = []
    if prov.get("encoder_fallback"):
        warnings.append(f"Encoder fallback: {escape(prov['encoder_fallback'])}")
    planned = len(prov.get("users", [])) * len(prov.get("tasks", []))
    if done < planned:
        warnings.append(f"Partial run: {done} of {planned} episodes; the scores are those "
                        "of the episodes done (all-success needs every user's)")
    notes = "".join(f'<p class="warn">{w}</p>' for w in warnings)
    return f'<div><table class="kv">{rows}</table>{notes}</div>'


def _index(episodes: list[dict[str, Any]], problems: dict[Any, tuple[str, int]]) -> str:
    """The table of episodes; one whose screens are missing says how many it has, and why."""
    rows = []
    for e in episodes:
        steps = str(len(e["steps"]))
        if e["index"] in problems:
            problem, shown = problems[e["index"]]
            steps += (f' <span class="no" title="{escape(problem)}">(screens: {shown} of '
                      f"{len(e['steps']) + 1})</span>")
        rewards = subgoal_marks(e)
        index = escape(str(e["index"]))  # a results file is data: nothing in it is markup
        rows.append(
            f'<tr data-episode="{index}" data-success="{int(e["success"])}" '
            f'data-template="{escape(_template(e["task"]))}" data-user="{escape(e["user"])}">'
            f'<td><a href="#episode-{index}">{index}</a></td><td>{escape(e["user"])}</td>'
            f'<td>{escape(e["task"])}</td>'
            f'<td class="{"ok" if e["success"] else "no"}">{"yes" if e["success"] else "no"}</td>'
            f"<td>{rewards}</td><td>{steps}</td></tr>")
    head = ("<tr><th>#</th><th>user</th><th>task</th><th>success</th>"
            f'<th title="{SUBGOALS_LEGEND}">subgoals</th><th>steps</th></tr>')
    return (f'<div class="wide"><table id="episodes"><thead>{head}</thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>'
            f'<p class="legend">subgoals: {SUBGOALS_LEGEND}</p>')


def _select(name: str, label: str, values: list[str]) -> str:
    options = "".join(f'<option value="{escape(v)}">{escape(v)}</option>' for v in values)
    return (f'<label>{label} <select id="filter-{name}" data-key="{name}">'
            f'<option value="">all</option>{options}</select></label>')


def _filters(episodes: list[dict[str, Any]]) -> str:
    success = ('<label>success <select id="filter-success" data-key="success">'
               '<option value="">all</option><option value="1">yes</option>'
               '<option value="0">no</option></select></label>')
    templates = sorted({_template(e["task"]) for e in episodes})
    users = list(dict.fromkeys(e["user"] for e in episodes))
    return (f'<div id="filters">{success}{_select("template", "template", templates)}'
            f'{_select("user", "user", users)}<span id="shown"></span></div>')


def _subgoals(e: dict[str, Any]) -> str:
    """The episode's subgoals: each with its context and reward, or that it was not reached."""
    items = "".join(
        f'<li class="{"ok" if r else "no" if seen else "unreached"}">{escape(name)} '
        f'<small>{escape(ctx)}</small> &rarr; {f"{r:g}" if seen else "context not reached"}'
        "</li>"
        for name, ctx, r, seen in zip(e["subgoals"], e["contexts"], e["rewards"], e["reached"],
                                      strict=True))
    return f'<ol class="subgoals">{items}</ol>'


def _step(n: int, step: dict[str, Any] | None, key: str | None, size: tuple[int, int]) -> str:
    width, height = size
    shapes = [] if step is None else marks(step["action"], width, height, step.get("invalid"))
    shot = ('<div class="missing">no screen</div>' if key is None else
            f'<img data-frame="{key}" alt="screen {n}" width="{THUMB_WIDTH}" '
            f'height="{thumb_size(size)[1]}">'
            f"{svg_marks(shapes, width, height)}")
    banner = f'<div class="caption">{caption(shapes)}</div>' if caption(shapes) else ""
    if step is None:
        text = "final screen"
    else:
        route = escape(step["route_before"])
        if step["route_after"] != step["route_before"]:
            route += f" &rarr; {escape(step['route_after'])}"
        invalid = step.get("invalid")
        why = f'<br><span class="no">{escape(invalid)}</span>' if invalid else ""
        text = (f"{n}. <code>{escape(step['action'])}</code><br>{route}"
                f"<br>reward {step['reward']:g}{why}")
    return (f'<figure class="step"><div class="shot">{shot}{banner}</div>'
            f"<figcaption>{text}</figcaption></figure>")


def _teacher_forced(matches: list[bool] | None) -> str:
    """A teacher-forced run's marks: per step of the reference, the agent's action matched."""
    if matches is None:
        return ""
    cells = "".join(f'<span class="{"ok" if m else "no"}">{"1" if m else "0"}</span>'
                    for m in matches)
    return (f'<p class="forced">teacher-forced, per step of the reference (1: the agent\'s '
            f"action there matched it): <code>{cells}</code>, {sum(matches)} of "
            f"{len(matches)}</p>")


def _episode(e: dict[str, Any], screens: Screens, store: FrameStore,
             size: tuple[int, int]) -> str:
    keys = [store.add(f) for f in screens.frames]
    steps = [*e["steps"], None]
    figures = "".join(_step(n, step, keys[n - 1] if n - 1 < len(keys) else None, size)
                      for n, step in enumerate(steps, start=1))
    problem = f'<p class="warn">{escape(screens.problem)}</p>' if screens.problem else ""
    verdict = "succeeded" if e["success"] else "failed"
    forced = _teacher_forced(e.get("teacher_forced"))
    index = escape(str(e["index"]))
    return (f'<section class="episode" id="episode-{index}" hidden>'
            f'<h2>#{index} {escape(e["user"])} &middot; {escape(e["task"])} '
            f'<span class="{"ok" if e["success"] else "no"}">{verdict}</span></h2>'
            f'<p class="instruction">{escape(e["instruction"])}</p>'
            f'<p>user <b>{escape(e["user"])}</b>, target <code>{escape(e["target"])}</code>, '
            f'seed {escape(str(e["seed"]))}</p>{_subgoals(e)}{forced}{problem}'
            f'<div class="steps">{figures}</div></section>')


def render_page(run: RunRecord, source: ScreenSource, folder: str | None = None,
                inline_bytes: int = INLINE_BYTES) -> tuple[str, FrameStore | None]:
    """The report of ``run`` as one HTML document, and the screens it loads from a folder.

    Args:
        run: The run.
        source: Where the episodes' screens come from.
        folder: The name of the folder beside the page that the screens go to when they
            total more than ``inline_bytes`` (``None``: always inline).
        inline_bytes: The most bytes of screens kept inside the page.

    Returns:
        The page, and the screens to write into ``folder`` (``None`` when they are inline).
    """
    store = FrameStore()
    size = tuple(run.provenance["screen"])
    problems: dict[Any, tuple[str, int]] = {}  # episode index → why screens are missing,
    # and how many there are

    def section(e: dict[str, Any]) -> str:  # one episode's screens at a time in memory
        screens = source.screens(e)
        if screens.problem:
            problems[e["index"]] = screens.problem, len(screens.frames)
        return _episode(e, screens, store, size)

    sections = "".join(section(e) for e in run.episodes)
    title = f"{TITLE}{run.provenance.get('agent', '?')}"
    spilled = folder is not None and store.size() > inline_bytes
    uris = store.paths(folder) if spilled else store.inline()
    frames = json.dumps(uris).replace("</", "<\\/")
    return ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f'<link rel="icon" href="data:,"><title>{escape(title)}</title>'
            f"<style>{(_ASSETS / 'report.css').read_text(encoding='utf-8')}</style></head><body>"
            f"<h1>{escape(title)}</h1><div class=\"top\">"
            f"{_provenance(run.provenance, len(run.episodes))}"
            f"{_scores(run.scores)}</div>{_filters(run.episodes)}"
            f"{_index(run.episodes, problems)}"
            f'{sections}<script type="application/json" id="frames">{frames}</script>'
            f"<script>{(_ASSETS / 'report.js').read_text(encoding='utf-8')}</script></body></html>",
            store if spilled else None)


def check_report_path(path: Path) -> None:
    """Refuse to write a report over a file that is not one, or to a name no page has.

    A results file or a script is kept; an earlier report there, or an empty file, may be
    replaced. A page's name ends in ``.html`` or ``.htm``.

    Raises:
        UsageError: Naming the path, which is kept.
    """
    if path.is_file() and not _is_report(path):
        raise UsageError(f"the report's path {str(path)!r} holds a file that is not a report "
                         "(it is kept): move it, or give --html another path")
    if path.suffix.lower() not in (".html", ".htm"):
        raise UsageError(f"the report's path {str(path)!r} is no web page's: give --html a "
                         "path ending in .html")


def _is_report(path: Path) -> bool:
    """Whether ``path`` is blank or starts as :func:`render_page`'s pages do.

    An editor's byte-order mark, leading spaces and the doctype's case are let pass.
    """
    with path.open("rb") as file:
        head = file.read(1024).decode("utf-8-sig", "replace").lstrip()
    return not head or (head[:15].lower() == "<!doctype html>" and f"<title>{TITLE}" in head)


def write_report(run: RunRecord, path: str | Path, frames_dir: Path | None = None,
                 inline_bytes: int = INLINE_BYTES) -> Path:
    """Write the HTML report of ``run`` to ``path``; returns the path.

    Screens that do not fit in the page are added to its screens' folder, each file whole;
    then the page replaces the earlier one in one rename; then the folder loses the screens
    neither it nor another report of its stem shows. An interrupted write therefore leaves
    the earlier page with every screen it shows, beside at most some whole files of the new
    one. A page that
    holds its screens leaves the folder alone (another page of the same stem may use it).

    Args:
        run: The run (see :func:`mobileintent_gym.results.read_run`).
        path: Where to write the HTML file.
        frames_dir: Folder of the results file, where a real device's screens are stored.
        inline_bytes: The most bytes of screens kept inside the page; more go to
            :func:`screens_folder` of ``path``.
    """
    path = Path(path)
    folder = screens_folder(path)
    source = ScreenSource(run.provenance, frames_dir)
    try:
        page, spilled = render_page(run, source, folder.name, inline_bytes)
    finally:
        source.close()
    if spilled is not None:
        spilled.write(folder)
    write_atomic(path, page.encode("utf-8", "replace"))  # a lone surrogate reads as ?
    if spilled is not None:
        spilled.prune(folder, _shown_by_other_pages(path, folder))
    return path
