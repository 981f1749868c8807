"""The Python binding's overhead on detection: Detector.detect on a numpy
array, timed inside Python, against Detector::detect_and_compute on the same
pixels timed inside C++ (glsurf_python_timing: the public API as the module
calls it, in a process of its own), interleaved call by call so that a busy
machine slows both alike. Prints the medians and their ratio.

    PYTHONPATH=build/python /usr/bin/python3 python/tests/timing.py \
        [--backend gl|cpu] [--runs 60] [--size 640x480]

The frame is the centre of assets/graf1.png cropped to --size (3,375 SURF
keypoints at 640 x 480 with the default settings). Not a pytest test (its
numbers need a quiet machine); docs/python.md quotes it.
"""

import argparse
import os
import pathlib
import statistics
import subprocess
import tempfile
import time

import numpy as np

import glsurf

ROOT = pathlib.Path(__file__).resolve().parents[2]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--backend", default="gl")
    p.add_argument("--runs", type=int, default=60)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--size", default="640x480")
    p.add_argument("--image", default=str(ROOT / "assets" / "graf1.png"))
    p.add_argument("--timer", default=os.environ.get(
        "GLSURF_PYTHON_TIMING", str(ROOT / "build" / "python" / "glsurf_python_timing")))
    a = p.parse_args()
    w, h = map(int, a.size.split("x"))

    full = glsurf.load_gray(a.image)
    y0, x0 = (full.shape[0] - h) // 2, (full.shape[1] - w) // 2
    grey = np.ascontiguousarray(full[y0:y0 + h, x0:x0 + w])
    assert grey.shape == (h, w), f"{a.image} is smaller than {a.size}"
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "frame.pgm")
        with open(path, "wb") as f:
            f.write(b"P5 %d %d 255\n" % (w, h) + grey.tobytes())
        np.testing.assert_array_equal(glsurf.load_gray(path), grey)

        # C++ as the library's users call it; for gl also with the context
        # made current and released around each call, as the module does
        modes = [a.backend] + (["gl-switch"] if a.backend == "gl" else [])
        servers = {m: subprocess.Popen([a.timer, path, m, str(a.warmup)], stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, text=True, bufsize=1) for m in modes}
        for s in servers.values():
            assert s.stdout.readline().strip() == "ready"
        det = glsurf.Detector(backend=a.backend)
        for _ in range(a.warmup):
            det.detect(grey)
        times = {m: [] for m in modes + ["python"]}
        counts = set()
        for _ in range(a.runs):
            for mode, s in servers.items():
                s.stdin.write("\n")
                ms, n = s.stdout.readline().split()
                times[mode].append(float(ms))
                counts.add(int(n))
            start = time.perf_counter()
            kp, _ = det.detect(grey)
            times["python"].append((time.perf_counter() - start) * 1000)
            counts.add(len(kp))
        for s in servers.values():
            s.stdin.close()
            s.wait()
    median = {m: statistics.median(t) for m, t in times.items()}
    renderer = glsurf.context_info()["renderer"] if a.backend == "gl" else "CPU reference"
    print(f"{a.size} crop of {os.path.basename(a.image)} ({'/'.join(map(str, sorted(counts)))} keypoints), "
          f"backend {a.backend} ({renderer}), {a.runs} calls each, interleaved; medians:")
    cpp = median[a.backend]
    for mode, ms in median.items():
        name = "Python Detector.detect" if mode == "python" else f"C++ detect_and_compute ({mode})"
        pairs = statistics.median(x / y for x, y in zip(times[mode], times[a.backend]))
        print(f"  {name:42s} {ms:9.2f} ms  ratio of medians {ms / cpp:.3f}, median of paired ratios {pairs:.3f}")


if __name__ == "__main__":
    main()
