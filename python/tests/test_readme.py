"""The README's Python tour runs as written."""

import pathlib
import re


def test_the_readme_tour_runs():
    readme = pathlib.Path(__file__).resolve().parents[2] / "README.md"
    text = readme.read_text()
    m = re.search(r"## Python.*?```python\n(.*?)```", text, re.S)
    assert m, "the README has no Python tour"
    scope = {}
    exec(compile(m.group(1), "README.md", "exec"), scope)
    y, a, row, value, dw = (scope[n] for n in ("y", "a", "row", "value", "dw"))
    assert a.shape == (64, 10)
    assert abs(a.sum(axis=-1) - 1).max() < 1e-5
    assert row.shape == (5,)
    assert value.size == 1 and dw.shape == (256, 10)
