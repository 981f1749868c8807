#!/bin/sh
# glsurf match end to end on the bundled pair with its ground truth, both
# backends, and the output files. Usage: cli_match.sh GLSURF ASSETS
. "$(dirname "$0")/cli_common.sh"

out=$("$glsurf" match "$assets/box.png" "$assets/box_in_scene.png" -o "$work/m.txt" --homography "$work/H.txt" \
      --draw "$work/m.png" 2>&1) || fail "match box pair: $out"
echo "$out"
[ -s "$work/m.txt" ] || fail "matches written"
[ "$(head -n 1 "$work/m.txt")" = "# i j x1 y1 x2 y2 distance inlier" ] || fail "the header line: $(head -n 1 "$work/m.txt")"
[ "$(sed -n 2p "$work/m.txt" | wc -w)" -eq 8 ] || fail "i j x1 y1 x2 y2 distance inlier per line"
# The points are the keypoints' (detect's fields 1 and 2, %.9g: exact).
"$glsurf" detect "$assets/box.png" -o "$work/ka.txt" 2>/dev/null || fail "detect box (gl)"
"$glsurf" detect "$assets/box_in_scene.png" -o "$work/kb.txt" 2>/dev/null || fail "detect box_in_scene (gl)"
bad=$(awk 'FILENAME == ARGV[1] { if (FNR > 1) { ax[FNR - 2] = $1 + 0; ay[FNR - 2] = $2 + 0 }; next }
           FILENAME == ARGV[2] { if (FNR > 1) { bx[FNR - 2] = $1 + 0; by[FNR - 2] = $2 + 0 }; next }
           /^#/ { next }
           { n++; if ($3 + 0 != ax[$1] || $4 + 0 != ay[$1] || $5 + 0 != bx[$2] || $6 + 0 != by[$2]) bad++ }
           END { print (n > 0 ? bad + 0 : "none") }' "$work/ka.txt" "$work/kb.txt" "$work/m.txt")
[ "$bad" = 0 ] || fail "match -o points differ from the keypoints detect writes: $bad"
[ "$(wc -l < "$work/H.txt")" -eq 3 ] || fail "three lines of H"
head -c 8 "$work/m.png" | od -c | head -1 | grep -q "P   N   G" || fail "a PNG picture"
inliers=$(echo "$out" | sed -n 's/.* \([0-9]*\) inliers.*/\1/p')
[ "${inliers:-0}" -ge 15 ] || fail "at least 15 inliers on the box pair, got ${inliers:-none}"

# The bundled graf1 -> graf3 pair: ground truth gives the correct-match
# count; both backends, the same result.
for backend in gl cpu; do
  out=$("$glsurf" match --backend $backend 2>&1) || fail "match bundled pair ($backend): $out"
  echo "$out"
  correct=$(echo "$out" | sed -n 's/.*: \([0-9]*\) correct matches.*/\1/p')
  [ "${correct:-0}" -ge 100 ] || fail "at least 100 correct matches on graf1 -> graf3 ($backend), got ${correct:-none}"
  eval "correct_$backend=$correct"
done
[ "$correct_gl" = "$correct_cpu" ] || fail "gl and cpu backends disagree: $correct_gl vs $correct_cpu"
# An Oxford-format ground truth works too: H.txt, the homography fitted
# above, makes at least the inliers found there correct.
out=$("$glsurf" match "$assets/box.png" "$assets/box_in_scene.png" --truth "$work/H.txt" --backend cpu 2>&1) ||
  fail "--truth with an Oxford text file: $out"
correct=$(echo "$out" | sed -n 's/.*: \([0-9]*\) correct matches.*/\1/p')
[ "${correct:-0}" -ge 15 ] || fail "--truth H.txt: at least 15 correct matches, got ${correct:-none}: $out"

# The filters (CPU backend; the GPU's two nearest neighbours are compared
# with the CPU's in test_gpu_matcher.cpp). Matches files: a header, then
# i j x1 y1 x2 y2 distance inlier.
m() { "$glsurf" match "$assets/box.png" "$assets/box_in_scene.png" --backend cpu "$@" >/dev/null 2>&1 || fail "match $*"; }
m -o "$work/f_default.txt"
m -o "$work/f_ratio0.txt" --ratio 0
m -o "$work/f_ratio1.txt" --ratio 1
cmp -s "$work/f_ratio0.txt" "$work/f_ratio1.txt" || fail "--ratio 0 and --ratio 1 both turn the ratio test off"
[ "$(wc -l < "$work/f_ratio0.txt")" -gt "$(wc -l < "$work/f_default.txt")" ] || fail "--ratio 0 keeps more matches"
# The maximum distance is a forward filter: the matches it keeps are the
# default ones within it.
m -o "$work/f_max.txt" --max-distance 0.2
awk '!/^#/ && $7 <= 0.2 { print $1, $2, $7 }' "$work/f_default.txt" > "$work/f_max_expected.txt"
awk '!/^#/ { print $1, $2, $7 }' "$work/f_max.txt" | cmp -s - "$work/f_max_expected.txt" || fail "--max-distance 0.2 keeps the default matches within 0.2"
[ -s "$work/f_max.txt" ] && [ "$(wc -l < "$work/f_max.txt")" -lt "$(wc -l < "$work/f_default.txt")" ] ||
  fail "--max-distance 0.2 keeps some matches and drops some"
# Matches across Laplacian signs only with --no-sign (signs from detect's files: field 6).
"$glsurf" detect "$assets/box.png" --backend cpu -o "$work/fa.txt" 2>/dev/null || fail "detect box"
"$glsurf" detect "$assets/box_in_scene.png" --backend cpu -o "$work/fb.txt" 2>/dev/null || fail "detect box_in_scene"
opposite() {
  awk 'FNR == NR { if (FNR > 1) a[FNR - 2] = $6; next } FILENAME != m { if (FNR > 1) b[FNR - 2] = $6; next }
       !/^#/ { n += a[$1] != b[$2] } END { print n + 0 }' m="$1" "$work/fa.txt" "$work/fb.txt" "$1"
}
m -o "$work/f_all.txt" --ratio 0 --no-mutual
m -o "$work/f_nosign.txt" --ratio 0 --no-mutual --no-sign
[ "$(opposite "$work/f_all.txt")" -eq 0 ] || fail "matches across Laplacian signs without --no-sign"
[ "$(opposite "$work/f_nosign.txt")" -gt 0 ] || fail "--no-sign allows matches across Laplacian signs"
# With no filter left, every query has its nearest neighbour.
[ "$(grep -vc '^#' "$work/f_nosign.txt")" -eq "$(head -n 1 "$work/fa.txt" | cut -d' ' -f1)" ] || fail "one match per query with every filter off"
# A truth whose horizon crosses A (w = 1 - x / 200 changes sign inside box.png,
# 324 px wide) has no corner error to give: n/a, said why, not "inf".
printf '1 0 0\n0 1 0\n-0.005 0 1\n' > "$work/Hhorizon.txt"
out=$("$glsurf" match "$assets/box.png" "$assets/box_in_scene.png" --truth "$work/Hhorizon.txt" --backend cpu 2>&1) ||
  fail "--truth with a horizon: $out"
echo "$out" | grep -q "corner error n/a (the truth sends part of A to infinity)$" || fail "horizon truth: $out"
# One image may be piped in, as for detect; not both.
out=$(cat "$assets/box.png" | "$glsurf" match - "$assets/box_in_scene.png" --backend cpu 2>&1) || fail "match - B: $out"
direct=$("$glsurf" match "$assets/box.png" "$assets/box_in_scene.png" --backend cpu 2>&1)
[ "$(echo "$out" | sed 's/^[^:]*://; s/, [0-9]* ms.*//')" = "$(echo "$direct" | sed 's/^[^:]*://; s/, [0-9]* ms.*//')" ] ||
  fail "match - B differs from the file: $out / $direct"
"$glsurf" match - - < /dev/null >/dev/null 2>&1; [ $? -eq 2 ] || fail "match - - is a usage error"
# No model found: the matches are written all the same (never lost), the
# model file asked for is not, with a warning and exit status 1; in every
# --geometry mode.
printf 'P5\n64 64\n255\n' > "$work/flat.pgm"
head -c 4096 /dev/zero | tr '\0' '\200' >> "$work/flat.pgm"
for mode in "h --homography $work/flatH.txt" "f --fundamental $work/flatF.txt" "auto --homography $work/flatH.txt" \
            "auto --fundamental $work/flatF.txt"; do
  rm -f "$work/flat.txt"
  # shellcheck disable=SC2086
  err=$("$glsurf" match "$work/flat.pgm" "$work/flat.pgm" -o "$work/flat.txt" --geometry $mode --backend cpu 2>&1)
  [ $? -eq 1 ] || fail "no model with a model file (--geometry $mode) exits 1: $err"
  [ "$(cat "$work/flat.txt")" = "# i j x1 y1 x2 y2 distance inlier" ] || fail "--geometry $mode: the matches (none) written"
  [ ! -e "$work/flatH.txt" ] && [ ! -e "$work/flatF.txt" ] || fail "--geometry $mode: no model file when none is found"
  echo "$err" | grep -q "^glsurf: warning: no \(homography\|fundamental matrix\) (.*) written: none found; the matches are, all with inlier 0$" ||
    fail "--geometry $mode: the warning: $err"
done
# Without a model file asked for, no model is no failure.
out=$("$glsurf" match "$work/flat.pgm" "$work/flat.pgm" -o "$work/flat.txt" --geometry f --backend cpu 2>&1) ||
  fail "no fundamental matrix without --fundamental exits 0: $out"
echo "$out" | grep -q ", 0 matches, no fundamental matrix (15 inliers needed)," || fail "no F said: $out"
out=$("$glsurf" match "$work/flat.pgm" "$work/flat.pgm" --geometry auto --backend cpu 2>&1) ||
  fail "degenerate without a model file exits 0: $out"
echo "$out" | grep -q ", 0 matches, degenerate: no fundamental matrix, no homography (15 matches needed)," ||
  fail "degenerate said: $out"
# With an output on standard output the summary goes to standard error.
"$glsurf" match "$assets/box.png" "$assets/box_in_scene.png" -o - --backend cpu >"$work/stdout.txt" 2>"$work/stderr.txt" ||
  fail "match -o -: $(cat "$work/stderr.txt")"
line='^[0-9]* [0-9]*\( [0-9.e+-]*\)\{5\} [01]$'
[ -s "$work/stdout.txt" ] && ! sed 1d "$work/stdout.txt" | grep -v "$line" >/dev/null ||
  fail "match -o -: only match lines on standard output: $(sed 1d "$work/stdout.txt" | grep -v "$line" | head -n 2)"
grep -q "features, .* matches" "$work/stderr.txt" || fail "match -o -: the summary on standard error"
# Unrelated images: a few matches agree by chance (4 of 14 here), which is no
# homography either.
out=$("$glsurf" match "$assets/box.png" "$assets/graf3.png" --homography "$work/unrelatedH.txt" --backend cpu 2>&1)
[ $? -eq 1 ] || fail "unrelated images with --homography exit 1: $out"
echo "$out" | grep -q "no homography" || fail "unrelated images: no homography said: $out"
[ ! -e "$work/unrelatedH.txt" ] || fail "no homography file for unrelated images"
out=$("$glsurf" match "$assets/box.png" "$assets/graf3.png" --geometry auto --backend cpu 2>&1) || fail "unrelated images, auto: $out"
echo "$out" | grep -q "matches, degenerate: no fundamental matrix, no homography" || fail "unrelated images, auto: $out"
out=$("$glsurf" match "$assets/box.png" "$assets/graf3.png" --backend cpu 2>&1) || fail "unrelated images: $out"
echo "$out" | grep -q "no homography (best fit [0-7] inliers, 8 needed)" || fail "unrelated images: $out"

# Feature files (as detect writes them, txt or bin) are matched as they are:
# the same matches as from the images, whose keypoints they hold exactly
# (each backend's own: the two round differently).
for backend in gl cpu; do
  "$glsurf" detect "$assets/box.png" --backend $backend -o "$work/box.txt" 2>/dev/null || fail "detect box"
  "$glsurf" detect "$assets/box_in_scene.png" --backend $backend -o "$work/scene.bin" 2>/dev/null ||
    fail "detect box_in_scene"
  "$glsurf" match "$assets/box.png" "$assets/box_in_scene.png" --backend $backend -o "$work/from_images.txt" \
    >/dev/null 2>&1 || fail "match images ($backend)"
  "$glsurf" match "$work/box.txt" "$work/scene.bin" --backend $backend -o "$work/from_files.txt" >/dev/null 2>&1 ||
    fail "match feature files ($backend)"
  cmp -s "$work/from_images.txt" "$work/from_files.txt" || fail "feature files match otherwise than their images ($backend)"
  "$glsurf" match "$assets/box.png" "$work/scene.bin" --backend $backend -o "$work/mixed.txt" >/dev/null 2>&1 ||
    fail "match an image against a feature file ($backend)"
  cmp -s "$work/from_images.txt" "$work/mixed.txt" || fail "an image against a feature file ($backend)"
done
[ "$(grep -vc '^#' "$work/from_files.txt")" -ge 20 ] || fail "box against box_in_scene from feature files: too few matches"
err=$("$glsurf" match "$work/box.txt" "$assets/box_in_scene.png" --extended 2>&1)
[ $? -eq 1 ] && echo "$err" | grep -q "gives 64-value descriptors, .*box_in_scene.png 128 (leave out --extended)" ||
  fail "descriptor lengths that differ: $err"
err=$("$glsurf" match "$work/box.txt" "$work/scene.bin" --draw "$work/never.png" 2>&1)
[ $? -eq 2 ] && echo "$err" | grep -q -- "--draw needs two images" && [ ! -e "$work/never.png" ] || fail "--draw with feature files: $err"
# Descriptors of other lengths (files from other tools): the GPU pads them
# to a multiple of 4 and pairs them as the CPU does, up to 128 values, and
# refuses longer ones in one line (the CPU takes any length).
awk 'NR == 1 { print $1, 62; next } { NF = NF - 2; print }' "$work/box.txt" > "$work/box62.txt"
"$glsurf" detect "$assets/box_in_scene.png" --backend cpu -o "$work/scene64.txt" 2>/dev/null || fail "detect box_in_scene (txt)"
awk 'NR == 1 { print $1, 62; next } { NF = NF - 2; print }' "$work/scene64.txt" > "$work/scene62.txt"
for backend in gl cpu; do
  "$glsurf" match "$work/box62.txt" "$work/scene62.txt" --backend $backend --ratio 1 --no-mutual \
    -o "$work/m62_$backend.txt" >/dev/null 2>&1 || fail "match 62-value descriptors ($backend)"
  grep -v '^#' "$work/m62_$backend.txt" | cut -d' ' -f1,2 > "$work/pairs62_$backend.txt"
done
[ "$(wc -l < "$work/pairs62_gl.txt")" -eq "$(head -n 1 "$work/box.txt" | cut -d' ' -f1)" ] &&
  cmp -s "$work/pairs62_gl.txt" "$work/pairs62_cpu.txt" || fail "62-value descriptors: the GPU pairs as the CPU"
awk 'NR == 1 { print $1, 130; next } { s = $0; for (i = 0; i < 66; ++i) s = s " 0.01"; print s }' "$work/box.txt" \
  > "$work/box130.txt"
err=$("$glsurf" match "$work/box130.txt" "$work/box130.txt" -o "$work/never130.txt" 2>&1)
[ $? -eq 1 ] && [ "$err" = "glsurf: error: $work/box130.txt: 130-value descriptors: the GPU matcher takes at most 128 (--backend cpu takes any length)" ] &&
  [ ! -e "$work/never130.txt" ] || fail "130-value descriptors on the GPU: $err"
"$glsurf" match "$work/box130.txt" "$work/box130.txt" --backend cpu >/dev/null 2>&1 || fail "130-value descriptors on the CPU"
err=$("$glsurf" match "$work/box62.txt" "$assets/box_in_scene.png" 2>&1)
[ $? -eq 1 ] && [ "$err" = "glsurf: error: $work/box62.txt gives 62-value descriptors, $assets/box_in_scene.png 64" ] ||
  fail "62 against an image's 64, no --extended hint: $err"
# Values so large that every squared distance passes the backends' "no
# candidate" mark (1e30) would match nothing: refused instead, naming where.
awk 'NR == 1 { print; next } NR == 3 { $8 = 2e12 } { print }' "$work/box.txt" > "$work/huge.txt"
err=$("$glsurf" match "$work/huge.txt" "$work/box.txt" --backend cpu 2>&1)
[ $? -eq 1 ] && [ "$err" = "glsurf: error: $work/huge.txt: line 3: a descriptor value beyond 1e12, too large to match" ] ||
  fail "a descriptor value of 2e12: $err"
err=$(cat "$work/box.txt" | "$glsurf" match - "$work/scene.bin" 2>&1)
[ $? -eq 1 ] && echo "$err" | grep -q "a piped input is read as an image: give a feature file by name" ||
  fail "a feature file piped to match: $err"
# Two feature files are matched as they are: an option of the detector or
# the loader would do nothing, so it is a usage error naming it.
for option in "--extended" "--threshold 5000" "--ignore-orientation"; do
  err=$("$glsurf" match "$work/box.txt" "$work/scene.bin" $option 2>&1)
  [ $? -eq 2 ] && echo "$err" | grep -q -- "${option%% *} applies to images; both inputs are feature files" ||
    fail "$option with two feature files: $err"
done
printf '1 0\n10 10 12 0 500 1 0\n' > "$work/bare.txt"
err=$("$glsurf" match "$work/bare.txt" "$work/scene.bin" 2>&1)
[ $? -eq 1 ] && echo "$err" | grep -q "bare.txt: keypoints without descriptors" || fail "a feature file without descriptors: $err"

# Errors: one line, non-zero, no partial files.
"$glsurf" match "$assets/box.png" >/dev/null 2>&1; [ $? -eq 2 ] || fail "one image is a usage error"
err=$("$glsurf" match "$assets/box.png" /nonexistent.png -o "$work/never.txt" 2>&1)
[ $? -eq 1 ] || fail "a missing image exits 1"
echo "$err" | grep -q "/nonexistent.png: cannot open file" || fail "missing image named"
[ ! -e "$work/never.txt" ] || fail "no output after a failure"
# One output that cannot be written: none of the others appears either.
err=$("$glsurf" match "$assets/box.png" "$assets/box_in_scene.png" --backend cpu -o "$work/some.txt" \
      --homography "$work/someH.txt" --draw /nonexistent/d.png 2>&1)
[ $? -eq 1 ] || fail "an unwritable --draw exits 1"
echo "$err" | grep -q "/nonexistent/d.png" || fail "unwritable --draw named: $err"
[ ! -e "$work/some.txt" ] && [ ! -e "$work/someH.txt" ] || fail "no files when one output fails"
[ -z "$(ls "$work" | grep tmp)" ] || fail "temporaries left: $(ls "$work")"
# Two outputs naming one file (also through a link, a dangling one too) are a
# usage error before the work; the images named here do not exist, so an
# error about them would mean the outputs were checked too late.
ln -s "$work/same.txt" "$work/alias.txt"
for second in "$work/./same.txt" "$work/alias.txt"; do
  err=$("$glsurf" match "$work/no_a.png" "$work/no_b.png" --backend cpu -o "$work/same.txt" --homography "$second" 2>&1)
  [ $? -eq 2 ] && echo "$err" | grep -q -- "--homography .* names the same file as -o" ||
    fail "one file for two outputs ($second): $err"
  [ ! -e "$work/same.txt" ] || fail "no file when two outputs share a name"
done
# Standard output takes one output: nothing could tell two apart there.
for pair in "--homography - --draw -" "-o /dev/stdout --homography -"; do
  # shellcheck disable=SC2086
  err=$("$glsurf" match "$work/no_a.png" "$work/no_b.png" --backend cpu $pair 2>&1 >"$work/stdout_pair.bin")
  [ $? -eq 2 ] && echo "$err" | grep -q "names the same file as" || fail "two outputs on standard output ($pair): $err"
done
"$glsurf" match "$assets/box.png" "$assets/box_in_scene.png" --backend cpu -o - --homography - >/dev/null 2>&1 ||
  fail "two outputs on a standard output that is /dev/null"
# A report lost to a full standard output is a failure.
if [ -c /dev/full ]; then
  err=$("$glsurf" match --help 2>&1 >/dev/full)
  [ $? -eq 1 ] && [ "$err" = "glsurf: error: standard output: write failed (No space left on device)" ] ||
    fail "match --help > /dev/full: $err"
  err=$("$glsurf" match "$assets/box.png" "$assets/box_in_scene.png" --backend cpu 2>&1 >/dev/full)
  [ $? -eq 1 ] && echo "$err" | grep -q "standard output: write failed (No space left on device)" || fail "match > /dev/full: $err"
  # ... and leaves no output behind: the report comes before the commit.
  rm -f "$work/lost.txt" "$work/lost_h.txt"
  "$glsurf" match "$assets/box.png" "$assets/box_in_scene.png" --backend cpu -o "$work/lost.txt" \
    --homography "$work/lost_h.txt" >/dev/full 2>/dev/null && fail "match -o > /dev/full must fail"
  [ ! -e "$work/lost.txt" ] && [ ! -e "$work/lost_h.txt" ] || fail "match -o > /dev/full left its outputs"
  # An output refused by its device leaves the one to standard output unwritten.
  "$glsurf" match "$assets/box.png" "$assets/box_in_scene.png" --backend cpu -o - --draw /dev/full \
    >"$work/stdout.txt" 2>/dev/null && fail "match --draw /dev/full must fail"
  [ ! -s "$work/stdout.txt" ] || fail "match -o - --draw /dev/full wrote the matches to standard output"
fi
# An output that cannot be written is one error line before any work (even
# before the images are read: a missing one is not what is reported).
err=$("$glsurf" match "$assets/box.png" "$work/nowhere.png" --backend cpu --draw "$work/missing/d.png" 2>&1)
[ $? -eq 1 ] && [ "$err" = "glsurf: error: $work/missing/d.png: cannot write (No such file or directory)" ] ||
  fail "match --draw into a missing directory: $err"
# Pictures are PNG only: another image name is a usage error, not PNG bytes under it.
err=$("$glsurf" match "$assets/box.png" "$assets/box_in_scene.png" --backend cpu --draw "$work/d.jpg" 2>&1)
[ $? -eq 2 ] && echo "$err" | grep -q -- "--draw writes PNG" && [ ! -e "$work/d.jpg" ] || fail "match --draw d.jpg: $err"
err=$("$glsurf" match "$assets/box.png" "$assets/box_in_scene.png" --backend cpu --draw "$work/d.GIF" 2>&1)
[ $? -eq 2 ] && echo "$err" | grep -q -- "--draw writes PNG" && [ ! -e "$work/d.GIF" ] || fail "match --draw d.GIF: $err"
cp "$assets/box_in_scene.png" "$work/scene.png"
err=$("$glsurf" match "$assets/box.png" "$work/scene.png" --backend cpu --draw "$work/scene.png" 2>&1)
[ $? -eq 2 ] && echo "$err" | grep -q -- "--draw .*scene.png would overwrite the input" &&
  cmp -s "$work/scene.png" "$assets/box_in_scene.png" || fail "match --draw B: $err"

# view's match mode takes match's options: box -> box_in_scene gives the
# same number of matches in both, and a stricter ratio fewer.
view_matches() {
  "$glsurf" view "$assets/box.png" "$assets/box_in_scene.png" --headless --frames 2 --match "$@" 2>&1 |
    sed -n 's/^match mode, last frame: \([0-9]*\) matches.*/\1/p'
}
match_matches() {
  "$glsurf" match "$assets/box.png" "$assets/box_in_scene.png" "$@" 2>&1 | sed -n 's/.* \([0-9]*\) matches, .*/\1/p'
}
v_default=$(view_matches); v_strict=$(view_matches --ratio 0.6 --no-sign); m_strict=$(match_matches --ratio 0.6 --no-sign)
[ -n "$v_strict" ] && [ "$v_strict" = "$m_strict" ] && [ "$v_strict" -lt "${v_default:-0}" ] ||
  fail "view --match --ratio 0.6 --no-sign: ${v_strict:-no} matches, match ${m_strict:-no}, view by default ${v_default:-no}"

# --geometry: f a fundamental matrix, auto COLMAP's configuration. The
# bundled graf1 -> graf3 is a plane: auto says planar or panoramic.
out=$("$glsurf" match --backend cpu --geometry f -o "$work/gf.txt" --fundamental "$work/F.txt" 2>&1) ||
  fail "--geometry f on the bundled pair: $out"
echo "$out"
inliers=$(echo "$out" | sed -n 's/.* \([0-9]*\) inliers (F).*/\1/p')
[ "${inliers:-0}" -ge 300 ] || fail "--geometry f: at least 300 inliers on graf1 -> graf3, got ${inliers:-none}: $out"
[ "$(awk '!/^#/ { n += $8 } END { print n }' "$work/gf.txt")" = "$inliers" ] || fail "--geometry f: -o marks the inliers"
[ "$(wc -l < "$work/F.txt")" -eq 3 ] && [ "$(wc -w < "$work/F.txt")" -eq 9 ] || fail "--fundamental: 3 lines of 3"
# The inliers satisfy the F written: Sampson distance below 3 px.
far=$(awk 'FILENAME == ARGV[1] { for (i = 1; i <= 3; i++) F[FNR, i] = $i; next }
           /^#/ || $8 == 0 { next }
           { x[1] = $3; x[2] = $4; x[3] = 1; u[1] = $5; u[2] = $6; u[3] = 1
             for (r = 1; r <= 3; r++) { Fx[r] = 0; Ftu[r] = 0
               for (c = 1; c <= 3; c++) { Fx[r] += F[r, c] * x[c]; Ftu[r] += F[c, r] * u[c] } }
             e = u[1] * Fx[1] + u[2] * Fx[2] + Fx[3]
             if (e * e / (Fx[1] ^ 2 + Fx[2] ^ 2 + Ftu[1] ^ 2 + Ftu[2] ^ 2) >= 9) n++ }
           END { print n + 0 }' "$work/F.txt" "$work/gf.txt")
[ "$far" -eq 0 ] || fail "--geometry f: $far inliers 3 px or more from their epipolar lines under F.txt"
out=$("$glsurf" match --backend cpu --geometry auto --fundamental "$work/aF.txt" --homography "$work/aH.txt" 2>&1) ||
  fail "--geometry auto on the bundled pair: $out"
echo "$out"
echo "$out" | grep -q "matches, planar or panoramic: [0-9]* inliers ([FH])," || fail "graf1 -> graf3 is planar: $out"
[ "$(wc -l < "$work/aF.txt")" -eq 3 ] && [ "$(wc -l < "$work/aH.txt")" -eq 3 ] || fail "--geometry auto: both models written"
# The homography mode is the default, and its model file belongs to h and auto.
out=$("$glsurf" match --backend cpu --geometry h 2>&1) && echo "$out" | grep -q "matches, [0-9]* inliers, " ||
  fail "--geometry h: $out"
for bad in "--geometry x" "--geometry F" "--geometry f --homography $work/never_h.txt" \
           "--geometry h --fundamental $work/never_f.txt" "--fundamental $work/never_f.txt"; do
  # shellcheck disable=SC2086
  err=$("$glsurf" match "$assets/box.png" "$assets/box_in_scene.png" --backend cpu $bad 2>&1)
  [ $? -eq 2 ] && [ "$(echo "$err" | wc -l)" -eq 1 ] && echo "$err" | grep -q "^glsurf: error: --" ||
    fail "match $bad: one line, exit status 2: $err"
done
[ ! -e "$work/never_h.txt" ] && [ ! -e "$work/never_f.txt" ] || fail "a usage error writes nothing"
echo "all match checks passed"
