#include "core/npy.hpp"

#include "core/untrusted_text.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>

#include "core/atomic_file.hpp"
#include "core/check.hpp"
#include "core/grid.hpp"
#include "core/portable.hpp"

// [SECTION] header parsing (a strict subset of Python's literal syntax, bounds-checked)
// [SECTION] element conversion
// [SECTION] readNpy / parseNpy
// [SECTION] writeNpy
//
// Format reference: numpy/lib/format.py ("NPY format"). Layout: 6-byte magic "\x93NUMPY",
// major, minor, header length (uint16 LE for 1.0, uint32 LE for 2.0 and 3.0), the header (a
// Python dict literal padded with spaces and ended by '\n'), then the raw data.

namespace posviz {

namespace {

constexpr std::size_t kMaxHeaderBytes = 64 * 1024;
constexpr std::size_t kMaxDims = 64;
constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicLen = 6;

[[noreturn]] void npyFail(const std::string& name, const std::string& problem) {
  throw NpyError(displayText(name) + ": " + problem);   // the name is the file's path, from input
}

// ---------------------------------------------------------------------------------------------
// [SECTION] header parsing
// ---------------------------------------------------------------------------------------------

struct Header {
  std::string descr;
  bool fortranOrder = false;
  std::vector<std::int64_t> shape;
};

std::string printable(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 40)) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) {
      out += c;
    } else {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[u >> 4];
      out += hex[u & 15];
    }
  }
  if (s.size() > 40) out += "...";
  return out;
}

