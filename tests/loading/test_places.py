"""A stored folder's keys are compared with what the report store's check found by the
folder's position in it, as bytes (no path made): the same answers as by its paths."""

from __future__ import annotations

import struct

from inspector.loading.index import HEAD, RECORD, Checked, Places, ask, tail_of
from inspector.loading.records import Index
from inspector.results.listing import RUN_FILES

FOLDERS = ["details/normal/a", "details/normal/b", "details/error/c"]
ATTEMPTS = [(1, 2), (1,), (1, 2, 3)]


def _checked(changed: frozenset[int]) -> Checked:
    """A check of three folders whose files have the keys 1, 2, 3… in the order of the
    index; ``changed``: the positions of the files found changed."""
    files = len(RUN_FILES) + sum(2 + len(numbers) for numbers in ATTEMPTS)
    stats = struct.pack(f"<{6 * files}q", *range(1, 6 * files + 1))
    listing = ([(folder, "normal") for folder in FOLDERS], (), ())
    return Checked(stats, changed, listing, Index(b"", tuple(ATTEMPTS), stats))


def _keys(checked: Checked, position: int) -> bytes:
    """The keys the check found for the folder at ``position``."""
    start = HEAD + RECORD * sum(2 + len(numbers) for numbers in ATTEMPTS[:position])
    return bytes(checked.stats[start : start + RECORD * (2 + len(ATTEMPTS[position]))])


def _answers(checked: Checked, count: int, keys: list[bytes]) -> list[bool]:
    """Each folder's answer, when the read has ``count`` candidates (3: as the check)."""
    candidates = [(folder, "normal") for folder in [*FOLDERS, "details/normal/d"][:count]]
    places = Places(checked, candidates)
    out = []
    for position, folder in enumerate(FOLDERS):
        asked = ask(keys[position], folder, tail_of(dict.fromkeys(ATTEMPTS[position], "")))
        assert asked is not None
        out.append(places.covers(position, asked))
    return out


def test_a_folder_is_covered_when_its_keys_are_the_checks_and_none_changed() -> None:
    second_task_json = len(RUN_FILES) + 4 + 1  # folder a: 4 files; then b, its task.json
    checked = _checked(frozenset({second_task_json}))
    keys = [_keys(checked, position) for position in range(3)]
    by_position = _answers(checked, 3, keys)
    by_paths = _answers(checked, 4, keys)  # another count of folders: by the paths
    assert by_position == by_paths == [True, False, True]
    other = _checked(frozenset())
    assert _answers(other, 3, keys) == _answers(other, 4, keys) == [True, True, True]
    keys[2] = keys[2][:-1] + b"\xff"  # a key that differs (the last file's ctime)
    assert _answers(other, 3, keys) == _answers(other, 4, keys) == [True, True, False]
    assert ask(keys[0], FOLDERS[0], (1,)) is None  # keys of another number of files
