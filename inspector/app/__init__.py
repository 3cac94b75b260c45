"""The Textual app: ``inspector.app.app.InspectorApp(paths, *, settings=None)``,
``inspector.app.settings.Settings`` and ``inspector.app.web.serve(path, ...)``.

The package face holds no names, as the engine's and the reader's: import each from the
module that defines it, so that importing ``inspector.app.settings`` (the CLI does, before it
decides to start the app) loads no textual, and nothing is loaded lazily.
"""
