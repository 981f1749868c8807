#!/usr/bin/python3
"""Feature quality at equal keypoint budgets: glsurf against other implementations.

For each image pair with a ground-truth homography, every implementation
keeps (about) the same number of keypoints per image, N, and is scored the
same way by OpenCV (peers' `cvbaseline kpfile`): repeatability and
correspondences by cv::evaluateFeatureDetector as it is (rep), and with the
protocol's common part (protocol_rep: build/tests/opencv_repeatability,
docs/evaluation.md), then brute-force L2 2-NN with
Lowe's ratio test 0.8 (no mutual check, no Laplacian sign) and a match is
correct when its reprojection error under the homography is below 3 px.

    PEERS=/tmp/peers python3 tools/compare_peers.py [--budgets 1000,2000] [--impl glsurf,bay,...]

Implementations (those whose binaries are missing are skipped with a note):
  glsurf          build/glsurf detect --max-features N (the backend by --backend)
  glsurf:OPTS     the same with extra detect options, e.g. "glsurf:--upright"
  bay             Bay et al.'s original SURF (surf.ln), threshold bisected to N per image
  opensurf        OpenSURF (opensurf_driver), threshold bisected to N per image
  siftgpu         SiftGPU under xvfb-run, -t 0.002 -tc N (counts near N, not exact)
  bay-desc        Bay's descriptor on glsurf's keypoints (surf.ln -p1)
  glsurf-desc     glsurf's descriptor (glsurf describe) on Bay's keypoints

Pairs: the public graf1 -> graf3 and synthetic sequences made by `glsurf warp`
from the bundled images (viewpoint tilt, rotation and scale, blur, light).
Peers are built by ../shared/peers/build_peers.sh into $PEERS.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import cv2
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PEERS = os.environ.get("PEERS", "/tmp/peers")
GLSURF = os.environ.get("GLSURF", os.path.join(ROOT, "build", "glsurf"))
CVBASELINE = os.path.join(PEERS, "bin", "cvbaseline")
# The protocol's repeatability (common part in both images, docs/evaluation.md)
# by cv::evaluateFeatureDetector on pre-filtered keypoints: built with the tests.
PROTOCOL = os.environ.get("PROTOCOL", os.path.join(os.path.dirname(GLSURF), "tests", "opencv_repeatability"))
BAY = os.path.join(PEERS, "SURF", "SURF-source", "surf.ln")
OPENSURF = os.path.join(PEERS, "bin", "opensurf_driver")
SIFTGPU = os.path.join(PEERS, "bin", "siftgpu_driver")

# Synthetic sequences: name -> (source image, warp options). Each value list
# gives one image of the sequence; pairs are img1 -> imgK.
SEQUENCES = {
    "graf-tilt": ("graf1.png", ["--perspective", "0.3,0.5", "--rotate", "0,0", "--scale", "1,1"]),
    "graf-rot-scale": ("graf1.png", ["--rotate", "30,60", "--scale", "1.2,0.8"]),
    "box-rot-scale": ("box_in_scene.png", ["--rotate", "20,45", "--scale", "1.3,1"]),
    "graf-blur": ("graf1.png", ["--blur", "1.5,3"]),
    "graf-light": ("graf1.png", ["--brightness", "-40,40", "--noise", "2,4"]),
}


def run(cmd, **kw):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({r.returncode}): {r.stderr.strip()[-400:]}")
    return r.stdout


def to_pgm(png, pgm):
    img = cv2.imread(png, cv2.IMREAD_GRAYSCALE)
    if img is None:
        raise RuntimeError(f"cannot read {png}")
    cv2.imwrite(pgm, img)
    return img.shape


def read_glsurf_txt(path):
    """glsurf txt: 'N D', then 'x y size angle response laplacian octave d1..dD'."""
    with open(path) as f:
        n, d = map(int, f.readline().split())
        rows = np.loadtxt(f, ndmin=2) if n else np.zeros((0, 7 + d))
    return rows[:, 0], rows[:, 1], rows[:, 2], rows[:, 7:]


def read_bay(path):
    """Bay's output: 'D+1', 'N', then 'x y a b c laplacian d1..dD' with a = 1 / (2.5 s)^2."""
    with open(path) as f:
        f.readline()
        n = int(f.readline())
        rows = np.loadtxt(f, ndmin=2) if n else np.zeros((0, 70))
    s = 1.0 / np.sqrt(rows[:, 2]) / 2.5
    return rows[:, 0], rows[:, 1], s * 7.5, rows[:, 6:]


