"""The example of README.md and docs/python.md (the same block in both) runs
exactly as written: the first ```python block, in a directory with assets/."""

import os
import pathlib
import re
import subprocess
import sys

from conftest import ASSETS, ROOT


def first_block(path):
    m = re.search(r"```python\n(.*?)```", path.read_text(), re.S)
    assert m, f"{path} has no ```python block"
    return m.group(1)


def example_code():
    code = first_block(ROOT / "docs" / "python.md")
    assert first_block(ROOT / "README.md") == code, "README.md and docs/python.md show different examples"
    return code


def test_readme_example(tmp_path):
    code = example_code()
    assert len(code.strip().splitlines()) <= 10
    (tmp_path / "assets").symlink_to(ASSETS)
    import glsurf

    # the package this test imports, also from another directory
    package_dir = str(pathlib.Path(glsurf.__file__).resolve().parents[1])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [package_dir, os.environ.get("PYTHONPATH")])))
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    m = re.fullmatch(r"(\d+) and (\d+) keypoints, (\d+) matches, (\d+) inliers\n", r.stdout)
    assert m, r.stdout
    keypoints, matches, inliers = int(m.group(1)), int(m.group(3)), int(m.group(4))
    assert keypoints == 2000 and inliers > 100 and matches >= inliers
    import cv2

    drawn = cv2.imread(str(tmp_path / "matches.png"))
    assert drawn is not None and drawn.shape[1] == 1600
