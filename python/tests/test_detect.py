"""Detector: the module gives exactly the CLI's keypoints and descriptors (the
same library call on the same pixels), for both backends, several settings,
and every kind of image argument (path, grey, BGR, BGRA, views)."""

import cv2
import numpy as np
import pytest

import glsurf
from conftest import BACKENDS, cli_detect, read_bin, run_cli, write_bin

# (image, Detector keyword arguments, the same as CLI options)
CASES = [
    ("box.png", {}, []),
    ("graf1.png", dict(threshold=400, max_features=300, extended=True),
     ["--threshold", "400", "--max-features", "300", "--extended"]),
    ("box_in_scene.png", dict(upright=True, octaves=3, layers=3, sample_step=2),
     ["--upright", "--octaves", "3", "--layers", "3", "--sample-step", "2"]),
    # In 5 x 4 tiles (docs/reference.md, Tiles), as the CLI tiles it.
    ("graf1.png", dict(octaves=2, tile_size=400), ["--octaves", "2", "--tile-size", "400"]),
]


def assert_same_features(a, b):
    kp_a, d_a = a
    kp_b, d_b = b
    assert kp_a.dtype == glsurf.keypoint_dtype
    assert d_a.dtype == np.float32 and d_a.ndim == 2
    assert len(kp_a) == len(kp_b) and d_a.shape == d_b.shape
    for f in glsurf.keypoint_dtype.names:  # bit for bit: the same code path
        np.testing.assert_array_equal(kp_a[f], kp_b[f], err_msg=f"field {f}")
    np.testing.assert_array_equal(d_a, d_b)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name,kwargs,options", CASES, ids=[c[0] for c in CASES])
def test_detect_equals_cli(cli, assets, tmp_path, backend, name, kwargs, options):
    expected = cli_detect(cli, tmp_path, assets / name, backend, options)
    det = glsurf.Detector(backend=backend, **kwargs)
    got = det.detect(str(assets / name))
    assert len(got[0]) > 50
    assert got[1].shape[1] == (128 if kwargs.get("extended") else 64)
    assert_same_features(got, expected)
    # and from OpenCV's BGR (or grey) array of the same file
    image = cv2.imread(str(assets / name), cv2.IMREAD_UNCHANGED)
    assert_same_features(det.detect(image), expected)


@pytest.mark.parametrize("backend", BACKENDS)
def test_image_kinds(assets, backend):
    det = glsurf.Detector(backend=backend, max_features=200)
    path = assets / "graf1.png"
    expected = det.detect(path)  # os.PathLike
    bgr = cv2.imread(str(path))
    assert bgr.ndim == 3 and bgr.shape[2] == 3
    grey = glsurf.load_gray(path)
    # the loader's weights, OpenCV's in fixed point, which the module uses for BGR
    b, g, r = (bgr[:, :, c].astype(np.int64) for c in range(3))
    np.testing.assert_array_equal(grey, (4899 * r + 9617 * g + 1868 * b + 8192) >> 14)
    # OpenCV 4.6's own cvtColor rounds a few pixels one lower (283 of graf1's 512,000)
    assert np.abs(cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY).astype(int) - grey).max() <= 1
    for image in [grey, grey[:, :, None], bgr, cv2.cvtColor(bgr, cv2.COLOR_BGR2BGRA), str(path).encode()]:
        assert_same_features(det.detect(image), expected)
    # RGB order matters: the channels are read as BGR
    assert not np.array_equal(det.detect(bgr[:, :, ::-1])[1], expected[1])


@pytest.mark.parametrize("backend", BACKENDS)
def test_views_equal_copies(assets, backend):
    det = glsurf.Detector(backend=backend)
    grey = glsurf.load_gray(assets / "box_in_scene.png")
    bgr = cv2.imread(str(assets / "box_in_scene.png"))
    for view in [grey[::2, ::2], grey.T, grey[10:-7, 5:-9], grey[::-1, :], bgr[::2, 1::2], bgr.transpose(1, 0, 2)]:
        assert not view.flags["C_CONTIGUOUS"] or view.base is not None
        assert_same_features(det.detect(view), det.detect(np.ascontiguousarray(view)))


