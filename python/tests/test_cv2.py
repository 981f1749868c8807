"""to_cv2 and to_dmatch: OpenCV's types with every field carried over."""

import cv2
import numpy as np

import glsurf


def test_to_cv2_round_trip(assets):
    kp, d = glsurf.Detector(backend="cpu", max_features=100).detect(assets / "box.png")
    cv = glsurf.to_cv2(kp)
    assert len(cv) == len(kp) and all(isinstance(k, cv2.KeyPoint) for k in cv)
    back = np.array([(k.pt[0], k.pt[1], k.size, k.angle, k.response, k.octave, k.class_id) for k in cv],
                    glsurf.keypoint_dtype)
    np.testing.assert_array_equal(back, kp)  # float32 in, float32 out: exact
    assert set(np.unique(kp["laplacian"])) <= {-1, 1}
    # OpenCV takes them as they are
    cv2.drawKeypoints(glsurf.load_gray(assets / "box.png"), cv, None)


def test_to_dmatch(assets):
    det = glsurf.Detector(backend="cpu")
    a, b = det.detect(assets / "box.png"), det.detect(assets / "box_in_scene.png")
    m = glsurf.Matcher(backend="cpu").match(a, b)
    dm = glsurf.to_dmatch(m)
    assert [(x.queryIdx, x.trainIdx) for x in dm] == list(zip(m["query"].tolist(), m["train"].tolist()))
    np.testing.assert_array_equal(np.array([x.distance for x in dm], np.float32), m["distance"])
    cv2.drawMatches(glsurf.load_gray(assets / "box.png"), glsurf.to_cv2(a[0]),
                    glsurf.load_gray(assets / "box_in_scene.png"), glsurf.to_cv2(b[0]), dm, None)
    assert glsurf.to_cv2(a[0][:0]) == [] and glsurf.to_dmatch(m[:0]) == []
