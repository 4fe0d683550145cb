"""Every installed app's task templates, gathered from the app registry.

Each app keeps its templates in its own package (``apps/<id>/templates.py``), written with
its own route and resource-id names; :data:`TEMPLATES` lists them all by id.
"""

from __future__ import annotations

from collections.abc import Mapping

from mobileintent_gym.apps import registry
from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.tasks.spec import TaskTemplate

TEMPLATES: Mapping[str, TaskTemplate] = registry.View(registry.templates)
"""Template id → template, for every registered app (read on first use)."""


def get_template(template_id: str) -> TaskTemplate:
    """The template with id ``template_id``.

    Raises:
        MobileIntentError: Naming the unknown id and the known ones.
    """
    try:
        return TEMPLATES[template_id]
    except KeyError:
        raise MobileIntentError(
            f"unknown task template {template_id!r}; known: {sorted(TEMPLATES)}") from None
