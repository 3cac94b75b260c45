"""Reading AgentCompass run directories: pure (no textual, no rich), read-only.

``reader.read_run`` loads one run exactly as AgentCompass's ``RunStore`` would and reports
everything wrong as ``problems.LoadProblem``s; ``discover.find_runs`` lists the runs under a
results root cheaply; ``lazy`` reads the big payloads (trajectories, artifacts, logs) on demand.

The package face holds no names: import each from the module that defines it, so that
importing one part loads only what it uses, and nothing is loaded lazily.
"""
