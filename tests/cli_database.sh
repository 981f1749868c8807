#!/bin/sh
# glsurf detect|match --database and glsurf merge: the COLMAP database's
# content and conventions, colmap reading it, resuming, shards, SIGKILL, and
# bad input. Usage: cli_database.sh GLSURF ASSETS
. "$(dirname "$0")/cli_common.sh"
here=$(dirname "$0")
command -v python3 >/dev/null || { echo "SKIPPED: python3 is not installed"; exit 77; }
dump() { python3 "$here/db_dump.py" "$@"; }

# A set of 7 images: the bundled four and three turned and scaled copies.
"$glsurf" warp "$assets/graf1.png" "$work/seq" --rotate 15,30 --scale 0.9,0.8 >/dev/null || fail "warp"
mkdir "$work/in"
for name in box box_in_scene graf1 graf3; do cp "$assets/$name.png" "$work/in/"; done
cp "$work/seq/img2.png" "$work/in/turned15.png"
cp "$work/seq/img3.png" "$work/in/turned30.png"
"$glsurf" warp "$assets/box_in_scene.png" "$work/seq2" --rotate 20 --scale 1.2 >/dev/null || fail "warp 2"
cp "$work/seq2/img2.png" "$work/in/scene20.png"
# The CPU backend: the same features in every run and shard, on any machine.
det="--backend cpu --max-features 400"
mat="--backend cpu"
db=$work/one.db

# --- one run, and the conventions of what it stores ---------------------------
"$glsurf" detect "$work/in" --database "$db" $det 2>"$work/err" || fail "detect: $(cat "$work/err")"
grep -q "7 stored" "$work/err" || fail "detect summary: $(cat "$work/err")"
"$glsurf" detect "$assets/graf1.png" -o "$work/graf1.txt" $det 2>/dev/null || fail "detect graf1"
python3 - "$db" "$work/graf1.txt" <<'PY' || fail "the stored keypoints"
import math, sqlite3, struct, sys
db = sqlite3.connect(sys.argv[1])
(image_id,) = db.execute("SELECT image_id FROM images WHERE name = 'graf1.png'").fetchone()
rows, cols, data = db.execute("SELECT rows, cols, data FROM keypoints WHERE image_id = ?", (image_id,)).fetchone()
ours = [l.split() for l in open(sys.argv[2]) if l.strip() and not l.startswith('#')]
header = ours.pop(0) if len(ours[0]) == 2 else None  # "N D"
assert cols == 4 and rows == len(ours), (rows, cols, len(ours))
kp = struct.unpack(f"<{rows * 4}f", data)
for i, line in enumerate(ours):
    x, y, size, angle = (float(v) for v in line[:4])
    cx, cy, scale, orientation = kp[4 * i: 4 * i + 4]
    # COLMAP puts the top-left pixel's centre at (0.5, 0.5), glsurf at (0, 0).
    assert abs(cx - (x + 0.5)) < 1e-3 and abs(cy - (y + 0.5)) < 1e-3, (i, x, y, cx, cy)
    assert abs(scale - 1.2 * size / 9) < 1e-3 * size, (i, size, scale)
    # Radians clockwise as shown, glsurf's degrees counter-clockwise.
    d = (orientation + math.radians(angle)) % (2 * math.pi)
    assert min(d, 2 * math.pi - d) < 1e-3, (i, angle, orientation)
(n_desc, d_cols) = db.execute("SELECT rows, cols FROM descriptors WHERE image_id = ?", (image_id,)).fetchone()
assert n_desc == rows and d_cols == 64
model, w, h, params = db.execute(
    "SELECT model, width, height, params FROM cameras JOIN images USING (camera_id) WHERE image_id = ?",
    (image_id,)).fetchone()
f, cx, cy, k = struct.unpack("<4d", params)
assert (model, w, h) == (2, 800, 640) and (f, cx, cy, k) == (1.2 * 800, 400, 320, 0), (model, w, h, f, cx, cy, k)
assert db.execute("PRAGMA user_version").fetchone()[0] == 3800
PY

"$glsurf" match --database "$db" --pairs exhaustive $mat 2>"$work/err" || fail "match: $(cat "$work/err")"
grep -q "^21 pairs: 21 matched" "$work/err" || fail "match summary: $(cat "$work/err")"
python3 - "$db" <<'PY' || fail "the stored matches"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
names = dict(db.execute("SELECT image_id, name FROM images"))
assert db.execute("SELECT count(*) FROM matches").fetchone()[0] == 21
assert db.execute("SELECT count(*) FROM two_view_geometries").fetchone()[0] == 21
for pair_id, rows, data in db.execute("SELECT pair_id, rows, data FROM matches"):
    a, b = divmod(pair_id, 2147483647)
    assert 1 <= a < b <= 7 and len(data) == 8 * rows
# graf1 and its turned copies are one plane: verified, as COLMAP says of a plane.
ids = {v: k for k, v in names.items()}
for x, y in [("graf1.png", "turned15.png"), ("graf1.png", "turned30.png"), ("box.png", "box_in_scene.png")]:
    a, b = sorted((ids[x], ids[y]))
    rows, config = db.execute("SELECT rows, config FROM two_view_geometries WHERE pair_id = ?",
                              (a * 2147483647 + b,)).fetchone()
    assert rows >= 15 and config in (4, 5, 6), (x, y, rows, config)
