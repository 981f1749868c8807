#!/bin/sh
# A short fuzz run of every libFuzzer target (tests/fuzz), each for SECONDS
# (60 by default) from seeds made of the committed data: the bundled images,
# the test JPEGs, feature files detect writes of one of them, the bundled
# homography, an EXIF block (tests/data/exif_focal.tiff). Skipped (exit 77,
# with the reason) where Clang's libFuzzer is not installed. Usage: fuzz_smoke.sh SOURCE_DIR BUILD_DIR GLSURF [SECONDS]
set -u
source=$1 build=$2 glsurf=$3 seconds=${4:-60}
fail() { echo "FAILED: $*"; exit 1; }
command -v clang++ >/dev/null || { echo "SKIPPED: clang++ is not installed (the fuzz targets need Clang's libFuzzer)"; exit 77; }
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long) { return 0; }\n' > "$probe/p.cpp"
clang++ -fsanitize=fuzzer,address,undefined "$probe/p.cpp" -o "$probe/p" 2>/dev/null ||
  { echo "SKIPPED: clang++ cannot link libFuzzer with the sanitizers (Debian: libclang-rt-14-dev)"; exit 77; }

dir="$build/fuzz"
out=$(CXX=clang++ cmake -S "$source" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGLSURF_FUZZ=ON \
      -DGLSURF_BUILD_TESTS=OFF -DGLSURF_BUILD_EXAMPLES=OFF -DGLSURF_INSTALL=OFF 2>&1) || fail "configure: $out"
targets="fuzz_image fuzz_piped_image fuzz_features fuzz_homography fuzz_jpeg_frame fuzz_exif"
out=$(cmake --build "$dir" -j2 --target $targets 2>&1) || fail "build: $(echo "$out" | tail -n 20)"

seeds="$probe/seeds"
mkdir -p "$seeds/images" "$seeds/features" "$seeds/homography" "$seeds/exif"
cp "$source"/assets/*.png "$source"/tests/data/*.jpg "$seeds/images/"
"$glsurf" detect "$source/assets/box.png" --backend cpu --max-features 20 -o "$seeds/features/box.txt" >/dev/null 2>&1 &&
  "$glsurf" detect "$source/assets/box.png" --backend cpu --max-features 20 -o "$seeds/features/box.bin" >/dev/null 2>&1 ||
  fail "detect for the feature seeds"
cp "$source/assets/H1to3p.xml" "$seeds/homography/"
cp "$source/tests/data/exif_focal.tiff" "$source"/tests/data/*.jpg "$seeds/exif/"
printf '1 0 10\n0 1 -5\n0 0 1\n' > "$seeds/homography/shift.txt"
for target in $targets; do
  case $target in
    fuzz_features) seed=features ;;
    fuzz_homography) seed=homography ;;
    fuzz_exif) seed=exif ;;
    *) seed=images ;;
  esac
  corpus="$probe/corpus_$target"
  mkdir -p "$corpus"
  log=$("$dir/tests/fuzz/$target" "$corpus" "$seeds/$seed" -max_total_time="$seconds" -rss_limit_mb=2048 \
        -artifact_prefix="$probe/" 2>&1) || fail "$target: $(echo "$log" | tail -n 30)"
  echo "$target: $(echo "$log" | grep -a -E '^Done [0-9]+ runs' | tail -n 1)"
done
echo "all fuzz targets ran ${seconds} s each without a finding"
