#!/usr/bin/python3
"""Render a synthetic multi-view image set of a textured planar "room corner"
with known cameras, for checking a structure-from-motion front end end to end.

    tools/render_scene.py OUTDIR [--views N] [--seed S] [--noise SIGMA]

Writes OUTDIR/images/view_00.png ... (640x480, 8-bit grey) and OUTDIR/poses.txt.

Scene (metres; world axes as COLMAP's camera axes: x right, y down, z forward,
so a camera with R = I looks down +z with y pointing at the floor):

  plane        where                               texture (bundled assets/)
  back wall    z = 10, x -5..5, y -5..1.6          graf1.png
  side wall    x = -4.5, z 1.5..10, y -5..1.6      graf3.png mirrored left-right
  floor        y = 1.6, x -4.5..5, z 1.5..10       box_in_scene.png
  right wall   x = 5, z 1.5..10, y -5..1.6         procedural: seeded random ellipses and strokes
  board A      ~z 4.5, 1.7 x 1.2, yawed 20 deg     box.png mirrored left-right
  board B      ~z 6.8, 2.2 x 1.76, yawed -25 deg   graf1's lower-left part, photographic
                                                   negative (see below)

Every texture also gets a seeded field of random Gaussian blobs (sigma 1.5 to
24 texels, both signs, +-30 grey levels) added, so flat parts of the photos
(box.png's white card, box_in_scene's wall) still give interest points at
several scales, and no two planes share a descriptor family: graf3 shows the
same wall as graf1 from another viewpoint, box_in_scene contains box, so the
second copy of each is mirrored (SIFT/SURF descriptors are not mirror
invariant), and board B's crop of graf1 is inverted in intensity (a negative
point-reflects each descriptor's spatial grid; SURF's Laplacian sign flips too),
so that no plane's features are confused with another's copy of the same
content. Nothing is tiled: no repeated patterns within a plane.

Cameras: pinhole, f = 500 px, 640x480, principal point at the image centre.
View k of N moves along an arc, x = -3..3 m, z = 0.9 (2k/(N-1) - 1)^2 m (the
ends nearer the scene), at height y = 0.5 sin(2 pi k/(N-1)) m, each looking at a point near (0, 0.3, 8) (jittered per view by the
seed, plus a small roll): neighbours are ~0.7 m (about 7% of the 10 m depth)
and ~5 degrees apart for N = 10.

Rendering: for each plane the homography texture -> image,
H = K [R u, R v, R p0 + t] (p0 a corner, u, v the world step per texel), is
applied with cv2.warpPerspective at twice the resolution; each pixel's depth is
computed analytically by intersecting its ray with the plane, and a per-pixel
z-buffer keeps the nearest plane. The walls and the floor reach behind the
outer cameras: a pixel takes a plane only where its ray meets it in front
(depth > 0), which also drops what the homography maps from behind the camera. The
2x image is reduced with INTER_AREA (anti-aliasing), then Gaussian noise of
sigma --noise grey levels (default 2) is added. Pixels that see no plane are a
flat grey. Output is deterministic for a given seed (numpy default_rng).

poses.txt, one line per image after '#' comment lines:

    NAME  CX CY CZ  QW QX QY QZ  FX FY PX PY

  NAME          image file name inside images/
  CX CY CZ      camera centre in world coordinates (metres)
  QW QX QY QZ   unit quaternion of the world-to-camera rotation R (COLMAP's
                convention: x_cam = R X_world + t, t = -R C; x right, y down,
                z forward), QW >= 0
  FX FY PX PY   pinhole intrinsics in COLMAP's pixel convention: the top-left
                corner of the top-left pixel is (0, 0), so its centre is
                (0.5, 0.5) and the principal point of a 640x480 image is (320, 240)

These are the fields of COLMAP's images.txt (which stores t, not C) and of a
PINHOLE camera in cameras.txt, so a reconstruction compares directly
(tools/compare_poses.py).
"""
import argparse
import os
import sys

import cv2
import numpy as np

WIDTH, HEIGHT = 640, 480
FOCAL = 500.0
SUPERSAMPLE = 2
BACKGROUND = 128
ASSETS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "assets")


def K_colmap():
    return np.array([[FOCAL, 0, WIDTH / 2], [0, FOCAL, HEIGHT / 2], [0, 0, 1]])


def K_render(scale):
    """K for an image `scale` times larger, in OpenCV's pixel convention
    (centre of the top-left pixel at (0, 0)), which warpPerspective uses."""
    K = K_colmap() * scale
    K[2, 2] = 1
    K[0, 2] -= 0.5
    K[1, 2] -= 0.5
    return K


def load_grey(name):
    path = os.path.join(ASSETS, name)
    img = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
    if img is None:
        sys.exit(f"render_scene.py: cannot read {path}")
    return img


