# Sourced by tests/scripts/*.sh:  posviz_need CMD...
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
