"""Shared setup of the sift package's tests (pytest).

ctest runs them with the venv's python (scripts/venv.sh) and
PYTHONPATH=build/python_packages:python. Without the compiled extension
every test is skipped, with the reason.
"""

import os
import pathlib

import pytest

try:
    import sift._sift  # noqa: F401
    _MISSING = None
except ImportError as e:
    _MISSING = (f"the sift extension (sift._sift) is not importable: {e}; "
                "build it with scripts/build.sh (which sets "
                "SIFT_PYTHON_EXECUTABLE) or pip install .")


def pytest_collection_modifyitems(config, items):
    if _MISSING:
        for item in items:
            item.add_marker(pytest.mark.skip(reason=_MISSING))


@pytest.fixture(scope="session")
def examples_dir():
    env = os.environ.get("SIFT_EXAMPLES_DIR")
    if env:
        return pathlib.Path(env)
    return pathlib.Path(__file__).resolve().parents[3] / "examples"
