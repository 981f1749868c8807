#!/bin/sh
# Every command's --help, made from its option table: each option entry
# with a value names its default, and the parser takes each option the help
# lists (a flag alone, an option with its default as the value): followed
# by an unknown option, the one error is about that unknown option, which
# means everything before it was read (a name the table lacks, or a row the
# command never reads, would end in an internal error, exit status 3).
# Usage: cli_help.sh GLSURF ASSETS
. "$(dirname "$0")/cli_common.sh"

# The commands, from bare glsurf's overview; bench's benchmarks from its help.
commands=$("$glsurf" 2>&1 | sed -n '/^commands:/,/^$/s/^  \([a-z]*\) .*/\1/p')
[ "$(echo "$commands" | wc -l)" -ge 8 ] || fail "the overview lists the commands: $commands"
parts=$("$glsurf" bench --help | sed -n '/^benchmarks/,/^$/s/^  \([a-z]*\) .*/\1/p')
[ "$(echo "$parts" | wc -l)" -eq 7 ] || fail "bench --help lists its benchmarks: $parts"

checked=0
for topic in $commands $(for p in $parts; do echo "bench/$p"; done); do
  words=$(echo "$topic" | tr / ' ')
  # shellcheck disable=SC2086
  "$glsurf" $words --help >"$work/help.txt" 2>&1 || fail "$words --help: $(cat "$work/help.txt")"
  head -n 1 "$work/help.txt" | grep -q "^usage: glsurf $words" || fail "$words --help: $(head -n 1 "$work/help.txt")"
  grep -q "^example:" "$work/help.txt" && grep -A1 "^example:" "$work/help.txt" | grep -q "^  glsurf $words" ||
    fail "$words --help has no example"
  # One entry per option: its first line starts "  NAME [VALUE]", then two
  # spaces or more before the text (or the text on the next lines, indented
  # further); an entry is printed as "NAME [VALUE]", a tab, and its lines
  # joined.
  awk '/^options/ { on = 1; next } on && /^$/ { on = 0 }
       on && /^  -/ { if (e != "") print h "\t" e; e = $0; split($0, f, "  +"); h = f[2]; next }
       on { sub(/^ +/, " "); e = e $0 } END { if (e != "") print h "\t" e }' "$work/help.txt" >"$work/entries.txt"
  while IFS="$(printf '\t')" read -r head entry; do
    name=${head%% *}
    default=
    if [ "$name" != "$head" ]; then  # an option with a value
      default=$(echo "$entry" | sed -n 's/.*(default: \(.*\))$/\1/p')
      [ -n "$default" ] || fail "$words --help: $name names no default: $entry"
      # A default that is one word is a value the option takes.
      case "$default" in
        *" "* | none) continue ;;
      esac
      # shellcheck disable=SC2086
      err=$(cd "$work" && "$glsurf" $words "$name" "$default" --zzz 2>&1 </dev/null)
    else
      # shellcheck disable=SC2086
      err=$(cd "$work" && "$glsurf" $words "$name" --zzz 2>&1 </dev/null)
    fi
    status=$?
    [ $status -eq 2 ] && [ "$err" = "glsurf: error: unknown option --zzz for $words (see glsurf $words --help)" ] ||
      fail "$words $name${default:+ $default}: exit status $status, $err"
    checked=$((checked + 1))
  done <"$work/entries.txt"
done
[ "$checked" -ge 60 ] || fail "only $checked options checked"

# Defaults as the options have them.
expect() {  # expect "COMMAND" OPTION DEFAULT
  # shellcheck disable=SC2086
  "$glsurf" $1 --help | awk '/^  -/ { if (e != "") print e; e = $0; next } /^    / { sub(/^ +/, " "); e = e $0; next }
                            { if (e != "") print e; e = "" }' |
    grep -q -- "^  $2 .*(default: $3)$" || fail "$1 --help: $2 with default $3"
}
expect detect --threshold 100
expect detect --octaves 4
expect detect --backend gl
expect match --ratio 0.8
expect view --hud on
expect "bench integral" --runs 7
expect "bench detect" --runs 9
expect "bench match" --cpu-up-to 4096
expect "bench throughput" --images 100
echo "checked $checked options"
echo "all help checks passed"
