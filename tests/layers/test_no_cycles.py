"""No module of inspector/ or widgets/ imports itself back through others (issue 12).

The import graph is grimp's (import-linter's own graph builder), with every import: at the
top, inside functions and under ``TYPE_CHECKING`` (a type pointing up is still a way up).
A cycle is a strongly connected component of more than one module.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Set

import grimp

STILL_CIRCLING: tuple[frozenset[str], ...] = ()
"""Known cycles, each allowed to shrink, never to grow; none may be added."""


def cycles(edges: Mapping[str, Set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for target in sorted(edges.get(module, ())):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in on_stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == module:
                    break
            if len(component) > 1:
                found.append(frozenset(component))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(edges) + 100))
    try:
        for module in sorted(edges):
            if module not in index:
                visit(module)
    finally:
        sys.setrecursionlimit(limit)
    return found


def test_the_cycle_finder_finds_a_cycle_and_only_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [frozenset("abc")]
    assert cycles({"a": {"b"}, "b": set(), "c": {"a", "b"}}) == []


def test_no_new_import_cycles() -> None:
    graph = grimp.build_graph("inspector", "widgets", cache_dir=None)
    edges = {m: graph.find_modules_directly_imported_by(m) for m in graph.modules}
    assert "inspector.engine.reduction" in edges["inspector.engine.recomputation"]
    unexpected = [
        sorted(cycle)
        for cycle in cycles(edges)
        if not any(cycle <= allowed for allowed in STILL_CIRCLING)
    ]
    assert unexpected == [], f"modules that import each other: {unexpected}"
