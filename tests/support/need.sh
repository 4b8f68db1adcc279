# Sourced by tests/scripts/*.sh: posviz_need CMD..., ok / fail / posviz_summary, posviz_scratch.
# Every CMD must be a program on PATH (or an executable absolute path); otherwise the script stops
# here with one line naming what is missing, instead of reading the helper's absence as a verdict
# on posviz. scripts/deps.sh lists the Debian packages that provide them (tests/scripts/deps_listed.sh
# keeps that list and these lines complete).
posviz_need() {
  local c missing=()
  for c in "$@"; do
    if [[ $c == /* ]]; then
      [ -x "$c" ] || missing+=("$c")
    else
      command -v "$c" >/dev/null 2>&1 || missing+=("$c")
    fi
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "FAIL: needs ${missing[*]}: not installed (scripts/test installs the test packages listed in scripts/deps.sh)"
    exit 1
  fi
}

# ok / fail: one line per check ("ok: ..." or "FAIL: ..."), counted in $checks and $failures;
# posviz_summary NAME prints the count and returns 1 on any failure.
checks=0
failures=0
ok() { checks=$((checks + 1)); echo "ok: $*"; }
fail() { checks=$((checks + 1)); failures=$((failures + 1)); echo "FAIL: $*"; }
posviz_summary() {
  echo "$1: $checks checks, $failures failed"
  [ "$failures" -eq 0 ]
}

# posviz_scratch DIR: DIR made empty and absolute, printed (scratch=$(posviz_scratch "$2")).
posviz_scratch() {
  rm -rf "$1" && mkdir -p "$1" && (cd "$1" && pwd)
}
