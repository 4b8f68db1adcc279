// write_dataset.cpp: Dataset -> file, one function per format. Every writer goes through an
// atomic write (the file appears whole or not at all), and a result holding NaN or infinity (a
// float overflow from extreme options) is refused before anything is written.
#include <cmath>
#include <functional>
#include <limits>

#include "app/cli/request.hpp"
#include "app/cli/view_table.hpp"

namespace posviz::cli {

namespace {

using nlohmann::json;

// Non-finite numbers in a result are float32 (or float64) overflows from extreme options, never
// data: such a result is refused rather than written. Masked ALiBi entries (-inf) and a loaded
// --table (exported as it is) are the exceptions.
struct FiniteCheck {
  const Request& r;
  bool allowNegativeInfinity = false;
  bool skip = false;

  [[noreturn]] void refuse(const std::string& where, double value) const {
    std::string options = r.numberOptions.empty() ? std::string("these parameters") : r.numberOptions;
    if (r.model) options += " (with the model's values)";
    throw UsageError("the result would hold " + formatNumber(value) + " at " + where +
                     " (past the range of " + (r.dtype == DType::F64 ? "float64" : "float32") + ") with " + options +
                     "; refused, nothing written: use smaller values" + (r.dtype == DType::F64 ? "" : " or --dtype f64"));
  }
  bool finite(double v) const { return std::isfinite(v) || (allowNegativeInfinity && v == -std::numeric_limits<double>::infinity()); }

