"""compare_features.py A B [MIN [ANGLE COSINE]]: the fraction of A's
keypoints (glsurf's txt feature files) that have one in B within 0.1 px,
with a size within 0.1 %, the same Laplacian sign, an angle within ANGLE
degrees (0.01) and a descriptor at cosine >= COSINE (0.999); and of B's in
A. Exits 1 when either is below MIN (0.995: the tiles' criterion,
docs/reference.md#tiles)."""

import sys

import numpy as np


def load(path):
    with open(path) as f:
        f.readline()  # "N D" or "N D sift"
        rows = np.loadtxt(f, ndmin=2)
    return rows


def same_fraction(a, b, angle, cosine):
    if len(a) == 0:
        return 1.0
    order = np.argsort(b[:, 1])
    ys = b[order, 1]
    same = 0
    for k in a:
        lo, hi = np.searchsorted(ys, k[1] - 0.1), np.searchsorted(ys, k[1] + 0.1, side="right")
        for m in b[order[lo:hi]]:
            turn = abs(m[3] - k[3]) % 360
            if (abs(m[0] - k[0]) > 0.1 or abs(m[2] - k[2]) > 1e-3 * k[2] or m[5] != k[5]
                    or min(turn, 360 - turn) > angle):
                continue
            u, v = k[7:], m[7:]
            if u @ v >= cosine * np.sqrt((u @ u) * (v @ v)):
                same += 1
                break
    return same / len(a)


def main():
    a, b = load(sys.argv[1]), load(sys.argv[2])
    least = float(sys.argv[3]) if len(sys.argv) > 3 else 0.995
    angle = float(sys.argv[4]) if len(sys.argv) > 4 else 0.01
    cosine = float(sys.argv[5]) if len(sys.argv) > 5 else 0.999
    ab, ba = same_fraction(a, b, angle, cosine), same_fraction(b, a, angle, cosine)
    print(f"{len(a)} and {len(b)} keypoints; the same: {ab:.4f} of the first, {ba:.4f} of the second")
    return 0 if min(ab, ba) >= least and len(a) > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
