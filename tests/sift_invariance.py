"""sift_invariance.py GLSURF ASSETS [BACKEND]: glsurf's SIFT under exact
transformations of graf1: rotations by 90 and 180 degrees (pixels moved,
nothing resampled) and a 0.5x scale (cv2.INTER_AREA, each pixel the mean of
2 x 2). A keypoint of the original is repeated when the transformed image
has one within 1.5 px of where the transformation takes it (0.75 px for
the half scale, in its pixels) with a size within 15 % of the expected;
it is matched when the nearest descriptor among all of the transformed
image's is that partner's. At least 90 % of the repeated keypoints must be
matched (the issue's invariance criterion). Prints the fractions."""

import os
import subprocess
import sys
import tempfile

import cv2
import numpy as np


def detect(glsurf, path, backend, work, tag):
    out = os.path.join(work, tag + ".txt")
    subprocess.run([glsurf, "detect", path, "--features", "sift", "--backend", backend, "-o", out], check=True,
                   capture_output=True)
    rows = np.loadtxt(out, skiprows=1, ndmin=2)
    return rows[:, 0:2], rows[:, 2], rows[:, 7:]


def score(a, b, mapping, scale):
    (pa, sa, da), (pb, sb, db) = a, b
    expected = mapping(pa)
    repeated = matched = 0
    radius = 1.5 * min(1.0, scale)
    for i in range(len(pa)):
        dist = np.linalg.norm(pb - expected[i], axis=1)
        near = np.where((dist < radius) & (np.abs(sb / (sa[i] * scale) - 1) < 0.15))[0]
        if len(near) == 0:
            continue
        repeated += 1
        nearest = np.argmin(np.linalg.norm(db - da[i], axis=1))
        matched += nearest in near
    return repeated, matched


def main():
    glsurf, assets = sys.argv[1], sys.argv[2]
    backend = sys.argv[3] if len(sys.argv) > 3 else "gl"
    image = cv2.imread(os.path.join(assets, "graf1.png"), cv2.IMREAD_GRAYSCALE)
    h, w = image.shape
    cases = {
        # np.rot90 turns counter-clockwise as shown: (x, y) -> (y, W - 1 - x)
        "rotated 90": (np.rot90(image), lambda p: np.stack([p[:, 1], w - 1 - p[:, 0]], axis=1), 1.0),
        "rotated 180": (np.rot90(image, 2), lambda p: np.stack([w - 1 - p[:, 0], h - 1 - p[:, 1]], axis=1), 1.0),
        # INTER_AREA at 0.5: pixel i is the mean of 2i and 2i + 1, centred at 2i + 0.5
        "scaled 0.5": (cv2.resize(image, (w // 2, h // 2), interpolation=cv2.INTER_AREA),
                       lambda p: (p - 0.5) / 2, 0.5),
    }
    ok = True
    with tempfile.TemporaryDirectory() as work:
        original = os.path.join(work, "a.png")
        cv2.imwrite(original, image)
        a = detect(glsurf, original, backend, work, "a")
        for name, (turned, mapping, scale) in cases.items():
            path = os.path.join(work, "b.png")
            cv2.imwrite(path, np.ascontiguousarray(turned))
            b = detect(glsurf, path, backend, work, "b")
            repeated, matched = score(a, b, mapping, scale)
            fraction = matched / max(repeated, 1)
            print(f"{name}: {repeated} of {len(a[0])} keypoints repeated, {matched} of them matched "
                  f"to their partner ({fraction:.3f})")
            ok &= repeated > 0.2 * len(a[0]) and fraction >= 0.9
    if not ok:
        print("FAILED")
        return 1
    print("SIFT invariance checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