  template <typename T>
  void values(const T* p, std::size_t n, bool asFloat, const char* what) const {
    if (skip) return;
    for (std::size_t i = 0; i < n; ++i) {
      const double v = asFloat ? static_cast<double>(static_cast<float>(p[i])) : static_cast<double>(p[i]);
      if (!finite(v)) refuse(std::string(what) + " index " + std::to_string(i), v);
    }
  }
  void document(const json& j, const std::string& path) const {
    if (skip) return;
    if (j.is_number_float() && !finite(j.get<double>())) refuse(path.empty() ? "the top level" : path, j.get<double>());
    if (j.is_object()) {
      for (const auto& [key, value] : j.items()) document(value, path.empty() ? key : path + "." + key);
    } else if (j.is_array()) {
      for (std::size_t i = 0; i < j.size(); ++i) document(j[i], path + "[" + std::to_string(i) + "]");
    }
  }
};

void writeNpyFile(const Request& r, const Dataset& d, const FiniteCheck& check) {
  if (d.int32Values) {
    const std::vector<std::int32_t> ids(d.grid.values.begin(), d.grid.values.end());
    writeNpyInt32(r.output, d.shape, ids.data());
  } else if (r.dtype == DType::F64 && !d.exact.empty()) {
    check.values(d.exact.data(), d.exact.size(), false, "value");
    writeNpy(r.output, d.shape, d.exact.data(), DType::F64);
  } else {
    check.values(d.grid.values.data(), d.grid.values.size(), false, "value");
    writeNpy(r.output, d.shape, d.grid.values.data(), r.dtype);
  }
}

void writeCsvFile(const Request& r, const Dataset& d, const FiniteCheck& check, const ExportProgress& progress) {
  if (!d.columnNames.empty()) {
    for (std::size_t c = 0; c < d.columns.size(); ++c) {
      check.values(d.columns[c].data(), d.columns[c].size(), false, d.columnNames[c].c_str());
    }
    writeCsvColumns(r.output, d.columnNames, d.columns);
    return;
  }
  const std::int64_t cols = d.shape.back();
  std::int64_t rows = 1;
  for (std::size_t i = 0; i + 1 < d.shape.size(); ++i) rows *= d.shape[i];
  if (r.dtype == DType::F64 && !d.exact.empty()) {
    check.values(d.exact.data(), d.exact.size(), false, "value");
    writeCsvGrid(r.output, d.exact, rows, cols, d.csvComments, progress);
  } else {
    check.values(d.grid.values.data(), d.grid.values.size(), false, "value");
    writeCsvGrid(r.output, d.grid, d.csvComments, progress);
  }
}

// float32 output of a whole document: every number rounded to float, as the .npy would hold it.
void roundToFloat(json& doc) {
  std::function<void(json&)> round = [&](json& j) {
    if (j.is_number_float()) j = static_cast<double>(static_cast<float>(j.get<double>()));
    else if (j.is_array() || j.is_object()) for (json& e : j) round(e);
  };
  for (const char* key : {"inv_freq", "base_inv_freq", "ramp", "attention_factor", "q", "k", "score", "bound", "slopes"}) {
    if (doc.contains(key)) round(doc[key]);
  }
}

void writeJsonFile(const Request& r, const Dataset& d, const FiniteCheck& check, const ExportProgress& progress) {
  const bool f64 = r.dtype == DType::F64;
  json doc = d.document;
  doc["view"] = r.view->name;
  if (d.jsonComplete) {
    if (!f64) roundToFloat(doc);
    doc["dtype"] = f64 ? "float64" : "float32";
    check.document(doc, "");
    writeJson(r.output, doc);
    return;
  }
  // The values are streamed into the file, never held as a document.
  doc["shape"] = d.shape;
  doc["dtype"] = d.int32Values ? "int32" : f64 ? "float64" : "float32";
  check.document(doc, "");
  if (f64 && !d.exact.empty()) {
    check.values(d.exact.data(), d.exact.size(), false, "values");
    writeJsonWithValues(r.output, doc, "values", d.shape, d.exact.data(), progress);
  } else {
    check.values(d.grid.values.data(), d.grid.values.size(), false, "values");
    writeJsonWithValues(r.output, doc, "values", d.shape, d.grid.values.data(), progress);
  }
}

// .png or .svg: the same picture, raster or vector.
void writePictureFile(const Request& r, const Dataset& d, const FiniteCheck& check, const ExportProgress& progress) {
  const PngOptions o = pictureOptions(r, d);
  check.values(d.grid.values.data(), d.grid.values.size(), false, "value");
  if (r.format == Format::Svg) writeSvg(r.output, d.grid, o, progress);
  else writePng(r.output, d.grid, o, progress);
}

}  // namespace

PngOptions pictureOptions(const Request& r, const Dataset& d) {
  PngOptions o;
  const Colormap* map = r.colormap ? &*r.colormap : nullptr;
  o.scale = d.colorRange ? colorScaleFor(d.colorRange->min, d.colorRange->max, map, d.isAngle)
                         : autoColorScale(d.grid, map, d.isAngle);
  o.cellScale = r.scale > 0 ? r.scale : autoCellScale(d.grid.rows, d.grid.cols);
  o.colorbar = r.colorbar;
  o.axisTitles = r.axisTitles;
  o.rowTitle = d.rowTitle;
  o.colTitle = d.colTitle;
  o.rowFirst = d.rowFirst;
  o.rowLast = d.rowLast;
  o.colFirst = d.colFirst;
  o.colLast = d.colLast;
  o.valueName = d.valueName;
  o.caption = r.caption == "auto" ? d.caption : r.caption;
  o.textScale = r.textScale;
  return o;
}

void writeDataset(const Request& r, const Dataset& d, const ExportProgress& progress) {
  FiniteCheck check{r};
  check.allowNegativeInfinity = d.allowNegativeInfinity;
  check.skip = d.skipFiniteCheck;
  switch (r.format) {
    case Format::Npy: writeNpyFile(r, d, check); break;
    case Format::Csv: writeCsvFile(r, d, check, progress); break;
    case Format::Json: writeJsonFile(r, d, check, progress); break;
    case Format::Png:
    case Format::Svg: writePictureFile(r, d, check, progress); break;
  }
}

}  // namespace posviz::cli
