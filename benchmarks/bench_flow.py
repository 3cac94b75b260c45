"""The data's path through a cold ``report`` (issue 50): files entered, climbs, returns.

    .venv/bin/python benchmarks/bench_flow.py [--run RUN] [--tree TREE] [--json]

Runs the console script's door, ``python -m inspector report RUN --json`` (``runpy``, in
one process; nothing here knows the loading layer's internals), cold: a fresh ``HOME`` and
an empty ``XDG_CACHE_HOME``, no ``INSPECTOR_*`` variable, so the caches are on, empty, and
written at the end. A small run (under the reader processes' threshold, 1,500 task folders
on 9a735b5) is read in this process, so every call is seen. The measurement always runs
in a subprocess of ``TREE/.venv/bin/python`` (default TREE: this checkout) with TREE first
on ``sys.path``, ``PYTHONHASHSEED=0``, and TREE's ``pyproject.toml`` for the layers: run it
on the tree before a change and on the tree after it (``git worktree add /tmp/before
9a735b5`` + a venv; ``bench_flow.py --tree /tmp/before``). Default RUN:
``fixtures/conformance/e2e_k3_avg_category_mean`` (10 tasks, k=3).

Definition (what is counted), under ``sys.setprofile``:

- **Calls seen**: Python function calls whose code is in TREE's ``inspector`` or
  ``widgets`` package. Module bodies (imports are not the data's path), comprehensions and
  generator expressions are not calls.
- **Carries the run**: a value carries the run when it is the run's path or a path inside
  it (``str`` or ``os.PathLike``; the path as given, absolute, or resolved), or an object
  remembered (below), or holds one of these one level deep: an item of a
  tuple/list/set/frozenset, a value of a dict, an attribute in ``__dict__`` or
  ``__slots__`` (a named tuple's fields are its items).
- **Stop**: a call seen one of whose arguments (``self``, ``*args`` and ``**kwargs``
  included) carries the run, read from the frame at the call.
- **The door**: the first stop in ``inspector/loading/`` that makes a further stop before
  it returns (``urls.is_url(path)`` in the CLI, a leaf, is not the door on 9a735b5;
  ``open_run`` is). Counting starts at the door and runs to the end of the command (what
  the caller does with the answer counts too). Only from the door on, what a stop returns
  (or yields) is remembered, with its members one level deep; remembered objects are kept
  alive, so an id is never reused. ``None``, numbers, strings, bytes, enum members, empty
  containers, classes, functions and modules are never remembered (they are shared, not
  derived); so an ``Overrides`` made from the command line before the door never carries
  the run.
- **Loops and recursion**: a stop is counted the first time its call site is taken (the
  caller's code object and line, with the callee's code object); the same site again (the
  next task of a loop, the next level of a recursion, a generator resumed) is not. The
  figures then do not grow with the run's size (runs from ``fixtures/make_large_run.py``
  of 200 and 1,000 tasks: the same figures; of 20 tasks: 4 fewer stops and returns).
- **The path**: the files of the counted stops in call order, consecutive stops in one
  file merged. *Stops* (files entered) = its length; *files* = distinct files on it;
  *climbs* = steps from a file of a lower layer to a file of a higher one; *returns* =
  steps into a file already on the path earlier. Layers are read from the first
  ``layers`` contract of ``[tool.importlinter]`` in TREE's ``pyproject.toml`` (top first;
  ``a | b`` is one layer; a module's layer is its longest prefix there); a file in no
  layer (``inspector.overrides``, ``widgets``) is tagged ``-`` and no step into or out of
  it is a climb. Also printed: the files of the path with their layer and functions, and
  the path by layer.

On 9a735b5 and the default run: 94 stops (files entered), 30 files, 18 climbs, 64 returns
(171 call sites), the same on every run of it and under any hash seed. The issue's
70 / 29 / 10 / 53 were counted with another cut of the same idea (not recorded): compare
trees with this tool, both figures from it. Nothing here runs in the test suite.
"""

from __future__ import annotations

import argparse
import enum
import itertools
import json
import os
import runpy
import subprocess
import sys
import tempfile
import types
from pathlib import Path, PurePath
from typing import NamedTuple

HERE = Path(__file__).resolve().parents[1]
DEFAULT_RUN = HERE / "fixtures" / "conformance" / "e2e_k3_avg_category_mean"
PACKAGES = ("inspector", "widgets")
NOT_CALLS = ("<module>", "<genexpr>", "<listcomp>", "<dictcomp>", "<setcomp>")
ATOMS = (type(None), bool, int, float, complex, str, bytes, enum.Enum, type,
         types.FunctionType, types.BuiltinFunctionType, types.MethodType, types.ModuleType)  # fmt: skip


