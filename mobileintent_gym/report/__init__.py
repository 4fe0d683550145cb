"""Look at a run: the HTML trajectory viewer and a GIF of one episode.

``mobileintent-gym view RUN.json`` writes the report (:func:`write_report`); ``--gif N``
exports episode N (:func:`write_gif`). Screens come from :class:`ScreenSource`.
"""

from mobileintent_gym.report.gif import write_gif
from mobileintent_gym.report.page import write_report
from mobileintent_gym.report.screens import Screens, ScreenSource

__all__ = ["ScreenSource", "Screens", "write_gif", "write_report"]
