"""A small registry of identified classes (reducers, strategies), as AgentCompass keeps them."""

from __future__ import annotations

import re
from typing import Generic, TypeVar

T = TypeVar("T")
_ID = re.compile(r"^[a-z][a-z0-9_]*$")


class Registry(Generic[T]):
    """Maps lowercase identifiers to instances; duplicates are rejected."""

    def __init__(self, what: str) -> None:
        self._what = what
        self._items: dict[str, T] = {}

    def register(self, identifier: str, item: T) -> T:
        if not isinstance(identifier, str) or not _ID.match(identifier):
            raise ValueError(f"{self._what} id must be a lowercase identifier, got {identifier!r}")
        if identifier in self._items:
            raise ValueError(f"{self._what} {identifier!r} is already registered")
        self._items[identifier] = item
        return item

    def resolve(self, identifier: object) -> T:
        key = identifier.strip().lower() if isinstance(identifier, str) else identifier
        try:
            return self._items[key]  # type: ignore[index]
        except (KeyError, TypeError):
            known = ", ".join(sorted(self._items))
            raise KeyError(f"unknown {self._what} {identifier!r} (known: {known})") from None

    def __contains__(self, identifier: object) -> bool:
        return isinstance(identifier, str) and identifier.lower() in self._items
