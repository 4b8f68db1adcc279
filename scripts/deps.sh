#!/usr/bin/env bash
# Installs what posviz needs from Debian 12's packages, only what is missing.
# Sourced by scripts/run and scripts/test:  posviz_install_deps run|test
# Uses sudo when not root. Never runs apt-get when everything is present.

posviz_packages_run=(build-essential cmake pkg-config libglm-dev libglfw3-dev libepoxy-dev
  libimgui-dev libstb-dev libspng-dev libgif-dev
  libavcodec-dev libavformat-dev libswscale-dev nlohmann-json3-dev doctest-dev)
# The tests add: a display and software GL (xvfb, xauth, libgl1-mesa-dri), the programs that
# tests/scripts/*.sh call (xdotool, python3, time; tests/scripts/deps_listed.sh checks that every
# one is here), and the fuzzing stage's compiler and runtime (clang, libclang-rt-14-dev).
posviz_packages_test=("${posviz_packages_run[@]}" xvfb xauth libgl1-mesa-dri
  xdotool python3 time clang libclang-rt-14-dev)

posviz_install_deps() {
  local which=${1:-run} missing=() p
  local -n list="posviz_packages_${which}"
  for p in "${list[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "posviz: installing ${missing[*]}" >&2
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "posviz: need root or sudo to install: ${missing[*]}" >&2; return 1; }
    sudo=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq || return 1
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" || return 1
}

# Configure and build a tree. posviz_build DIR [cmake args...]
posviz_build() {
  local dir=$1; shift
  local root; root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  # Configuring an existing tree is quick and applies the options given now.
  cmake -S "$root" -B "$dir" "$@" >/dev/null || return 1
  cmake --build "$dir" --parallel "$(nproc)" || return 1
}
