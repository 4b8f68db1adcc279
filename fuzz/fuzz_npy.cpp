// libFuzzer target: the .npy reader must reject any byte string with NpyError, never crash,
// never allocate past the memory budget.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/grid.hpp"
#include "core/npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const bool budgetSet = [] {
    posviz::setMemoryBudgetBytes(64ull << 20);  // keep single inputs small and fast
    return true;
  }();
  (void)budgetSet;
  try {
    posviz::NpyArray a = posviz::parseNpy(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.npy");
    std::size_t n = 1;
    for (auto d : a.shape) n *= static_cast<std::size_t>(d);
    if (n != a.data.size()) __builtin_trap();  // a parsed array must be self-consistent
  } catch (const posviz::NpyError&) {
  } catch (const std::invalid_argument&) {  // over the budget
  }
  return 0;
}