std::string shapeText(const std::vector<std::int64_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& name) : t_(text), name_(name) {}

  Header parse() {
    Header h;
    bool haveDescr = false, haveFortran = false, haveShape = false;
    skipSpace();
    expect('{', "the header must be a dict starting with '{'");
    for (;;) {
      skipSpace();
      if (peek() == '}') {
        ++i_;
        break;
      }
      const std::string key = parseString("a dict key");
      skipSpace();
      expect(':', "expected ':' after key '" + key + "'");
      skipSpace();
      if (key == "descr") {
        if (haveDescr) fail("the key 'descr' appears twice");
        if (peek() != '\'' && peek() != '"') fail("dtype is not a simple type string (structured dtypes are not supported; allowed: '<f4', '<f8')");
        h.descr = parseString("the dtype");
        haveDescr = true;
      } else if (key == "fortran_order") {
        if (haveFortran) fail("the key 'fortran_order' appears twice");
        h.fortranOrder = parseBool();
        haveFortran = true;
      } else if (key == "shape") {
        if (haveShape) fail("the key 'shape' appears twice");
        h.shape = parseShape();
        haveShape = true;
      } else {
        fail("unexpected header key '" + printable(key) + "' (allowed: 'descr', 'fortran_order', 'shape')");
      }
      skipSpace();
      if (peek() == ',') {
        ++i_;
      } else if (peek() != '}') {
        fail("expected ',' or '}' in the header dict at byte " + std::to_string(i_));
      }
    }
    skipSpace();
    if (i_ != t_.size()) {
      std::string_view rest = t_.substr(i_);
      while (!rest.empty() && (rest.back() == ' ' || rest.back() == '\n' || rest.back() == '\t' || rest.back() == '\r'))
        rest.remove_suffix(1);
      fail("unexpected text after the header dict: '" + printable(rest) + "'");
    }
    if (!haveDescr) fail("the header has no 'descr' (dtype)");
    if (!haveFortran) fail("the header has no 'fortran_order'");
    if (!haveShape) fail("the header has no 'shape'");
    return h;
  }

 private:
  [[noreturn]] void fail(const std::string& problem) const { npyFail(name_, "bad header: " + problem); }

  int peek() const { return i_ < t_.size() ? static_cast<unsigned char>(t_[i_]) : -1; }

  void skipSpace() {
    while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\t' || t_[i_] == '\n' || t_[i_] == '\r')) ++i_;
  }

  void expect(char c, const std::string& problem) {
    if (peek() != static_cast<unsigned char>(c)) fail(problem);
    ++i_;
  }

  std::string parseString(const char* what) {
    const int q = peek();
    if (q != '\'' && q != '"') fail(std::string("expected a quoted string for ") + what + " at byte " + std::to_string(i_));
    ++i_;
    const std::size_t start = i_;
    while (i_ < t_.size() && t_[i_] != static_cast<char>(q)) {
      if (t_[i_] == '\\') fail(std::string("escape sequences are not supported in ") + what);
      if (t_[i_] == '\n') fail(std::string("unterminated string for ") + what);
      ++i_;
    }
    if (i_ >= t_.size()) fail(std::string("unterminated string for ") + what);
    std::string s(t_.substr(start, i_ - start));
    ++i_;
    return s;
  }

  bool parseBool() {
    if (t_.substr(i_, 4) == "True") {
      i_ += 4;
      return true;
    }
    if (t_.substr(i_, 5) == "False") {
      i_ += 5;
      return false;
    }
    fail("fortran_order must be True or False");
  }

  std::int64_t parseDim(std::size_t index) {
    if (peek() == '-') fail("shape[" + std::to_string(index) + "] is negative");
    if (peek() < '0' || peek() > '9') fail("shape[" + std::to_string(index) + "] is not an integer");
    std::int64_t v = 0;
    while (peek() >= '0' && peek() <= '9') {
      const int digit = peek() - '0';
      if (v > (std::numeric_limits<std::int64_t>::max() - digit) / 10)
        fail("shape[" + std::to_string(index) + "] does not fit in 64 bits");
      v = v * 10 + digit;
      ++i_;
    }
    if (peek() == 'L' || peek() == 'l') ++i_;  // Python 2 long suffix, written by old numpy
    return v;
  }

  std::vector<std::int64_t> parseShape() {
    expect('(', "shape must be a tuple such as (3, 4)");
    std::vector<std::int64_t> shape;
    for (;;) {
      skipSpace();
      if (peek() == ')') {
        ++i_;
        break;
      }
      if (shape.size() >= kMaxDims) fail("shape has more than " + std::to_string(kMaxDims) + " dimensions");
      shape.push_back(parseDim(shape.size()));
      skipSpace();
      if (peek() == ',') {
        ++i_;
      } else if (peek() == ')') {
        if (shape.size() == 1) fail("shape (n) is not a tuple; a 1-D shape is written (n,)");
        ++i_;
        break;
      } else {
        fail("expected ',' or ')' in shape");
      }
    }
    return shape;
  }

  std::string_view t_;
  const std::string& name_;
  std::size_t i_ = 0;
};

struct Layout {
  Header header;
  DType type = DType::F32;
  std::size_t itemSize = 4;
  std::size_t dataOffset = 0;
  std::uint64_t count = 0;      // product of the shape
  std::uint64_t dataBytes = 0;  // count * itemSize
};

std::uint32_t readLe(const unsigned char* p, std::size_t n) {
  std::uint32_t v = 0;
  for (std::size_t k = 0; k < n; ++k) v |= static_cast<std::uint32_t>(p[k]) << (8 * k);
  return v;
}

