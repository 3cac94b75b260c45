"""Pure view models above the reader and the engine: the count ledger (``audit``), "explain
this number", attribution of issues and retries, plan and run comparison, statistics, the
runs and leaderboard tables, task rows, the tasks screen's rows and filters (``tasks``,
``task_index``, ``outcomes``), the diagnostics pager's documents (``documents``),
stored-vs-recomputed differences, and ``visible`` (text from result files shown, never
obeyed). Widgets take their view models from here. No textual, no rich, no I/O beyond what a
view is asked to read (retry records, a diagnostics file); a test imports every module here
and checks."""