PY

# colmap reads every table: its own merger copies them, keypoints unchanged.
if command -v colmap >/dev/null; then
  colmap database_creator --database_path "$work/empty.db" >/dev/null 2>&1 || fail "colmap database_creator"
  colmap database_merger --database_path1 "$db" --database_path2 "$work/empty.db" \
    --merged_database_path "$work/colmap.db" >"$work/colmap.log" 2>&1 || fail "colmap database_merger: $(tail -3 "$work/colmap.log")"
  for table in cameras images descriptors matches two_view_geometries; do
    # (its merger leaves out the geometries of pairs without inliers)
    dump "$db" "$table" | awk -v t=$table 't != "two_view_geometries" || $3 != 0' >"$work/a"
    dump "$work/colmap.db" "$table" >"$work/b"
    cmp -s "$work/a" "$work/b" || fail "colmap's copy of $table differs"
  done
  # colmap writes keypoints back as affine frames (x, y, a11, a12, a21, a22):
  # the same points, scales and orientations as ours.
  python3 - "$db" "$work/colmap.db" <<'PY' || fail "colmap's copy of the keypoints"
import math, sqlite3, struct, sys
ours, theirs = (dict((i, (r, c, d)) for i, r, c, d in sqlite3.connect(f).execute(
    "SELECT image_id, rows, cols, data FROM keypoints")) for f in sys.argv[1:])
assert ours.keys() == theirs.keys()
for i, (rows, cols, data) in ours.items():
    r6, c6, d6 = theirs[i]
    assert (r6, c6) == (rows, 6), (rows, r6, c6)
    a, b = struct.unpack(f"<{4 * rows}f", data), struct.unpack(f"<{6 * rows}f", d6)
    for k in range(rows):
        x, y, scale, angle = a[4 * k: 4 * k + 4]
        x6, y6, a11, a12, a21, a22 = b[6 * k: 6 * k + 6]
        d = (math.atan2(a21, a11) - angle) % (2 * math.pi)
        assert (x, y) == (x6, y6) and abs(math.hypot(a11, a21) - scale) < 1e-4 * scale and min(d, 2 * math.pi - d) < 1e-4
PY
else
  echo "colmap is not installed: the colmap read-back is not checked"
fi

# --- resume: a rerun adds nothing -----------------------------------------------
dump "$db" >"$work/one.dump"
"$glsurf" detect "$work/in" --database "$db" $det 2>"$work/err" || fail "detect rerun"
grep -q "0 stored.*7 already in the database" "$work/err" || fail "detect rerun: $(cat "$work/err")"
"$glsurf" match --database "$db" $mat 2>"$work/err" || fail "match rerun"
grep -q "0 matched.*21 already in the database" "$work/err" || fail "match rerun: $(cat "$work/err")"
dump "$db" >"$work/again.dump"
cmp -s "$work/one.dump" "$work/again.dump" || fail "a rerun changed the database"

# --- shards: detect in 3, merge, match in 3 from copies, merge ----------------
for k in 1 2 3; do
  "$glsurf" detect "$work/in" --database "$work/d$k.db" --shard $k/3 $det 2>/dev/null || fail "detect shard $k"
done
"$glsurf" merge "$work/merged.db" "$work/d1.db" "$work/d2.db" "$work/d3.db" 2>/dev/null || fail "merge detect shards"
for k in 1 2 3; do
  cp "$work/merged.db" "$work/m$k.db"
  "$glsurf" match --database "$work/m$k.db" --shard $k/3 $mat 2>/dev/null || fail "match shard $k"
done
"$glsurf" merge "$work/merged.db" "$work/m1.db" "$work/m2.db" "$work/m3.db" 2>/dev/null || fail "merge match shards"
dump "$work/merged.db" >"$work/merged.dump"
cmp -s "$work/one.dump" "$work/merged.dump" || fail "3 shards merged differ from one run: $(diff "$work/one.dump" "$work/merged.dump" | head -3)"

# --- SIGKILL mid-run, then a rerun: equal to the uninterrupted run ------------
kills=0
for i in 1 2 3 4 5 6; do
  rm -f "$work/k.db"
  "$glsurf" detect "$work/in" --database "$work/k.db" $det >/dev/null 2>&1 &
  pid=$!
  sleep "$(awk -v seed="$i$$" 'BEGIN { srand(seed); printf "%.3f", 0.2 + rand() * 1.5 }')"
  kill -KILL $pid 2>/dev/null && kills=$((kills + 1))
  wait $pid 2>/dev/null
  "$glsurf" detect "$work/in" --database "$work/k.db" $det >/dev/null 2>&1 || fail "detect after a kill"
  "$glsurf" match --database "$work/k.db" $mat >/dev/null 2>&1 &
  pid=$!
  sleep "$(awk -v seed="$i$$" 'BEGIN { srand(seed + 1); printf "%.3f", rand() * 1.5 }')"
  kill -KILL $pid 2>/dev/null && kills=$((kills + 1))
  wait $pid 2>/dev/null
  "$glsurf" match --database "$work/k.db" $mat >/dev/null 2>&1 || fail "match after a kill"
  dump "$work/k.db" >"$work/k.dump"
  cmp -s "$work/one.dump" "$work/k.dump" || fail "killed and rerun ($i) differs from one run"
