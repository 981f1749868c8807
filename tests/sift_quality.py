"""sift_quality.py GLSURF ASSETS [BACKEND]: glsurf's SIFT against OpenCV's on
the bundled pair graf1 -> graf3 (ground truth H1to3p.xml).

Both feature sets are matched by the same matcher (OpenCV's brute force,
Lowe's ratio test at 0.8, no other filter), so the count compares the
features, not the matchers: a match is correct when graf1's keypoint,
mapped by the true homography, lies within 3 px of graf3's. glsurf must find
at least as many correct matches as OpenCV's SIFT (cv2.SIFT_create() with
its defaults), and `glsurf match --features sift` must recover the
homography within 3 px at the image corners. Prints both counts."""

import os
import re
import subprocess
import sys
import tempfile

import cv2
import numpy as np


def read_bin(path):
    with open(path, "rb") as f:
        magic = f.read(8)
        if magic != b"GLSIFT01":
            raise SystemExit(f"{path}: not a glsurf SIFT bin file ({magic!r})")
        n, d = np.frombuffer(f.read(8), dtype="<u4")
        record = np.dtype([("k", "<f4", 5), ("sign", "<i4"), ("octave", "<i4"), ("d", "<f4", int(d))])
        rows = np.frombuffer(f.read(), dtype=record, count=int(n))
    return rows["k"][:, :2].astype(np.float64), np.ascontiguousarray(rows["d"])


def correct_matches(pts1, desc1, pts2, desc2, h):
    matcher = cv2.BFMatcher(cv2.NORM_L2)
    pairs = matcher.knnMatch(desc1.astype(np.float32), desc2.astype(np.float32), k=2)
    good = [p[0] for p in pairs if len(p) == 2 and p[0].distance < 0.8 * p[1].distance]
    if not good:
        return 0, 0
    a = np.array([pts1[m.queryIdx] for m in good])
    b = np.array([pts2[m.trainIdx] for m in good])
    mapped = cv2.perspectiveTransform(a.reshape(-1, 1, 2), h).reshape(-1, 2)
    return int(np.sum(np.linalg.norm(mapped - b, axis=1) < 3.0)), len(good)


def main():
    glsurf, assets = sys.argv[1], sys.argv[2]
    backend = sys.argv[3] if len(sys.argv) > 3 else "gl"
    images = [os.path.join(assets, name) for name in ("graf1.png", "graf3.png")]
    truth = cv2.FileStorage(os.path.join(assets, "H1to3p.xml"), cv2.FILE_STORAGE_READ)
    h = truth.getFirstTopLevelNode().mat()
    ours = []
    with tempfile.TemporaryDirectory() as work:
        for i, image in enumerate(images):
            out = os.path.join(work, f"{i}.bin")
            subprocess.run([glsurf, "detect", image, "--features", "sift", "--backend", backend, "-o", out],
                           check=True, capture_output=True)
            ours.append(read_bin(out))
    sift = cv2.SIFT_create()
    theirs = []
    for image in images:
        kp, desc = sift.detectAndCompute(cv2.imread(image, cv2.IMREAD_GRAYSCALE), None)
        theirs.append((np.array([k.pt for k in kp], dtype=np.float64), desc))
    c_ours, m_ours = correct_matches(ours[0][0], ours[0][1], ours[1][0], ours[1][1], h)
    c_cv, m_cv = correct_matches(theirs[0][0], theirs[0][1], theirs[1][0], theirs[1][1], h)
    print(f"graf1 -> graf3, ratio 0.8, < 3 px: glsurf SIFT ({backend}) {c_ours} correct of {m_ours} matches "
          f"({len(ours[0][0])} and {len(ours[1][0])} keypoints); OpenCV {cv2.__version__} SIFT {c_cv} of {m_cv} "
          f"({len(theirs[0][0])} and {len(theirs[1][0])})")
    ok = c_ours >= c_cv
    run = subprocess.run([glsurf, "match", "--features", "sift", "--backend", backend], capture_output=True,
                         text=True)
    corner = re.search(r"homography corner error ([0-9.]+) px", run.stdout + run.stderr)
    said = (run.stdout + run.stderr).strip().splitlines()
    print("glsurf match --features sift:", said[-1] if said else "(nothing)")
    if run.returncode != 0 or not corner or float(corner.group(1)) > 3.0:
        print("FAILED: the homography is not within 3 px at the corners")
        ok = False
    if not ok:
        print("FAILED")
        return 1
    print("SIFT quality checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
