"""Reads glsurf's files in other tools' formats back with those tools' readers
(or, for Lowe's, an independent small reader) and checks them against
glsurf's own bin file of the same features, exactly. Used by
tests/cli_formats.sh; prints one line per check and exits 1 on the first
failure.

  formats_check.py opencv-features BIN FILE...   cv2.FileStorage (YAML or XML)
  formats_check.py opencv-matches TXT FILE...     the matches of match -o TXT
  formats_check.py colmap-features DB IMAGE BIN TXT  COLMAP's keypoints and descriptors
                                                    tables, and our file TXT imported
  formats_check.py colmap-matches DB LIST TXT     COLMAP's matches table
  formats_check.py lowe BIN KEY                   Lowe's .key
"""
import math
import sqlite3
import struct
import sys


def fail(message):
    print("FAILED: " + message)
    sys.exit(1)


def f32(value):
    """The float32 nearest to `value` (a Python float), as a Python float."""
    return struct.unpack("<f", struct.pack("<f", value))[0]


def read_bin(path):
    """glsurf's bin: (keypoints [(x, y, size, angle, response, laplacian, octave)], descriptors [[...]])."""
    data = open(path, "rb").read()
    if data[:8] != b"GLSURF01":
        fail(path + ": not a glsurf bin file")
    n, d = struct.unpack_from("<II", data, 8)
    keypoints, descriptors, offset = [], [], 16
    for _ in range(n):
        keypoints.append(struct.unpack_from("<fffffii", data, offset))
        offset += 28
        descriptors.append(list(struct.unpack_from("<%df" % d, data, offset)))
        offset += 4 * d
    if offset != len(data):
        fail(path + ": trailing bytes")
    return keypoints, descriptors, d


def read_txt_matches(path):
    """match -o's text: [(i, j, distance, inlier)]."""
    rows = []
    for line in open(path):
        if line.startswith("#"):
            continue
        f = line.split()
        rows.append((int(f[0]), int(f[1]), float(f[6]), int(f[7])))
    return rows


# COLMAP's conventions, computed as database/colmap.cpp computes them (float
# arithmetic emulated: a product or quotient of two float32 in double, then
# rounded to float32, is the float32 operation's result).
def colmap_scale(size):
    return f32(f32(size * f32(1.2)) / 9.0)


def colmap_orientation(angle):
    a = angle if angle > 0 else 0.0
    radians = -a * math.pi / 180.0
    if radians <= -math.pi:
        radians += 2 * math.pi
    return f32(radians)


def colmap_value(v):
    x = 128.0 + 256.0 * v
    r = math.floor(x + 0.5) if x >= 0 else -math.floor(-x + 0.5)  # lround
    return min(max(int(r), 0), 255)


def opencv_features(bin_path, paths):
    import cv2
    import numpy as np

    keypoints, descriptors, d = read_bin(bin_path)
    for path in paths:
        fs = cv2.FileStorage(path, cv2.FILE_STORAGE_READ)
        if not fs.isOpened():
            fail(path + ": cv2.FileStorage cannot open it")
        node = fs.getNode("keypoints")
        if node.size() != len(keypoints):
            fail("%s: %d keypoints, bin has %d" % (path, node.size(), len(keypoints)))
        for i, k in enumerate(keypoints):
            entry = node.at(i)
            values = [entry.at(j).real() for j in range(entry.size())]
            if len(values) != 7:
                fail("%s: keypoint %d has %d values, not 7" % (path, i, len(values)))
            kp = cv2.KeyPoint(values[0], values[1], values[2], values[3], values[4], int(values[5]), int(values[6]))
            got = (f32(kp.pt[0]), f32(kp.pt[1]), kp.size, kp.angle, kp.response, kp.class_id, kp.octave)
            if got != k:
                fail("%s: keypoint %d is %s, bin has %s" % (path, i, got, k))
        mat = fs.getNode("descriptors").mat()
        if mat is None or mat.dtype != np.float32 or mat.shape != (len(keypoints), d):
            fail("%s: descriptors %s" % (path, None if mat is None else (mat.dtype, mat.shape)))
        if not np.array_equal(mat, np.array(descriptors, dtype=np.float32)):
            fail(path + ": descriptors differ from bin's")
        print("ok: %s: %d keypoints and %dx%d descriptors as bin's" % (path, len(keypoints), len(keypoints), d))


