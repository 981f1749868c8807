"""Bad arguments raise ValueError or TypeError naming what is wrong; what glsurf
refuses raises glsurf.Error (a RuntimeError) with the CLI's one-line message;
no OpenGL says so and suggests backend="cpu"."""

import os
import subprocess
import sys

import numpy as np
import pytest

import glsurf
from conftest import BACKENDS


@pytest.mark.parametrize("backend", BACKENDS)
def test_bad_arrays(backend):
    det = glsurf.Detector(backend=backend)
    good = np.zeros((64, 64), np.uint8)
    cases = [
        (good.astype(np.float32), "float images"),
        (good.astype(np.float64) / 255, "float images"),
        (good.astype(np.uint16), "expected uint8"),
        (good.astype(np.int8), "expected uint8"),
        (good.astype(bool), "expected uint8"),
        (np.zeros((0, 0), np.uint8), "empty"),
        (np.zeros((0, 64), np.uint8), "empty"),
        (np.zeros((64, 64, 0), np.uint8), "channels"),
        (np.zeros((64, 64, 2), np.uint8), "2 channels"),
        (np.zeros((64, 64, 5), np.uint8), "channels"),
        (np.zeros((64, 64, 1), np.float32), "float images"),
        (np.zeros(64, np.uint8), "shape"),
        (np.zeros((4, 64, 64, 3), np.uint8), "shape"),
        (np.zeros((20000, 1), np.uint8), "16384"),
    ]
    for image, message in cases:
        with pytest.raises(ValueError, match=message):
            det.detect(image)
    for bad in [None, 3, [[0, 1], [2, 3]]]:
        with pytest.raises(TypeError, match="numpy array"):
            det.detect(bad)


@pytest.mark.parametrize("backend", BACKENDS)
def test_glsurf_errors_carry_the_cli_message(tmp_path, backend):
    det = glsurf.Detector(backend=backend)
    missing = tmp_path / "missing.png"
    with pytest.raises(glsurf.Error, match="missing.png") as e:
        det.detect(missing)
    assert isinstance(e.value, RuntimeError)
    assert "\n" not in str(e.value)
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n garbage")
    with pytest.raises(glsurf.Error, match="bad.png"):
        det.detect(bad)
    with pytest.raises(glsurf.Error, match="smaller|small"):  # below the smallest filter
        det.detect(np.zeros((8, 8), np.uint8))
    with pytest.raises(glsurf.Error, match="missing.png"):
        glsurf.load_gray(missing)


def test_bad_settings():
    for kwargs in [dict(octaves=0), dict(layers=0), dict(threshold=-1), dict(max_features=-1),
                   dict(second_orientation=2), dict(upright=True, second_orientation=0.8)]:
        with pytest.raises(ValueError, match="out of range"):
            glsurf.Detector(backend="cpu", **kwargs)
    with pytest.raises(ValueError, match='"gl" or "cpu"'):
        glsurf.Detector(backend="cuda")
    with pytest.raises(ValueError, match='"gl" or "cpu"'):
        glsurf.Matcher(backend="gpu")
    with pytest.raises(ValueError, match="ratio"):
        glsurf.Matcher(ratio=-1, backend="cpu")


NO_GL = r"""
import numpy as np, glsurf
try:
    glsurf.Detector()
    print("NO ERROR")
except glsurf.Error as e:
    assert isinstance(e, RuntimeError)
    print("first:", e)
try:
    glsurf.Matcher()  # the failure is kept, not retried
except RuntimeError as e:
    print("second:", e)
kp, d = glsurf.Detector(backend="cpu").detect(np.tile(np.arange(64, dtype=np.uint8) * 4, (64, 1)))
print("cpu works:", d.shape[1])
"""


def test_no_opengl_suggests_cpu():
    env = dict(os.environ, __EGL_VENDOR_LIBRARY_FILENAMES="/nonexistent.json")
    r = subprocess.run([sys.executable, "-c", NO_GL], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    first, second, cpu = r.stdout.splitlines()
    assert first.startswith("first: no OpenGL 3.3 context could be created headless; tried")
    assert first.endswith('; or use backend="cpu"')
    assert second == "second: " + first[len("first: "):]
    assert cpu == "cpu works: 64"
