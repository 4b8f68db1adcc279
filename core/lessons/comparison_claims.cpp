#include "core/lessons/comparison_claims.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "core/embedded.hpp"

// [SECTION] names
// [SECTION] parsing
// [SECTION] cells
// [SECTION] verdicts

namespace posviz {

// ---------------------------------------------------------------------------------------------
// [SECTION] names
// ---------------------------------------------------------------------------------------------

const char* comparisonRowName(ComparisonRow r) {
  switch (r) {
    case ComparisonRow::Parameters: return "parameters";
    case ComparisonRow::Applied: return "applied";
    case ComparisonRow::AtTarget: return "at-target";
    case ComparisonRow::Relative: return "relative";
    case ComparisonRow::Cost: return "cost";
    case ComparisonRow::UsedBy: return "used-by";
    case ComparisonRow::Coupling: return "coupling";
  }
  return "unknown";
}

const char* comparisonRowTitle(ComparisonRow r) {
  switch (r) {
    case ComparisonRow::Parameters: return "Parameters";
    case ComparisonRow::Applied: return "Where applied";
    case ComparisonRow::AtTarget: return "At position L-1 (extrapolation)";
    case ComparisonRow::Relative: return "Relative position: max |s(m,n) - s(m+k,n+k)|";
    case ComparisonRow::Cost: return "Cost per token and layer";
    case ComparisonRow::UsedBy: return "Used by (shipped presets)";
    case ComparisonRow::Coupling: return "Content-position coupling";
  }
  return "unknown";
}

const std::vector<ComparisonRow>& comparisonRows() {
  static const std::vector<ComparisonRow> kRows = {ComparisonRow::Parameters, ComparisonRow::Applied, ComparisonRow::AtTarget,
                                                   ComparisonRow::Relative, ComparisonRow::Cost,
                                                   ComparisonRow::UsedBy, ComparisonRow::Coupling};
  return kRows;
}

const char* cellVerdictName(CellVerdict v) {
  switch (v) {
    case CellVerdict::Agrees: return "agrees";
    case CellVerdict::Qualifies: return "qualifies";
    case CellVerdict::Contradicts: return "contradicts";
    case CellVerdict::NotTested: return "not tested";
  }
  return "unknown";
}

// ---------------------------------------------------------------------------------------------
// [SECTION] parsing
// ---------------------------------------------------------------------------------------------

namespace {

using nlohmann::json;

const std::vector<std::string>& expectations(ComparisonRow r) {
  static const std::vector<std::string> kParams = {"zero", "table"}, kApplied = {"embedding", "qk", "scores"},
                                        kTarget = {"defined", "error"}, kRelative = {"direct", "viaEncoding", "none", "blind"},
                                        kCost = {"noPositionRows"}, kUsedBy = {"models"},
                                        kCoupling = {"coupled", "decoupled", "scoreOnly"};
  switch (r) {
    case ComparisonRow::Parameters: return kParams;
    case ComparisonRow::Applied: return kApplied;
    case ComparisonRow::AtTarget: return kTarget;
    case ComparisonRow::Relative: return kRelative;
    case ComparisonRow::Cost: return kCost;
    case ComparisonRow::UsedBy: return kUsedBy;
    case ComparisonRow::Coupling: return kCoupling;
  }
  return kCost;
}

struct Parser {
  std::string where;  // "comparison.json: claim 3"

  [[noreturn]] void fail(const std::string& what) const { throw std::invalid_argument(where + ": " + what); }