def opencv_matches(txt_path, paths):
    import cv2

    rows = read_txt_matches(txt_path)
    for path in paths:
        fs = cv2.FileStorage(path, cv2.FILE_STORAGE_READ)
        node = fs.getNode("matches")
        if node.size() != len(rows):
            fail("%s: %d matches, the text has %d" % (path, node.size(), len(rows)))
        inliers = fs.getNode("inliers").mat()
        for n, (i, j, distance, inlier) in enumerate(rows):
            values = [node.at(n).at(k).real() for k in range(node.at(n).size())]
            m = cv2.DMatch(int(values[0]), int(values[1]), int(values[2]), values[3])
            if (m.queryIdx, m.trainIdx, m.imgIdx) != (i, j, 0) or abs(m.distance - distance) > 1e-6 * max(distance, 1):
                fail("%s: match %d is %s, the text has %s" % (path, n, values, (i, j, distance)))
            if int(inliers[n, 0]) != inlier:
                fail("%s: match %d's inlier flag" % (path, n))
        print("ok: %s: %d matches (%d inliers) as the text's" % (path, len(rows), sum(r[3] for r in rows)))


def colmap_features(db_path, image, bin_path, text_path):
    keypoints, descriptors, d = read_bin(bin_path)
    db = sqlite3.connect(db_path)
    row = db.execute(
        "SELECT k.rows, k.cols, k.data, d.rows, d.cols, d.data FROM images i JOIN keypoints k USING (image_id) "
        "JOIN descriptors d USING (image_id) WHERE i.name = ?",
        (image,),
    ).fetchone()
    if row is None:
        fail("%s: no keypoints or descriptors for %s" % (db_path, image))
    rows, cols, data, drows, dcols, ddata = row
    if rows != len(keypoints) or cols != 6 or drows != rows or dcols != 128:
        fail("%s: %s: keypoints %dx%d, descriptors %dx%d" % (db_path, image, rows, cols, drows, dcols))
    stored = struct.unpack("<%df" % (6 * rows), data)
    text = [line.split() for line in open(text_path).read().splitlines()[1:]]
    for i, k in enumerate(keypoints):
        x, y, a11, a12, a21, a22 = stored[6 * i : 6 * i + 6]
        # x + 0.5 in float32, exactly; the text file's values, exactly.
        if (x, y) != (f32(k[0] + 0.5), f32(k[1] + 0.5)):
            fail("%s: keypoint %d at (%r, %r), glsurf's at (%r, %r)" % (image, i, x, y, k[0], k[1]))
        scale, orientation = colmap_scale(k[2]), colmap_orientation(k[3])
        if [f32(float(v)) for v in text[i][:4]] != [x, y, scale, orientation]:
            fail("%s: keypoint %d's line %s, expected %s" % (image, i, text[i][:4], (x, y, scale, orientation)))
        # COLMAP keeps the affine shape: scale and orientation back within float rounding.
        if abs(math.hypot(a11, a21) - scale) > 1e-5 * scale or abs(math.atan2(a21, a11) - orientation) > 1e-5:
            fail("%s: keypoint %d's shape %s, expected scale %r orientation %r" % (image, i, stored[6 * i : 6 * i + 6], scale, orientation))
        want = [colmap_value(v) for v in descriptors[i]] + [128] * (128 - d)
        if list(ddata[128 * i : 128 * i + 128]) != want:
            fail("%s: descriptor %d: %s, expected %s" % (image, i, list(ddata[128 * i : 128 * i + 128]), want))
    print("ok: %s: COLMAP holds %d keypoints (x + 0.5, sigma, clockwise radians) and 128-byte descriptors (%d of glsurf's)"
          % (image, rows, d))


