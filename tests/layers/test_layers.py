"""The include rules of the tree, checked by reading every #include.

common/ holds the card's common header (common.cuh and the files beside it,
at the top of common/) and the laboratory's library in layers, listed lowest
first in common/CMakeLists.txt (CSG_COMMON_LAYERS). The card sits just above
base/. The rules:
  - a file of the card includes only the card's files and base/;
  - a file in common/<layer>/ includes only its own layer's headers, a
    lower layer's or the card's ("cuda/graph.hpp" from workload/ is fine;
    "report/table.hpp" from cuda/ is not), never a stage folder's, and base/
    never includes the card;
  - every folder in common/ is a declared layer;
  - a stage folder (NN_name/) includes common/ and its own files, never
    another stage's;
  - the arithmetic on plain numbers (PURE below) includes no CUDA header,
    not even through another header of the tree.
Run: python3 -m pytest -q tests/layers   (ctest runs it as layers.includes)
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]', re.M)
SOURCE_SUFFIXES = {".hpp", ".cuh", ".cpp", ".cu", ".h"}
STAGE = re.compile(r"^\d\d_[a-z0-9_]+$")
# Files (relative to common/) or folders ("layer/") of plain arithmetic.
PURE = ("base/", "measure/stats.", "measure/pipeline_bound.", "report/table.", "timeline/timeline.")
# The top of common/: the card's common header, just above base/.
CARD = "card"
CUDA_SYSTEM_HEADER = re.compile(r"^(cuda|cublas|cupti|nvtx3/|nvml|driver_types|vector_types|curand)")


def declared_layers(root: Path) -> list[str]:
    text = (root / "common" / "CMakeLists.txt").read_text(encoding="utf-8")
    match = re.search(r"set\(CSG_COMMON_LAYERS\s+([^)]*)\)", text)
    if not match:
        raise ValueError("common/CMakeLists.txt does not set CSG_COMMON_LAYERS")
    return match.group(1).split()


def sources(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.suffix in SOURCE_SUFFIXES and p.is_file())


def includes(path: Path) -> list[tuple[str, str]]:
    """(kind, name) for every #include: kind '"' for the tree's, '<' for the system's."""
    return INCLUDE.findall(path.read_text(encoding="utf-8"))


def resolve(root: Path, including: Path, name: str) -> Path | None:
    """The tree's file an #include "name" means: beside the includer, then common/, then the root."""
    for base in (including.parent, root / "common", root):
        candidate = base / name
        if candidate.is_file():
            return candidate
    return None


def is_pure(root: Path, path: Path) -> bool:
    try:
        rel = path.relative_to(root / "common").as_posix()
    except ValueError:
        return False
    return any(rel.startswith(prefix) for prefix in PURE)


def cuda_reach(root: Path, path: Path, seen: set[Path] | None = None) -> str | None:
    """The chain through which `path` includes a CUDA header, or None."""
    seen = set() if seen is None else seen
    if path in seen:
        return None
    seen.add(path)
    if path.suffix == ".cuh":
        return path.name
    for kind, name in includes(path):
        if kind == "<":
            if CUDA_SYSTEM_HEADER.match(name):
                return f"<{name}>"
            continue
        target = resolve(root, path, name)
        if target is None:
            continue
        chain = cuda_reach(root, target, seen)
        if chain:
            return f"{name} -> {chain}"
    return None


