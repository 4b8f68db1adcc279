// Tests for core/npy and core/atomic_file: byte-exact agreement with numpy's own files, round
// trips, every malformed-input class (with messages), a mutation sweep, and atomic writes.
//
// The two reference files below are the exact bytes of numpy 1.24's np.save of
//   np.array([[1.5, -2], [0.25, 3]], dtype='<f4')   and   np.array([1/3, 1e300, -0.0], dtype='<f8').
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "core/atomic_file.hpp"
#include "core/grid.hpp"
#include "core/npy.hpp"
#include "core/random.hpp"

using namespace posviz;
namespace fs = std::filesystem;

namespace {

const std::string kNumpyF32(
    "\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }"
    "                                                          \n"
    "\x00\x00\xc0?\x00\x00\x00\xc0\x00\x00\x80>\x00\x00@@",
    128 + 16);

const std::string kNumpyF64(
    "\x93NUMPY\x01\x00v\x00{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }"
    "                                                            \n"
    "UUUUUU\xd5?\x9cu\x00\x88<\xe4" "7~\x00\x00\x00\x00\x00\x00\x00\x80",
    128 + 24);

// A scratch directory, removed on exit.
struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name) {
    path = fs::temp_directory_path() / ("posviz-test-" + std::to_string(::getpid()) + "-" + name);
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string file(const std::string& n) const { return (path / n).string(); }
};

