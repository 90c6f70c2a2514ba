"""scripts/ decides nothing about the figures: every conclusion is a verdict the
stages decided once, in C++, and report.md quotes. So no threshold (a module
constant of a fraction), no comparison of a figure with a constant that picks
a word, and none of the words a verdict chooses between, anywhere in the
report's code. Each check is shown to find what it looks for in made-up code."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from conftest import SCRIPTS

CODE = sorted([SCRIPTS / "report.py", *SCRIPTS.glob("report/*.py")])
# The words a verdict chooses between (faster or slower, at the bound or above it, a plateau, overlapped...).
VERDICT_WORDS = re.compile(r"\b(faster|slower|about equal|same time|at the bound|beats?|beat the|plateau|stops "
                           r"improving|overlapped|wins|won|loses|pays off|carried over|does not hold|holds here)\b",
                           re.IGNORECASE)
# Words a comparison may choose that say nothing about the figures: units, and the colour of a label on a cell.
NEUTRAL = {"ms", "µs", "GiB", "MiB", "KiB", "white", "black"}


def thresholds(source: str) -> list[str]:
    """Module-level constants of a fraction (the line the project's grep counts): BOUND_BEATEN = 0.01."""
    return [line for line in source.splitlines() if re.match(r"^[A-Z][A-Z0-9_]* *= *[0-9]*\.[0-9]+", line)]


def words_decided(source: str) -> list[str]:
    """Each `if` or `x if test else y` whose test compares a figure with a constant (other than 0 and 1, and not
    a len(): a count of items), and whose branches write a word that is not a unit or a colour."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, (ast.If, ast.IfExp)):
            continue
        constants = [c.value for compare in ast.walk(node.test) if isinstance(compare, ast.Compare)
                     and not any(isinstance(o, ast.Call) and ast.unparse(o.func) == "len"
                                 for o in [compare.left, *compare.comparators])  # a count of items, not a figure
                     for c in [compare.left, *compare.comparators] if isinstance(c, ast.Constant)
                     and isinstance(c.value, (int, float)) and not isinstance(c.value, bool)]
        if not any(value not in (0, 1) for value in constants):
            continue
        branches = [node.body, node.orelse] if isinstance(node, ast.IfExp) else [*node.body, *node.orelse]
        texts = [c.value for branch in branches for c in ast.walk(branch) if isinstance(c, ast.Constant)
                 and isinstance(c.value, str)]
        words = {w for text in texts for w in re.findall(r"[A-Za-zµ]{2,}", text)} - NEUTRAL
        if words:
            found.append(f"line {node.lineno}: {ast.unparse(node.test)} chooses {sorted(words)}")
    return found


def verdict_words(source: str) -> list[str]:
    texts = [c.value for c in ast.walk(ast.parse(source)) if isinstance(c, ast.Constant) and isinstance(c.value, str)]
    return [f"{match.group(0)!r} in {text[:60]!r}" for text in texts for match in VERDICT_WORDS.finditer(text)]


MADE_UP = '''
SAME_TIME = 0.03
def sentence(ratio):
    if ratio < 0.97:
        return "the graph is faster"
    return f"{ratio:.2f}x" if ratio > 1.5 else "about equal"
'''


def test_each_check_finds_what_it_looks_for() -> None:
    assert thresholds(MADE_UP) == ["SAME_TIME = 0.03"]
    assert [line.split(":")[0] for line in words_decided(MADE_UP)] == ["line 4", "line 6"]
    assert len(verdict_words(MADE_UP)) == 2


@pytest.mark.parametrize("path", CODE + sorted(SCRIPTS.glob("*.py")), ids=lambda p: p.relative_to(SCRIPTS).as_posix())
def test_no_threshold(path: Path) -> None:
    if "plot" not in path.name:  # the project's rule leaves out the plots' sizes and scales
        assert thresholds(path.read_text()) == []


@pytest.mark.parametrize("path", CODE, ids=lambda p: p.relative_to(SCRIPTS).as_posix())
def test_no_comparison_with_a_constant_picks_a_word(path: Path) -> None:
    assert words_decided(path.read_text()) == []


@pytest.mark.parametrize("path", CODE, ids=lambda p: p.relative_to(SCRIPTS).as_posix())
def test_none_of_a_verdicts_words(path: Path) -> None:
    assert verdict_words(path.read_text()) == []
