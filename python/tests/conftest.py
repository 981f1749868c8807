"""Shared fixtures of the Python tests: the CLI to compare with, the bundled
images, the feature-file reader and writer (docs/cli.md, Feature files).

Run from ctest (`ctest -R python`), or by hand:
    PYTHONPATH=build/python /usr/bin/python3 -m pytest python/tests -q
GLSURF_CLI names the glsurf binary (default build/glsurf), GLSURF_ASSETS the
images (default assets/)."""

import os
import pathlib
import subprocess

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
ASSETS = pathlib.Path(os.environ.get("GLSURF_ASSETS", ROOT / "assets"))
CLI = pathlib.Path(os.environ.get("GLSURF_CLI", ROOT / "build" / "glsurf"))

BACKENDS = ["gl", "cpu"]


@pytest.fixture(scope="session")
def assets():
    return ASSETS


@pytest.fixture(scope="session")
def cli():
    if not CLI.exists():
        pytest.fail(f"no glsurf CLI at {CLI} (build it, or set GLSURF_CLI)")
    return CLI


def run_cli(cli, *args):
    """Runs glsurf with args; fails the test with its message unless it exits 0."""
    r = subprocess.run([str(cli), *map(str, args)], capture_output=True, text=True)
    assert r.returncode == 0, f"glsurf {' '.join(map(str, args))}: {r.stderr.strip()}"
    return r


def record_dtype(d):
    """A keypoint record of the bin format: x y size angle response laplacian octave d1..dD."""
    return np.dtype([("x", "<f4"), ("y", "<f4"), ("size", "<f4"), ("angle", "<f4"), ("response", "<f4"),
                     ("laplacian", "<i4"), ("octave", "<i4"), ("d", "<f4", (d,))])


def read_bin(path):
    """(keypoints as glsurf.keypoint_dtype, descriptors N x D float32) of a bin feature file."""
    import glsurf

    data = pathlib.Path(path).read_bytes()
    assert data[:8] in (b"GLSURF01", b"GLSIFT01"), f"{path}: not a glsurf bin feature file"
    n, d = np.frombuffer(data, "<u4", 2, 8)
    records = np.frombuffer(data, record_dtype(int(d)), int(n), 16)
    assert 16 + records.nbytes == len(data), f"{path}: trailing bytes"
    kp = np.empty(int(n), glsurf.keypoint_dtype)
    for f in glsurf.keypoint_dtype.names:
        kp[f] = records[f]
    return kp, np.ascontiguousarray(records["d"]).reshape(int(n), int(d))


def write_bin(path, keypoints, descriptors):
    """A bin feature file of keypoints and descriptors, as glsurf detect writes it."""
    n, d = descriptors.shape
    records = np.empty(n, record_dtype(d))
    for f in keypoints.dtype.names:
        records[f] = keypoints[f]
    records["d"] = descriptors
    with open(path, "wb") as out:
        out.write(b"GLSURF01" + np.array([n, d], "<u4").tobytes() + records.tobytes())


def cli_detect(cli, tmp_path, image, backend, options=()):
    """The CLI's features of image: glsurf detect IMAGE -o x.bin --format bin --backend B OPTIONS."""
    out = tmp_path / f"cli_{backend}.bin"
    run_cli(cli, "detect", image, "-o", out, "--format", "bin", "--backend", backend, *options)
    return read_bin(out)
