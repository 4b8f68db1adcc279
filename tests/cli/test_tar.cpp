// A folder as one tar (app/cli/tar.hpp): GNU tar unpacks it to the same bytes; links are left out;
// a name too long for ustar is refused with no file left behind.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "app/cli/tar.hpp"

namespace fs = std::filesystem;

namespace {

fs::path scratch() {
  const fs::path dir = fs::path(POSVIZ_TEST_OUT) / "cli" / "tar";
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void write(const fs::path& p, const std::string& bytes) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << bytes;
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("writeTar: GNU tar unpacks the folder to the same bytes, links left out") {
  const fs::path root = scratch();
  const fs::path runs = root / "src" / "runs";
  std::string binary;
  for (int i = 0; i < 1300; ++i) binary += static_cast<char>(i * 7 % 256);   // not a multiple of 512, NULs inside
  write(runs / "learned" / "seed-1" / "model.safetensors", binary);
  write(runs / "learned" / "seed-1" / "config.json", "{\"seed\": 1}\n");
  write(runs / "rope" / "seed-2" / "config.json", "{}");
  write(runs / "empty.txt", "");
  // A name past ustar's 100-byte field goes into its prefix.
  const std::string longDir(90, 'd');
  write(runs / longDir / "a-file-whose-name-makes-the-whole-path-long.json", "long");
  fs::create_symlink(root / "src" / "runs" / "empty.txt", runs / "link.txt");

  const fs::path tar = root / "runs.tar";
  REQUIRE(posviz::cli::writeTar(runs, tar));
  CHECK(fs::file_size(tar) % 512 == 0);
  const fs::path out = root / "out";
  fs::create_directories(out);
  const std::string cmd = "tar -xf '" + tar.string() + "' -C '" + out.string() + "'";
  REQUIRE(std::system(cmd.c_str()) == 0);
  CHECK(read(out / "runs" / "learned" / "seed-1" / "model.safetensors") == binary);
  CHECK(read(out / "runs" / "learned" / "seed-1" / "config.json") == "{\"seed\": 1}\n");
  CHECK(read(out / "runs" / "rope" / "seed-2" / "config.json") == "{}");
  CHECK(fs::is_regular_file(out / "runs" / "empty.txt"));
  CHECK(fs::file_size(out / "runs" / "empty.txt") == 0);
  CHECK(read(out / "runs" / longDir / "a-file-whose-name-makes-the-whole-path-long.json") == "long");
  CHECK_FALSE(fs::exists(fs::symlink_status(out / "runs" / "link.txt")));
}

TEST_CASE("writeTar: refuses what ustar cannot name, and a missing folder, leaving no file") {
  const fs::path root = scratch();
  const fs::path dir = root / "deep";
  write(dir / std::string(120, 'x') / std::string(150, 'y'), "z");   // 120 + 150 bytes: over 255
  const fs::path tar = root / "deep.tar";
  CHECK_FALSE(posviz::cli::writeTar(dir, tar));
  CHECK_FALSE(fs::exists(tar));
  CHECK_FALSE(posviz::cli::writeTar(root / "missing", root / "missing.tar"));
  CHECK_FALSE(fs::exists(root / "missing.tar"));
}