def layers_of(pyproject: Path) -> list[list[str]]:
    """The first import-linter ``layers`` contract's layers, top first, each as its modules."""
    import tomllib

    config = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    for contract in config.get("tool", {}).get("importlinter", {}).get("contracts", []):
        if contract.get("type") == "layers":
            return [[name.strip() for name in layer.split("|")] for layer in contract["layers"]]
    raise SystemExit(f"{pyproject}: no import-linter layers contract")


def layer_index(module: str, layers: list[list[str]]) -> int | None:
    """The layer of ``module`` (0 the top), by its longest layer prefix; None: in none."""
    found = [
        (len(name), index)
        for index, layer in enumerate(layers)
        for name in layer
        if module == name or module.startswith(name + ".")
    ]
    return max(found)[1] if found else None


class Stop(NamedTuple):
    """A call seen that carries the run."""

    file: str  # relative to the tree
    function: str  # qualified name
    depth: int  # stops active when it was called
    site: tuple[object, int, object]  # the caller's code and line, the callee's code
    in_loading: bool


class Tracer:
    """The profile function: every stop in call order, what stops returned remembered."""

    def __init__(self, root: Path, run: Path) -> None:
        self.root = str(root) + os.sep
        self.runs = tuple(sorted({str(run), str(run.resolve())}))
        self.loading = os.path.join("inspector", "loading") + os.sep
        self.kept: dict[int, object] = {}  # id -> object returned by a stop (kept alive)
        self.active: list[int] = []  # ids of the frames of the stops under way
        self.parents: list[int] = []  # their indexes in ``stops``
        self.door: int | None = None  # the index of the door's stop, once known
        self.stops: list[Stop] = []
        self.ours: dict[str, str | None] = {}

    def relative(self, filename: str) -> str | None:
        """``filename`` relative to the tree when in one of its packages, else None."""
        if filename not in self.ours:
            rel = filename[len(self.root) :] if filename.startswith(self.root) else None
            self.ours[filename] = rel if rel and rel.split(os.sep)[0] in PACKAGES else None
        return self.ours[filename]

    def is_path(self, value: object) -> bool:
        if isinstance(value, (str, PurePath)):
            text = os.fspath(value)
            return any(text == run or text.startswith(run + os.sep) for run in self.runs)
        return False

    def carries(self, value: object, deep: bool = True) -> bool:
        if id(value) in self.kept or self.is_path(value):
            return True
        if not deep or isinstance(value, ATOMS):
            return False
        return any(self.carries(member, deep=False) for member in members(value))

    def keep(self, value: object, deep: bool = True) -> None:
        if isinstance(value, ATOMS) or (isinstance(value, (tuple, list, dict, set)) and not value):
            return
        self.kept[id(value)] = value
        if deep:
            for member in members(value):
                self.keep(member, deep=False)

    def __call__(self, frame: types.FrameType, event: str, arg: object) -> None:
        if event == "call":
            code = frame.f_code
            rel = self.relative(code.co_filename)
            if rel is None or code.co_name in NOT_CALLS:
                return
            count = code.co_argcount + code.co_kwonlyargcount
            names = code.co_varnames[: count + bool(code.co_flags & 4) + bool(code.co_flags & 8)]
            local = frame.f_locals
            if not any(self.carries(local.get(name)) for name in names):
                return
            caller = frame.f_back
            site = (caller.f_code, caller.f_lineno, code) if caller else (None, 0, code)
            in_loading = rel.startswith(self.loading)
            if self.door is None and self.parents and self.stops[self.parents[-1]].in_loading:
                self.door = self.parents[-1]
            self.stops.append(Stop(rel, code.co_qualname, len(self.active), site, in_loading))
            self.active.append(id(frame))
            self.parents.append(len(self.stops) - 1)
        elif event == "return" and self.active and self.active[-1] == id(frame):
            self.active.pop()
            index = self.parents.pop()
            if self.door is not None and index >= self.door:
                self.keep(arg)


def members(value: object) -> list[object]:
    """``value``'s members one level deep (items, values, fields, attributes)."""
    try:
        if isinstance(value, dict):
            return list(value.values())
        if isinstance(value, (tuple, list, set, frozenset)):
            return list(value)
        found = list(getattr(value, "__dict__", {}).values())
        for cls in type(value).__mro__:
            for slot in getattr(cls, "__slots__", ()):
                if hasattr(value, slot):
                    found.append(getattr(value, slot))
        return found
    except Exception:
        return []


