"""The Python binding's overhead on detection: Detector.detect on a numpy
array, timed inside Python, against Detector::detect_and_compute on the same
pixels timed inside C++ (glsurf_python_timing, the public API as the module
calls it), in alternating rounds so that a busy machine slows both alike.
Prints the medians and their ratio.

    PYTHONPATH=build/python /usr/bin/python3 python/tests/timing.py \
        [--backend gl|cpu] [--rounds 7] [--runs 10] [--size 640x480]

Not a pytest test (its numbers need a quiet machine); docs/python.md quotes it.
"""

import argparse
import os
import pathlib
import statistics
import subprocess
import tempfile
import time

import cv2

import glsurf

ROOT = pathlib.Path(__file__).resolve().parents[2]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--backend", default="gl")
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--size", default="640x480")
    p.add_argument("--image", default=str(ROOT / "assets" / "graf1.png"))
    p.add_argument("--timer", default=os.environ.get("GLSURF_PYTHON_TIMING", str(ROOT / "build" / "python" / "glsurf_python_timing")))
    a = p.parse_args()
    w, h = map(int, a.size.split("x"))

    grey = cv2.resize(glsurf.load_gray(a.image), (w, h), interpolation=cv2.INTER_AREA)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "frame.png")
        cv2.imwrite(path, grey)
        det = glsurf.Detector(backend=a.backend)
        # C++ as the library's users call it; for gl also with the context made
        # current and released around each call, as the module does
        cpp_modes = [a.backend] + (["gl-switch"] if a.backend == "gl" else [])
        times = {m: [] for m in cpp_modes + ["python"]}
        counts = set()
        for _ in range(a.rounds):
            for mode in cpp_modes:
                out = subprocess.run([a.timer, path, mode, str(a.warmup), str(a.runs)], check=True,
                                     capture_output=True, text=True).stdout.split("\n")
                for line in filter(None, out):
                    ms, n = line.split()
                    times[mode].append(float(ms))
                    counts.add(int(n))
            for _ in range(a.warmup):
                det.detect(grey)
            for _ in range(a.runs):
                start = time.perf_counter()
                kp, _ = det.detect(grey)
                times["python"].append((time.perf_counter() - start) * 1000)
                counts.add(len(kp))
    median = {m: statistics.median(t) for m, t in times.items()}
    renderer = glsurf.context_info()["renderer"] if a.backend == "gl" else "CPU reference"
    print(f"{a.size} ({'/'.join(map(str, sorted(counts)))} keypoints), backend {a.backend} ({renderer}), "
          f"{a.rounds} rounds of {a.runs} runs, medians:")
    cpp = median[a.backend]
    for mode, ms in median.items():
        name = "Python Detector.detect" if mode == "python" else f"C++ detect_and_compute ({mode})"
        print(f"  {name:42s} {ms:9.2f} ms  ratio to C++ {ms / cpp:.3f}")

if __name__ == "__main__":
    main()
