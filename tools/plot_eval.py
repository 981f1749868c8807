#!/usr/bin/python3
"""Plots of glsurf's scores, as Mikolajczyk et al. (2005) and the SURF papers draw them.

From `glsurf eval --json` files, one row of plots per sequence: repeatability
(%) and the number of correct matches (reprojection error < 3 px) against the
sequence's step (a viewpoint angle, a blur, a light change: --steps gives the
values of images 2..N, --xlabel names them; without them, the image number).
From `glsurf bench --json` files: the time of a frame (detection + description)
against the image size in megapixels, GPU and CPU reference, and the matcher's
time against the number of descriptors, on log-log axes.

Usage:
  tools/plot_eval.py eval rot.json --steps 10,20,30,40,50 --xlabel "rotation (degrees)" \\
                          blur.json --steps 1,2,3,4,5 --xlabel "blur sigma (px)" -o eval.png
  tools/plot_eval.py bench bench.json [other.json ...] -o bench.png

Each --steps/--xlabel/--title applies to the file named before it. Needs matplotlib
(Debian's python3-matplotlib; /usr/bin/python3), drawn with the Agg backend (no display).
"""

import argparse
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 (after the backend is chosen)


def fail(message):
    print("plot_eval.py: error: " + message, file=sys.stderr)
    sys.exit(1)


def read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        fail("%s: %s" % (path, e))


def parse_eval_arguments(words):
    """The eval files in order, each with the options that follow it."""
    sequences = []
    i = 0
    while i < len(words):
        word = words[i]
        if word in ("--steps", "--xlabel", "--title"):
            if not sequences:
                fail("%s before any eval file: it applies to the file named before it" % word)
            if i + 1 >= len(words):
                fail(word + " needs a value")
            sequences[-1][word[2:]] = words[i + 1]
            i += 2
            continue
        if word.startswith("-"):
            fail("unknown option " + word)
        sequences.append({"path": word})
        i += 1
    return sequences


def image_number(pair):
    """'1-3' -> 3: the image the first is matched with."""
    try:
        return int(str(pair).split("-")[-1])
    except ValueError:
        fail("pair %r is not of the form 1-K" % pair)


def plot_eval(sequences, output, dpi):
    rows = len(sequences)
    figure, axes = plt.subplots(rows, 2, figsize=(9, 3.2 * rows), squeeze=False)
    for row, sequence in enumerate(sequences):
        data = read_json(sequence["path"])
        pairs = data.get("pairs")
        if not pairs:
            fail("%s: no 'pairs' (not a glsurf eval --json file?)" % sequence["path"])
        numbers = [image_number(p["pair"]) for p in pairs]
        if "steps" in sequence:
            try:
                steps = [float(v) for v in sequence["steps"].split(",")]
            except ValueError:
                fail("--steps %s: numbers separated by commas" % sequence["steps"])
            if len(steps) != len(pairs):
                fail("--steps gives %d values, %s has %d pairs" % (len(steps), sequence["path"], len(pairs)))
            xs, xlabel = steps, sequence.get("xlabel", "step")
        else:
            xs, xlabel = numbers, sequence.get("xlabel", "image (matched with image 1)")
        title = sequence.get("title") or os.path.basename(str(data.get("sequence", sequence["path"])).rstrip("/"))
        backend = data.get("backend", "?")
        repeatability = [100.0 * p["repeatability"] if p.get("repeatability") is not None else float("nan")
                         for p in pairs]
        correct = [p.get("correct_3px", 0) for p in pairs]
        left, right = axes[row]
        left.plot(xs, repeatability, "o-", color="tab:blue", label="glsurf (%s)" % backend)
        left.set_ylim(0, 100)
        left.set_ylabel("repeatability %")
        right.plot(xs, correct, "s-", color="tab:green", label="glsurf (%s)" % backend)
        right.set_ylim(bottom=0)
        right.set_ylabel("correct matches (< 3 px)")
        for ax, what in ((left, "repeatability"), (right, "correct matches")):
            ax.set_xlabel(xlabel)
            ax.set_title("%s: %s" % (title, what), fontsize=10)
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=8, loc="lower left")
    figure.tight_layout()
    figure.savefig(output, dpi=dpi)


def megapixels(size):
    width, height = (int(v) for v in str(size).lower().split("x"))
    return width * height / 1e6


def plot_bench(paths, output, dpi):
    figure, (frames_ax, match_ax) = plt.subplots(1, 2, figsize=(10, 4))
    for k, path in enumerate(paths):
        data = read_json(path)
        frames = data.get("frames")
        if frames is None:
            fail("%s: no 'frames' (not a glsurf bench --json file?)" % path)
        renderer = data.get("renderer", os.path.basename(path))
        if data.get("software"):
            renderer += " (software: CPU time)"
        colour = "C%d" % k
        mp = [megapixels(f["size"]) for f in frames]
        frames_ax.plot(mp, [f["gpu_ms"] for f in frames], "o-", color=colour, label="glsurf GL, " + renderer)
        cpu = [(m, f["cpu_ms"]) for m, f in zip(mp, frames) if f.get("cpu_ms") is not None]
        if cpu and k == 0:  # the CPU reference once: the machine's, not the GPU's
            frames_ax.plot(*zip(*cpu), "s--", color="grey", label="glsurf CPU reference")
        for f, m in zip(frames, mp):
            frames_ax.annotate(f["size"], (m, f["gpu_ms"]), fontsize=7, textcoords="offset points",
                               xytext=(4, -10))
        matching = data.get("matching") or []
        if matching:
            ms = [r["m"] for r in matching]
            match_ax.plot(ms, [r["fused_gpu_ms"] for r in matching], "o-", color=colour, label="GL, " + renderer)
            cpu = [(r["m"], r["cpu_ms"]) for r in matching if r.get("cpu_ms") is not None]
            if cpu and k == 0:
                match_ax.plot(*zip(*cpu), "s--", color="grey", label="CPU reference")
    frames_ax.set_xscale("log")
    frames_ax.set_yscale("log")
    frames_ax.set_xlabel("image size (megapixels)")
    frames_ax.set_ylabel("ms per frame (detect + describe)")
    frames_ax.set_title("time against image size", fontsize=10)
    match_ax.set_xscale("log", base=2)
    match_ax.set_yscale("log")
    match_ax.set_xlabel("descriptors per image (m x m matching)")
    match_ax.set_ylabel("ms")
    match_ax.set_title("matching time", fontsize=10)
    for ax in (frames_ax, match_ax):
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(output, dpi=dpi)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("kind", choices=("eval", "bench"), help="what the JSON files are")
    parser.add_argument("-o", "--output", required=True, help="the PNG to write")
    parser.add_argument("--dpi", type=int, default=90, help="resolution of the PNG (default 90)")
    args, rest = parser.parse_known_args()
    if not args.output.lower().endswith(".png"):
        fail("-o %s: writes PNG, name it .png" % args.output)
    if args.kind == "eval":
        sequences = parse_eval_arguments(rest)
        if not sequences:
            fail("eval needs at least one glsurf eval --json file")
        plot_eval(sequences, args.output, args.dpi)
    else:
        unknown = [w for w in rest if w.startswith("-")]
        if unknown:
            fail("unknown option " + unknown[0])
        if not rest:
            fail("bench needs at least one glsurf bench --json file")
        plot_bench(rest, args.output, args.dpi)
    print(args.output)


if __name__ == "__main__":
    main()
