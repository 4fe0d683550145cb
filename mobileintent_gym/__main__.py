"""``python -m mobileintent_gym``: the ``mobileintent-gym`` command line."""

from mobileintent_gym.cli import main

raise SystemExit(main())
