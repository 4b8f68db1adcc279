#!/usr/bin/env bash
# Every program the test suite calls comes from a package that scripts/deps.sh installs, so that
# the README's test command passes on a bare Debian 12 and not only on a machine that happens to
# carry the program. For every command that tests/scripts/*.sh calls (tests/support/script_commands.py
# reads them), the Debian package that owns it must be
#   - part of every Debian 12 root (Essential, or Priority required: debootstrap's minbase), or
#   - in scripts/deps.sh's test list (or a direct dependency of a listed package);
# and a command that is not part of every root must be named on the script's posviz_need line, so
# that its absence reads "needs X" once. The test binaries call no external program (checked by
# looking for process-spawning calls in tests/); a new one must be added to the list below.
# A self-check then removes a package from a copy of the list and requires this check to fail
# naming the command that package provides.
#   bash deps_listed.sh <posviz-binary> <scratch-dir>
#   POSVIZ_DEPS_FILE=FILE bash deps_listed.sh ...     check against another copy of scripts/deps.sh
set -u
source "$(dirname "${BASH_SOURCE[0]}")/../support/need.sh"
posviz_need python3 dpkg-query
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
scratch=$(posviz_scratch "${2:?usage: deps_listed.sh POSVIZ SCRATCH}") || exit 1
deps_file=${POSVIZ_DEPS_FILE:-$root/scripts/deps.sh}

# Programs the C++ test binaries start themselves: "source-file program" pairs. Each program must
# come from a package in every Debian 12 root (tar is Essential), checked below.
binary_helpers=("tests/cli/test_tar.cpp tar")

