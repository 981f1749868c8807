"""SURF keypoints, descriptors and matching on any OpenGL 3.3 driver (glsurf).

    import cv2, glsurf
    det = glsurf.Detector(threshold=400)                 # backend="gl"; "cpu" needs no OpenGL
    kp1, d1 = det.detect(cv2.imread("a.png"))            # numpy arrays in, numpy arrays out
    kp2, d2 = det.detect("b.png")                        # or a path, read by glsurf's loader
    m = glsurf.Matcher().match((kp1, d1), (kp2, d2))     # query, train, distance
    H, inliers = glsurf.find_homography(*glsurf.matched_points(kp1, kp2, m))

Classes: Detector (detect, compute), Matcher (match, match_many).
Geometry: find_homography, find_fundamental, two_view_geometry.
Helpers: load_gray, matched_points, to_cv2, to_dmatch, context_info.
Types: keypoint_dtype, match_dtype, Error (a RuntimeError).

Conventions: (0, 0) is the centre of the top-left pixel, x right, y down
(OpenCV's); keypoints carry OpenCV KeyPoint's fields (size, angle in degrees,
response, octave) plus the Laplacian's sign (class_id in to_cv2).
Descriptors are float32 rows of unit length (64 values, 128 when extended).
Colour arrays are BGR(A), as cv2.imread gives them.

One OpenGL context serves the whole process: made headless (EGL) on the first
backend="gl" object, shared by every later one and used by one thread at a
time. The GIL is released while glsurf works. The manual: docs/python.md.
"""

from ._glsurf import (  # noqa: F401  (the extension: see its docstrings)
    Detector,
    Error,
    Matcher,
    context_info,
    find_fundamental,
    find_homography,
    keypoint_dtype,
    load_gray,
    match_dtype,
    two_view_geometry,
)

__all__ = [
    "Detector", "Matcher", "Error", "keypoint_dtype", "match_dtype",
    "find_homography", "find_fundamental", "two_view_geometry",
    "load_gray", "context_info", "matched_points", "to_cv2", "to_dmatch",
]


def matched_points(keypoints1, keypoints2, matches):
    """matched_points(keypoints1, keypoints2, matches) -> (pts1, pts2)

    The points of each match as two N x 2 float64 arrays, pts1 from
    keypoints1 (matches["query"]) and pts2 from keypoints2 (matches["train"]):
    what find_homography, find_fundamental and two_view_geometry take.
    """
    import numpy as np

    q = np.asarray(matches["query"], dtype=np.intp)
    t = np.asarray(matches["train"], dtype=np.intp)
    pts1 = np.stack([keypoints1["x"][q], keypoints1["y"][q]], axis=1).astype(np.float64)
    pts2 = np.stack([keypoints2["x"][t], keypoints2["y"][t]], axis=1).astype(np.float64)
    return pts1, pts2


def to_cv2(keypoints):
    """to_cv2(keypoints) -> list of cv2.KeyPoint

    Keypoints as OpenCV's: pt=(x, y), size, angle, response, octave, and
    class_id = the Laplacian's sign (+1 or -1), as OpenCV's SURF fills them.
    Needs OpenCV (python3-opencv); for cv2.drawKeypoints and friends.
    """
    import cv2

    return [
        cv2.KeyPoint(float(k["x"]), float(k["y"]), float(k["size"]), float(k["angle"]),
                     float(k["response"]), int(k["octave"]), int(k["laplacian"]))
        for k in keypoints
    ]


def to_dmatch(matches):
    """to_dmatch(matches) -> list of cv2.DMatch

    Matches as OpenCV's: queryIdx = query, trainIdx = train, distance; for
    cv2.drawMatches. Needs OpenCV (python3-opencv).
    """
    import cv2

    return [cv2.DMatch(int(m["query"]), int(m["train"]), float(m["distance"])) for m in matches]
