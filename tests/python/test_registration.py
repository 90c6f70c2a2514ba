#!/usr/bin/env python3
"""Every test class under tests/python is a ctest test: a class left out of
tests/stage_runs/zz_python_report.cmake would never run in CI.

    cd tests/python && python3 -m unittest -v test_registration
"""

from __future__ import annotations

import re
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
CMAKE = HERE.parents[1] / "tests" / "python" / "register.cmake"


def test_classes() -> set[str]:
    """module.Class for every TestCase subclass unittest finds here."""
    found = set()

    def walk(suite: unittest.TestSuite) -> None:
        for item in suite:
            if isinstance(item, unittest.TestSuite):
                walk(item)
            elif not isinstance(item, unittest.loader._FailedTest):  # noqa: SLF001  (a module that failed to import)
                found.add(f"{type(item).__module__}.{type(item).__name__}")
            else:
                raise AssertionError(f"cannot import a test module: {item}")

    walk(unittest.defaultTestLoader.discover(str(HERE), pattern="test*.py", top_level_dir=str(HERE)))
    return found


class CtestRegistration(unittest.TestCase):
    def test_every_class_is_registered_once(self) -> None:
        items = re.search(r"foreach\(test_class IN ITEMS([^)]*)\)", CMAKE.read_text())
        self.assertIsNotNone(items, "no foreach(test_class IN ITEMS ...) in the cmake file")
        listed = items.group(1).split()
        self.assertEqual(len(listed), len(set(listed)), "a class registered twice")
        self.assertEqual(set(listed), test_classes())

    def test_each_ctest_name_is_at_most_80_characters(self) -> None:
        for item in test_classes():
            module, cls = item.split(".")
            name = f"python.{module.removeprefix('test_')}.{cls}"
            with self.subTest(test=name):
                self.assertLessEqual(len(name), 80)

    def test_each_runs_as_a_cpu_test_without_bytecode(self) -> None:
        text = CMAKE.read_text()
        self.assertIn("LABELS cpu", text)
        self.assertIn('ENVIRONMENT "PYTHONDONTWRITEBYTECODE=1"', text)


if __name__ == "__main__":
    unittest.main()
