"""widgets.literal: result text is shown literally, never as markup or terminal control."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console
from rich.text import Text

from widgets.literal import cut_apart, literal, literal_plain, one_line, one_line_middle


def render(text: Text) -> str:
    """What a terminal would receive for ``text`` (no colour codes)."""
    console = Console(width=200, color_system=None, force_terminal=False, record=True)
    console.print(text)
    return console.export_text()


def test_markup_is_not_interpreted() -> None:
    text = literal("[bold]x[/bold] [link=https://e.test]y[/link] :smile:")
    assert text.plain == "[bold]x[/bold] [link=https://e.test]y[/link] :smile:"
    assert text.spans == []
    assert "[bold]x[/bold]" in render(text)


def test_escape_sequences_are_visible() -> None:
    assert literal_plain("\x1b[2Jcleared") == "␛[2Jcleared"
    assert literal_plain("\x1b]52;c;aGk=\x07") == "␛]52;c;aGk=␇"
    assert literal_plain("\x1b]8;;https://e.test\x1b\\link\x1b]8;;\x1b\\") == (
        "␛]8;;https://e.test␛\\link␛]8;;␛\\"
    )
    assert "\x1b" not in render(literal("\x1b[31mred"))


def test_c0_c1_and_del_are_visible() -> None:
    assert literal_plain("a\x08b\x00c\x7fd") == "a␈b␀c␡d"
    assert literal_plain("x\x9by") == "x<U+009B>y"
    assert literal_plain("x\x85y") == "x<U+0085>y"


def test_bidi_and_zero_width_are_visible() -> None:
    assert literal_plain("abc\u202edcba") == "abc<U+202E>dcba"
    assert literal_plain("a\u2066b\u2069") == "a<U+2066>b<U+2069>"
    assert literal_plain("a\u200db\u200bc\ufeff") == "a<U+200D>b<U+200B>c<U+FEFF>"
    assert literal_plain("a\u2028b") == "a<U+2028>b"
    assert literal_plain("tag\U000e0041") == "tag<U+E0041>"
    assert literal_plain("lone\ud800") == "lone<U+D800>"


def test_made_visible_characters_are_styled() -> None:
    text = literal("a\x1bb")
    assert [(text.plain[s.start : s.end]) for s in text.spans] == ["␛"]


def test_single_line_shows_newlines_tabs_and_returns() -> None:
    assert literal_plain("a\nb\tc\rd") == "a␊b␉c␍d"
    assert "\n" not in literal_plain("x\r\ny")


def test_multiline_keeps_layout_but_not_lone_carriage_returns() -> None:
    assert literal_plain("a\nb", multiline=True) == "a\nb"
    assert literal_plain("a\r\nb", multiline=True) == "a\nb"
    assert literal_plain("a\rb", multiline=True) == "a␍b"
    assert literal_plain("a\tb", multiline=True) == "a    b"


def test_printable_unicode_is_unchanged() -> None:
    assert literal_plain("数学/1 — café ✓") == "数学/1 — café ✓"
    assert literal("plain").spans == []


def test_non_strings_and_truncation() -> None:
    assert literal_plain(42) == "42"
    assert literal_plain(None) == "None"
    cut = literal("x" * 500, max_chars=10)
    assert cut.plain.startswith("xxxxxxxxxx…")
    assert "490 more characters" in cut.plain
    short = one_line("y" * 50 + "\x1b", max_chars=10)
    assert short.plain == "y" * 9 + "…"
    assert one_line("a\x1bb").plain == "a␛b"


def test_names_cut_apart_stay_apart() -> None:
    models = ["gpt-5-2025-08-07", "gpt-5-mini-2025-08-07", "qwen2.5-vl-72b-instruct",
              "qwen3-coder-480b-a35b-instruct", "claude-sonnet-4-5"]  # fmt: skip
    cut = [text.plain for text in cut_apart(models, 10)]
    assert all(len(name) <= 10 for name in cut), cut
    assert len(set(cut)) == len(models), cut  # the usual cut reads gpt…5-08-07 twice
    assert cut[:2] == ["gpt-5-2…07", "gpt-5-m…07"]
    assert cut[4] == one_line_middle(models[4], 10).plain  # apart already: the usual cut
    assert [t.plain for t in cut_apart(["hle", "scicode"], 10)] == ["hle", "scicode"]
    # nothing tells them apart in 2 cells: the usual cut
    assert [t.plain for t in cut_apart(["ab1x", "ab2x"], 2)] == ["…x", "…x"]
    # text from result files stays literal
    assert cut_apart(["\x1b[2J-long-model-name"], 8)[0].plain.startswith("␛")


def test_names_that_differ_in_the_middle_and_at_the_end_stay_apart() -> None:
    """Run paths of one long namespace that differ only in the middle of the folder name
    (``syn_alpha_…`` / ``syn_beta_…``) and only at its end (``…_000001`` / ``…_000002``): no
    single cut tells the first two apart, so each keeps the part where it differs whole."""
    namespace = "gpt_scicode_scicode_tool_use_namespace"
    runs = [
        f"{namespace}/syn_alpha_avg_fatal_hierarchy",
        f"{namespace}/syn_beta_avg_fatal_hierarchy",
        f"{namespace}/20261130_000001",
        f"{namespace}/20261130_000002",
    ]
    for width in (14, 20, 24, 36):
        cut = [text.plain for text in cut_apart(runs, width)]
        assert all(len(name) <= width for name in cut), (width, cut)
        assert len(set(cut)) == len(runs), (width, cut)
    cut = [text.plain for text in cut_apart(runs, 20)]
    assert "alpha" in cut[0] and "beta" in cut[1], cut
    assert cut[2].endswith("000001") and cut[3].endswith("000002"), cut


def alike_start(a: str, b: str) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


@given(
    st.lists(
        st.text(alphabet="ab_/-", min_size=1, max_size=30), min_size=2, max_size=2, unique=True
    ),
    st.integers(min_value=8, max_value=30),
)
def test_distinct_names_stay_distinct_when_any_cut_can_tell_them_apart(
    names: list[str], width: int
) -> None:
    """Two different names never read the same when the part where they differ fits the
    width with room for two "…"."""
    cut = [text.plain for text in cut_apart(names, width)]
    assert all(len(name) <= width for name in cut)
    for i, a in enumerate(names):
        for j, b in enumerate(names[:i]):
            prefix, suffix = alike_start(a, b), alike_start(a[::-1], b[::-1])
            core = max(len(a), len(b)) - min(prefix + suffix, min(len(a), len(b)))
            if core + 4 <= width:
                assert cut[i] != cut[j], (a, b, cut[i])


def test_a_run_cell_never_drops_the_namespace() -> None:
    """At 140 columns a long folder name left only ``…/`` of its namespace."""
    from widgets.run_table import run_cell

    relative = "screens_long_namespace/e2e_k3_avg_fatal_hierarchy"
    for width in (12, 20, 27, 30, 40):
        cell = run_cell(relative, width).plain
        assert len(cell) <= width, (width, cell)
        namespace = cell.partition("/")[0]
        assert namespace and namespace != "…", (width, cell)
        assert namespace[0] == "s" and cell.endswith("rchy"), (width, cell)