def measure_here(root: Path, run: Path) -> dict[str, object]:
    """Run ``report RUN --json`` in this process under the tracer; the path and counts."""
    with tempfile.TemporaryDirectory(prefix="bench-flow-") as home:
        for name in [name for name in os.environ if name.startswith("INSPECTOR_")]:
            del os.environ[name]
        os.environ["HOME"] = home
        os.environ["XDG_CACHE_HOME"] = os.path.join(home, "cache")  # empty: a cold read
        sys.path.insert(0, str(root))
        tracer = Tracer(root, run)
        sys.argv = ["inspector", "report", str(run), "--json"]
        code: object = 0
        stdout, saved = sys.stdout, os.dup(1)
        with open(os.devnull, "w") as devnull:
            sys.stdout = devnull
            os.dup2(devnull.fileno(), 1)  # the report itself, however it is written
            sys.setprofile(tracer)
            try:
                runpy.run_module("inspector", run_name="__main__")
            except SystemExit as exc:
                code = exc.code
            finally:
                sys.setprofile(None)
                os.dup2(saved, 1)
                os.close(saved)
                sys.stdout = stdout
    if code not in (0, None):
        raise SystemExit(f"report {run} exited {code}")
    measured = Path(sys.modules["inspector"].__file__ or "").resolve()
    if not measured.is_relative_to(root):
        raise SystemExit(f"the inspector measured is {measured.parent}, not {root}'s")
    if tracer.door is None:
        raise SystemExit("no call into inspector/loading/ passed the run on")
    return summarise(counted(tracer.stops[tracer.door :]), layers_of(root / "pyproject.toml"))


def counted(stops: list[Stop]) -> list[Stop]:
    """The stops counted: each call site once (its first time)."""
    sites: set[tuple[object, int, object]] = set()
    kept = []
    for stop in stops:
        if stop.site not in sites:
            sites.add(stop.site)
            kept.append(stop)
    return kept


def summarise(stops: list[Stop], layers: list[list[str]]) -> dict[str, object]:
    """The path (files entered, consecutive stops in one file merged) and its counts."""
    path: list[dict[str, object]] = []
    for rel, function, *_ in stops:
        if path and path[-1]["file"] == rel:
            path[-1]["functions"].append(function)  # type: ignore[attr-defined]
            continue
        module = rel.removesuffix(".py").removesuffix("/__init__").replace(os.sep, ".")
        index = layer_index(module, layers)
        tag = "-" if index is None else " | ".join(layers[index]).replace("inspector.", "")
        path.append({"file": rel, "layer": index, "tag": tag, "functions": [function]})
    climbs = returns = 0
    seen: set[str] = set()
    for before, step in itertools.pairwise(path):
        low, high = before["layer"], step["layer"]
        if low is not None and high is not None and high < low:  # type: ignore[operator]
            climbs += 1
            step["climb"] = True
    for step in path:
        if step["file"] in seen:
            returns += 1
            step["return"] = True
        seen.add(step["file"])  # type: ignore[arg-type]
    return {
        "stops": len(path),
        "files": len(seen),
        "climbs": climbs,
        "returns": returns,
        "calls": len(stops),
        "layers": [tag for tag, _ in itertools.groupby(step["tag"] for step in path)],
        "path": path,
    }


def measure_tree(tree: Path, run: Path) -> dict[str, object]:
    """The measurement in a subprocess of TREE's own interpreter, TREE first on sys.path."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    env["PYTHONHASHSEED"] = "0"  # sets iterated in the inspector's code: one call order
    done = subprocess.run(
        [str(tree / ".venv" / "bin" / "python"), str(Path(__file__).resolve()),
         "--here", str(tree), "--run", str(run), "--json"],
        cwd=tree, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"{tree}: {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout)


def show(figures: dict[str, object], run: Path, tree: Path) -> None:
    print(f"cold `report {run} --json` in {tree}")
    for number, step in enumerate(figures["path"], 1):  # type: ignore[arg-type]
        mark = "".join(f"  ({what})" for what in ("climb", "return") if step.get(what))
        print(f"{number:3} [{step['tag']}] {step['file']}{mark}: {', '.join(step['functions'])}")
    print("by layer:", " -> ".join(figures["layers"]))  # type: ignore[arg-type]
    print(
        f"stops (files entered) {figures['stops']}, files {figures['files']}, "
        f"climbs {figures['climbs']}, returns {figures['returns']} "
        f"({figures['calls']} call sites)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--run", type=Path, default=DEFAULT_RUN, help="a small run directory")
    parser.add_argument("--tree", type=Path, help="a checkout with its own .venv (default: this)")
    parser.add_argument("--json", action="store_true", help="the figures as JSON")
    parser.add_argument("--here", type=Path, help=argparse.SUPPRESS)  # measure in-process
    args = parser.parse_args()
    run = args.run.absolute()
    if args.here is not None:
        figures = measure_here(args.here.resolve(), run)
        tree = args.here
    else:
        tree = (args.tree or HERE).resolve()
        figures = measure_tree(tree, run)
    if args.json:
        print(json.dumps(figures, indent=1))
    else:
        show(figures, run, tree)


if __name__ == "__main__":
    main()