  void onlyKeys(const json& obj, std::initializer_list<std::string_view> keys) const {
    if (!obj.is_object()) fail(std::string("expected a JSON object, got ") + obj.type_name());
    for (const auto& item : obj.items())
      if (std::find(keys.begin(), keys.end(), item.key()) == keys.end()) fail("unknown key \"" + item.key() + "\"");
  }
  const json& member(const json& obj, const char* key) const {
    const auto it = obj.find(key);
    if (it == obj.end()) fail(std::string("missing key \"") + key + "\"");
    return *it;
  }
  std::string text(const json& obj, const char* key) const {
    const json& v = member(obj, key);
    if (!v.is_string() || v.get<std::string>().empty()) fail(std::string("\"") + key + "\" must be a non-empty string");
    return v.get<std::string>();
  }
  Scheme scheme(const std::string& name) const {
    for (Scheme s : comparisonSchemes())
      if (name == schemeName(s)) return s;
    fail("unknown scheme \"" + name + "\" (sinusoidal, learned, rope, alibi, nope)");
  }
};

ComparisonClaim parseClaim(const json& j, const Parser& p) {
  p.onlyKeys(j, {"row", "scheme", "text", "source", "expect"});
  ComparisonClaim c;
  const std::string row = p.text(j, "row");
  const auto& rows = comparisonRows();
  const auto it = std::find_if(rows.begin(), rows.end(), [&](ComparisonRow r) { return row == comparisonRowName(r); });
  if (it == rows.end()) p.fail("unknown row \"" + row + "\" (parameters, applied, at-target, relative, cost, used-by, coupling)");
  c.row = *it;
  c.scheme = p.scheme(p.text(j, "scheme"));
  c.text = p.text(j, "text");
  c.source = p.text(j, "source");
  c.expect = p.text(j, "expect");
  const auto& allowed = expectations(c.row);
  if (std::find(allowed.begin(), allowed.end(), c.expect) == allowed.end()) {
    std::string list;
    for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
    p.fail("\"expect\" for row " + row + " must be one of " + list + ", got \"" + c.expect + "\"");
  }
  return c;
}

DecisionAnswer parseAnswer(const json& j, const Parser& p, std::vector<std::string>& nextNames) {
  p.onlyKeys(j, {"label", "next", "leaf"});
  DecisionAnswer a;
  a.label = p.text(j, "label");
  const bool hasNext = j.contains("next"), hasLeaf = j.contains("leaf");
  if (hasNext == hasLeaf) p.fail("answer \"" + a.label + "\" needs exactly one of \"next\" and \"leaf\"");
  if (hasNext) {
    nextNames.push_back(p.text(j, "next"));
    return a;
  }
  nextNames.emplace_back();
  const json& leaf = j["leaf"];
  p.onlyKeys(leaf, {"title", "notes", "tab", "scheme"});
  a.leaf.title = p.text(leaf, "title");
  a.leaf.tab = p.text(leaf, "tab");
  a.leaf.scheme = p.scheme(p.text(leaf, "scheme"));
  const json& notes = p.member(leaf, "notes");
  if (!notes.is_array()) p.fail("\"notes\" must be an array of strings");
  for (const json& n : notes) {
    if (!n.is_string()) p.fail("\"notes\" must be an array of strings");
    a.leaf.notes.push_back(n.get<std::string>());
  }
  return a;
}

void parseDecision(const json& j, const std::string& file, ComparisonClaims& out) {
  Parser p{file + ": decision"};
  p.onlyKeys(j, {"source", "nodes"});
  out.decisionSource = p.text(j, "source");
  const json& nodes = p.member(j, "nodes");
  if (!nodes.is_array() || nodes.empty()) p.fail("\"nodes\" must be a non-empty array");
  std::vector<std::vector<std::string>> next;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    Parser np{file + ": decision node " + std::to_string(i + 1)};
    np.onlyKeys(nodes[i], {"name", "question", "answers"});
    DecisionNode n{np.text(nodes[i], "name"), np.text(nodes[i], "question"), {}};
    const json& answers = np.member(nodes[i], "answers");
    if (!answers.is_array() || answers.empty()) np.fail("\"answers\" must be a non-empty array");
    next.emplace_back();
    for (const json& a : answers) n.answers.push_back(parseAnswer(a, np, next.back()));
    out.decision.push_back(std::move(n));
  }
  for (std::size_t i = 0; i < out.decision.size(); ++i)
    for (std::size_t a = 0; a < next[i].size(); ++a) {
      if (next[i][a].empty()) continue;
      const auto it = std::find_if(out.decision.begin(), out.decision.end(), [&](const DecisionNode& n) { return n.name == next[i][a]; });
      if (it == out.decision.end() || it == out.decision.begin() + static_cast<std::ptrdiff_t>(i))
        Parser{file + ": decision node " + std::to_string(i + 1)}.fail("\"next\" names no other node: \"" + next[i][a] + "\"");
      out.decision[i].answers[a].next = static_cast<int>(it - out.decision.begin());
    }
}

}  // namespace

ComparisonClaims parseComparisonClaims(std::string_view text, std::string_view fileName) {
  const std::string file(fileName);
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& e) {
    throw std::invalid_argument(file + ": not valid JSON: " + e.what());
  }
  Parser p{file};
  p.onlyKeys(root, {"about", "claims", "decision"});
  ComparisonClaims out;
  out.about = p.text(root, "about");
  const json& claims = p.member(root, "claims");
  if (!claims.is_array()) p.fail("\"claims\" must be an array");
  for (std::size_t i = 0; i < claims.size(); ++i) out.claims.push_back(parseClaim(claims[i], Parser{file + ": claim " + std::to_string(i + 1)}));
  parseDecision(p.member(root, "decision"), file, out);
  return out;
}

