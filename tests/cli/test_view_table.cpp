// The one vocabulary (app/cli/tabs.hpp) and the view table (app/cli/view_table.hpp): every name
// resolves, every reference between them holds, and the window's File > Export entry writes the
// same file as the command line.
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/cli.hpp"
#include "app/cli/request.hpp"
#include "app/cli/view_table.hpp"
#include "app/cli/tabs.hpp"
#include "app/cli/window_options.hpp"
#include "core/context_extension.hpp"
#include "core/lessons/learn.hpp"
#include "core/npy.hpp"

namespace fs = std::filesystem;
using posviz::cli::findTab;
using posviz::cli::findView;
using posviz::cli::UsageError;

namespace {

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::path(POSVIZ_TEST_OUT) / "view_table" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string readBytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

int runCli(std::vector<std::string> args) {
  args.insert(args.begin(), "posviz");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return posviz::cli::runCli(static_cast<int>(argv.size()), argv.data()).value_or(-1);
}

}  // namespace

TEST_SUITE("view_table") {

TEST_CASE("view_table: every view, alias and tab name resolves, and names are unique") {
  std::set<std::string> names;
  for (const posviz::cli::ViewDef& v : posviz::cli::viewTable()) {
    CAPTURE(v.name);
    CHECK(names.insert(v.name).second);
    CHECK(findView(v.name) == &v);
    for (const std::string& a : v.aliases) {
      CAPTURE(a);
      CHECK(names.insert(a).second);
      CHECK(findView(a) == &v);
    }
    CHECK(findTab(v.tab) != nullptr);          // drawn by a tab that exists
    CHECK(static_cast<bool>(v.compute));
    CHECK(static_cast<bool>(v.elements));      // sized before any work
    for (const std::string& o : v.options) {
      CAPTURE(o);
      CHECK_NOTHROW(posviz::cli::specOf(o));   // every option has a range and help
    }
  }
  std::set<std::string> tabNames;
  for (const posviz::cli::TabDef& t : posviz::cli::tabs()) {
    CAPTURE(t.name);
    CHECK(tabNames.insert(t.name).second);
    CHECK(findTab(t.name) == &t);
    for (const std::string& a : t.aliases) CHECK(findTab(a) == &t);
    if (!t.mainView.empty()) {
      REQUIRE(findView(t.mainView) != nullptr);
      CHECK(findView(t.mainView)->tab == t.name);   // the main view is one the tab draws
      CHECK(findView(t.name) == findView(t.mainView));
    } else {
      CHECK(findView(t.name) == nullptr);
    }
  }
  CHECK(findView("rope-score")->name == "rope-scores");
  CHECK(findView("context")->name == "rope-freqs");
  CHECK(findView("word-order")->name == "attention");
  CHECK(findView("nosuch") == nullptr);
  CHECK(findTab("context")->name == "context-extension");
}

TEST_CASE("tabs: a tab's --panel name is its title in lower case with dashes, older names stay aliases") {
  for (const posviz::cli::TabDef& t : posviz::cli::tabs()) {
    std::string kebab;
    for (char c : t.title) kebab += c == ' ' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    CHECK_MESSAGE(t.name == kebab, t.title);
  }
  // The names used before the tabs were named after their titles still open them.
  const std::pair<const char*, const char*> older[] = {{"context", "context-extension"}, {"image", "image-rope"}, {"examples", "worked-examples"},
                                                       {"pipeline", "where-position-enters"}, {"order", "word-order"}};
  for (const auto& [old, now] : older) {
    REQUIRE(posviz::cli::findTab(old) != nullptr);
    CHECK(posviz::cli::findTab(old)->name == now);
  }
  // Every Learn step opens a tab by its name.
  for (const posviz::learn::Chapter& c : posviz::learn::chapters())
    for (const posviz::learn::Step& st : c.steps) {
      const posviz::cli::TabDef* tab = posviz::cli::findTab(st.openTab);
      REQUIRE_MESSAGE(tab != nullptr, st.id);
      CHECK_MESSAGE(tab->name == st.openTab, st.id);
    }
}

TEST_CASE("view_table: posviz export accepts tab names and aliases, with the same numbers") {
  const fs::path dir = scratch("aliases");
  REQUIRE(runCli({"export", "rope-scores", "--head-dim", "4", "--positions", "5", "-o", (dir / "a.npy").string()}) == 0);
  REQUIRE(runCli({"export", "rope-score", "--head-dim", "4", "--positions", "5", "-o", (dir / "b.npy").string()}) == 0);
  CHECK(readBytes(dir / "a.npy") == readBytes(dir / "b.npy"));
  REQUIRE(runCli({"export", "sinusoidal", "--d-model", "8", "--positions", "3", "--layout", "t2t", "-o", (dir / "t.npy").string()}) == 0);
  REQUIRE(runCli({"export", "sinusoidal", "--d-model", "8", "--positions", "3", "--layout", "tensor2tensor", "-o",
                  (dir / "u.npy").string()}) == 0);
  CHECK(readBytes(dir / "t.npy") == readBytes(dir / "u.npy"));
  REQUIRE(runCli({"export", "alibi", "--heads", "2", "--positions", "3", "-o", (dir / "alibi.npy").string()}) == 0);
  const posviz::NpyArray bias = posviz::readNpy((dir / "alibi.npy").string());
  CHECK(bias.shape == std::vector<std::int64_t>{2, 3, 3});
  CHECK(bias.data[1] == doctest::Approx(-0.0625));   // head 1 of 2: slope 2^-4, |0 - 1| = 1
  CHECK(runCli({"export", "examples", "-o", (dir / "x.npy").string()}) == 2);  // a tab with nothing to export
  CHECK_THROWS_WITH_AS(posviz::cli::exportWithArguments({"examples", "-o", (dir / "x.npy").string()}),
                       doctest::Contains("the worked-examples tab has no array of numbers to export (posviz examples prints them)"), UsageError);
}

TEST_CASE("view_table: exportWithArguments writes the file runCli writes, and commandLine quotes for a shell") {
  const fs::path dir = scratch("shared");
  const std::vector<std::string> args = {"attention", "--text", "the sky is not", "--encoding", "rope"};
  std::vector<std::string> a = args, b = args;
  a.insert(a.end(), {"-o", (dir / "cli.json").string()});
  b.insert(b.end(), {"-o", (dir / "window.json").string()});
  a.insert(a.begin(), "export");
  REQUIRE(runCli(a) == 0);
  double last = -1.0;
  posviz::cli::exportWithArguments(b, [&](double f) {
    CHECK(f >= last);   // progress only moves forward
    last = f;
  });
  CHECK(readBytes(dir / "cli.json") == readBytes(dir / "window.json"));
  CHECK(posviz::cli::commandLine(args) == "posviz export attention --text 'the sky is not' --encoding rope");
  CHECK(posviz::cli::commandLine({"x", "it's"}) == "posviz export x 'it'\\''s'");
  CHECK_THROWS_WITH_AS(posviz::cli::exportWithArguments({"nosuch", "-o", (dir / "n.npy").string()}),
                       doctest::Contains("unknown view \"nosuch\""), UsageError);
  CHECK_THROWS_WITH_AS(posviz::cli::exportWithArguments({"sinusoidal", "--d-model", "7", "-o", (dir / "n.npy").string()}),
                       doctest::Contains("--d-model: got \"7\""), UsageError);
  CHECK_FALSE(fs::exists(dir / "n.npy"));
}

TEST_CASE("view_table: mrope-angles gives Qwen2-VL's position ids, and text tokens rotate as plain RoPE") {
  const fs::path dir = scratch("mrope");
  posviz::cli::exportWithArguments({"mrope-angles", "--preset", "qwen2.5-vl-7b", "--sequence", "2,1x4x6,2", "-o",
                                    (dir / "m.json").string()});
  const nlohmann::json m = nlohmann::json::parse(readBytes(dir / "m.json"));
  // HF modeling_qwen2_vl.py get_rope_index: text 0, 1; the processor's 1x4x6 grid merges
  // (spatial_merge_size 2) to 1x2x3 patches; from st_idx = 2 they take
  // (2 + k, 2 + i, 2 + j); the next text starts at 1 + the largest id, 5.
  CHECK(m["position_ids"]["t"] == nlohmann::json({0, 1, 2, 2, 2, 2, 2, 2, 5, 6}));
  CHECK(m["position_ids"]["h"] == nlohmann::json({0, 1, 2, 2, 2, 3, 3, 3, 5, 6}));
  CHECK(m["position_ids"]["w"] == nlohmann::json({0, 1, 2, 3, 4, 2, 3, 4, 5, 6}));
  CHECK(m["shape"] == nlohmann::json({10, 64}));
  CHECK(m["pair_axes"][15] == "t");   // mrope_section 16, 24, 24: pairs 0-15 t, 16-39 h, 40-63 w
  CHECK(m["pair_axes"][16] == "h");
  CHECK(m["pair_axes"][40] == "w");
  posviz::cli::exportWithArguments({"rope-angles", "--preset", "qwen2.5-vl-7b", "--positions", "7", "-o", (dir / "r.json").string()});
  const nlohmann::json r = nlohmann::json::parse(readBytes(dir / "r.json"));
  CHECK(m["values"][1] == r["values"][1]);   // a text token: all three ids agree
  CHECK(m["values"][9][0] == r["values"][6][0]);   // the last text token sits at position 6
  // Image token 5 is (t, h, w) = (2, 3, 2): a w-pair turns by 2 * theta, an h-pair by 3 * theta.
  CHECK(m["values"][5][40] == r["values"][2][40]);
  CHECK(m["values"][5][16] == r["values"][3][16]);
  CHECK_THROWS_WITH_AS(posviz::cli::exportWithArguments({"mrope-angles", "--head-dim", "8", "-o", (dir / "x.npy").string()}),
                       doctest::Contains("--section: none given"), UsageError);
  CHECK_THROWS_WITH_AS(posviz::cli::exportWithArguments({"mrope-angles", "--head-dim", "8", "--section", "2,1,2", "-o",
                                                         (dir / "x.npy").string()}),
                       doctest::Contains("summing to the 4 rotary pairs"), UsageError);
  CHECK_THROWS_WITH_AS(posviz::cli::exportWithArguments({"mrope-angles", "--head-dim", "8", "--section", "2,1,1", "--sequence",
                                                         "3,0x1x1", "-o", (dir / "x.npy").string()}),
                       doctest::Contains("expected an image TxHxW"), UsageError);
}

TEST_CASE("view_table: the window's flags parse with the CLI's parser and name what is wrong") {
  using posviz::cli::parseWindowOptions;
  const posviz::cli::WindowOptions w = parseWindowOptions({"--panel", "context", "--size", "800x600", "--gl33"});
  CHECK(w.panel == "context-extension");   // the older name resolves to the tab's name
  CHECK(w.width == 800);
  CHECK(w.height == 600);
  CHECK(w.gl33);
  CHECK(w.useSettings);
  const posviz::cli::WindowOptions shots = parseWindowOptions({"--screenshot-all", "out"});
  CHECK(shots.screenshotAll == "out");
  CHECK_FALSE(shots.useSettings);   // reproducible pictures
  CHECK(shots.width == 1440);
  CHECK_THROWS_WITH_AS(parseWindowOptions({"--panel", "ropes"}), doctest::Contains("expected one of learn, sinusoidal, learned"),
                       UsageError);
  // --step opens Learn on a step; it names an unknown id and refuses another tab.
  const posviz::cli::WindowOptions step = parseWindowOptions({"--step", "rope-2d"});
  CHECK(step.step == "rope-2d");
  CHECK(step.panel == "learn");
  CHECK(parseWindowOptions({"--panel", "start", "--step", "alibi-4"}).step == "alibi-4");   // "start" is Learn's alias
  CHECK_THROWS_WITH_AS(parseWindowOptions({"--step", "rope-3d"}), doctest::Contains("--step: got \"rope-3d\", expected a Learn step id"),
                       UsageError);
  CHECK_THROWS_WITH_AS(parseWindowOptions({"--panel", "rope", "--step", "rope-2d"}), doctest::Contains("but --panel rope was given"), UsageError);
  CHECK_THROWS_WITH_AS(parseWindowOptions({"--size", "100x100"}), doctest::Contains("320 <= W"), UsageError);
  CHECK_THROWS_WITH_AS(parseWindowOptions({"--bench-frames", "5"}), doctest::Contains("[10, 100000]"), UsageError);
  CHECK_THROWS_WITH_AS(parseWindowOptions({"--panle", "rope"}), doctest::Contains("--panel"), UsageError);
  CHECK_THROWS_WITH_AS(parseWindowOptions({"expor"}), doctest::Contains("unknown command \"expor\""), UsageError);
}

TEST_CASE("view_table: --screenshot FILE and --config / --preset open the window as a script would") {
  using posviz::cli::parseWindowOptions;
  const posviz::cli::WindowOptions one = parseWindowOptions({"--panel", "alibi", "--screenshot", "a.png"});
  CHECK(one.screenshot == "a.png");
  CHECK_FALSE(one.useSettings);
  CHECK(one.width == 1440);
  const posviz::cli::WindowOptions model = parseWindowOptions({"--preset", "llama-3.1-8b"});
  REQUIRE(model.model.has_value());
  CHECK(model.model->rope.base == 500000.0);
  CHECK(model.useSettings);
  CHECK_THROWS_WITH_AS(parseWindowOptions({"--screenshot", "a.jpg"}), doctest::Contains("expected a file name ending in .png"),
                       UsageError);
  CHECK_THROWS_WITH_AS(parseWindowOptions({"--preset", "llama-9"}), doctest::Contains("--preset: unknown preset \"llama-9\""),
                       UsageError);
  CHECK_THROWS_WITH_AS(parseWindowOptions({"--config", "/nonexistent/config.json"}), doctest::Contains("--config: cannot read"),
                       UsageError);
  CHECK_THROWS_WITH_AS(parseWindowOptions({"--config", "a.json", "--preset", "gpt2"}), doctest::Contains("given together with --preset"),
                       UsageError);
}

}  // TEST_SUITE