struct BudgetGuard {
  std::uint64_t saved = memoryBudgetBytes();
  ~BudgetGuard() { setMemoryBudgetBytes(saved); }
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void spit(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// A file with the given header dict (padded as numpy pads) and body.
std::string makeNpy(const std::string& dict, const std::string& body, int major = 1) {
  const std::size_t lenBytes = major == 1 ? 2 : 4;
  std::string h = dict;
  const std::size_t total = 8 + lenBytes + h.size() + 1;
  h.append((total + 63) / 64 * 64 - total, ' ');
  h += '\n';
  std::string out("\x93NUMPY", 6);
  out += static_cast<char>(major);
  out += '\0';
  for (std::size_t k = 0; k < lenBytes; ++k) out += static_cast<char>((h.size() >> (8 * k)) & 0xff);
  return out + h + body;
}

std::string floats(std::initializer_list<float> v) {
  std::string s;
  for (float f : v) {
    char b[4];
    std::memcpy(b, &f, 4);
    s.append(b, 4);
  }
  return s;
}

std::string dirEntries(const fs::path& dir) {
  std::string names;
  for (const auto& e : fs::directory_iterator(dir)) names += e.path().filename().string() + " ";
  return names;
}

}  // namespace

TEST_CASE("npy: reads numpy's own files (float32 2-D, float64 1-D)") {
  const NpyArray a = parseNpy(kNumpyF32, "a.npy");
  CHECK(a.shape == std::vector<std::int64_t>{2, 2});
  CHECK(a.sourceType == DType::F32);
  CHECK(a.data == std::vector<float>{1.5f, -2.0f, 0.25f, 3.0f});
  const NpyArray b = parseNpy(kNumpyF64, "b.npy");
  CHECK(b.shape == std::vector<std::int64_t>{3});
  CHECK(b.sourceType == DType::F64);
  REQUIRE(b.data.size() == 3);
  CHECK(b.data[0] == static_cast<float>(1.0 / 3.0));
  CHECK(b.data[1] == std::numeric_limits<float>::infinity());  // 1e300 rounds to inf in float32
  CHECK(b.data[2] == 0.0f);
  CHECK(std::signbit(b.data[2]));
}

TEST_CASE("npy: writeNpy produces numpy's bytes exactly, and round-trips") {
  TempDir dir("npy-write");
  const float f[4] = {1.5f, -2.0f, 0.25f, 3.0f};
  writeNpy(dir.file("a.npy"), {2, 2}, f);
  CHECK(slurp(dir.file("a.npy")) == kNumpyF32);
  const double d[3] = {1.0 / 3.0, 1e300, -0.0};
  writeNpy(dir.file("b.npy"), {3}, d);
  CHECK(slurp(dir.file("b.npy")) == kNumpyF64);

  // Random round trips, float32 and float64, through files.
  const std::vector<float> v = randomNormalVector(3 * 5 * 7, 99);
  writeNpy(dir.file("c.npy"), {3, 5, 7}, v.data());
  const NpyArray c = readNpy(dir.file("c.npy"));
  CHECK(c.shape == std::vector<std::int64_t>{3, 5, 7});
  CHECK(c.sourceType == DType::F32);
  CHECK(c.data == v);
  std::vector<double> w(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) w[i] = static_cast<double>(v[i]) * 1.0000001;
  writeNpy(dir.file("d.npy"), {105}, w.data());
  const NpyArray e = readNpy(dir.file("d.npy"));
  CHECK(e.sourceType == DType::F64);
  for (std::size_t i = 0; i < w.size(); ++i) CHECK(e.data[i] == static_cast<float>(w[i]));
  // float data stored as '<f8' and double data as '<f4'.
  writeNpy(dir.file("e.npy"), {4}, f, DType::F64);
  CHECK(readNpy(dir.file("e.npy")).sourceType == DType::F64);
  CHECK(readNpy(dir.file("e.npy")).data == std::vector<float>(f, f + 4));
  writeNpy(dir.file("f.npy"), {3}, d, DType::F32);
  CHECK(readNpy(dir.file("f.npy")).sourceType == DType::F32);
  // 0-d and empty arrays.
  writeNpy(dir.file("g.npy"), {}, f);
  CHECK(readNpy(dir.file("g.npy")).data == std::vector<float>{1.5f});
  writeNpy(dir.file("h.npy"), {0, 4}, static_cast<const float*>(nullptr));
  CHECK(readNpy(dir.file("h.npy")).data.empty());
  // Only the final files remain: no temporaries.
  CHECK(dirEntries(dir.path).find(".posviz-") == std::string::npos);
}

TEST_CASE("npy: header variants numpy writes or accepts") {
  const std::string body = floats({1, 2, 3, 4, 5, 6});
  SUBCASE("versions 2.0 and 3.0") {
    for (int major : {2, 3}) {
      CAPTURE(major);
      const NpyArray a = parseNpy(makeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", body, major), "v.npy");
      CHECK(a.shape == std::vector<std::int64_t>{2, 3});
      CHECK(a.data[5] == 6.0f);
    }
  }
  SUBCASE("key order, double quotes, no trailing comma, Python 2 long suffix") {
    const NpyArray a = parseNpy(makeNpy("{\"shape\": (6L,), \"fortran_order\": False, \"descr\": \"<f4\"}", body), "v.npy");
    CHECK(a.shape == std::vector<std::int64_t>{6});
    CHECK(a.data[0] == 1.0f);
  }
}

TEST_CASE("npy: every malformed input throws NpyError naming the file and the problem") {
  const std::string body = floats({1, 2, 3, 4, 5, 6});
  const std::string good = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  SUBCASE("bad magic") {
    std::string bytes = makeNpy(good, body);
    bytes[1] = 'X';
    CHECK_THROWS_WITH_AS(parseNpy(bytes, "pe.npy"), "pe.npy: not a .npy file (the magic string \\x93NUMPY is missing)", NpyError);
    CHECK_THROWS_WITH_AS(parseNpy("", "pe.npy"), "pe.npy: not a .npy file (the magic string \\x93NUMPY is missing)", NpyError);
  }
  SUBCASE("unsupported version") {
    std::string bytes = makeNpy(good, body);
    bytes[6] = 4;
    CHECK_THROWS_WITH_AS(parseNpy(bytes, "pe.npy"), "pe.npy: format version 4.0 is not supported (allowed: 1.0, 2.0, 3.0)", NpyError);
    bytes[6] = 1;
    bytes[7] = 1;
    CHECK_THROWS_WITH_AS(parseNpy(bytes, "pe.npy"), "pe.npy: format version 1.1 is not supported (allowed: 1.0, 2.0, 3.0)", NpyError);
  }
  SUBCASE("wrong dtype") {
    CHECK_THROWS_WITH_AS(parseNpy(makeNpy("{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }", std::string(24, '\0')), "pe.npy"),
                         "pe.npy: dtype '<i8' is not supported (allowed: '<f4', '<f8')", NpyError);
    CHECK_THROWS_WITH_AS(parseNpy(makeNpy("{'descr': '>f4', 'fortran_order': False, 'shape': (6,), }", body), "pe.npy"),
                         "pe.npy: dtype '>f4' is not supported (allowed: '<f4', '<f8')", NpyError);
    CHECK_THROWS_WITH_AS(parseNpy(makeNpy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (6,), }", body), "pe.npy"),
                         "pe.npy: bad header: dtype is not a simple type string (structured dtypes are not supported; allowed: '<f4', '<f8')",
                         NpyError);
  }
  SUBCASE("Fortran order") {
    CHECK_THROWS_WITH_AS(parseNpy(makeNpy("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", body), "pe.npy"),
                         "pe.npy: Fortran order (column-major) is not supported; save with C order (np.ascontiguousarray)", NpyError);
  }
  SUBCASE("truncated body and extra bytes") {
    CHECK_THROWS_WITH_AS(parseNpy(makeNpy(good, body.substr(0, 20)), "pe.npy"),
                         "pe.npy: truncated data: shape (2, 3) of '<f4' needs 24 bytes, the file has 20 after the header", NpyError);
    CHECK_THROWS_WITH_AS(parseNpy(makeNpy(good, body + "xx"), "pe.npy"),
                         "pe.npy: size mismatch: shape (2, 3) of '<f4' needs 24 bytes, the file has 26 after the header (2 extra)",
                         NpyError);
  }
  SUBCASE("truncated header") {
    const std::string bytes = makeNpy(good, body);
    CHECK_THROWS_WITH_AS(parseNpy(bytes.substr(0, 7), "pe.npy"), "pe.npy: truncated header: the file ends inside the version bytes", NpyError);
    CHECK_THROWS_WITH_AS(parseNpy(bytes.substr(0, 9), "pe.npy"), "pe.npy: truncated header: the file ends inside the header length", NpyError);
    CHECK_THROWS_WITH_AS(parseNpy(bytes.substr(0, 40), "pe.npy"),
                         "pe.npy: truncated header: it claims 118 bytes but the file has 30 after the header length", NpyError);
  }
  SUBCASE("header over 64 KiB") {
    std::string bytes = makeNpy(good, body, 2);
    bytes[8] = 0;
    bytes[9] = 0;
    bytes[10] = 2;  // 131072
    bytes[11] = 0;
    CHECK_THROWS_WITH_AS(parseNpy(bytes, "pe.npy"), "pe.npy: header of 131072 bytes is over the limit of 65536 bytes", NpyError);
  }
  SUBCASE("malformed shapes and dicts") {
    const auto bad = [&](const std::string& dict, const std::string& message) {
      CAPTURE(dict);
      CHECK_THROWS_WITH_AS(parseNpy(makeNpy(dict, body), "pe.npy"), message.c_str(), NpyError);
    };
    bad("{'descr': '<f4', 'fortran_order': False, 'shape': (-2, 3), }", "pe.npy: bad header: shape[0] is negative");
    bad("{'descr': '<f4', 'fortran_order': False, 'shape': (2, x), }", "pe.npy: bad header: shape[1] is not an integer");
    bad("{'descr': '<f4', 'fortran_order': False, 'shape': (6), }", "pe.npy: bad header: shape (n) is not a tuple; a 1-D shape is written (n,)");
    bad("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", "pe.npy: bad header: shape[0] does not fit in 64 bits");
    bad("{'descr': '<f4', 'fortran_order': False, 'shape': [2, 3], }", "pe.npy: bad header: shape must be a tuple such as (3, 4)");
    bad("{'descr': '<f4', 'fortran_order': 0, 'shape': (2, 3), }", "pe.npy: bad header: fortran_order must be True or False");
    bad("{'descr': '<f4', 'shape': (2, 3), }", "pe.npy: bad header: the header has no 'fortran_order'");
    bad("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'extra': 1}",
        "pe.npy: bad header: unexpected header key 'extra' (allowed: 'descr', 'fortran_order', 'shape')");
    bad("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", "pe.npy: bad header: the key 'descr' appears twice");
    bad("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } junk", "pe.npy: bad header: unexpected text after the header dict: 'junk'");
    bad("{'descr': '<f4 ", "pe.npy: bad header: unterminated string for the dtype");
    bad("['descr']", "pe.npy: bad header: the header must be a dict starting with '{'");
  }
  SUBCASE("huge shapes: overflow and size mismatch, never an allocation") {
    CHECK_THROWS_WITH_AS(
        parseNpy(makeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296), }", body), "pe.npy"),
        "pe.npy: shape (4294967296, 4294967296, 4294967296) has more elements than fit in 64 bits", NpyError);
    CHECK_THROWS_WITH_AS(parseNpy(makeNpy("{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904,), }", body), "pe.npy"),
                         "pe.npy: shape (4611686018427387904,) needs more bytes than fit in 64 bits", NpyError);
    CHECK_THROWS_WITH_AS(parseNpy(makeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000, 1000000000), }", body), "pe.npy"),
                         "pe.npy: truncated data: shape (1000000000, 1000000000) of '<f4' needs 4000000000000000000 bytes, the file has 24 after the header",
                         NpyError);
  }
}

