#!/usr/bin/env bash
# Each folder includes only what its row of README's architecture table allows. The linker keeps
# the targets apart where a library must be linked (GL, GLFW, ImGui, spng); header-only libraries
# (nlohmann-json, stb) and sibling folders' headers would slip past it, so this check reads every
# #include:
#   core/            the standard library, POSIX and compiler headers, glm, and core/*.hpp only
#   core/lessons/    core/ (not core/gpu/), the standard library, nlohmann-json (its data files)
#   core/gpu/        core/ (not core/lessons/), the standard library, epoxy, GLFW
#   core/train/      core/ (not core/gpu/ or core/lessons/), the standard library, glm
#   app/cli/         no GL, GLFW, ImGui or epoxy header, nothing from app/gui/ or core/gpu/
#   core/ (all)      nothing from app/
#   app/gui/base/    nothing from the shell, the panels or the widgets (it is below them all)
#   app/gui/panels/, app/gui/widgets/   nothing from app/gui/shell/
#   app/gui/shell/   of the panels, only the panel list (app/gui/panels/panels.hpp)
#   app/gui/platform/  nothing else of app/gui (the desktop's and the page's layer is below it all)
# A self-check plants one violation per rule in a scratch tree and requires each to be named.
#   bash include_rules.sh <posviz-binary> <scratch-dir>
set -u
source "$(dirname "${BASH_SOURCE[0]}")/../support/need.sh"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
scratch=$(posviz_scratch "${2:?usage: include_rules.sh POSVIZ SCRATCH}") || exit 1

posix='^<(sys/[a-z_]+\.h|fcntl\.h|unistd\.h|pthread\.h|immintrin\.h|emmintrin\.h)>$'
std='^<[a-z_]+>$'   # <vector>, <cmath>, <string_view>: the C++ standard library's names

