"""Which pages of a streamed trajectory may hold a needle, told from their raw bytes.

The trajectory's pager document (:func:`inspector.views.paged.trajectory_document`) shows
each step as :func:`~inspector.views.documents.json_text` writes it, and its search finds
the lines holding the needle, both case-folded (``str.casefold``). Rendering every page to
search it costs seconds on a 127 MB attempt; a page's raw JSON bytes tell, at the speed of
``bytes.find``, whether it can hold the needle at all. The test must never say no to a page
that holds it. A shown line is made of the step's own text (a key, a string) and of text the
rendering adds (the indent, ``: ``, quotes, ``[3]`` for a list member, a number as Python
writes it, ``── step 12 (…) ──``, the note of a value nested too deep: ``synthetic``), and
the two always meet at a space, ``:``, ``"``, ``(`` or ``)``. So the test looks for the
longest run ``R`` of the folded needle made of printable ASCII other than those five and
``\\``, that is not part of a word the rendering adds nor made of digits, ``.+-e[]`` only
(a number, a label): a line holding the needle holds ``R`` inside one key or string, which
``json.dumps`` writes into the file as it is. A page may hold the needle when

* its bytes, ASCII-lowered, hold ``R``;
* they hold an escape ``json.dumps`` never writes (``\\u0041``, ``\\/``) of a character of
  ``R`` or of ``step_id``, or a character whose case fold can be part of ``R`` (``ß`` folds
  to ``ss``: :data:`FOLDS_TO_ASCII`), raw or escaped;
* a ``step_id`` there is a list or an object (its heading shows it as Python prints it).

A needle with no such run (a number, punctuation, text outside ASCII) gets no test: every
page is read, as before. One holding a newline matches no line. The caller also reads every
page whose steps are not valid JSON (its one line says why), and the first and last pages
when the trajectory's other fields, shown there, hold the needle.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from inspector.results.long_text import read_range
from inspector.results.problems import ResultFileError
from inspector.results.stream import StreamedAttempt

FOLDS_TO_ASCII = (
    "\xdf\u0130\u0149\u017f\u01f0\u1e96\u1e97\u1e98\u1e99\u1e9a\u1e9e\u212a"
    "\ufb00\ufb01\ufb02\ufb03\ufb04\ufb05\ufb06"
)
"""Every character above ASCII whose ``casefold()`` holds an ASCII letter (``ß`` → ``ss``,
the Kelvin sign → ``k``, ``ﬁ`` → ``fi``); a test checks it against Python's Unicode tables."""

_LETTERS = re.compile("[a-z]+")
_RUN = re.compile(
    "[" + "".join(re.escape(chr(c)) for c in range(0x21, 0x7F) if chr(c) not in '":()\\') + "]+"
)
_NUMERIC = set("0123456789.+-e[]")
_CONTAINER_ID = re.compile(rb'"step_id"\s*:\s*[\[{]')


def anchor(needle: str, synthetic: str) -> str | None:
    """The longest run ``R`` of ``needle.casefold()`` (see the module docstring), or None."""
    added = _RUN.findall(synthetic.casefold())
    runs = [
        run
        for run in _RUN.findall(needle.casefold())
        if not set(run) <= _NUMERIC and not any(run in word for word in added)
    ]
    return max(runs, key=len, default=None)


def page_test(
    attempt: StreamedAttempt, needle: str, synthetic: str
) -> Callable[[int], bool] | None:
    """A test of page ``n``'s bytes: False when the page cannot hold ``needle`` (see the
    module docstring); None when the needle has no run to look for (every page may)."""
    if "\n" in needle:
        return lambda page: False  # a line holds no newline
    run = anchor(needle, synthetic)
    if run is None:
        return None
    folding = [c for c in FOLDS_TO_ASCII if _overlaps(c.casefold(), run)]
    letters = run + "step_id"
    plain = sorted(set(letters) | set(letters.upper()))
    escapes = [f"\\u{ord(c):04x}".encode("ascii") for c in [*plain, *folding]]
    escapes += [b"\\/"] if "/" in run else []  # both never written by json.dumps
    escaped = re.compile(b"|".join(map(re.escape, escapes)))
    encoded = [(c.encode("utf-8")[:1], c.encode("utf-8")) for c in folding]
    wanted = run.encode("ascii")

    def may_hold(page: int) -> bool:
        try:
            data = read_range(attempt.full_path, attempt.rel, *attempt.page_span(page))
        except ResultFileError:
            return True  # the page says why it cannot be read: a line to search
        lowered = data.lower()
        return (
            wanted in lowered
            or escaped.search(lowered) is not None
            or any(lead in data and e in data for lead, e in encoded)  # memchr first
            or _CONTAINER_ID.search(data) is not None
        )

    return may_hold


def _overlaps(folded: str, run: str) -> bool:
    """A run of letters of ``folded`` (a character's case fold) can be part of a match of
    ``run``: it lies in ``run``, holds it, or overlaps one of its ends."""
    for part in _LETTERS.findall(folded):
        if part in run or run in part:
            return True
        if any(run.startswith(part[k:]) or run.endswith(part[:k]) for k in range(1, len(part))):
            return True
    return False