// Parses magic, version and header from the first bytes of a file. fileSize is the total size,
// used only in messages and checks; prefix must hold the whole header (or the whole file).
Layout parseLayout(const char* fn, std::string_view prefix, std::uint64_t fileSize, const std::string& name) {
  if (prefix.size() < kMagicLen || std::memcmp(prefix.data(), kMagic, kMagicLen) != 0)
    npyFail(name, "not a .npy file (the magic string \\x93NUMPY is missing)");
  if (prefix.size() < 8) npyFail(name, "truncated header: the file ends inside the version bytes");
  const auto* u = reinterpret_cast<const unsigned char*>(prefix.data());
  const int major = u[6], minor = u[7];
  if ((major != 1 && major != 2 && major != 3) || minor != 0)
    npyFail(name, "format version " + std::to_string(major) + "." + std::to_string(minor) +
                      " is not supported (allowed: 1.0, 2.0, 3.0)");
  const std::size_t lenBytes = major == 1 ? 2 : 4;
  const std::size_t headerStart = 8 + lenBytes;
  if (prefix.size() < headerStart) npyFail(name, "truncated header: the file ends inside the header length");
  const std::uint32_t headerLen = readLe(u + 8, lenBytes);
  if (headerLen > kMaxHeaderBytes)
    npyFail(name, "header of " + std::to_string(headerLen) + " bytes is over the limit of " +
                      std::to_string(kMaxHeaderBytes) + " bytes");
  if (static_cast<std::uint64_t>(headerStart) + headerLen > fileSize || headerStart + headerLen > prefix.size())
    npyFail(name, "truncated header: it claims " + std::to_string(headerLen) + " bytes but the file has " +
                      std::to_string(fileSize - std::min<std::uint64_t>(fileSize, headerStart)) + " after the header length");

  Layout L;
  L.header = HeaderParser(prefix.substr(headerStart, headerLen), name).parse();
  L.dataOffset = headerStart + headerLen;

  const std::string& d = L.header.descr;
  if (d == "<f4") {
    L.type = DType::F32;
    L.itemSize = 4;
  } else if (d == "<f8") {
    L.type = DType::F64;
    L.itemSize = 8;
  } else {
    npyFail(name, "dtype '" + printable(d) + "' is not supported (allowed: '<f4', '<f8')");
  }
  if (L.header.fortranOrder)
    npyFail(name, "Fortran order (column-major) is not supported; save with C order (np.ascontiguousarray)");

  std::uint64_t count = 1;
  for (std::int64_t dim : L.header.shape) {
    const auto ud = static_cast<std::uint64_t>(dim);
    if (ud != 0 && count > std::numeric_limits<std::uint64_t>::max() / ud)
      npyFail(name, "shape " + shapeText(L.header.shape) + " has more elements than fit in 64 bits");
    count *= ud;
  }
  if (count > std::numeric_limits<std::uint64_t>::max() / L.itemSize)
    npyFail(name, "shape " + shapeText(L.header.shape) + " needs more bytes than fit in 64 bits");
  L.count = count;
  L.dataBytes = count * L.itemSize;

  const std::uint64_t have = fileSize - L.dataOffset;
  if (have < L.dataBytes)
    npyFail(name, "truncated data: shape " + shapeText(L.header.shape) + " of '" + d + "' needs " +
                      std::to_string(L.dataBytes) + " bytes, the file has " + std::to_string(have) + " after the header");
  if (have > L.dataBytes)
    npyFail(name, "size mismatch: shape " + shapeText(L.header.shape) + " of '" + d + "' needs " +
                      std::to_string(L.dataBytes) + " bytes, the file has " + std::to_string(have) +
                      " after the header (" + std::to_string(have - L.dataBytes) + " extra)");
  if (count > static_cast<std::uint64_t>(std::numeric_limits<std::ptrdiff_t>::max() / 8))
    npyFail(name, "shape " + shapeText(L.header.shape) + " is too large to address");
  try {
    requireBudget(fn, count, sizeof(float), "an array of shape " + shapeText(L.header.shape) + " as float32");
  } catch (const std::invalid_argument& e) {
    npyFail(name, e.what());
  }
  return L;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] element conversion
// ---------------------------------------------------------------------------------------------