def blob_field(rng, shape, count_per_megapixel=2500, amplitude=30.0):
    """Random Gaussian blobs at sigma 1.5..24 texels (log-uniform), either sign."""
    h, w = shape
    field = np.zeros(shape, np.float32)
    n = int(count_per_megapixel * h * w / 1e6)
    sigmas = np.exp(rng.uniform(np.log(1.5), np.log(24.0), n))
    xs = rng.uniform(0, w, n)
    ys = rng.uniform(0, h, n)
    amps = rng.uniform(0.4, 1.0, n) * rng.choice([-1.0, 1.0], n) * amplitude
    # Fewer large blobs than small ones (each covers more area).
    keep = rng.uniform(0, 1, n) < (1.5 / sigmas) ** 0.7
    for x, y, s, a in zip(xs[keep], ys[keep], sigmas[keep], amps[keep]):
        r = int(3 * s) + 1
        x0, x1 = max(int(x) - r, 0), min(int(x) + r + 1, w)
        y0, y1 = max(int(y) - r, 0), min(int(y) + r + 1, h)
        if x0 >= x1 or y0 >= y1:
            continue
        gx = np.exp(-((np.arange(x0, x1) - x) ** 2) / (2 * s * s))
        gy = np.exp(-((np.arange(y0, y1) - y) ** 2) / (2 * s * s))
        field[y0:y1, x0:x1] += a * np.outer(gy, gx)
    return field


def textured(rng, img, scale=1.0):
    """The photo (optionally upscaled) plus a seeded blob field, clipped to 8 bits."""
    if scale != 1.0:
        img = cv2.resize(img, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
    out = img.astype(np.float32) + blob_field(rng, img.shape)
    return np.clip(out, 0, 255).astype(np.uint8)


def procedural(rng, shape):
    """A texture of its own for the one plane the photos cannot cover without
    repeating themselves: random filled ellipses and strokes (sharp edges, grey
    levels 0..255) at sizes from 2 to 60 texels, under a denser blob field."""
    h, w = shape
    img = np.full(shape, 128, np.uint8)
    for _ in range(int(2.5e-3 * h * w)):
        size = float(np.exp(rng.uniform(np.log(2), np.log(60))))
        centre = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
        axes = (max(1, int(size)), max(1, int(size * rng.uniform(0.3, 1))))
        grey = int(rng.integers(0, 256))
        if rng.uniform() < 0.8:
            cv2.ellipse(img, centre, axes, float(rng.uniform(0, 180)), 0, 360, grey, -1, cv2.LINE_AA)
        else:
            end = (int(centre[0] + rng.normal(0, 3 * size)), int(centre[1] + rng.normal(0, 3 * size)))
            cv2.line(img, centre, end, grey, max(1, int(size / 4)), cv2.LINE_AA)
    return textured(rng, img)


def rot_y(deg):
    a = np.radians(deg)
    return np.array([[np.cos(a), 0, np.sin(a)], [0, 1, 0], [-np.sin(a), 0, np.cos(a)]])


class Plane:
    """A textured rectangle: texel (s, t) -> p0 + (s + 0.5) u + (t + 0.5) v."""

    def __init__(self, name, texture, p0, right, down, width_m, height_m):
        self.name = name
        self.texture = texture
        h, w = texture.shape
        right = np.asarray(right, float) / np.linalg.norm(right)
        down = np.asarray(down, float) / np.linalg.norm(down)
        self.p0 = np.asarray(p0, float)
        self.u = right * width_m / w
        self.v = down * height_m / h
        self.normal = np.cross(right, down)
        self.offset = self.normal @ self.p0


def build_scene(rng):
    graf1 = load_grey("graf1.png")
    graf3 = load_grey("graf3.png")
    box = load_grey("box.png")
    box_scene = load_grey("box_in_scene.png")
    planes = [
        Plane("back_wall", textured(rng, graf1, 1.25), (-5, -5, 10), (1, 0, 0), (0, 1, 0), 10.0, 6.6),
        Plane("side_wall", textured(rng, cv2.flip(graf3, 1), 1.25), (-4.5, -5, 1.5), (0, 0, 1), (0, 1, 0), 8.5, 6.6),
        Plane("floor", textured(rng, box_scene, 2.0), (-4.5, 1.6, 10), (1, 0, 0), (0, 0, -1), 9.5, 8.5),
    ]
    # Free-standing boards, yawed about the vertical axis, standing on the floor.
    Ra = rot_y(20)
    planes.append(Plane("board_a", textured(rng, cv2.flip(box, 1), 2.0),
                        np.array([-2.3, 0.4, 4.6]), Ra @ [1, 0, 0], [0, 1, 0], 1.7, 1.2))
    Rb = rot_y(-25)
    crop = 255 - graf1[300:, :420]
    planes.append(Plane("board_b", textured(rng, crop, 1.5),
                        np.array([0.6, -0.16, 6.6]), Rb @ [1, 0, 0], [0, 1, 0], 2.2, 1.76))
    planes.append(Plane("right_wall", procedural(rng, (560, 720)), (5, -5, 10), (0, 0, -1), (0, 1, 0), 8.5, 6.6))
    return planes


def look_at(centre, target, roll_deg):
    """World-to-camera R (x right, y down, z forward) looking from centre at target."""
    z = target - centre
    z /= np.linalg.norm(z)
    x = np.cross([0, 1, 0], z)  # world y is down: x = down x forward points right
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    R = np.stack([x, y, z])
    a = np.radians(roll_deg)
    Rz = np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1]])
    return Rz @ R