done

# --- bad input ---------------------------------------------------------------
# An unreadable image among good ones: reported, skipped, the rest stored.
mkdir "$work/bad"
cp "$assets/box.png" "$assets/graf1.png" "$work/bad/"
head -c 300 "$assets/graf3.png" >"$work/bad/cut.png"
"$glsurf" detect "$work/bad" --database "$work/bad.db" $det 2>"$work/err" && fail "a bad image: exit 0"
grep -q "cut.png" "$work/err" && grep -q "2 stored.*1 failed" "$work/err" || fail "a bad image: $(cat "$work/err")"
# A pair list naming an unknown image: the line named, nothing written.
printf 'box.png graf1.png\n# a comment\n\nbox.png nosuch.png\n' >"$work/pairs.txt"
dump "$work/bad.db" >"$work/bad.before"
"$glsurf" match --database "$work/bad.db" --pairs "$work/pairs.txt" $mat 2>"$work/err" && fail "an unknown name: exit 0"
grep -q "pairs.txt:4: no image nosuch.png in the database" "$work/err" || fail "an unknown name: $(cat "$work/err")"
dump "$work/bad.db" | cmp -s - "$work/bad.before" || fail "an unknown name: the database changed"
# Another program's database, a newer COLMAP, a newer glsurf, not SQLite at all: refused, unchanged.
python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('CREATE TABLE notes (t TEXT)'); c.commit()" "$work/other.db"
python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('PRAGMA user_version = 3900'); c.commit()" "$work/newer.db"
cp "$work/bad.db" "$work/newer_glsurf.db"
python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(\"UPDATE glsurf_settings SET value = '2' WHERE key = 'schema'\"); c.commit()" "$work/newer_glsurf.db"
printf 'not a database at all, just some text to fill a page or so\n%.0s' $(seq 100) >"$work/text.db"
for case in "other.db:another program's database (table notes)" "newer.db:written by a newer COLMAP (schema version 3900)" \
  "newer_glsurf.db:written by a newer glsurf" "text.db:not a SQLite database"; do
  file=${case%%:*} message=${case#*:}
  cp "$work/$file" "$work/$file.before"
  "$glsurf" detect "$work/bad" --database "$work/$file" $det 2>"$work/err" && fail "$file: exit 0"
  grep -qF "$message" "$work/err" || fail "$file: $(cat "$work/err")"
  [ "$(wc -l <"$work/err")" -eq 1 ] || fail "$file: more than one line: $(cat "$work/err")"
  cmp -s "$work/$file" "$work/$file.before" || fail "$file was changed"
done
# Matching a database without glsurf's features, or none at all: refused, nothing made or changed.
cp "$work/bad.db" "$work/nofeatures.db"
python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('DROP TABLE glsurf_features'); c.commit()" "$work/nofeatures.db"
cp "$work/nofeatures.db" "$work/nofeatures.before"
"$glsurf" match --database "$work/nofeatures.db" $mat 2>"$work/err" && fail "no features: exit 0"
grep -q "nofeatures.db: no glsurf features in it; run glsurf detect" "$work/err" || fail "no features: $(cat "$work/err")"
cmp -s "$work/nofeatures.db" "$work/nofeatures.before" || fail "no features: the database changed"
"$glsurf" match --database "$work/nosuch.db" $mat 2>"$work/err" && fail "no database: exit 0"
grep -q "nosuch.db: cannot open the database" "$work/err" || fail "no database: $(cat "$work/err")"
[ -e "$work/nosuch.db" ] && fail "no database: one was made"
# A read-only database (as another user when run as root: root writes anything).
cp "$work/bad.db" "$work/readonly.before"
chmod 444 "$work/bad.db"
chmod 777 "$work"
as_user=""
[ "$(id -u)" = 0 ] && as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
$as_user "$glsurf" match --database "$work/bad.db" $mat 2>"$work/err" && fail "read-only: exit 0"
grep -q "bad.db: the database is read-only" "$work/err" || fail "read-only: $(cat "$work/err")"
cmp -s "$work/bad.db" "$work/readonly.before" || fail "read-only: the database changed"
# Shards from different options are refused before anything is written.
"$glsurf" detect "$work/bad" --database "$work/t100.db" --backend cpu --max-features 100 2>/dev/null
"$glsurf" merge "$work/mixed.db" "$work/d1.db" "$work/t100.db" 2>"$work/err" && fail "mixed shards: exit 0"
grep -q "made with another detector" "$work/err" || fail "mixed shards: $(cat "$work/err")"
[ -e "$work/mixed.db" ] && fail "mixed shards: the output was left behind"
echo "all database checks passed ($kills kills)"
