"""The answers the commands and the app ask of runs, above the loading door: ``run`` (one run
opened: its session, what ``report`` prints), ``check`` (one run against its stored
``metrics.json``), ``root`` and ``items`` (every run under a root), ``gate`` (the publish
gate over a root's runs)."""
