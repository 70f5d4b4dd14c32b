"""docs/Tutorial.md cannot rot: every ```python block in it runs, in
order, in one namespace (as a reader pastes them into one session)."""

import pathlib
import re

import pytest

pytest.importorskip("torch", reason="PyTorch is not installed")
pytest.importorskip("sift.torch", reason="sift.torch needs PyTorch")

TUTORIAL = pathlib.Path(__file__).resolve().parents[3] / "docs" / \
    "Tutorial.md"


def blocks():
    text = TUTORIAL.read_text()
    return re.findall(r"^```python\n(.*?)^```", text, re.DOTALL | re.MULTILINE)


def test_the_tutorial_has_code():
    assert len(blocks()) >= 8


def test_every_python_block_runs_in_order():
    namespace = {"__name__": "__tutorial__"}
    for i, block in enumerate(blocks()):
        try:
            exec(compile(block, f"{TUTORIAL.name} block {i + 1}", "exec"),
                 namespace)
        except Exception as e:  # Name the block that failed.
            raise AssertionError(f"docs/Tutorial.md python block {i + 1} "
                                 f"failed: {e!r}\n{block}") from e
