"""Matcher: the module's matches equal `glsurf match`'s on the same features
(the module's own, written as feature files), both backends; the sign filter,
match_many, and the homography's inliers equal the CLI's inlier column."""

import numpy as np
import pytest

import glsurf
from conftest import BACKENDS, run_cli, write_bin


@pytest.fixture(scope="module")
def features(assets):
    det = glsurf.Detector(backend="cpu", max_features=1500)
    return [det.detect(assets / name) for name in ("graf1.png", "graf3.png", "box.png", "box_in_scene.png")]


def read_match_file(path):
    lines = open(path).read().splitlines()
    assert lines[0] == "# i j x1 y1 x2 y2 distance inlier"
    rows = [line.split() for line in lines[1:]]
    return rows


# (Matcher keyword arguments, the same as CLI options)
SETTINGS = [({}, []), (dict(ratio=0.9, mutual=False, laplacian=False), ["--ratio", "0.9", "--no-mutual", "--no-sign"]),
            (dict(ratio=0, max_distance=0.3), ["--ratio", "0", "--max-distance", "0.3"])]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kwargs,options", SETTINGS, ids=["default", "loose", "distance"])
def test_match_equals_cli(cli, tmp_path, features, backend, kwargs, options):
    (kp1, d1), (kp2, d2) = features[0], features[1]
    a, b, out = tmp_path / "a.bin", tmp_path / "b.bin", tmp_path / "m.txt"
    write_bin(a, kp1, d1)
    write_bin(b, kp2, d2)
    run_cli(cli, "match", a, b, "-o", out, "--backend", backend, *options)
    rows = read_match_file(out)

    m = glsurf.Matcher(backend=backend, **kwargs).match((kp1, d1), (kp2, d2))
    assert m.dtype == glsurf.match_dtype
    assert len(m) == len(rows) and len(m) > 30
    np.testing.assert_array_equal(m["query"], [int(r[0]) for r in rows])
    np.testing.assert_array_equal(m["train"], [int(r[1]) for r in rows])
    assert ["%.7g" % d for d in m["distance"]] == [r[6] for r in rows]  # the CLI writes %.7g
    # the points, and the homography's inliers (RANSAC 3 px, as match's default)
    pts1, pts2 = glsurf.matched_points(kp1, kp2, m)
    assert ["%.9g" % v for v in pts1[:, 0]] == [r[2] for r in rows]
    H, inliers = glsurf.find_homography(pts1, pts2)
    assert H is not None
    np.testing.assert_array_equal(inliers, [r[7] == "1" for r in rows])


@pytest.mark.parametrize("backend", BACKENDS)
def test_descriptors_alone_turn_the_sign_filter_off(features, backend):
    (kp1, d1), (kp2, d2) = features[2], features[3]
    # without the ratio test the sign filter shows (237 matches with it, 231 without)
    signed = glsurf.Matcher(backend=backend, ratio=0)
    unsigned = glsurf.Matcher(backend=backend, ratio=0, laplacian=False)
    with_signs = signed.match((kp1, d1), (kp2, d2))
    without = signed.match(d1, d2)
    assert not np.array_equal(with_signs, without)
    np.testing.assert_array_equal(without, unsigned.match((kp1, d1), (kp2, d2)))
    np.testing.assert_array_equal(without, signed.match((kp1, d1), d2))  # one side without: off too
    np.testing.assert_array_equal(without, signed.match(d1.astype(np.float64), d2))  # float64 cast


@pytest.mark.parametrize("backend", BACKENDS)
def test_match_many(features, backend):
    m = glsurf.Matcher(backend=backend)
    q = features[0]
    trains = [features[1], features[0], features[1][1]]
    many = m.match_many(q, trains)
    assert len(many) == 3
    for got, t in zip(many, trains):
        np.testing.assert_array_equal(got, m.match(q, t))
    assert m.match_many(q, []) == []


def test_backends_match_alike(features):
    (kp1, d1), (kp2, d2) = features[0], features[1]
    g = glsurf.Matcher(backend="gl").match((kp1, d1), (kp2, d2))
    c = glsurf.Matcher(backend="cpu").match((kp1, d1), (kp2, d2))
    np.testing.assert_array_equal(g["query"], c["query"])
    np.testing.assert_array_equal(g["train"], c["train"])
    np.testing.assert_allclose(g["distance"], c["distance"], atol=1e-5)


@pytest.mark.parametrize("backend", BACKENDS)
def test_match_errors(features, backend):
    m = glsurf.Matcher(backend=backend)
    (kp1, d1), (kp2, d2) = features[0], features[1]
    with pytest.raises(glsurf.Error, match="descriptor"):
        m.match(d1, d2[:, :32])
    with pytest.raises(ValueError, match="keypoints but"):
        m.match((kp1[:10], d1), (kp2, d2))
    with pytest.raises(ValueError, match="float32"):
        m.match(d1.astype(np.int32), d2)
    with pytest.raises(ValueError, match="N x D"):
        m.match(d1[0], d2)
    with pytest.raises(TypeError):
        m.match(None, d2)
    assert len(m.match(d1[:0], d2)) == 0


def test_geometry(assets, features):
    (kp1, d1), (kp2, d2) = features[0], features[1]
    m = glsurf.Matcher(backend="cpu").match((kp1, d1), (kp2, d2))
    pts1, pts2 = glsurf.matched_points(kp1, kp2, m)
    import cv2

    storage = cv2.FileStorage(str(assets / "H1to3p.xml"), cv2.FILE_STORAGE_READ)  # alive while read
    truth = storage.getNode("H13").mat()
    H, inliers = glsurf.find_homography(pts1, pts2)
    assert H.shape == (3, 3) and H.dtype == np.float64 and inliers.dtype == bool and inliers.sum() >= 100
    corners = np.array([[0, 0], [799, 0], [799, 639], [0, 639]], np.float64).reshape(-1, 1, 2)
    error = np.abs(cv2.perspectiveTransform(corners, H) - cv2.perspectiveTransform(corners, truth)).max()
    assert error < 3
    F, f_inliers = glsurf.find_fundamental(pts1, pts2)
    assert F.shape == (3, 3) and f_inliers.sum() >= 100
    x1 = np.c_[pts1, np.ones(len(pts1))][f_inliers]
    x2 = np.c_[pts2, np.ones(len(pts2))][f_inliers]
    assert np.abs(np.einsum("ij,jk,ik->i", x2, F, x1)).max() < 1
    g = glsurf.two_view_geometry(pts1, pts2)
    assert g["configuration"] == "planar or panoramic"  # graf is a planar scene
    assert g["H"] is not None and g["inliers"].shape == (len(m),) and g["h_inliers"] > 100
    # OpenCV's N x 1 x 2 point arrays are taken too
    H2, _ = glsurf.find_homography(pts1.reshape(-1, 1, 2).astype(np.float32), pts2.reshape(-1, 1, 2))
    assert np.allclose(H2 / H2[2, 2], H / H[2, 2], atol=1e-3)


def test_geometry_too_few_and_bad():
    pts = np.array([[0, 0], [10, 0], [0, 10]], np.float64)
    H, inliers = glsurf.find_homography(pts, pts)
    assert H is None and inliers.tolist() == [False] * 3
    F, inliers = glsurf.find_fundamental(pts, pts)
    assert F is None and not inliers.any()
    assert glsurf.two_view_geometry(pts, pts)["configuration"] == "degenerate"
    with pytest.raises(ValueError, match="as many"):
        glsurf.find_homography(pts, pts[:2])
    with pytest.raises(ValueError, match="N x 2"):
        glsurf.find_homography(pts[:, :1], pts[:, :1])
