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

    PEERS=/tmp/peers python3 tools/compare_peers.py [--budgets 1000,2000,default] [--impl glsurf,bay,...]

A budget "default" (or 0) keeps no budget: each implementation runs with its
own defaults (glsurf without --max-features, OpenCV's SIFT_create(), Bay's
and OpenSURF's default thresholds, SiftGPU without -t and -tc).

Implementations (those whose binaries are missing are skipped with a note):
  glsurf          build/glsurf detect --max-features N (the backend by --backend)
  glsurf:OPTS     the same with extra detect options, e.g. "glsurf:--upright",
                  "glsurf:--features sift"
  bay             Bay et al.'s original SURF (surf.ln), threshold bisected to N per image
  opensurf        OpenSURF (opensurf_driver), threshold bisected to N per image
  siftgpu         SiftGPU under xvfb-run, -t 0.002 -tc N (counts near N, not exact)
  cvsift          OpenCV's SIFT in this process: cv2.SIFT_create(nfeatures=N), which keeps
                  the N strongest entries (ties with the N-th too), then cut to N
  cvsift:shift=D  the same with D added to x and y (D = -0.25 puts OpenCV's keypoints
                  where glsurf's convention has them: its doubled image samples x / 2 - 0.25)
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
    """glsurf txt: 'N D' (or 'N D sift'), then 'x y size angle response laplacian octave d1..dD'."""
    with open(path) as f:
        n, d = map(int, f.readline().split()[:2])
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
        budget = ["--max-features", str(n)] if n else []
        run([GLSURF, "detect", img, "-o", out, "--backend", self.backend] + budget + opts)
        return read_glsurf_txt(out)

    def cvsift(self, img, n, shift):
        """OpenCV's SIFT (defaults but nfeatures); KeyPointsFilter::retainBest keeps the
        entries tied with the N-th (a keypoint's orientations share its response), so the
        list is cut to N, strongest first, as glsurf cuts its own."""
        grey = cv2.imread(img, cv2.IMREAD_GRAYSCALE)
        if grey is None:
            raise RuntimeError(f"cannot read {img}")
        kps, desc = cv2.SIFT_create(nfeatures=n).detectAndCompute(grey, None)
        if desc is None:
            desc = np.zeros((0, 128), np.float32)
        if n and len(kps) > n:
            keep = sorted(range(len(kps)), key=lambda i: -kps[i].response)[:n]
            kps, desc = [kps[i] for i in keep], desc[keep]
        x = np.array([k.pt[0] for k in kps], np.float64) + shift
        y = np.array([k.pt[1] for k in kps], np.float64) + shift
        size = np.array([k.size for k in kps], np.float64)
        return x, y, size, desc.astype(np.float64)

    def bay(self, img, n, tag):
        pgm = os.path.join(self.work, f"{tag}.pgm")
        to_pgm(img, pgm)
        out = os.path.join(self.work, f"{tag}.surf")

        def detect(t):
            thres = ["-thres", f"{t:.6g}"] if t is not None else []
            run([BAY, "-i", pgm, "-o", out, "-q"] + thres, env=dict(os.environ, LD_LIBRARY_PATH=os.path.dirname(BAY)))
            return read_bay(out)

        return bisect_threshold(detect, n, 1.0, 1e7) if n else detect(None)

    def opensurf(self, img, n, tag):
        pgm = os.path.join(self.work, f"{tag}.png")
        shutil.copy(img, pgm)
        outdir = os.path.join(self.work, f"os_{tag}")
        os.makedirs(outdir, exist_ok=True)

        def detect(t):
            run([OPENSURF, outdir, pgm] + (["--thres", f"{t:.6g}"] if t is not None else []))
            return read_glsurf_txt(os.path.join(outdir, f"{tag}.txt"))

        return bisect_threshold(detect, n, 1e-7, 1e-1) if n else detect(None)

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
        budget = ["-t", "0.002", "-tc", str(n)] if n else []  # no budget: SiftGPU's defaults
        subprocess.run(["xvfb-run", "-a", SIFTGPU, "detect", outdir, pgm, "--"] + budget + ["-loweo"],
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
    ap.add_argument("--budgets", default="1000,2000", help="keypoints per image; 'default' or 0: no budget")
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
    budgets = [0 if b in ("default", "0") else int(b) for b in a.budgets.split(",")]
    work = a.keep or tempfile.mkdtemp(prefix="glsurf_peers_")
    os.makedirs(work, exist_ok=True)
    try:
        run_all(a, work, budgets, impls)
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)


KNOWN = ("glsurf", "bay", "opensurf", "siftgpu", "cvsift", "bay-desc", "glsurf-desc")


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
    if name == "cvsift":
        shift = 0.0
        for opt in extra.split():
            key, _, value = opt.partition("=")
            if key != "shift":
                raise ValueError(f"unknown cvsift option {opt} (known: shift=D)")
            shift = float(value)
        return r.cvsift(i1, n, shift), r.cvsift(i2, n, shift)
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
                tag = f"{name}_{impl.replace(':', '_').replace(' ', '').replace('-', '_').replace('=', '_')}_{n}"
                try:
                    f1, f2 = features(r, impl, i1, i2, n, tag)
                    s = score(work, i1, i2, H, f1, f2, tag)
                except (RuntimeError, OSError, ValueError, IndexError) as e:
                    print(f"# {impl} on {name}: skipped: {e}", flush=True)
                    continue
                prec = s["correct"] / s["matches"] if s["matches"] else 0.0
                t = totals.setdefault((n, impl), [0, 0, 0, 0.0])
                t[0] += s["correct"]
                t[1] += s["matches"]
                t[2] += 1
                t[3] += s["prep"]
                print(f"{n or 'default'}\t{name}\t{impl}\t{s['n1']}\t{s['n2']}\t{s['rep']:.3f}\t{s['corr']}\t{s['matches']}\t"
                      f"{s['correct']}\t{prec:.3f}\t{s['prep']:.3f}", flush=True)
    print("# totals: budget impl pairs correct matches precision mean_protocol_rep")
    for (n, impl), (c, m, p, pr) in totals.items():
        print(f"# {n or 'default'}\t{impl}\t{p}\t{c}\t{m}\t{c / m if m else 0:.3f}\t{pr / p:.3f}")

if __name__ == "__main__":
    main()