# violations TREE: one line per include a folder may not have: "file:line: #include X (rule)".
violations() {
  local tree=$1 file line inc
  while IFS=: read -r file line inc; do
    inc=${inc#\#include }
    inc=${inc%%[[:space:]]*}
    local rel=${file#"$tree"/} why=""
    case $rel in
      core/gpu/*)
        if [[ $inc == \"* ]]; then [[ $inc == \"core/* && $inc != \"core/lessons/* ]] || why="core/gpu includes only core/"
        elif ! [[ $inc =~ $std || $inc =~ $posix || $inc == \<epoxy/* || $inc == \<GLFW/* || $inc == \<glm/* ]]; then why="core/gpu: standard, epoxy, GLFW, glm only"; fi ;;
      core/train/*)
        if [[ $inc == \"* ]]; then [[ $inc == \"core/* && $inc != \"core/gpu/* && $inc != \"core/lessons/* ]] || why="core/train includes only core/ (not core/gpu/ or core/lessons/)"
        elif ! [[ $inc =~ $std || $inc =~ $posix || $inc == \<glm/* ]]; then why="core/train: the standard library and glm only"; fi ;;
      core/lessons/*)
        if [[ $inc == \"* ]]; then [[ $inc == \"core/* && $inc != \"core/gpu/* ]] || why="core/lessons includes only core/ (not core/gpu/)"
        elif ! [[ $inc =~ $std || $inc =~ $posix || $inc == \<nlohmann/* || $inc == \<glm/* ]]; then why="core/lessons: standard, nlohmann-json, glm only"; fi ;;
      core/*)
        if [[ $inc == \"* ]]; then [[ $inc =~ ^\"core/[a-z_0-9]+\.(hpp|inl)\"$ ]] || why="core includes only core/*.hpp"
        elif ! [[ $inc =~ $std || $inc =~ $posix || $inc == \<glm/* ]]; then why="core: the standard library and glm only"; fi ;;
      app/cli/*)
        if [[ $inc == \<imgui* || $inc == \<GLFW/* || $inc == \<epoxy/* || $inc == \<backends/* || $inc == \"app/gui/* || $inc == \"core/gpu/* ]]; then
          why="app/cli is headless: no GL, GLFW, ImGui, app/gui or core/gpu"
        fi ;;
      app/gui/base/*)
        [[ $inc == \"app/gui/shell/* || $inc == \"app/gui/panels/* || $inc == \"app/gui/widgets/* ]] && why="app/gui/base is below the shell, panels and widgets" ;;
      app/gui/panels/* | app/gui/widgets/*)
        [[ $inc == \"app/gui/shell/* ]] && why="panels and widgets do not include the shell (what they share is in app/gui/base/)" ;;
      app/gui/platform/*)
        [[ $inc == \"app/gui/* && $inc != \"app/gui/platform/* ]] && why="app/gui/platform is below the window: nothing else of app/gui" ;;
      app/gui/shell/*)
        [[ $inc == \"app/gui/panels/* && $inc != \"app/gui/panels/panels.hpp\" ]] && why="the shell includes only the panel list (app/gui/panels/panels.hpp)" ;;
    esac
    [ -n "$why" ] && echo "$rel:$line: #include $inc ($why)"
  done < <(grep -rnE '^[[:space:]]*#[[:space:]]*include' "$tree/core" "$tree/app/cli" "$tree/app/gui" --include='*.cpp' --include='*.hpp' 2>/dev/null |
           sed -E 's/^([^:]+):([0-9]+):[[:space:]]*#[[:space:]]*include[[:space:]]*/\1:\2:#include /')
}

found=$(violations "$root")
if [ -z "$found" ]; then ok "every include in core/, app/cli/ and app/gui/ is one its folder may have"
else while IFS= read -r v; do fail "$v"; done <<<"$found"; fi
n=$(grep -rhcE '^#include' "$root/core" "$root/app/cli" --include='*.cpp' --include='*.hpp' | awk '{s += $1} END {print s}')
[ "$n" -gt 500 ] && ok "$n includes read" || fail "only $n includes read: the reader has stopped seeing them"

# Self-check: a planted violation of each rule is named.
mkdir -p "$scratch/t/core/gpu" "$scratch/t/core/lessons" "$scratch/t/app/cli" "$scratch/t/core/train" \
         "$scratch/t/app/gui/shell" "$scratch/t/app/gui/panels" "$scratch/t/app/gui/base" "$scratch/t/app/gui/platform"
printf '#include <vector>\n#include <nlohmann/json.hpp>\n#include "app/cli/args.hpp"\n' >"$scratch/t/core/a.cpp"
printf '#include "core/lessons/x.hpp"\n#include <imgui.h>\n' >"$scratch/t/core/gpu/g.cpp"
printf '#include "core/gpu/backend.hpp"\n#include <GLFW/glfw3.h>\n' >"$scratch/t/core/lessons/l.cpp"
printf '#include <imgui.h>\n#include "app/gui/shell/app_shell.hpp"\n#include <nlohmann/json.hpp>\n' >"$scratch/t/app/cli/c.cpp"
printf '#include "core/lessons/learn.hpp"\n#include <nlohmann/json.hpp>\n#include "core/rope.hpp"\n' >"$scratch/t/core/train/t.cpp"
printf '#include "app/gui/panels/panels.hpp"\n#include "app/gui/panels/panel_rope.hpp"\n' >"$scratch/t/app/gui/shell/s.cpp"
printf '#include "app/gui/shell/settings.hpp"\n' >"$scratch/t/app/gui/panels/p.cpp"
printf '#include "app/gui/widgets/plot.hpp"\n' >"$scratch/t/app/gui/base/b.hpp"
printf '#include "app/gui/shell/app_shell.hpp"\n#include "app/gui/platform/gl.hpp"\n' >"$scratch/t/app/gui/platform/w.cpp"
planted=$(violations "$scratch/t")
for want in "core/a.cpp:2: #include <nlohmann/json.hpp>" "core/a.cpp:3: #include \"app/cli/args.hpp\"" \
            "core/gpu/g.cpp:1:" "core/gpu/g.cpp:2:" "core/lessons/l.cpp:1:" "core/lessons/l.cpp:2:" \
            "app/cli/c.cpp:1:" "app/cli/c.cpp:2:" "core/train/t.cpp:1:" "core/train/t.cpp:2:" \
            "app/gui/shell/s.cpp:2:" "app/gui/panels/p.cpp:1:" "app/gui/base/b.hpp:1:" "app/gui/platform/w.cpp:1:"; do
  grep -qF -- "$want" <<<"$planted" && ok "a planted violation is named: $want" || fail "a planted violation went unnoticed: $want"
done
grep -qF "core/a.cpp:1:" <<<"$planted" && fail "<vector> in core was called a violation" || ok "<vector> in core is allowed"
grep -qF "app/gui/shell/s.cpp:1:" <<<"$planted" && fail "the panel list in the shell was called a violation" || ok "the shell may include the panel list"
grep -qF "app/gui/platform/w.cpp:2:" <<<"$planted" && fail "the platform layer's own header was called a violation" || ok "the platform layer may include itself"
grep -qF "core/train/t.cpp:3:" <<<"$planted" && fail "core in core/train was called a violation" || ok "core/train may include core"
grep -qF "app/cli/c.cpp:3:" <<<"$planted" && fail "nlohmann in app/cli was called a violation" || ok "nlohmann-json in app/cli is allowed"
posviz_summary include_rules
