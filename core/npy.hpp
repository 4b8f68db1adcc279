// npy.hpp: reading and writing numpy .npy files (format versions 1.0, 2.0, 3.0).
//
// READ
//   Accepts little-endian float32 ('<f4') or float64 ('<f8'), C order (fortran_order False),
//   any number of dimensions. Everything else (big-endian, ints, object arrays, Fortran order,
//   a shape whose product disagrees with the file size, a truncated header or body, a header
//   over 64 KiB, a size over the memory budget) throws NpyError naming the file and the problem:
//   "pe.npy: dtype '<i8' is not supported (allowed: '<f4', '<f8')". The header is checked before
//   the body is read or any data memory is allocated.
//   Data are returned as float32 (float64 files are rounded) plus the original dtype.
//
// WRITE
//   writeNpy writes a version 1.0 header (2.0 when the header would not fit), C order, '<f4' or
//   '<f8'. The file appears complete or not at all (writeFileAtomically, core/atomic_file.hpp):
//   on any I/O failure the temp file is removed and NpyError is thrown naming the path and the
//   OS reason. A negative dimension or a null data pointer is std::invalid_argument.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace posviz {

struct NpyError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class DType { F32, F64 };

struct NpyArray {
  std::vector<std::int64_t> shape;
  DType sourceType = DType::F32;
  std::vector<float> data;  // product(shape) values, C order
};

NpyArray readNpy(const std::string& path);
// Parse from memory (the fuzz target's entry point); name is used in messages.
NpyArray parseNpy(std::string_view bytes, const std::string& name);

void writeNpy(const std::string& path, const std::vector<std::int64_t>& shape, const float* data, DType type = DType::F32);
void writeNpy(const std::string& path, const std::vector<std::int64_t>& shape, const double* data, DType type = DType::F64);
// '<i4' (ids and counts, which numpy indexes with); written only: readNpy accepts floats alone.
void writeNpyInt32(const std::string& path, const std::vector<std::int64_t>& shape, const std::int32_t* data);

}  // namespace posviz