# Candidate paths of CMD (a name or an absolute path) as dpkg may record them: merged /usr means a
# file in /usr/bin may be listed as /bin/..., and an alternative is a link to the real program.
candidates() {
  local c=$1 p
  local -a dirs=()
  if [[ $c == /* ]]; then dirs=("$c"); else dirs=(/usr/bin/"$c" /bin/"$c" /usr/sbin/"$c" /sbin/"$c"); fi
  for p in "${dirs[@]}"; do
    [ -e "$p" ] || continue
    printf '%s\n' "$p" "$(readlink -f "$p")" "${p/#\/usr\/bin\//\/bin\/}" "${p/#\/usr\/sbin\//\/sbin\/}"
  done
}

# owners CMD...: fills owner_of[CMD] with the installed package that owns it (one dpkg query).
declare -A owner_of=()
owners() {
  local c p
  local -a all=()
  declare -A by_path=()
  for c in "$@"; do mapfile -t -O "${#all[@]}" all < <(candidates "$c"); done
  [ ${#all[@]} -gt 0 ] || return 0
  while IFS= read -r line; do
    p=${line#*: }
    by_path[$p]=${line%%: *}
  done < <(dpkg-query -S "${all[@]}" 2>/dev/null | grep -v '^diversion ')
  for c in "$@"; do
    while IFS= read -r p; do
      if [ -n "${by_path[$p]:-}" ]; then local pkg=${by_path[$p]%%,*}; owner_of[$c]=${pkg%%:*}; break; fi
    done < <(candidates "$c")
  done
}

# in_every_root PKG: Essential or Priority required (what debootstrap --variant=minbase installs).
declare -A root_pkg=()
in_every_root() {
  if [ -z "${root_pkg[$1]:-}" ]; then
    local f; f=$(dpkg-query -W -f='${Essential} ${Priority}' "$1" 2>/dev/null)
    if [ "${f%% *}" = "yes" ] || [ "${f#* }" = "required" ]; then root_pkg[$1]=yes; else root_pkg[$1]=no; fi
  fi
  [ "${root_pkg[$1]}" = yes ]
}

# check DEPS_FILE: prints one "FAIL: ..." per problem, "ok: ..." per command; returns failures.
check() {
  local deps=$1 failures=0
  local -a listed
  mapfile -t listed < <(bash -c 'source "$1"; printf "%s\n" "${posviz_packages_test[@]}"' _ "$deps")
  [ ${#listed[@]} -gt 0 ] || { echo "FAIL: $deps defines no posviz_packages_test"; return 1; }
  declare -A provided=()
  local p d
  for p in "${listed[@]}"; do provided[$p]="listed"; done
  local line
  while IFS=$'\t' read -r p line; do  # one query for every listed package's dependencies
    for d in $(tr ',|' '\n\n' <<<"$line" | sed -E 's/\(.*\)//; s/:any//; s/^ +//; s/ +$//' | grep -v '^$'); do
      [ -n "${provided[$d]:-}" ] || provided[$d]="a dependency of $p"
    done
  done < <(dpkg-query -W -f='${Package}\t${Pre-Depends}, ${Depends}\n' "${listed[@]}" 2>/dev/null)
  local script cmds needs cmd pkg
  python3 "$root/tests/support/script_commands.py" "$root"/tests/scripts/*.sh >"$scratch/commands.txt"
  # shellcheck disable=SC2046
  owners $(cut -f2 "$scratch/commands.txt" | tr ' ' '\n' | sort -u)
  while IFS=$'\t' read -r script cmds; do
    needs=" $(python3 "$root/tests/support/script_commands.py" --needs "$script" | cut -f2) "
    for cmd in $cmds; do
      pkg=${owner_of[$cmd]:-}
      if [ -z "$pkg" ]; then
        echo "FAIL: $(basename "$script") calls '$cmd', which no installed Debian package provides: add its package to posviz_packages_test in scripts/deps.sh"
        failures=$((failures + 1)); continue
      fi
      if in_every_root "$pkg"; then
        echo "ok: $(basename "$script"): $cmd ($pkg, in every Debian 12 root)"; continue
      fi
      if [ -z "${provided[$pkg]:-}" ]; then
        echo "FAIL: $(basename "$script") calls '$cmd' from package $pkg, which is not in posviz_packages_test ($deps)"
        failures=$((failures + 1)); continue
      fi
      if [[ $needs != *" $cmd "* ]]; then
        echo "FAIL: $(basename "$script") calls '$cmd' ($pkg) but does not name it on a posviz_need line"
        failures=$((failures + 1)); continue
      fi
      echo "ok: $(basename "$script"): $cmd ($pkg, ${provided[$pkg]})"
    done
  done <"$scratch/commands.txt"
  return "$failures"
}

failures=0
check "$deps_file" >"$scratch/check.log"; rc=$?
cat "$scratch/check.log"
failures=$((failures + rc))
n=$(grep -c '^ok:' "$scratch/check.log")
[ "$n" -ge 50 ] || { echo "FAIL: only $n commands were found in tests/scripts: the reader has stopped seeing them"; failures=$((failures + 1)); }
for must in python3 /usr/bin/time xdotool xvfb-run timeout; do
  grep -qE "[a-z_]+\.sh(: $must \(| calls '$must')" "$scratch/check.log" ||
    { echo "FAIL: the reader did not see '$must', which the scripts call"; failures=$((failures + 1)); }
done

# The test binaries: any process-spawning call in tests/ must be listed in binary_helpers.
while IFS= read -r hit; do
  file=${hit%%:*}
  listed_here=0
  for h in "${binary_helpers[@]}"; do [ "${h%% *}" = "$file" ] && listed_here=1; done
  if [ $listed_here -eq 0 ]; then
    echo "FAIL: $hit starts a program: add it to binary_helpers in deps_listed.sh and its package to scripts/deps.sh"
    failures=$((failures + 1))
  fi
done < <(cd "$root" && grep -rnE '\b(popen|system|execl|execlp|execv|execvp|execvpe|posix_spawnp?)\s*\(' \
           tests --include='*.cpp' --include='*.hpp' | grep -v 'std::system_error')
echo "ok: the test binaries start no program that is not listed"
for h in "${binary_helpers[@]}"; do
  prog=${h#* }
  owners "$prog"
  pkg=${owner_of[$prog]:-}
  if [ -n "$pkg" ] && in_every_root "$pkg"; then
    echo "ok: ${h%% *}: $prog ($pkg, in every Debian 12 root)"
  else
    echo "FAIL: ${h%% *} starts '$prog' (package '${pkg:-none}'), which is not in every Debian 12 root"
    failures=$((failures + 1))
  fi
done

# Self-check: without 'time' and without 'python3' in the list, the check must fail naming both.
if [ -z "${POSVIZ_DEPS_FILE:-}" ]; then
  sed -E 's/ (time|python3)\b//g' "$deps_file" >"$scratch/deps-less.sh"
  if bash -c 'source "$1"; printf "%s\n" "${posviz_packages_test[@]}"' _ "$scratch/deps-less.sh" | grep -qxE 'time|python3'; then
    echo "FAIL: the self-check could not remove time and python3 from a copy of the list"; failures=$((failures + 1))
  else
    check "$scratch/deps-less.sh" >"$scratch/less.log"
    if grep -q "calls '/usr/bin/time' from package time, which is not in posviz_packages_test" "$scratch/less.log" &&
       grep -q "calls 'python3' from package python3-minimal, which is not in posviz_packages_test" "$scratch/less.log"; then
      echo "ok: with time and python3 removed from the list, the check fails naming /usr/bin/time and python3"
    else
      echo "FAIL: removing time and python3 from the list went unnoticed: $(grep FAIL "$scratch/less.log" | head -3)"
      failures=$((failures + 1))
    fi
  fi
fi

echo "deps_listed: $failures failure(s)"
[ "$failures" -eq 0 ]