TEST_CASE("npy: a file over the memory budget is rejected before its data are read") {
  BudgetGuard guard;
  TempDir dir("npy-budget");
  const std::vector<float> v(2048, 1.0f);
  writeNpy(dir.file("big.npy"), {2, 1024}, v.data());
  setMemoryBudgetBytes(4096);
  CHECK_THROWS_WITH_AS(readNpy(dir.file("big.npy")),
                       (dir.file("big.npy") + ": readNpy: an array of shape (2, 1024) as float32 needs 8.0 KiB, over the memory budget of 4.0 KiB").c_str(),
                       NpyError);
  std::ifstream in(dir.file("big.npy"), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK_THROWS_WITH_AS(parseNpy(bytes, "mem.npy"),
                       "mem.npy: parseNpy: an array of shape (2, 1024) as float32 needs 8.0 KiB, over the memory budget of 4.0 KiB", NpyError);
  setMemoryBudgetBytes(8192);
  CHECK(readNpy(dir.file("big.npy")).data == v);
  CHECK(parseNpy(bytes, "mem.npy").data == v);
}

TEST_CASE("npy: readNpy reports files it cannot open") {
  TempDir dir("npy-open");
  CHECK_THROWS_WITH_AS(readNpy(dir.file("missing.npy")), (dir.file("missing.npy") + ": cannot open: No such file or directory").c_str(), NpyError);
  CHECK_THROWS_WITH_AS(readNpy(dir.path.string()), (dir.path.string() + ": cannot open: it is a directory").c_str(), NpyError);
  spit(dir.file("trunc.npy"), kNumpyF32.substr(0, kNumpyF32.size() - 3));
  CHECK_THROWS_WITH_AS(readNpy(dir.file("trunc.npy")),
                       (dir.file("trunc.npy") + ": truncated data: shape (2, 2) of '<f4' needs 16 bytes, the file has 13 after the header").c_str(),
                       NpyError);
}

TEST_CASE("npy: every truncation and byte mutation either parses or throws NpyError") {
  // Each prefix of a valid file is rejected.
  for (std::size_t n = 0; n < kNumpyF32.size(); ++n) {
    CAPTURE(n);
    CHECK_THROWS_AS(parseNpy(std::string_view(kNumpyF32).substr(0, n), "m.npy"), NpyError);
  }
  // Random byte flips in the header: only NpyError, never another exception or a crash; a parse
  // that succeeds returns exactly product(shape) values.
  Rng rng(2024);
  int parsed = 0, rejected = 0;
  for (int trial = 0; trial < 5000; ++trial) {
    std::string bytes = kNumpyF64;
    const int flips = 1 + static_cast<int>(rng.nextU64() % 3);
    for (int f = 0; f < flips; ++f) {
      const std::size_t at = static_cast<std::size_t>(rng.nextU64() % 128);
      bytes[at] = static_cast<char>(rng.nextU64() & 0xff);
    }
    try {
      const NpyArray a = parseNpy(bytes, "m.npy");
      std::uint64_t count = 1;
      for (std::int64_t d : a.shape) count *= static_cast<std::uint64_t>(d);
      CHECK(a.data.size() == count);
      ++parsed;
    } catch (const NpyError&) {
      ++rejected;
    }
  }
  CHECK(parsed + rejected == 5000);
  CHECK(rejected > 0);
  CHECK(parsed > 0);  // flips in the padding leave a valid file
}

TEST_CASE("npy: writeNpy rejects bad shapes and null data") {
  TempDir dir("npy-args");
  const float f[2] = {1, 2};
  CHECK_THROWS_WITH_AS(writeNpy(dir.file("x.npy"), {2, -1}, f), "writeNpy: shape[1] must be >= 0, got -1", std::invalid_argument);
  CHECK_THROWS_WITH_AS(writeNpy(dir.file("x.npy"), {2}, static_cast<const float*>(nullptr)),
                       "writeNpy: data must not be null for shape (2,)", std::invalid_argument);
  CHECK_FALSE(fs::exists(dir.file("x.npy")));
}

TEST_CASE("atomic_file: failures throw naming the path and reason, and leave no file") {
  TempDir dir("atomic");
  SUBCASE("a missing directory") {
    const std::string path = dir.file("no/such/dir/x.npy");
    CHECK_THROWS_WITH_AS(writeFileAtomically(path, [](std::ostream& o) { o << "x"; }),
                         ("cannot write " + path + ": No such file or directory").c_str(), std::runtime_error);
    const float f[1] = {1};
    CHECK_THROWS_WITH_AS(writeNpy(path, {1}, f), ("cannot write " + path + ": No such file or directory").c_str(), NpyError);
  }
  SUBCASE("a file where a directory should be") {
    spit(dir.file("plain"), "x");
    const std::string path = dir.file("plain/x.npy");
    CHECK_THROWS_WITH_AS(writeFileAtomically(path, [](std::ostream& o) { o << "x"; }),
                         ("cannot write " + path + ": Not a directory").c_str(), std::runtime_error);
  }
  SUBCASE("an unwritable directory") {
    const fs::path ro = dir.path / "ro";
    fs::create_directory(ro);
    fs::permissions(dir.path, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                  fs::perms::others_read | fs::perms::others_exec);
    fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read | fs::perms::group_exec |
                            fs::perms::others_read | fs::perms::others_exec);
    const std::string path = (ro / "x.npy").string();
    const std::string expected = "cannot write " + path + ": Permission denied";
    if (::geteuid() != 0) {
      CHECK_THROWS_WITH_AS(writeFileAtomically(path, [](std::ostream& o) { o << "x"; }), expected.c_str(), std::runtime_error);
    } else {
      // Root ignores permission bits: run the write in a child that drops to uid 65534 (nobody).
      const pid_t pid = ::fork();
      REQUIRE(pid >= 0);
      if (pid == 0) {
        if (::setuid(65534) != 0) ::_exit(3);
        try {
          writeFileAtomically(path, [](std::ostream& o) { o << "x"; });
          ::_exit(1);
        } catch (const std::runtime_error& e) {
          ::_exit(std::string(e.what()) == expected ? 0 : 2);
        } catch (...) {
          ::_exit(4);
        }
      }
      int status = 0;
      REQUIRE(::waitpid(pid, &status, 0) == pid);
      REQUIRE(WIFEXITED(status));
      CHECK(WEXITSTATUS(status) == 0);  // 1: wrote anyway, 2: other message, 3: setuid failed
    }
    CHECK(fs::is_empty(ro));
    fs::permissions(ro, fs::perms::owner_all);
  }
  SUBCASE("the writer throws: the temp file is removed and the old file kept") {
    const std::string path = dir.file("keep.txt");
    spit(path, "old");
    CHECK_THROWS_WITH_AS(writeFileAtomically(path, [](std::ostream& o) {
                           o << "partial";
                           throw std::runtime_error("disk on fire");
                         }),
                         ("cannot write " + path + ": disk on fire").c_str(), std::runtime_error);
    CHECK(slurp(path) == "old");
    CHECK(dirEntries(dir.path) == "keep.txt ");
  }
  SUBCASE("rename onto a directory fails: the temp file is removed") {
    const fs::path target = dir.path / "isdir";
    fs::create_directories(target / "child");
    CHECK_THROWS_AS(writeFileAtomically(target.string(), [](std::ostream& o) { o << "x"; }), std::runtime_error);
    CHECK(dirEntries(dir.path) == "isdir ");
  }
  SUBCASE("success replaces the file") {
    const std::string path = dir.file("ok.txt");
    spit(path, "old");
    writeFileAtomically(path, [](std::ostream& o) { o << "new content"; });
    CHECK(slurp(path) == "new content");
    CHECK(dirEntries(dir.path) == "ok.txt ");
  }
}