def cameras(rng, views):
    out = []
    for k in range(views):
        s = k / (views - 1) if views > 1 else 0.5
        # Along an arc bowed towards the scene (the ends 0.9 m nearer), with a
        # vertical wave: the centres span all three axes, which pins down the
        # similarity that compare_poses.py aligns them with.
        centre = np.array([-3.0 + 6.0 * s, 0.5 * np.sin(2 * np.pi * s), 0.9 * (2 * s - 1) ** 2])
        centre += rng.normal(0, 0.05, 3)
        target = np.array([0.0, 0.3, 8.0]) + rng.normal(0, 0.25, 3)
        R = look_at(centre, target, rng.normal(0, 1.5))
        out.append((centre, R))
    return out


def quaternion(R):
    """Unit quaternion (w, x, y, z), w >= 0, of a rotation matrix."""
    w = np.sqrt(max(0.0, 1 + R[0, 0] + R[1, 1] + R[2, 2])) / 2
    x = np.sqrt(max(0.0, 1 + R[0, 0] - R[1, 1] - R[2, 2])) / 2
    y = np.sqrt(max(0.0, 1 - R[0, 0] + R[1, 1] - R[2, 2])) / 2
    z = np.sqrt(max(0.0, 1 - R[0, 0] - R[1, 1] + R[2, 2])) / 2
    x = np.copysign(x, R[2, 1] - R[1, 2])
    y = np.copysign(y, R[0, 2] - R[2, 0])
    z = np.copysign(z, R[1, 0] - R[0, 1])
    q = np.array([w, x, y, z])
    return q / np.linalg.norm(q)


def render(planes, centre, R, rng, noise):
    W, H = WIDTH * SUPERSAMPLE, HEIGHT * SUPERSAMPLE
    K = K_render(SUPERSAMPLE)
    t = -R @ centre
    # Ray through each pixel (OpenCV pixel convention), in world coordinates,
    # scaled so that its camera-z component is 1: X = C + depth * ray.
    xs, ys = np.meshgrid(np.arange(W, dtype=np.float64), np.arange(H, dtype=np.float64))
    pix = np.stack([xs, ys, np.ones_like(xs)], -1)
    rays = pix @ np.linalg.inv(K).T @ R  # rows: R^T K^-1 p
    zbuf = np.full((H, W), np.inf)
    image = np.full((H, W), float(BACKGROUND))
    for plane in planes:
        Hm = K @ np.column_stack([R @ plane.u, R @ plane.v, R @ plane.p0 + t])
        # Texel (s, t) is at p0 + (s + 0.5) u + (t + 0.5) v: shift by half a texel.
        Hm = Hm @ np.array([[1, 0, 0.5], [0, 1, 0.5], [0, 0, 1]])
        colour = cv2.warpPerspective(plane.texture.astype(np.float32), Hm, (W, H),
                                     flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        cover = cv2.warpPerspective(np.ones(plane.texture.shape, np.float32), Hm, (W, H),
                                    flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        denom = rays @ plane.normal
        with np.errstate(divide="ignore", invalid="ignore"):
            depth = (plane.offset - plane.normal @ centre) / denom
        visible = (cover > 0.5) & (depth > 0) & (depth < zbuf)
        zbuf[visible] = depth[visible]
        image[visible] = colour[visible]
    small = cv2.resize(image, (WIDTH, HEIGHT), interpolation=cv2.INTER_AREA)
    small += rng.normal(0, noise, small.shape)
    return np.clip(np.round(small), 0, 255).astype(np.uint8)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("outdir")
    parser.add_argument("--views", type=int, default=10, help="number of views (default 10)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--noise", type=float, default=2.0,
                        help="sigma of the added Gaussian noise in grey levels (default 2)")
    args = parser.parse_args()
    if args.views < 2:
        parser.error("--views must be at least 2")

    rng = np.random.default_rng(args.seed)
    planes = build_scene(rng)
    cams = cameras(rng, args.views)
    os.makedirs(os.path.join(args.outdir, "images"), exist_ok=True)
    K = K_colmap()
    lines = [
        "# glsurf synthetic scene (tools/render_scene.py): seed %d, %d views, %dx%d" % (
            args.seed, args.views, WIDTH, HEIGHT),
        "# NAME CX CY CZ QW QX QY QZ FX FY PX PY",
        "# C: camera centre (world); Q: world-to-camera rotation; K in COLMAP's pixel convention",
    ]
    for k, (centre, R) in enumerate(cams):
        name = "view_%02d.png" % k
        img = render(planes, centre, R, rng, args.noise)
        path = os.path.join(args.outdir, "images", name)
        if not cv2.imwrite(path, img):
            sys.exit(f"render_scene.py: cannot write {path}")
        q = quaternion(R)
        lines.append("%s %.9f %.9f %.9f %.12f %.12f %.12f %.12f %.6f %.6f %.6f %.6f" % (
            name, *centre, *q, K[0, 0], K[1, 1], K[0, 2], K[1, 2]))
    with open(os.path.join(args.outdir, "poses.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
