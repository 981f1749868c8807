#!/usr/bin/python3
"""Compare a COLMAP reconstruction's cameras with the true ones.

    tools/compare_poses.py TRUTH_POSES SPARSE_MODEL_DIR
        [--max-center-error F] [--max-rotation-error DEG] [--min-registered N]

TRUTH_POSES is the poses.txt that tools/render_scene.py writes (one line per
image: NAME CX CY CZ QW QX QY QZ FX FY PX PY; centre in world coordinates,
world-to-camera quaternion, COLMAP's axes). SPARSE_MODEL_DIR is either one
model (a folder holding images.bin and cameras.bin, or images.txt and
cameras.txt as `colmap model_converter --output_type TXT` writes them) or the
mapper's --output_path, holding models 0, 1, ...: then the model with the most
registered images is scored and the number of models is reported (more than
one means the reconstruction broke apart). The binary files are read directly
(the layout of COLMAP 3.x's src/base/reconstruction.cc, WriteImagesBinary and
WriteCamerasBinary), so no colmap binary is needed here.

Alignment: a reconstruction is known up to a similarity, so the recovered
camera centres c_i are mapped onto the true ones C_i by the least-squares
similarity C ~ s A c + T (Umeyama 1991, closed form by SVD) over all images
registered in both. Then, per image:

  centre error    |s A c_i + T - C_i|, reported in world units and as a
                  fraction of the scene scale: the RMS distance of the true
                  centres (of the images compared) from their mean
  rotation error  the angle of R_rec A^T R_true^T in degrees, where R_rec and
                  R_true are world-to-camera rotations (R_rec A^T maps the
                  true world into the recovered camera)

and, free of any alignment, over every pair of registered images i, j:

  relative rotation error   the angle between the recovered R_i R_j^T and
                            the true one, in degrees

Exit status: 0 when at least --min-registered images (default: all in
TRUTH_POSES) are registered, and the largest centre error (as a fraction of
the scale), the largest rotation error and the largest relative rotation
error are within --max-center-error, --max-rotation-error and
--max-relative-rotation-error; 1 when not; 2 on unreadable input. The
defaults come from what COLMAP's own SIFT pipeline reaches on the
rendered scene and from its errors with the keypoints jittered on purpose:
docs/notes/colmap-scene.md has the numbers.

The rotation errors include the error of the alignment itself: the centres
of a path that is long in x and short in y and z pin down the rotation about
x only to about (centre error / spread in y, z); the "spread along the
principal axes" line shows that conditioning. The relative rotation errors
are free of it, and are the sharper test of the rotations.
"""
import argparse
import os
import struct
import sys

import numpy as np

# COLMAP camera models: id -> (name, number of parameters).
CAMERA_MODELS = {
    0: ("SIMPLE_PINHOLE", 3), 1: ("PINHOLE", 4), 2: ("SIMPLE_RADIAL", 4), 3: ("RADIAL", 5),
    4: ("OPENCV", 8), 5: ("OPENCV_FISHEYE", 8), 6: ("FULL_OPENCV", 12), 7: ("FOV", 5),
    8: ("SIMPLE_RADIAL_FISHEYE", 4), 9: ("RADIAL_FISHEYE", 5), 10: ("THIN_PRISM_FISHEYE", 12),
}
CAMERA_MODEL_IDS = {name: (i, n) for i, (name, n) in CAMERA_MODELS.items()}


class InputError(Exception):
    pass


def quat_to_rot(q):
    w, x, y, z = np.asarray(q, float) / np.linalg.norm(q)
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


def read_truth(path):
    """name -> (centre, R world-to-camera, (fx, fy, px, py))."""
    truth = {}
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            fields = line.split()
            if len(fields) != 12:
                raise InputError(f"{path}:{number}: expected 12 fields, found {len(fields)}")
            values = [float(v) for v in fields[1:]]
            truth[fields[0]] = (np.array(values[0:3]), quat_to_rot(values[3:7]), tuple(values[7:11]))
    if not truth:
        raise InputError(f"{path}: no poses")
    return truth


class Reader:
    def __init__(self, path):
        self.path = path
        with open(path, "rb") as f:
            self.data = f.read()
        self.pos = 0

    def take(self, fmt):
        size = struct.calcsize(fmt)
        if self.pos + size > len(self.data):
            raise InputError(f"{self.path}: truncated at byte {self.pos}")
        values = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += size
        return values

    def string(self):
        end = self.data.find(b"\0", self.pos)
        if end < 0:
            raise InputError(f"{self.path}: unterminated name at byte {self.pos}")
        text = self.data[self.pos:end].decode()
        self.pos = end + 1
        return text