def write_kpfile(path, x, y, size, desc):
    """cvbaseline's kpfile: 'x y scale d1..dD' with scale = size / 7.5."""
    with open(path, "w") as f:
        for i in range(len(x)):
            f.write(f"{x[i]:.4f} {y[i]:.4f} {size[i] / 7.5:.5f} " + " ".join(f"{v:.7g}" for v in desc[i]) + "\n")


def write_bay_regions(path, x, y, size):
    """Regions for surf.ln -p1: 'dummy', 'N', 'x y a b c' with a = c = 1 / (2.5 s)^2."""
    with open(path, "w") as f:
        f.write(f"1\n{len(x)}\n")
        for i in range(len(x)):
            a = 1.0 / (2.5 * size[i] / 7.5) ** 2
            f.write(f"{x[i]:.4f} {y[i]:.4f} {a:.9g} 0 {a:.9g}\n")


def bisect_threshold(detect, target, lo, hi, iters=18, geometric=True):
    """Finds a threshold whose keypoint count is closest to target (count falls as t rises)."""
    best = None
    for _ in range(iters):
        mid = np.sqrt(lo * hi) if geometric else (lo + hi) / 2
        feats = detect(mid)
        n = len(feats[0])
        if best is None or abs(n - target) < abs(len(best[0]) - target):
            best = feats
        if n == target:
            break
        if n > target:
            lo = mid
        else:
            hi = mid
    return best


