// learned_source.cpp: see learned_source.hpp.
#include "app/cli/learned_source.hpp"

#include <filesystem>
#include <stdexcept>

#include "core/learned.hpp"
#include "core/train/weights.hpp"

namespace posviz::cli {

namespace {

namespace fs = std::filesystem;

// The run folder path names: the folder itself, or the folder of its model.safetensors.
std::string runFolderOf(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return path;
  const fs::path p(path);
  if (p.filename() == train::kWeightsFileName) return p.parent_path().empty() ? std::string(".") : p.parent_path().string();
  return "";
}

}  // namespace

Grid loadLearnedSource(const std::string& path) {
  const std::string run = runFolderOf(path);
  if (run.empty()) return loadLearnedTable(path);
  train::Trainer t = train::loadRun(run);
  if (t.config().model.position.scheme != train::PositionScheme::Learned) {
    throw std::runtime_error(path + ": a " + std::string(train::positionSchemeName(t.config().model.position.scheme)) +
                             " run has no learned position table; choose the run folder of a learned run "
                             "(DIR/learned/seed-N)");
  }
  return t.learnedTable();
}

std::string learnedSourceName(const std::string& path, const Grid& table) {
  const std::string size = " (" + std::to_string(table.rows) + " x " + std::to_string(table.cols) + ")";
  const std::string run = runFolderOf(path);
  if (run.empty()) return fs::path(path).filename().string() + size;
  fs::path folder = fs::path(run).lexically_normal();
  if (folder.filename().empty()) folder = folder.parent_path();  // "runs/learned/seed-1/" 
  const fs::path parent = folder.parent_path().filename();
  const std::string name = (parent.empty() ? folder.filename() : parent / folder.filename()).string();
  return "trained run " + name + size;
}

}  // namespace posviz::cli
