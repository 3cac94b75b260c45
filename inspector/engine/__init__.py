"""The scoring engine: pure (no I/O, no textual, no rich), one implementation of AgentCompass's rules.

The package face holds no names: import each from the module that defines it
(``inspector.engine.recomputation.recompute``, ``inspector.engine.report.MetricReport``,
``inspector.engine.vocabulary.Count`` …), so that importing one part loads only what it uses
(the cached ``report`` answer needs none of the scoring) and nothing is loaded lazily.
"""