class Runner:
    def __init__(self, work, backend):
        self.work = work
        self.backend = backend

    def glsurf(self, img, n, opts, tag):
        out = os.path.join(self.work, f"{tag}.txt")
        run([GLSURF, "detect", img, "-o", out, "--max-features", str(n), "--backend", self.backend] + opts)
        return read_glsurf_txt(out)

    def bay(self, img, n, tag):
        pgm = os.path.join(self.work, f"{tag}.pgm")
        to_pgm(img, pgm)
        out = os.path.join(self.work, f"{tag}.surf")

        def detect(t):
            run([BAY, "-i", pgm, "-o", out, "-thres", f"{t:.6g}", "-q"],
                env=dict(os.environ, LD_LIBRARY_PATH=os.path.dirname(BAY)))
            return read_bay(out)

        return bisect_threshold(detect, n, 1.0, 1e7)

    def opensurf(self, img, n, tag):
        pgm = os.path.join(self.work, f"{tag}.png")
        shutil.copy(img, pgm)
        outdir = os.path.join(self.work, f"os_{tag}")
        os.makedirs(outdir, exist_ok=True)

        def detect(t):
            run([OPENSURF, outdir, pgm, "--thres", f"{t:.6g}"])
            return read_glsurf_txt(os.path.join(outdir, f"{tag}.txt"))

        return bisect_threshold(detect, n, 1e-7, 1e-1)

    def siftgpu(self, img, n, tag):
        pgm = os.path.join(self.work, f"{tag}.pgm")
        to_pgm(img, pgm)
        outdir = os.path.join(self.work, f"sg_{tag}")
        os.makedirs(outdir, exist_ok=True)
        # -tc N stops adding levels' features once N are reached, so the count is
        # approximate; a low DoG threshold (-t) makes enough candidates. The
        # driver exits 1 from freeglut's clean-up after writing its file.
        out = os.path.join(outdir, f"{tag}.txt")
        if os.path.exists(out):
            os.remove(out)  # the driver's exit status does not tell a failure, only a missing file does
        subprocess.run(["xvfb-run", "-a", SIFTGPU, "detect", outdir, pgm, "--", "-t", "0.002", "-tc", str(n), "-loweo"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if not os.path.exists(out):
            raise RuntimeError("siftgpu_driver wrote nothing")
        return read_glsurf_txt(out)

    def bay_desc(self, img, kps, tag):
        """Bay's orientation and descriptor at the given keypoints."""
        pgm = os.path.join(self.work, f"{tag}.pgm")
        to_pgm(img, pgm)
        regions = os.path.join(self.work, f"{tag}.regions")
        write_bay_regions(regions, *kps[:3])
        out = os.path.join(self.work, f"{tag}.surf")
        run([BAY, "-i", pgm, "-o", out, "-p1", regions, "-q"],
            env=dict(os.environ, LD_LIBRARY_PATH=os.path.dirname(BAY)))
        return read_bay(out)

    def glsurf_desc(self, img, kps, tag, opts):
        src = os.path.join(self.work, f"{tag}.in.txt")
        x, y, size, _ = kps
        with open(src, "w") as f:
            f.write(f"{len(x)} 64\n")
            for i in range(len(x)):
                f.write(f"{x[i]:.4f} {y[i]:.4f} {size[i]:.5f} 0 0 1 0 " + " ".join(["0"] * 64) + "\n")
        out = os.path.join(self.work, f"{tag}.txt")
        run([GLSURF, "describe", img, src, "-o", out, "--backend", self.backend] + opts)
        return read_glsurf_txt(out)


def protocol_repeatability(work, img1, img2, H, f1, f2, tag):
    """Repeatability with the protocol's common part, or NaN without the helper."""
    if not os.path.exists(PROTOCOL):
        return float("nan")
    paths = []
    for k, f in ((1, f1), (2, f2)):
        path = os.path.join(work, f"{tag}.proto{k}.txt")
        with open(path, "w") as out:
            out.write(f"{len(f[0])} 0\n")
            for x, y, size in zip(f[0], f[1], f[2]):
                out.write(f"{x:.4f} {y:.4f} {size:.5f}\n")
        paths.append(path)
    (h1, w1), (h2, w2) = cv2.imread(img1, 0).shape, cv2.imread(img2, 0).shape
    out = run([PROTOCOL, paths[0], paths[1], str(w1), str(h1), str(w2), str(h2), H]).split()
    return float(out[out.index("opencv_repeatability") + 1])


def score(work, img1, img2, H, f1, f2, tag):
    k1 = os.path.join(work, f"{tag}.k1")
    k2 = os.path.join(work, f"{tag}.k2")
    write_kpfile(k1, *f1)
    write_kpfile(k2, *f2)
    d = f1[3].shape[1]
    out = run([CVBASELINE, "kpfile", img1, img2, H, k1, k2, "--size-per-scale", "7.5", "--desc-dim", str(d),
               "--threads", "1"])
    line = [l for l in out.splitlines() if l and not l.startswith("#")][-1].split("\t")
    n1, n2, rep, corr, _, matches, c3 = line[:7]
    return dict(n1=int(n1), n2=int(n2), rep=float(rep), corr=int(corr), matches=int(matches), correct=int(c3),
                prep=protocol_repeatability(work, img1, img2, H, f1, f2, tag))


def make_pairs(work):
    pairs = [("graf1-graf3", os.path.join(ROOT, "assets", "graf1.png"), os.path.join(ROOT, "assets", "graf3.png"),
              os.path.join(ROOT, "assets", "H1to3p.xml"))]
    for name, (src, opts) in SEQUENCES.items():
        d = os.path.join(work, "seq", name)
        run([GLSURF, "warp", os.path.join(ROOT, "assets", src), d] + opts)
        k = 2
        while os.path.exists(os.path.join(d, f"H1to{k}p")):
            pairs.append((f"{name}-{k}", os.path.join(d, "img1.png"), os.path.join(d, f"img{k}.png"),
                          os.path.join(d, f"H1to{k}p")))
            k += 1
    return pairs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--budgets", default="1000,2000")
    ap.add_argument("--impl", default="glsurf,bay,opensurf,siftgpu")
    ap.add_argument("--backend", default="gl")
    ap.add_argument("--pairs", default="", help="comma-separated pair names to keep (prefix match)")
    ap.add_argument("--keep", help="keep the work directory here")
    a = ap.parse_args()
    for tool in (GLSURF, CVBASELINE):
        if not os.path.exists(tool):
            sys.exit(f"compare_peers: {tool} is missing (build glsurf; build the peers with build_peers.sh)")
    impls = a.impl.split(",")
    for impl in impls:
        if impl.split(":", 1)[0] not in KNOWN:
            sys.exit(f"compare_peers: unknown implementation {impl} (known: {', '.join(KNOWN)})")
    if not os.path.exists(PROTOCOL):
        print(f"# {PROTOCOL} is missing (built with the tests where OpenCV is found): protocol_rep is nan")
    budgets = [int(b) for b in a.budgets.split(",")]
    work = a.keep or tempfile.mkdtemp(prefix="glsurf_peers_")
    os.makedirs(work, exist_ok=True)
    try:
        run_all(a, work, budgets, impls)
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)


KNOWN = ("glsurf", "bay", "opensurf", "siftgpu", "bay-desc", "glsurf-desc")


def features(r, impl, i1, i2, n, tag):
    """Keypoints and descriptors of both images by one implementation."""
    name, _, extra = impl.partition(":")
    if name == "glsurf":
        opts = extra.split()
        return r.glsurf(i1, n, opts, tag + "_1"), r.glsurf(i2, n, opts, tag + "_2")
    if name == "bay":
        return r.bay(i1, n, tag + "_1"), r.bay(i2, n, tag + "_2")
    if name == "opensurf":
        return r.opensurf(i1, n, tag + "_1"), r.opensurf(i2, n, tag + "_2")
    if name == "siftgpu":
        return r.siftgpu(i1, n, tag + "_1"), r.siftgpu(i2, n, tag + "_2")
    if name == "bay-desc":
        g1, g2 = r.glsurf(i1, n, [], tag + "_g1"), r.glsurf(i2, n, [], tag + "_g2")
        return r.bay_desc(i1, g1, tag + "_1"), r.bay_desc(i2, g2, tag + "_2")
    b1, b2 = r.bay(i1, n, tag + "_b1"), r.bay(i2, n, tag + "_b2")  # glsurf-desc
    return r.glsurf_desc(i1, b1, tag + "_1", extra.split()), r.glsurf_desc(i2, b2, tag + "_2", extra.split())


def run_all(a, work, budgets, impls):
    r = Runner(work, a.backend)
    pairs = make_pairs(work)
    if a.pairs:
        pairs = [p for p in pairs if any(p[0].startswith(q) for q in a.pairs.split(","))]
    print("budget\tpair\timpl\tn1\tn2\trep\tcorresp\tmatches\tcorrect\tprecision\tprotocol_rep", flush=True)
    totals = {}
    for n in budgets:
        for name, i1, i2, H in pairs:
            for impl in impls:
                tag = f"{name}_{impl.replace(':', '_').replace(' ', '').replace('-', '_')}_{n}"
                try:
                    f1, f2 = features(r, impl, i1, i2, n, tag)
                    s = score(work, i1, i2, H, f1, f2, tag)
                except (RuntimeError, OSError, ValueError, IndexError) as e:
                    print(f"# {impl} on {name}: skipped: {e}", flush=True)
                    continue
                prec = s["correct"] / s["matches"] if s["matches"] else 0.0
                t = totals.setdefault((n, impl), [0, 0, 0])
                t[0] += s["correct"]
                t[1] += s["matches"]
                t[2] += 1
                print(f"{n}\t{name}\t{impl}\t{s['n1']}\t{s['n2']}\t{s['rep']:.3f}\t{s['corr']}\t{s['matches']}\t"
                      f"{s['correct']}\t{prec:.3f}\t{s['prep']:.3f}", flush=True)
    print("# totals: budget impl pairs correct matches precision")
    for (n, impl), (c, m, p) in totals.items():
        print(f"# {n}\t{impl}\t{p}\t{c}\t{m}\t{c / m if m else 0:.3f}")

if __name__ == "__main__":
    main()
