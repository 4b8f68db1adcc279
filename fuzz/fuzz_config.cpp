// libFuzzer target: the config.json reader must turn any text into a ModelConfig or a
// ConfigError naming the field, never crash or hang.
#include <cstddef>
#include <cstdint>
#include <string>

#include "app/cli/model_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    posviz::cli::ModelConfig c = posviz::cli::parseModelConfig(text, "fuzz.json");
    // A config that parses must describe a valid encoding: core accepts its RoPE parameters.
    if (c.encoding == posviz::cli::ModelEncoding::Rope) {
      (void)posviz::ropeFrequencies(c.rope);
    }
  } catch (const posviz::cli::ConfigError&) {
  }
  return 0;
}