def read_model_binary(folder):
    """(images: name -> (camera_id, R, t, number of 2-D points with a 3-D point),
    cameras: id -> (model name, width, height, params), number of 3-D points)."""
    r = Reader(os.path.join(folder, "cameras.bin"))
    cameras = {}
    for _ in range(r.take("<Q")[0]):
        camera_id, model_id, width, height = r.take("<IiQQ")
        if model_id not in CAMERA_MODELS:
            raise InputError(f"{r.path}: unknown camera model id {model_id}")
        name, count = CAMERA_MODELS[model_id]
        cameras[camera_id] = (name, width, height, r.take("<%dd" % count))
    r = Reader(os.path.join(folder, "images.bin"))
    images = {}
    for _ in range(r.take("<Q")[0]):
        _image_id, qw, qx, qy, qz, tx, ty, tz, camera_id = r.take("<I7dI")
        name = r.string()
        (num_points,) = r.take("<Q")
        ids = np.frombuffer(r.data, dtype=[("x", "<f8"), ("y", "<f8"), ("id", "<i8")],
                            count=num_points, offset=r.pos)["id"]
        r.pos += 24 * num_points
        images[name] = (camera_id, quat_to_rot((qw, qx, qy, qz)), np.array([tx, ty, tz]), int((ids >= 0).sum()))
    r = Reader(os.path.join(folder, "points3D.bin"))
    (num_points3d,) = r.take("<Q")
    return images, cameras, num_points3d