void convertChunk(const unsigned char* src, std::size_t n, DType type, float* dst) {
  if (type == DType::F32) {
    for (std::size_t k = 0; k < n; ++k) dst[k] = bitCast<float>(readLe(src + 4 * k, 4));
  } else {
    for (std::size_t k = 0; k < n; ++k) {
      const std::uint64_t lo = readLe(src + 8 * k, 4);
      const std::uint64_t hi = readLe(src + 8 * k + 4, 4);
      dst[k] = static_cast<float>(bitCast<double>(lo | (hi << 32)));
    }
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// [SECTION] readNpy / parseNpy
// ---------------------------------------------------------------------------------------------

NpyArray parseNpy(std::string_view bytes, const std::string& name) {
  const Layout L = parseLayout("parseNpy", bytes, bytes.size(), name);
  NpyArray a;
  a.shape = L.header.shape;
  a.sourceType = L.type;
  a.data.resize(static_cast<std::size_t>(L.count));
  convertChunk(reinterpret_cast<const unsigned char*>(bytes.data()) + L.dataOffset, a.data.size(), L.type, a.data.data());
  return a;
}

NpyArray readNpy(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) npyFail(path, "cannot open: " + (ec ? ec.message() : std::string("No such file or directory")));
  if (fs::is_directory(st)) npyFail(path, "cannot open: it is a directory");
  if (!fs::is_regular_file(st)) npyFail(path, "cannot open: not a regular file");
  const std::uint64_t fileSize = fs::file_size(path, ec);
  if (ec) npyFail(path, "cannot read its size: " + ec.message());

  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) npyFail(path, std::string("cannot open: ") + (errno ? std::strerror(errno) : "unknown error"));

  // Only the header is read before the checks; the body is read after the size and the budget
  // were validated, straight into the result in chunks.
  const std::size_t prefixLen = static_cast<std::size_t>(std::min<std::uint64_t>(fileSize, 12 + kMaxHeaderBytes));
  std::string prefix(prefixLen, '\0');
  in.read(prefix.data(), static_cast<std::streamsize>(prefixLen));
  if (static_cast<std::size_t>(in.gcount()) != prefixLen) npyFail(path, "read error in the header");
  const Layout L = parseLayout("readNpy", prefix, fileSize, path);

  NpyArray a;
  a.shape = L.header.shape;
  a.sourceType = L.type;
  a.data.resize(static_cast<std::size_t>(L.count));
  in.clear();
  in.seekg(static_cast<std::streamoff>(L.dataOffset));
  constexpr std::size_t kChunkElems = 1 << 16;
  std::vector<unsigned char> buf(kChunkElems * L.itemSize);
  for (std::size_t done = 0; done < a.data.size();) {
    const std::size_t n = std::min(kChunkElems, a.data.size() - done);
    in.read(reinterpret_cast<char*>(buf.data()), static_cast<std::streamsize>(n * L.itemSize));
    if (static_cast<std::size_t>(in.gcount()) != n * L.itemSize)
      npyFail(path, "truncated data: the file ended while reading element " + std::to_string(done));
    convertChunk(buf.data(), n, L.type, a.data.data() + done);
    done += n;
  }
  return a;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] writeNpy
// ---------------------------------------------------------------------------------------------

namespace {

std::uint64_t checkedCount(const char* fn, const std::vector<std::int64_t>& shape) {
  if (shape.size() > kMaxDims)
    failArgument(fn, "shape must have at most " + std::to_string(kMaxDims) + " dimensions, got " + std::to_string(shape.size()));
  std::uint64_t count = 1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0) failArgument(fn, "shape[" + std::to_string(i) + "] must be >= 0, got " + std::to_string(shape[i]));
    const auto ud = static_cast<std::uint64_t>(shape[i]);
    if (ud != 0 && count > std::numeric_limits<std::uint64_t>::max() / 8 / ud)
      failArgument(fn, "shape " + shapeText(shape) + " has too many elements");
    count *= ud;
  }
  return count;
}

