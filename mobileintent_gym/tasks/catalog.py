"""What the installed apps offer, as Markdown tables: their task templates and PAIR contexts.

``mobileintent-gym catalog templates`` and ``mobileintent-gym catalog contexts`` print
them; the README's tables are this output, so they follow the app registry.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Sequence

from mobileintent_gym.console import plain
from mobileintent_gym.tasks.templates import TEMPLATES
from mobileintent_gym.users.pair import CONTEXTS, PairConfig, reserved_records


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A Markdown table of ``rows`` under ``header`` (cells are written as they are)."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def templates_table() -> str:
    """One row per task template: its id, app, context, task and subgoals (UC marked)."""
    rows = ([template.id, template.app, f"`{template.context}`", template.text,
             " · ".join(subgoal.name + (" (UC)" if subgoal.context == "UC" else "")
                        for subgoal in template.subgoals)]
            for template in TEMPLATES.values())
    return markdown_table(("template", "app", "context", "task",
                           "subgoals (UC = user-conditioned content)"), rows)


def contexts_table(config: PairConfig | None = None) -> str:
    """One row per PAIR context: its key, its pool's id range, size and common records.

    A size larger than the pool is followed by what the pool holds.

    Raises:
        InvalidAppError: Naming a context whose common records its pool does not hold.
    """
    config = config or PairConfig()
    reserved_records(CONTEXTS.values())
    rows = []
    for spec in CONTEXTS.values():
        ids = sorted(entity.id for entity in spec.pool.entities())
        size = config.size(spec)
        held = f" (its pool holds {len(ids)})" if size > len(ids) else ""
        rows.append([f"`{spec.key}`", f"`{ids[0]}` … `{ids[-1]}` ({len(ids)})",
                     f"{size}{held}", ", ".join(f"`{i}`" for i in spec.common)])
    return markdown_table(("context", "pool (ids, records)", "size", "common records"), rows)


TABLES = {"templates": templates_table, "contexts": contexts_table}


def run(args: argparse.Namespace) -> int:
    """Print the table ``args.table`` names."""
    print(TABLES[args.table]())
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``catalog`` sub-command."""
    parser = subparsers.add_parser(
        "catalog", help="the installed apps' task templates or PAIR contexts (Markdown)",
        description=plain(__doc__), formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("table", choices=sorted(TABLES), help="which table to print")
    parser.set_defaults(func=run)
