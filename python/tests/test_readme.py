"""The README's Python example runs as written, on the sample the repository carries."""

from __future__ import annotations

import os
import re

import numpy as np

from conftest import REPO


def test_readme_example_runs():
    text = (REPO / "README.md").read_text()
    block = re.search(r"## Python\n\n```python\n(.*?)```", text, re.S)
    assert block, "the README has a Python example"
    scope: dict = {}
    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        exec(compile(block.group(1), "README.md", "exec"), scope)
    finally:
        os.chdir(cwd)
    assert len(scope["vocab"]) == 288 and scope["vocab"][1] == "<s>"
    assert scope["w"].dtype == np.float32 and scope["w"].shape == (64, 64)