@pytest.mark.parametrize("backend", BACKENDS)
def test_compute_equals_cli_describe(cli, assets, tmp_path, backend):
    image = assets / "box.png"
    det = glsurf.Detector(backend=backend)
    kp, d = det.detect(image)
    features = tmp_path / "box.bin"
    write_bin(features, kp, d)
    out = tmp_path / "described.bin"
    run_cli(cli, "describe", image, features, "-o", out, "--backend", backend)
    described = det.compute(image, kp)
    assert_same_features(described, read_bin(out))
    # detect's own angles and descriptors come back: exactly on the CPU; on
    # the GPU the given-keypoint path rounds the angle differently (seen:
    # 2.3e-4 degrees at most, descriptors 2.5e-6 apart on box.png)
    if backend == "cpu":
        assert_same_features(described, (kp, d))
    else:
        for f in ("x", "y", "size", "response", "octave", "laplacian"):
            np.testing.assert_array_equal(described[0][f], kp[f])
        np.testing.assert_allclose(described[0]["angle"], kp["angle"], atol=1e-3)
        np.testing.assert_allclose(described[1], d, atol=1e-4)
    # fields in another order and of other types are taken too
    other = np.zeros(len(kp), [("laplacian", "i8"), ("octave", "i2"), ("x", "f8"), ("y", "f8"), ("size", "f8"),
                               ("angle", "f4"), ("response", "f4"), ("extra", "u1")])
    for f in glsurf.keypoint_dtype.names:
        other[f] = kp[f]
    assert_same_features(det.compute(image, other), described)
    with pytest.raises(ValueError, match="no field 'size'"):
        det.compute(image, np.zeros(3, [("x", "f4"), ("y", "f4")]))


def test_gl_and_cpu_agree(assets):
    """Not bit for bit (docs/reference.md states the tolerances): most keypoints in both, close."""
    image = glsurf.load_gray(assets / "box.png")
    kg, _ = glsurf.Detector(backend="gl").detect(image)
    kc, _ = glsurf.Detector(backend="cpu").detect(image)
    assert abs(len(kg) - len(kc)) <= 0.05 * len(kc)
    np.testing.assert_allclose(kg["x"][:20], kc["x"][:20], atol=0.05)


def test_gl_context_is_real():
    info = glsurf.context_info()
    assert info["version"] and info["renderer"] and info["max_texture_size"] >= 4096


def test_properties_and_repr():
    det = glsurf.Detector(threshold=250, extended=True, backend="cpu")
    assert det.threshold == 250 and det.extended and det.descriptor_size == 128 and det.backend == "cpu"
    assert "threshold=250" in repr(det) and "backend='cpu'" in repr(det)
    m = glsurf.Matcher(ratio=0.7, backend="cpu")
    assert abs(m.ratio - 0.7) < 1e-6 and m.mutual and m.laplacian and "Matcher(" in repr(m)


def test_empty_result_has_descriptor_width(assets):
    kp, d = glsurf.Detector(threshold=1e9, backend="cpu").detect(assets / "box.png")
    assert len(kp) == 0 and d.shape == (0, 64) and d.dtype == np.float32


def test_tiling_settings(assets):
    det = glsurf.Detector(backend="cpu", memory_budget=2e9, tile_size=1000)
    assert det.memory_budget == 2e9 and det.tile_size == 1000
    assert glsurf.Detector(backend="cpu").memory_budget is None
    with pytest.raises(ValueError, match="tile_size"):
        glsurf.Detector(backend="cpu", tile_size=-1)
    with pytest.raises(ValueError, match="memory_budget"):
        glsurf.Detector(backend="cpu", memory_budget=0)
    # A budget below the smallest tile's needs: refused, with the reason.
    with pytest.raises(glsurf.Error, match="smallest tile"):
        glsurf.Detector(backend="cpu", memory_budget=1e6).detect(str(assets / "graf1.png"))
