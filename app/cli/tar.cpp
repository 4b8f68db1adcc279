#include "app/cli/tar.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

namespace posviz::cli {

namespace {

// One ustar header block (POSIX.1-1988) for a regular file or a folder (`path` without a trailing
// slash): names of up to 255 bytes (prefix + name), sizes below 8 GiB.
bool tarHeader(const std::string& path, bool folder, std::uintmax_t size, std::string* out) {
  if (size >= (std::uintmax_t{1} << 33)) return false;   // 11 octal digits
  std::array<char, 512> h{};
  std::string prefix, base = path + (folder ? "/" : "");
  if (base.size() > 100) {
    const std::size_t cut = path.rfind('/');
    if (cut == std::string::npos || cut > 155 || path.size() - cut - 1 + folder > 100) return false;
    prefix = path.substr(0, cut);
    base = path.substr(cut + 1) + (folder ? "/" : "");
  }
  auto put = [&h](std::size_t at, std::size_t width, const std::string& v) { std::copy_n(v.data(), std::min(width, v.size()), h.data() + at); };
  auto octal = [&put](std::size_t at, std::size_t width, std::uintmax_t v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%0*llo", static_cast<int>(width - 1), static_cast<unsigned long long>(v));
    put(at, width - 1, buf);
  };
  put(0, 100, base);
  octal(100, 8, folder ? 0755 : 0644);
  octal(108, 8, 0);
  octal(116, 8, 0);
  octal(124, 12, folder ? 0 : size);
  octal(136, 12, 0);
  h[156] = folder ? '5' : '0';
  put(257, 6, std::string("ustar\0", 6));
  put(263, 2, "00");
  put(345, 155, prefix);
  std::fill_n(h.data() + 148, 8, ' ');
  unsigned sum = 0;
  for (char c : h) sum += static_cast<unsigned char>(c);
  char buf[8];
  std::snprintf(buf, sizeof buf, "%06o", sum);
  std::copy_n(buf, 7, h.data() + 148);   // six digits and a NUL; the eighth byte stays a space
  out->append(h.data(), h.size());
  return true;
}

}  // namespace

bool writeTar(const std::filesystem::path& dir, const std::filesystem::path& tarPath) {
  namespace fs = std::filesystem;
  std::string tar;
  const fs::path base = dir.filename().empty() ? dir.parent_path().filename() : dir.filename();
  std::error_code ec;
  if (base.empty() || base == "." || base == ".." || !fs::is_directory(fs::symlink_status(dir, ec))) return false;
  if (!tarHeader(base.string(), true, 0, &tar)) return false;
  std::vector<fs::path> entries;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) entries.push_back(it->path());
  if (ec) return false;
  std::sort(entries.begin(), entries.end());
  for (const fs::path& p : entries) {
    const std::string name = (base / fs::relative(p, dir, ec)).generic_string();
    const fs::file_status st = fs::symlink_status(p, ec);
    if (fs::is_directory(st)) {
      if (!tarHeader(name, true, 0, &tar)) return false;
      continue;
    }
    if (!fs::is_regular_file(st)) continue;   // a link, a FIFO: not followed, not read
    std::ifstream in(p, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) return false;
    if (!tarHeader(name, false, bytes.size(), &tar)) return false;
    tar += bytes;
    tar.append((512 - bytes.size() % 512) % 512, '\0');
  }
  tar.append(1024, '\0');
  {
    std::ofstream out(tarPath, std::ios::binary | std::ios::trunc);
    out.write(tar.data(), static_cast<std::streamsize>(tar.size()));
    if (out.flush().good()) return true;
  }
  fs::remove(tarPath, ec);
  return false;
}

}  // namespace posviz::cli
