"""The ``inspector`` command line: :mod:`inspector.cli.main` parses and dispatches; one module
per command family (``report`` / ``check``, ``tasks``, ``diff``, ``stats``, ``export``,
``leaderboard``); :mod:`inspector.cli.output` writes exactly what they print. No logic of its
own: the answers come from :mod:`inspector.answers` and the views."""
