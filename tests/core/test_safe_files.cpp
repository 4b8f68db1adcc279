// Tests for the safe writer and reader (core/atomic_file) and untrusted text (core/untrusted_text):
// planted links are never written through, a symlinked target is replaced (or, on request,
// updated where it points), names up to NAME_MAX work, a signal mid-write leaves no temporary file,
// FIFOs and devices are refused without blocking, sizes are capped; messages quote input escaped
// and shortened; JSON nesting is capped before any parser sees it.
#include <doctest/doctest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/atomic_file.hpp"
#include "core/untrusted_text.hpp"

using namespace posviz;
namespace fs = std::filesystem;

namespace {

struct Scratch {
  fs::path path;
  Scratch() {
    path = fs::temp_directory_path() / ("posviz-safe-" + std::to_string(::getpid()) + "-" +
                                        std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
    fs::create_directories(path);
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void spit(const std::string& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

int countEntries(const fs::path& dir) {
  int n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

bool anyTemporary(const fs::path& dir) {
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    if (n.rfind(".posviz-", 0) == 0) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("writeFileAtomically never writes through a planted link") {
  Scratch s;
  const std::string victim = s.file("victim.txt");
  spit(victim, "precious");
  const std::string out = s.file("out.npy");
  // Links an attacker could plant for the names earlier versions used (<out>.tmp-<pid>-<n>, for
  // the pids around ours) and for the name of the target itself.
  const long me = ::getpid();
  for (long pid = me - 50; pid <= me + 50; ++pid) {
    for (int n = 0; n < 3; ++n) fs::create_symlink(victim, out + ".tmp-" + std::to_string(pid) + "-" + std::to_string(n));
    fs::create_symlink(victim, out + ".tmp-" + std::to_string(pid));
  }
  fs::create_symlink(victim, out);
  for (int i = 0; i < 20; ++i) writeFileAtomically(out, [&](std::ostream& o) { o << "export " << i; });
  CHECK(slurp(victim) == "precious");
  CHECK(fs::is_regular_file(fs::symlink_status(out)));  // the link at the target was replaced, not followed
  CHECK(slurp(out) == "export 19");
  CHECK_FALSE(anyTemporary(s.path));
  CHECK(pendingTemporaryFiles() == 0);
}

TEST_CASE("writeFileAtomically: a link at the target is followed only when asked") {
  Scratch s;
  fs::create_directory(s.path / "real");
  const std::string real = (s.path / "real" / "settings.json").string();
  spit(real, "old");
  const std::string link = s.file("settings.json");
  fs::create_symlink("real/settings.json", link);  // relative, as a user would make it
  writeFileAtomically(link, [](std::ostream& o) { o << "new"; }, WriteOptions{.followTargetLink = true});
  CHECK(fs::is_symlink(fs::symlink_status(link)));
  CHECK(slurp(real) == "new");
  CHECK_FALSE(anyTemporary(s.path));
  CHECK_FALSE(anyTemporary(s.path / "real"));

  SUBCASE("a link to a file not yet there creates it") {
    fs::remove(real);
    writeFileAtomically(link, [](std::ostream& o) { o << "fresh"; }, WriteOptions{.followTargetLink = true});
    CHECK(slurp(real) == "fresh");
  }
  SUBCASE("a link loop is refused") {
    const std::string a = s.file("a"), b = s.file("b");
    fs::create_symlink(b, a);
    fs::create_symlink(a, b);
    CHECK_THROWS_WITH_AS(writeFileAtomically(a, [](std::ostream& o) { o << "x"; }, WriteOptions{.followTargetLink = true}),
                         doctest::Contains("too many levels of symbolic links"), std::runtime_error);
  }
}

TEST_CASE("writeFileAtomically: any name the system allows works, the temporary name stays short") {
  Scratch s;
  const long nameMax = ::pathconf(s.path.c_str(), _PC_NAME_MAX);
  REQUIRE(nameMax >= 14);
  const std::string longest = s.file(std::string(static_cast<std::size_t>(nameMax) - 4, 'n') + ".png");
  writeFileAtomically(longest, [](std::ostream& o) { o << "png"; });
  CHECK(slurp(longest) == "png");
  const std::string tooLong = s.file(std::string(static_cast<std::size_t>(nameMax) + 1, 'n'));
  CHECK_THROWS_WITH_AS(writeFileAtomically(tooLong, [](std::ostream& o) { o << "x"; }),
                       doctest::Contains("File name too long"), std::runtime_error);
  CHECK(countEntries(s.path) == 1);
  CHECK_THROWS_WITH_AS(writeFileAtomically(s.file("dir/"), [](std::ostream& o) { o << "x"; }),
                       doctest::Contains("names a folder"), std::runtime_error);
}

TEST_CASE("writeFileAtomically: SIGINT, SIGTERM and SIGHUP during a write leave no temporary file") {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    CAPTURE(sig);
    Scratch s;
    int ready[2];
    REQUIRE(::pipe(ready) == 0);
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      ::close(ready[0]);
      std::signal(sig, SIG_DFL);
      try {
        writeFileAtomically(s.file("big.npy"), [&](std::ostream& o) {
          o << std::string(1 << 20, 'x');
          o.flush();
          (void)!::write(ready[1], "r", 1);  // the temporary file exists now
          for (;;) ::pause();                // a long export, stopped by the signal
        });
      } catch (...) {
      }
      ::_exit(0);
    }
    ::close(ready[1]);
    char c = 0;
    REQUIRE(::read(ready[0], &c, 1) == 1);
    ::close(ready[0]);
    CHECK(anyTemporary(s.path));  // the write was under way
    ::kill(pid, sig);
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    CHECK(WIFSIGNALED(status));  // ended by the signal, as without the handler
    if (WIFSIGNALED(status)) CHECK(WTERMSIG(status) == sig);
    CHECK(countEntries(s.path) == 0);
  }
}

TEST_CASE("readRegularFile refuses anything but a regular file of bounded size, without blocking") {
  Scratch s;
  const std::string fifo = s.file("config.json");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const auto start = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH_AS(readRegularFile(fifo, 1 << 20, "config"),
                       ("cannot read config " + fifo + ": it is a FIFO, not a regular file").c_str(), std::runtime_error);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));
  CHECK_THROWS_WITH_AS(readRegularFile("/dev/zero", 1 << 20, "config"),
                       "cannot read config /dev/zero: it is a character device, not a regular file", std::runtime_error);
  CHECK_THROWS_WITH_AS(readRegularFile(s.path.string(), 1 << 20, "config"), doctest::Contains("it is a directory"),
                       std::runtime_error);
  CHECK_THROWS_WITH_AS(readRegularFile(s.file("missing.json"), 1 << 20, "config"),
                       doctest::Contains("No such file or directory"), std::runtime_error);
  const std::string big = s.file("big.json");
  spit(big, std::string(2048, ' '));
  CHECK_THROWS_WITH_AS(readRegularFile(big, 2047, "settings"), doctest::Contains("larger than the 2047 bytes a settings file may have"),
                       std::runtime_error);
  CHECK(readRegularFile(big, 2048, "settings").size() == 2048);
  // A link to a FIFO is the FIFO.
  fs::create_symlink(fifo, s.file("link.json"));
  CHECK_THROWS_WITH_AS(readRegularFile(s.file("link.json"), 1 << 20, "config"), doctest::Contains("it is a FIFO"), std::runtime_error);
}

TEST_CASE("displayText escapes control characters and bad UTF-8 and shortens long text") {
  CHECK(displayText("llama") == "llama");
  CHECK(displayText("\x1b[2J\x1b[31mred") == "\\x1b[2J\\x1b[31mred");
  CHECK(displayText("a\nb\tc\x7f") == "a\\x0ab\\x09c\\x7f");
  CHECK(displayText("caf\xc3\xa9") == "caf\xc3\xa9");        // valid UTF-8 kept
  CHECK(displayText("caf\xc3") == "caf\\xc3");                // a cut sequence escaped
  CHECK(displayText("\xed\xa0\x80") == "\\xed\\xa0\\x80");    // a surrogate is not UTF-8
  const std::string huge(10 << 20, 'x');
  const std::string shown = displayText(huge);
  CHECK(shown.size() < 120);
  CHECK(shown == std::string(80, 'x') + "... (10485760 bytes)");
  CHECK(displayText(std::string(80, 'y')) == std::string(80, 'y'));  // exactly the limit: not cut
  CHECK(quotedText("say \"hi\"\\") == "\"say \\\"hi\\\"\\\\\"");
  CHECK(quotedText("1\n2") == "\"1\\x0a2\"");
  CHECK(quotedText(huge) == "\"" + std::string(80, 'x') + "... (10485760 bytes)\"");
}

TEST_CASE("jsonNestingProblem finds nesting past the limit, ignoring brackets in strings") {
  CHECK_FALSE(jsonNestingProblem("{\"a\": [1, {\"b\": [2]}]}"));
  CHECK_FALSE(jsonNestingProblem("{\"a\": \"[[[[[[[[[[[[[[[[\"}", 3));
  CHECK_FALSE(jsonNestingProblem("{\"a\\\"[[[[\": 1}", 1));
  CHECK_FALSE(jsonNestingProblem(std::string(64, '[') + std::string(64, ']')));
  const auto deep = jsonNestingProblem(std::string(65, '[') + std::string(65, ']'));
  REQUIRE(deep);
  CHECK(*deep == "nests deeper than the 64 levels allowed (line 1, column 65)");
  const auto huge = jsonNestingProblem("{\n\"a\": " + std::string(100000, '['));
  REQUIRE(huge);
  CHECK(*huge == "nests deeper than the 64 levels allowed (line 2, column 69)");
}

TEST_CASE("displayMessage keeps a message's own lines and escapes everything else") {
  CHECK(displayMessage("bad value\nsee --help") == "bad value\nsee --help");
  CHECK(displayMessage("name \x1b[2Jx\r") == "name \\x1b[2Jx\\x0d");
  const std::string shown = displayMessage("head\n" + std::string(100000, 'z'), 200);
  CHECK(shown.size() < 240);
  CHECK(shown.rfind("head\n", 0) == 0);
  CHECK(shown.find("... (100000 bytes)") != std::string::npos);
}

TEST_CASE("withoutCodeNames: core's function-name prefixes leave the text a person reads, product names stay") {
  CHECK(posviz::withoutCodeNames("learnedLookup: pos 600 has no row") == "pos 600 has no row");
  CHECK(posviz::withoutCodeNames("This view failed: ropeRotate: headDim must be even") == "This view failed: headDim must be even");
  CHECK(posviz::withoutCodeNames("error: learnedLookup: pos 1023 has no row") == "error: pos 1023 has no row");
  // Not names: a single lower-case letter before the capital, no ": " after it, or an ordinary word.
  CHECK(posviz::withoutCodeNames("xPos: RoPE that fades") == "xPos: RoPE that fades");
  CHECK(posviz::withoutCodeNames("iRoPE: NoPE layers") == "iRoPE: NoPE layers");
  CHECK(posviz::withoutCodeNames("posviz: cannot open") == "posviz: cannot open");
  CHECK(posviz::withoutCodeNames("the value of headDim is 7") == "the value of headDim is 7");
  CHECK(posviz::withoutCodeNames("") == "");
}
