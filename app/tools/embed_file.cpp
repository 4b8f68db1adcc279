// embed_file: writes a C++ source that holds a file's bytes as an array (used at build time so
// the binary carries its font and runs from any directory).
//   embed_file INPUT OUTPUT.cpp NAMESPACE SYMBOL
// defines  const unsigned char SYMBOL[];  const std::size_t SYMBOL_size;  in NAMESPACE.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: embed_file INPUT OUTPUT.cpp NAMESPACE SYMBOL\n");
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "embed_file: cannot read %s\n", argv[1]);
    return 1;
  }
  const std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string tmp = std::string(argv[2]) + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    out << "// Generated from " << argv[1] << " by embed_file. Do not edit.\n#include <cstddef>\n";
    out << "namespace " << argv[3] << " {\n";
    out << "extern const unsigned char " << argv[4] << "[];\nextern const std::size_t " << argv[4] << "_size;\n";
    out << "const unsigned char " << argv[4] << "[] = {\n";
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      out << static_cast<unsigned>(bytes[i]) << (i + 1 < bytes.size() ? "," : "");
      if (i % 32 == 31) out << '\n';
    }
    if (bytes.empty()) out << "0";
    out << "\n};\nconst std::size_t " << argv[4] << "_size = " << bytes.size() << ";\n}\n";
    if (!out) {
      std::fprintf(stderr, "embed_file: cannot write %s\n", tmp.c_str());
      return 1;
    }
  }
  if (std::rename(tmp.c_str(), argv[2]) != 0) {
    std::fprintf(stderr, "embed_file: cannot rename %s\n", tmp.c_str());
    return 1;
  }
  return 0;
}