const ComparisonClaims& comparisonClaims() {
  static const ComparisonClaims kClaims = [] {
    const embedded::File* f = embedded::comparison.find("comparison.json");
    if (f == nullptr) throw std::logic_error("comparison.json is not embedded (core/lessons/CMakeLists.txt)");
    return parseComparisonClaims(f->text());
  }();
  return kClaims;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] cells
// ---------------------------------------------------------------------------------------------

namespace {

std::string num(double v, int significant = 6) {
  if (std::isnan(v)) return "n/a";
  char buf[64];
  if (v != 0.0 && (std::fabs(v) >= 1e7 || std::fabs(v) < 1e-3)) std::snprintf(buf, sizeof buf, "%.*e", significant - 1, v);
  else std::snprintf(buf, sizeof buf, "%.*g", significant, v);
  return buf;
}

std::string count(double v) {
  char buf[64];
  if (v < 1e15) std::snprintf(buf, sizeof buf, "%.0f", v);
  else std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string bytes(double floats) {
  const double b = floats * 4.0;
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double x = b;
  int u = 0;
  while (x >= 1024.0 && u < 5) {
    x /= 1024.0;
    ++u;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g %s", x, units[u]);
  return buf;
}

std::string share(const AtTarget& a) {
  return std::to_string(a.unseenPairs) + " of " + std::to_string(a.numPairs) + " pairs (" + num(100.0 * a.unseenShare, 3) + "%)";
}

std::string atTargetText(const Comparison& c, const SchemeColumn& col) {
  const AtTarget& a = col.atTarget;
  switch (col.scheme) {
    case Scheme::Sinusoidal: return "defined, ||PE(L-1)|| = " + num(a.norm) + "; angles never seen in training: " + share(a);
    case Scheme::Learned: return a.defined ? "row exists (L <= L0)" : "error: " + a.error;
    case Scheme::Rope: return "defined; angles never seen in training: " + share(a) + " of head_dim " + std::to_string(c.headDim);
    case Scheme::Alibi:
      return "bias -m*(L-1): head 1 " + num(a.bias.front()) + " .. head " + std::to_string(a.bias.size()) + " " + num(a.bias.back()) +
             " (trained: down to " + num(a.trainedBias.front()) + ")";
    case Scheme::NoPE: return "defined: no position at all";
  }
  return "";
}

std::string relativeText(const SchemeColumn& col) {
  const RelativeCheck& r = col.relative;
  std::string s = num(r.maxError, 3) + " (W " + std::to_string(r.window) + ", k up to " + std::to_string(r.maxShift) +
                  (r.coarse ? "; coarse: " + std::to_string(r.shifts) + " of " + std::to_string(kMaxShifts) + " shifts" : "") + ")";
  if (col.scheme == Scheme::Sinusoidal || col.scheme == Scheme::Learned) s += "; PE.PE alone: " + num(r.encodingOnlyError, 3);
  if (r.positionSpread == 0.0) s += "; the score never changes with position";
  return s;
}

std::string usedByText(const Comparison& c, const SchemeColumn& col) {
  if (c.models.empty()) return "no models given";
  if (col.usedBy.empty()) return "none of the " + std::to_string(c.models.size()) + " presets";
  std::string s = std::to_string(col.usedBy.size()) + " of " + std::to_string(c.models.size()) + ":";
  for (std::size_t i = 0; i < col.usedBy.size(); ++i) s += (i ? ", " : " ") + col.usedBy[i];
  return s;
}

std::string couplingText(const SchemeColumn& col) {
  const Coupling& k = col.coupling;
  const std::string dep = "position's effect on the score changes with content by up to " + num(k.contentDependence, 3);
  switch (col.scheme) {
    case Scheme::Sinusoidal:
    case Scheme::Learned:
      return "additive: cross terms q.P(n) + P(m).k are " + num(100.0 * k.crossShare, 3) + "% of |terms|; " + dep;
    case Scheme::Rope: return "multiplicative: nothing added (cross terms 0), but q^T R(n-m) k: " + dep;
    case Scheme::Alibi: return "score bias -m|i-j|, the same for every content: change " + num(k.contentDependence, 3);
    case Scheme::NoPE: return "no position to couple: change " + num(k.contentDependence, 3);
  }
  return "";
}

}  // namespace

std::string comparisonCellText(const Comparison& c, ComparisonRow row, Scheme s) {
  const SchemeColumn& col = c.column(s);
  switch (row) {
    case ComparisonRow::Parameters:
      return s == Scheme::Learned ? count(static_cast<double>(col.parameters)) + " = L0 x d_model (" + bytes(static_cast<double>(col.parameters)) + ")"
                                  : "0";
    case ComparisonRow::Applied: return appliedAtName(col.appliedAt);
    case ComparisonRow::AtTarget: return atTargetText(c, col);
    case ComparisonRow::Relative: return relativeText(col);
    case ComparisonRow::Cost:
      return count(col.cost.multiplyAddsPerToken) + " ops; holds " + count(col.cost.memoryFloats) + " floats (" +
             bytes(col.cost.memoryFloats) + "): " + col.cost.what;
    case ComparisonRow::UsedBy: return usedByText(c, col);
    case ComparisonRow::Coupling: return couplingText(col);
  }
  return "";
}

// ---------------------------------------------------------------------------------------------
// [SECTION] verdicts
// ---------------------------------------------------------------------------------------------

namespace {

ClaimVerdict judgeAtTarget(const ComparisonClaim& claim, const Comparison& c, const SchemeColumn& col) {
  const ComparisonParams& p = c.params;
  if (p.targetLength <= p.trainedLength)
    return {CellVerdict::NotTested, "L (" + std::to_string(p.targetLength) + ") <= L0 (" + std::to_string(p.trainedLength) +
                                    "): nothing to extrapolate; raise L past L0"};
  const AtTarget& a = col.atTarget;
  if (claim.expect == "error")
    return a.defined ? ClaimVerdict{CellVerdict::Contradicts, "position L-1 = " + std::to_string(p.targetLength - 1) + " has a value"}
                     : ClaimVerdict{CellVerdict::Agrees, a.error};
  if (!a.defined) return {CellVerdict::Contradicts, "no value at position L-1: " + a.error};
  if ((col.scheme == Scheme::Sinusoidal || col.scheme == Scheme::Rope) && a.unseenPairs > 0)
    return {CellVerdict::Qualifies, "defined, but " + share(a) + " reach angles never seen in training (their wavelength exceeds L0 = " +
                                    std::to_string(p.trainedLength) + ")"};
  if (col.scheme == Scheme::Alibi)
    return {CellVerdict::Qualifies, "defined and linear, but head 1's bias reaches " + num(a.bias.front()) + " where training saw at most " +
                                    num(a.trainedBias.front()) + ": logits below any trained value"};
  return {CellVerdict::Agrees, "defined at every position; every angle at L-1 was seen in training"};
}

ClaimVerdict judgeRelative(const ComparisonClaim& claim, const SchemeColumn& col) {
  const RelativeCheck& r = col.relative;
  if (std::isnan(r.maxError)) return {CellVerdict::NotTested, "no shift fits in the positions available"};
  const bool rel = r.relative(), encRel = r.encodingOnlyError <= kRelativeTolerance;
  const std::string err = "max |s(m,n) - s(m+k,n+k)| = " + num(r.maxError);
  if (claim.expect == "direct") return {rel ? CellVerdict::Agrees : CellVerdict::Contradicts, err};
  if (claim.expect == "none") return {rel ? CellVerdict::Contradicts : CellVerdict::Agrees, err};
  if (claim.expect == "blind")
    return r.positionSpread == 0.0 ? ClaimVerdict{CellVerdict::Agrees, "the score is the same at every (m, n): " + err}
                                   : ClaimVerdict{CellVerdict::Contradicts, "the score changes with position by " + num(r.positionSpread)};
  // viaEncoding
  if (rel) return {CellVerdict::Agrees, err};
  if (encRel)
    return {CellVerdict::Qualifies, "PE(m).PE(n) depends only on m - n (" + num(r.encodingOnlyError) + "), but the score with content added does not: " +
                                    err + " (cross terms x.PE)"};
  return {CellVerdict::Contradicts, err + "; PE.PE alone: " + num(r.encodingOnlyError)};
}

ClaimVerdict judgeCost(const Comparison& c, const SchemeColumn& col) {
  if (col.parameters != 0) return {CellVerdict::Contradicts, count(static_cast<double>(col.parameters)) + " position parameters"};
  if (col.scheme == Scheme::Alibi)
    return {CellVerdict::Qualifies, "no rows, " + std::to_string(c.params.numHeads) +
                                        " slopes; but the listing of Teaching Transformers to Count precomputes heads x max_len^2: " +
                                        bytes(c.alibiBufferFloats) + " at max_len = L"};
  if (col.cost.memoryFloats > 0.0)
    return {CellVerdict::Qualifies, "no parameters, but a precomputed table of " + bytes(col.cost.memoryFloats) + " at L = " +
                                    std::to_string(c.params.targetLength)};
  return {CellVerdict::Agrees, "nothing stored"};
}

// Letters and digits, lower-cased: "GPT-2" -> "gpt2".
std::string squash(const std::string& s) {
  std::string out;
  for (char ch : s)
    if (std::isalnum(static_cast<unsigned char>(ch))) out += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

std::vector<std::string> splitNames(const std::string& text) {
  std::vector<std::string> names;
  std::string cur;
  for (char ch : text + ",") {
    if (ch != ',') {
      cur += ch;
      continue;
    }
    if (!squash(cur).empty()) names.push_back(cur.substr(cur.find_first_not_of(' ')));
    cur.clear();
  }
  return names;
}

ClaimVerdict judgeUsedBy(const ComparisonClaim& claim, const Comparison& c, const SchemeColumn& col) {
  std::string found, missing, wrong;
  for (const std::string& name : splitNames(claim.text)) {
    const std::string key = squash(name);
    bool any = false, uses = false;
    std::string example;
    for (const ModelSchemes& m : c.models) {
      if (squash(m.name).find(key) == std::string::npos) continue;
      any = true;
      const bool u = std::find(m.schemes.begin(), m.schemes.end(), col.scheme) != m.schemes.end();
      if (u && !uses) example = m.name;
      if (!u && wrong.find(m.name) == std::string::npos) wrong += (wrong.empty() ? "" : ", ") + m.name;
      uses = uses || u;
    }
    if (!any) missing += (missing.empty() ? "" : ", ") + name;
    else if (uses) found += (found.empty() ? "" : ", ") + name + " (" + example + ")";
  }
  if (!wrong.empty())
    return {CellVerdict::Contradicts, wrong + " do not use " + std::string(schemeTitle(col.scheme))};
  if (found.empty())
    return {CellVerdict::NotTested, "no shipped preset is " + missing};
  if (!missing.empty())
    return {CellVerdict::Qualifies, "presets confirm " + found + "; not among the presets: " + missing};
  return {CellVerdict::Agrees, "presets confirm " + found};
}

ClaimVerdict judgeCoupling(const ComparisonClaim& claim, const SchemeColumn& col) {
  const Coupling& k = col.coupling;
  const std::string nums = "cross terms " + num(100.0 * k.crossShare, 3) + "% of |terms|, position's effect changes with content by " +
                           num(k.contentDependence, 3);
  if (claim.expect == "coupled")
    return {k.crossShare > 0.0 && k.coupled() ? CellVerdict::Agrees : CellVerdict::Contradicts, nums};
  if (claim.expect == "scoreOnly")
    return {k.coupled() ? CellVerdict::Contradicts : CellVerdict::Agrees, nums};
  // decoupled
  if (k.crossShare > 0.0) return {CellVerdict::Contradicts, nums};
  if (k.coupled())
    return {CellVerdict::Qualifies, "nothing is added to the vectors (cross terms 0), but the score q^T R(n-m) k depends on content "
                                    "and relative position jointly: position's effect changes with content by " +
                                    num(k.contentDependence, 3)};
  return {CellVerdict::Agrees, nums};
}

}  // namespace

ClaimVerdict judgeClaim(const ComparisonClaim& claim, const Comparison& c) {
  const SchemeColumn& col = c.column(claim.scheme);
  switch (claim.row) {
    case ComparisonRow::Parameters: {
      const long long want = claim.expect == "table" ? c.params.trainedLength * c.params.dModel : 0;
      return {col.parameters == want ? CellVerdict::Agrees : CellVerdict::Contradicts, count(static_cast<double>(col.parameters)) + " parameters"};
    }
    case ComparisonRow::Applied: {
      const AppliedAt want = claim.expect == "embedding" ? AppliedAt::EmbeddingInput : claim.expect == "qk" ? AppliedAt::QueryKey : AppliedAt::Scores;
      return {col.appliedAt == want ? CellVerdict::Agrees : CellVerdict::Contradicts, appliedAtName(col.appliedAt)};
    }
    case ComparisonRow::AtTarget: return judgeAtTarget(claim, c, col);
    case ComparisonRow::Relative: return judgeRelative(claim, col);
    case ComparisonRow::Cost: return judgeCost(c, col);
    case ComparisonRow::UsedBy: return judgeUsedBy(claim, c, col);
    case ComparisonRow::Coupling: return judgeCoupling(claim, col);
  }
  return {};
}

}  // namespace posviz
