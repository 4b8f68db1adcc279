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

# The browser build (scripts/web): emscripten, the host's compiler for the build's own tools, the
# header-only libraries the page compiles against, libimgui-dev (whose version picks the Dear ImGui
# sources), and dpkg-dev (dpkg-source unpacks and checks the source packages).
posviz_packages_web=(emscripten build-essential cmake dpkg-dev python3 libglm-dev libstb-dev nlohmann-json3-dev
  libimgui-dev)
# The page's tests: Debian's Chromium, driven by puppeteer-core from npm. A node that brings its
# own npm (one not from Debian) is used as it is; Debian's npm package would conflict with it.
posviz_packages_webtest=("${posviz_packages_web[@]}" chromium)
command -v npm >/dev/null 2>&1 || posviz_packages_webtest+=(npm)

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

# The source packages the page compiles from, unpacked into DIR (once; a second call finds them).
# Dear ImGui at the version of the installed libimgui-dev (its binary rebuild suffix +bN dropped:
# the source's version), the others at their installed -dev package's source version.
posviz_web_sources() {
  local dir=$1 apt_dir stamp pkgs=() p v src
  mkdir -p "$dir"
  stamp="$dir/.sources"
  for p in libimgui-dev:imgui zlib1g-dev:zlib libspng-dev:libspng libgif-dev:giflib; do
    src=${p#*:}
    v=$(dpkg-query -W -f='${source:Version}' "${p%%:*}" 2>/dev/null) || v=""
    [ -n "$v" ] || v=$(apt-cache policy "${p%%:*}" | awk '/Candidate:/ {print $2}')
    v=${v%+b[0-9]*}
    pkgs+=("$src=$v")
  done
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "${pkgs[*]}" ]; then return 0; fi
  apt_dir="$(cd "$dir/.." && pwd)/web-apt"
  mkdir -p "$apt_dir/lists/partial"
  local suite; suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
  echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $suite main" \
    >"$apt_dir/sources.list"
  echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian-security $suite-security main" \
    >>"$apt_dir/sources.list"
  local o=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
           -o "Dir::State::Lists=$apt_dir/lists" -o APT::Sandbox::User=root)
  echo "posviz: fetching the source packages ${pkgs[*]}" >&2
  apt-get "${o[@]}" -qq update || return 1
  rm -rf "$dir"/*/
  # apt checks each .dsc against the signed Sources index; dpkg-source -x checks every tarball
  # against its .dsc (sizes and SHA-256) before unpacking.
  (cd "$dir" && apt-get "${o[@]}" -qq source "${pkgs[@]}" >/dev/null) || return 1
  echo "${pkgs[*]}" >"$stamp"
}

# Builds the two variants of the page and lays out build/web/. posviz_web_build ROOT
posviz_web_build() {
  local root=$1 web="$1/build/web" jobs; jobs=$(nproc)
  export NODE_PATH=/usr/share/nodejs   # Debian's emscripten runs on Debian's node modules
  mkdir -p "$root/build/web-host"
  if [ ! -x "$root/build/web-host/posviz_embed_files" ] || [ "$root/cmake/embed_files.cpp" -nt "$root/build/web-host/posviz_embed_files" ]; then
    c++ -std=c++20 -O2 "$root/cmake/embed_files.cpp" -o "$root/build/web-host/posviz_embed_files" || return 1
  fi
  local variant threads
  for variant in st mt; do
    threads=OFF; [ $variant = mt ] && threads=ON
    emcmake cmake -S "$root" -B "$root/build/web-$variant" -DCMAKE_BUILD_TYPE=Release -DPOSVIZ_WERROR=ON \
      -DPOSVIZ_WEB_THREADS=$threads -DPOSVIZ_WEB_SOURCES="$root/build/web-src" \
      -DPOSVIZ_EMBED_TOOL="$root/build/web-host/posviz_embed_files" >/dev/null || return 1
    cmake --build "$root/build/web-$variant" --parallel "$jobs" --target posviz || return 1
  done
  rm -rf "$web.new"
  mkdir -p "$web.new"
  cp "$root/app/gui/platform/web/index.html" "$root/app/gui/platform/web/_headers" "$root/assets/icons/posviz.svg" "$web.new/"
  cp "$root/build/web-st/app/posviz.js" "$root/build/web-st/app/posviz.wasm" "$web.new/"
  cp "$root/build/web-mt/app/posviz-mt.js" "$root/build/web-mt/app/posviz-mt.wasm" "$root/build/web-mt/app/posviz-mt.worker.js" "$web.new/"
  rm -rf "$web"
  mv "$web.new" "$web"
}

# puppeteer-core for the page's tests, into DIR/node_modules (once; no browser is downloaded:
# the tests drive Debian's /usr/bin/chromium).
posviz_web_test_modules() {
  local dir=$1
  [ -d "$dir/node_modules/puppeteer-core" ] && return 0
  mkdir -p "$dir"
  (cd "$dir" && npm install --silent --no-audit --no-fund --no-save "puppeteer-core@24" >/dev/null) || return 1
}