def colmap_matches(db_path, list_path, txt_path):
    lines = open(list_path).read().split("\n")
    name_a, name_b = lines[0].split()
    pairs = [tuple(int(v) for v in line.split()) for line in lines[1:] if line.strip()]
    rows = read_txt_matches(txt_path)
    if pairs != [(i, j) for i, j, _, _ in rows]:
        fail(list_path + ": the pairs differ from the text's")
    db = sqlite3.connect(db_path)
    ids = dict(db.execute("SELECT name, image_id FROM images"))
    id_a, id_b = ids[name_a], ids[name_b]
    swapped = id_a > id_b
    pair_id = 2147483647 * min(id_a, id_b) + max(id_a, id_b)
    row = db.execute("SELECT rows, cols, data FROM matches WHERE pair_id = ?", (pair_id,)).fetchone()
    if row is None:
        fail("%s: no matches for %s %s" % (db_path, name_a, name_b))
    n, cols, data = row
    stored = struct.unpack("<%dI" % (n * cols), data) if n else ()
    got = [(stored[2 * k + 1], stored[2 * k]) if swapped else (stored[2 * k], stored[2 * k + 1]) for k in range(n)]
    if cols != 2 or got != pairs:
        fail("%s: the matches table holds %d pairs that differ from ours (%d)" % (db_path, n, len(pairs)))
    print("ok: COLMAP's matches table holds our %d matches of %s and %s" % (n, name_a, name_b))


def lowe(bin_path, key_path):
    keypoints, descriptors, d = read_bin(bin_path)
    lines = open(key_path).read().split("\n")
    if lines[-1] != "":
        fail(key_path + ": no newline at the end")
    header = lines[0].split()
    if header != [str(len(keypoints)), str(d)]:
        fail("%s: header %s" % (key_path, header))
    per_line = [min(20, d - 20 * m) for m in range((d + 19) // 20)]
    at = 1
    for i, k in enumerate(keypoints):
        frame = [float(v) for v in lines[at].split()]
        at += 1
        values = []
        for count in per_line:
            fields = lines[at].split()
            at += 1
            if len(fields) != count:
                fail("%s: keypoint %d: a descriptor line of %d values, not %d" % (key_path, i, len(fields), count))
            values += [int(v) for v in fields]
        # row col scale orientation: y, x, sigma, radians counter-clockwise as shown in [-pi, pi).
        want = [k[1], k[0], colmap_scale(k[2]), -colmap_orientation(k[3])]
        if [f32(v) for v in frame] != want or not -math.pi <= frame[3] < math.pi:
            fail("%s: keypoint %d's frame %s, expected %s" % (key_path, i, frame, want))
        if values != [colmap_value(v) for v in descriptors[i]]:
            fail("%s: keypoint %d's descriptor" % (key_path, i))
    if at != len(lines) - 1:
        fail("%s: %d lines after the last keypoint" % (key_path, len(lines) - 1 - at))
    print("ok: %s: %d keypoints (row col sigma radians) and %d values in lines of 20 as bin's" % (key_path, len(keypoints), d))


def main(argv):
    mode, args = argv[1], argv[2:]
    if mode == "opencv-features":
        opencv_features(args[0], args[1:])
    elif mode == "opencv-matches":
        opencv_matches(args[0], args[1:])
    elif mode == "colmap-features":
        colmap_features(*args)
    elif mode == "colmap-matches":
        colmap_matches(*args)
    elif mode == "lowe":
        lowe(*args)
    else:
        fail("unknown mode " + mode)


if __name__ == "__main__":
    main(sys.argv)