def read_model_text(folder):
    """The same from cameras.txt, images.txt and points3D.txt."""
    cameras = {}
    with open(os.path.join(folder, "cameras.txt")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            fields = line.split()
            cameras[int(fields[0])] = (fields[1], int(fields[2]), int(fields[3]), tuple(map(float, fields[4:])))
    images = {}
    with open(os.path.join(folder, "images.txt")) as f:
        lines = [line for line in f if not line.startswith("#")]
    for header, points in zip(lines[0::2], lines[1::2]):
        fields = header.split()
        q = tuple(map(float, fields[1:5]))
        t = np.array(list(map(float, fields[5:8])))
        ids = points.split()[2::3]
        images[" ".join(fields[9:])] = (int(fields[8]), quat_to_rot(q), t, sum(1 for i in ids if int(i) >= 0))
    num_points3d = 0
    points_path = os.path.join(folder, "points3D.txt")
    if os.path.exists(points_path):
        with open(points_path) as f:
            num_points3d = sum(1 for line in f if line.strip() and not line.startswith("#"))
    return images, cameras, num_points3d


def read_model(folder):
    if os.path.exists(os.path.join(folder, "images.bin")):
        return read_model_binary(folder)
    if os.path.exists(os.path.join(folder, "images.txt")):
        return read_model_text(folder)
    raise InputError(f"{folder}: no images.bin or images.txt")


def find_models(path):
    """The model folders under a mapper output path (or the path itself)."""
    if not os.path.isdir(path):
        raise InputError(f"{path}: not a folder")
    if any(os.path.exists(os.path.join(path, f)) for f in ("images.bin", "images.txt")):
        return [path]
    models = sorted((os.path.join(path, d) for d in os.listdir(path) if d.isdigit()),
                    key=lambda d: int(os.path.basename(d)))
    return [m for m in models if any(os.path.exists(os.path.join(m, f)) for f in ("images.bin", "images.txt"))]


def umeyama(src, dst):
    """s, A, T minimising sum |s A src_i + T - dst_i|^2 (A a rotation)."""
    mu_s, mu_d = src.mean(0), dst.mean(0)
    xs, xd = src - mu_s, dst - mu_d
    cov = xd.T @ xs / len(src)
    U, D, Vt = np.linalg.svd(cov)
    S = np.eye(3)
    if np.linalg.det(U) * np.linalg.det(Vt) < 0:
        S[2, 2] = -1
    A = U @ S @ Vt
    var_s = (xs ** 2).sum() / len(src)
    s = np.trace(np.diag(D) @ S) / var_s
    return s, A, mu_d - s * A @ mu_s


def rotation_angle_deg(R):
    return np.degrees(np.arccos(np.clip((np.trace(R) - 1) / 2, -1.0, 1.0)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("truth", metavar="TRUTH_POSES")
    parser.add_argument("model", metavar="SPARSE_MODEL_DIR")
    parser.add_argument("--max-center-error", type=float, default=0.01,
                        help="largest allowed centre error, as a fraction of the scene scale (default 0.01)")
    parser.add_argument("--max-rotation-error", type=float, default=0.25,
                        help="largest allowed rotation error in degrees (default 0.25)")
    parser.add_argument("--max-relative-rotation-error", type=float, default=0.25,
                        help="largest allowed relative rotation error of any image pair in degrees (default 0.25)")
    parser.add_argument("--min-registered", type=int, default=None,
                        help="fewest registered images allowed (default: every image in TRUTH_POSES)")
    args = parser.parse_args()

    try:
        truth = read_truth(args.truth)
        models = find_models(args.model)
        if not models:
            print(f"registered 0 of {len(truth)} images: no model in {args.model}")
            return 1
        read = [(m, *read_model(m)) for m in models]
    except (InputError, OSError, ValueError, struct.error) as e:
        print(f"compare_poses.py: {e}", file=sys.stderr)
        return 2
    folder, images, cameras, num_points3d = max(read, key=lambda m: len(m[1]))
    unknown = sorted(set(images) - set(truth))
    if unknown:
        print(f"compare_poses.py: {folder}: images not in {args.truth}: {' '.join(unknown)}", file=sys.stderr)
        return 2
    names = sorted(n for n in truth if n in images)
    missing = sorted(set(truth) - set(images))
    wanted = len(truth) if args.min_registered is None else args.min_registered
    print(f"model {folder}: {len(models)} model(s) under {args.model}; "
          f"registered {len(names)} of {len(truth)} images, {num_points3d} 3-D points")
    if missing:
        print("not registered: " + " ".join(missing))
    for camera_id, (model, width, height, params) in sorted(cameras.items()):
        print(f"camera {camera_id}: {model} {width}x{height} params " + " ".join("%.4g" % p for p in params))
    if len(names) < 3:
        print(f"FAIL: {len(names)} registered images; at least 3 are needed to align")
        return 1

    true_c = np.array([truth[n][0] for n in names])
    rec_c = np.array([-images[n][1].T @ images[n][2] for n in names])
    s, A, T = umeyama(rec_c, true_c)
    aligned = (s * (A @ rec_c.T)).T + T
    scale = np.sqrt(((true_c - true_c.mean(0)) ** 2).sum(1).mean())
    centre_err = np.linalg.norm(aligned - true_c, axis=1)
    rot_err = np.array([rotation_angle_deg(images[n][1] @ A.T @ truth[n][1].T) for n in names])
    # How well the true centres pin down the alignment: their spread along
    # the least extended direction, against the scale.
    spread = np.linalg.svd(true_c - true_c.mean(0), compute_uv=False) / np.sqrt(len(names))

    print(f"scene scale (RMS distance of the true centres from their mean): {scale:.4g}; "
          f"spread along the principal axes {' '.join('%.3g' % v for v in spread)}")
    print(f"similarity: scale {s:.6g}, rotation {rotation_angle_deg(A):.3f} deg")
    print("%-16s %12s %10s %10s %8s" % ("image", "centre err", "/ scale", "rot deg", "points"))
    for n, ce, re in zip(names, centre_err, rot_err):
        print("%-16s %12.5f %10.5f %10.4f %8d" % (n, ce, ce / scale, re, images[n][3]))
    max_c, med_c = centre_err.max() / scale, np.median(centre_err) / scale
    max_r, med_r = rot_err.max(), np.median(rot_err)
    print(f"centre error / scale: max {max_c:.5f}, median {med_c:.5f} (limit {args.max_center_error})")
    print(f"rotation error (deg): max {max_r:.4f}, median {med_r:.4f} (limit {args.max_rotation_error})")
    relative = []
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            rec = images[names[i]][1] @ images[names[j]][1].T
            true = truth[names[i]][1] @ truth[names[j]][1].T
            relative.append((rotation_angle_deg(rec @ true.T), names[i], names[j]))
    max_rel = max(relative)
    med_rel = float(np.median([r[0] for r in relative]))
    print(f"relative rotation error (deg, {len(relative)} pairs): max {max_rel[0]:.4f} ({max_rel[1]}, {max_rel[2]}), "
          f"median {med_rel:.4f} (limit {args.max_relative_rotation_error})")

    failures = []
    if len(names) < wanted:
        failures.append(f"{len(names)} of {len(truth)} images registered, {wanted} required")
    if max_c > args.max_center_error:
        failures.append(f"centre error {max_c:.5f} of the scale > {args.max_center_error}")
    if max_r > args.max_rotation_error:
        failures.append(f"rotation error {max_r:.4f} deg > {args.max_rotation_error}")
    if max_rel[0] > args.max_relative_rotation_error:
        failures.append(f"relative rotation error {max_rel[0]:.4f} deg > {args.max_relative_rotation_error}")
    if failures:
        print("FAIL: " + "; ".join(failures))
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
