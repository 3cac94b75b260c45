"""Pure view models above the reader and the engine: the count ledger (``audit``), "explain
this number", attribution of issues and retries, plan and run comparison, statistics, the
runs and leaderboard tables, task rows, stored-vs-recomputed differences, and ``visible``
(text from result files shown, never obeyed). No textual, no rich, no I/O beyond what a view
is asked to read (retry records); a test imports every module here and checks."""
