"""The Textual app: ``InspectorApp(paths, *, settings=None)`` and ``serve(path, ...)``.

Imports are lazy so that ``inspector.views.tasks`` (pure) and the widgets can be imported
without building the app.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from inspector.app.app import InspectorApp
    from inspector.app.settings import Settings
    from inspector.app.web import serve

__all__ = ["InspectorApp", "Settings", "serve"]


def __getattr__(name: str) -> Any:
    if name == "InspectorApp":
        from inspector.app.app import InspectorApp

        return InspectorApp
    if name == "serve":
        from inspector.app.web import serve

        return serve
    if name == "Settings":
        from inspector.app.settings import Settings

        return Settings
    raise AttributeError(name)