std::string makeHeader(const std::vector<std::int64_t>& shape, const char* descr) {
  std::string dict = std::string("{'descr': '") + descr +
                     "', 'fortran_order': False, 'shape': " + shapeText(shape) + ", }";
  // magic(6) + version(2) + length(2 or 4) + dict + padding + '\n' is a multiple of 64.
  std::size_t lenBytes = 2;
  std::size_t total = 6 + 2 + lenBytes + dict.size() + 1;
  if ((total + 63) / 64 * 64 - 10 > 65535) lenBytes = 4;
  total = 6 + 2 + lenBytes + dict.size() + 1;
  const std::size_t padded = (total + 63) / 64 * 64;
  dict.append(padded - total, ' ');
  dict += '\n';
  std::string out(kMagic, kMagicLen);
  out += static_cast<char>(lenBytes == 2 ? 1 : 2);
  out += '\0';
  const auto len = static_cast<std::uint32_t>(dict.size());
  for (std::size_t k = 0; k < lenBytes; ++k) out += static_cast<char>((len >> (8 * k)) & 0xff);
  return out + dict;
}

template <class T>
void writeNpyImpl(const std::string& path, const std::vector<std::int64_t>& shape, const T* data, DType type) {
  const std::uint64_t count = checkedCount("writeNpy", shape);
  if (type != DType::F32 && type != DType::F64) failArgument("writeNpy", "type must be DType::F32 or DType::F64");
  if (count > 0 && data == nullptr) failArgument("writeNpy", "data must not be null for shape " + shapeText(shape));
  const std::string header = makeHeader(shape, type == DType::F32 ? "<f4" : "<f8");
  try {
    writeFileAtomically(path, [&](std::ostream& out) {
      out.write(header.data(), static_cast<std::streamsize>(header.size()));
      constexpr std::size_t kChunk = 1 << 14;
      std::vector<unsigned char> buf(kChunk * 8);
      for (std::uint64_t done = 0; done < count && out;) {
        const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, count - done));
        std::size_t pos = 0;
        for (std::size_t k = 0; k < n; ++k) {
          std::uint64_t bits = 0;
          std::size_t width = 4;
          if (type == DType::F32) {
            bits = bitCast<std::uint32_t>(static_cast<float>(data[done + k]));
          } else {
            bits = bitCast<std::uint64_t>(static_cast<double>(data[done + k]));
            width = 8;
          }
          for (std::size_t b = 0; b < width; ++b) buf[pos++] = static_cast<unsigned char>((bits >> (8 * b)) & 0xff);
        }
        out.write(reinterpret_cast<const char*>(buf.data()), static_cast<std::streamsize>(pos));
        done += n;
      }
    });
  } catch (const NpyError&) {
    throw;
  } catch (const std::runtime_error& e) {
    throw NpyError(e.what());
  }
}

}  // namespace

void writeNpyInt32(const std::string& path, const std::vector<std::int64_t>& shape, const std::int32_t* data) {
  const std::uint64_t count = checkedCount("writeNpyInt32", shape);
  if (count > 0 && data == nullptr) failArgument("writeNpyInt32", "data must not be null for shape " + shapeText(shape));
  const std::string header = makeHeader(shape, "<i4");
  try {
    writeFileAtomically(path, [&](std::ostream& out) {
      out.write(header.data(), static_cast<std::streamsize>(header.size()));
      std::vector<unsigned char> buf(4 * static_cast<std::size_t>(count));
      for (std::size_t k = 0; k < buf.size() / 4; ++k) {
        const auto bits = static_cast<std::uint32_t>(data[k]);
        for (std::size_t b = 0; b < 4; ++b) buf[4 * k + b] = static_cast<unsigned char>((bits >> (8 * b)) & 0xff);
      }
      out.write(reinterpret_cast<const char*>(buf.data()), static_cast<std::streamsize>(buf.size()));
    });
  } catch (const NpyError&) {
    throw;
  } catch (const std::runtime_error& e) {
    throw NpyError(e.what());
  }
}

void writeNpy(const std::string& path, const std::vector<std::int64_t>& shape, const float* data, DType type) {
  writeNpyImpl(path, shape, data, type);
}

void writeNpy(const std::string& path, const std::vector<std::int64_t>& shape, const double* data, DType type) {
  writeNpyImpl(path, shape, data, type);
}

}  // namespace posviz