def check_tree(root: Path) -> list[str]:
    """Every broken rule, one line each: 'file: what is wrong'."""
    problems: list[str] = []
    layers = declared_layers(root)
    rank = {layer: index for index, layer in enumerate(layers)}
    common = root / "common"
    for folder in sorted(p for p in common.iterdir() if p.is_dir()):
        if folder.name not in rank:
            problems.append(f"common/{folder.name}: a folder that CSG_COMMON_LAYERS does not list")
    for path in sources(common):
        rel = path.relative_to(root).as_posix()
        parts = path.relative_to(common).parts
        layer = parts[0] if len(parts) > 1 else CARD
        for kind, name in includes(path):
            if kind == "<":
                continue
            first = name.split("/")[0]
            if STAGE.match(first):
                problems.append(f"{rel}: includes the stage folder's {name}")
            elif "/" in name and first in rank:
                if layer == CARD and first != "base":
                    problems.append(f"{rel}: the card includes {name}, from the laboratory's layer {first}")
                elif layer in rank and rank[first] > rank[layer]:
                    problems.append(f"{rel}: layer {layer} includes {name}, from the higher layer {first}")
            elif "/" not in name and (common / name).is_file():
                if layer == "base":
                    problems.append(f"{rel}: layer base includes the card's {name}")
            elif (path.parent / name).is_file():
                continue
            else:
                problems.append(f"{rel}: includes {name}, which names no layer of common/")
        if is_pure(root, path):
            chain = cuda_reach(root, path)
            if chain:
                problems.append(f"{rel}: arithmetic on plain numbers reaches a CUDA header: {chain}")
    for stage in sorted(p for p in root.iterdir() if p.is_dir() and STAGE.match(p.name)):
        for path in sources(stage):
            rel = path.relative_to(root).as_posix()
            for kind, name in includes(path):
                first = name.split("/")[0]
                if kind == '"' and STAGE.match(first) and first != stage.name:
                    problems.append(f"{rel}: includes another stage's {name}")
    return problems


def test_every_include_follows_the_layers() -> None:
    problems = check_tree(REPO)
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize("layer", declared_layers(REPO))
def test_the_layers_are_the_ones_the_readme_draws(layer: str) -> None:
    readme = (REPO / "common" / "README.md").read_text(encoding="utf-8")
    assert f"{layer}/" in readme, f"common/README.md does not describe {layer}/"


# Each kind of wrong include: the file it is planted in, what it includes,
# and what the checker must say about it.
WRONG_INCLUDES = {
    "a lower layer including a higher one":
        ("common/cuda/graph.cpp", "report/table.hpp", "layer cuda includes report/table.hpp"),
    "the card including the laboratory":
        ("common/owners.hpp", "measure/stats.hpp", "the card includes measure/stats.hpp"),
    "base including the card":
        ("common/base/units.cpp", "check.hpp", "layer base includes the card's check.hpp"),
    "common including a stage":
        ("common/workload/gemm.cpp", "03_stream_pool_gemm/report.hpp", "stage folder's 03_stream_pool_gemm/report.hpp"),
    "a stage including another stage":
        ("04_graph_capture_gemm/lab/report.cpp", "03_stream_pool_gemm/report.hpp",
         "another stage's 03_stream_pool_gemm/report.hpp"),
    "arithmetic reaching a CUDA header through another header":
        ("common/measure/pipeline_bound.hpp", "measure/timers.hpp",
         "pipeline_bound.hpp: arithmetic on plain numbers reaches a CUDA header"),
}


# The checker itself fails on each kind of wrong include, planted in a copy of the tree.
@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the tree, clean; each test puts back what it plants."""
    root = tmp_path_factory.mktemp("layers") / "tree"
    ignore = shutil.ignore_patterns("build", ".git", "__pycache__", "results", ".venv")
    shutil.copytree(REPO, root, ignore=ignore)
    assert check_tree(root) == [], "the copy must start clean"
    return root


@pytest.mark.parametrize("kind", WRONG_INCLUDES)
def test_each_kind_of_wrong_include(tree: Path, kind: str) -> None:
    relative, included, problem = WRONG_INCLUDES[kind]
    path = tree / relative
    original = path.read_text(encoding="utf-8")
    path.write_text(f'#include "{included}"\n' + original, encoding="utf-8")
    try:
        problems = check_tree(tree)
    finally:
        path.write_text(original, encoding="utf-8")
    assert any(problem in p for p in problems), problems


def test_an_undeclared_folder(tree: Path) -> None:
    folder = tree / "common" / "misc"
    folder.mkdir()
    (folder / "x.hpp").write_text("#pragma once\n", encoding="utf-8")
    try:
        problems = check_tree(tree)
    finally:
        shutil.rmtree(folder)
    assert any("common/misc: a folder that CSG_COMMON_LAYERS does not list" in p for p in problems), problems
