#include "core/lessons/claims.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "core/check.hpp"
#include "core/lessons/lessons.hpp"

namespace posviz {

namespace {

// Room for the rounding of a value printed from a double.
double slackFor(double claimed) { return 1e-12 * std::max(1.0, std::fabs(claimed)); }

Claim base(std::string text, std::string claimedText, double claimed, double computed, ClaimCheck check) {
  Claim c;
  c.text = std::move(text);
  c.claimedText = std::move(claimedText);
  c.claimed = claimed;
  c.computed = computed;
  c.check = check;
  return c;
}

void settle(Claim& c, bool agrees, std::string cause) {
  c.verdict = agrees ? Verdict::Agrees : Verdict::Differs;
  if (!agrees) c.likelyCause = cause.empty() ? "no cause identified from the numbers" : std::move(cause);
}

}  // namespace

std::string formatFixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string formatGeneral(double v, int significant) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", significant, v);
  return buf;
}

std::string formatInt(long long v) { return std::to_string(v); }

const char* severityName(Severity s) {
  switch (s) {
    case Severity::Holds: return "holds";
    case Severity::Rounded: return "rounded";
    case Severity::WrongNumber: return "wrong in a number";
    case Severity::WrongConcept: return "wrong in concept";
  }
  return "?";
}

Severity claimSeverity(const Claim& c) {
  switch (c.verdict) {
    case Verdict::Agrees: return Severity::Holds;
    case Verdict::Truncated: return Severity::Rounded;
    case Verdict::Differs: return c.conceptual ? Severity::WrongConcept : Severity::WrongNumber;
  }
  return Severity::Holds;
}

const char* verdictName(Verdict v) {
  switch (v) {
    case Verdict::Agrees: return "agrees";
    case Verdict::Truncated: return "truncated";
    case Verdict::Differs: return "differs";
  }
  return "?";
}

namespace {

// The printed value is the computed one cut off after `decimals` digits instead of rounded: the
// number is right, its last digit is one less than rounding gives.
bool isTruncation(double claimed, double computed, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::fabs(std::trunc(computed * scale) - claimed * scale) < 1e-6;
}

}  // namespace

Claim claimDecimals(std::string text, std::string claimedText, double claimed, double computed, int decimals,
                    std::string likelyCause) {
  requireNonNegativeInt("claimDecimals", "decimals", decimals);
  Claim c = base(std::move(text), std::move(claimedText), claimed, computed, ClaimCheck::Decimals);
  c.tolerance = 0.5 * std::pow(10.0, -decimals);
  c.precision = std::to_string(decimals) + (decimals == 1 ? " decimal" : " decimals");
  c.computedText = formatFixed(computed, decimals + 2);
  settle(c, std::fabs(computed - claimed) <= c.tolerance + slackFor(claimed), std::move(likelyCause));
  if (c.verdict == Verdict::Differs && isTruncation(claimed, computed, decimals)) c.verdict = Verdict::Truncated;
  return c;
}

Claim claimRelative(std::string text, std::string claimedText, double claimed, double computed, double relTol,
                    std::string likelyCause) {
  requirePositive("claimRelative", "relTol", relTol);
  Claim c = base(std::move(text), std::move(claimedText), claimed, computed, ClaimCheck::Relative);
  c.tolerance = relTol;
  c.precision = "within " + formatGeneral(relTol * 100.0, 3) + "%";
  c.computedText = formatGeneral(computed, 6);
  settle(c, std::fabs(computed - claimed) <= relTol * std::fabs(claimed) + slackFor(claimed), std::move(likelyCause));
  return c;
}

Claim claimExact(std::string text, std::string claimedText, double claimed, double computed, std::string likelyCause) {
  Claim c = base(std::move(text), std::move(claimedText), claimed, computed, ClaimCheck::Exact);
  c.precision = "exact";
  c.computedText = formatGeneral(computed, 12);
  settle(c, std::fabs(computed - claimed) <= slackFor(claimed), std::move(likelyCause));
  return c;
}

Claim claimAtLeast(std::string text, std::string claimedText, double bound, double computed, std::string likelyCause) {
  Claim c = base(std::move(text), std::move(claimedText), bound, computed, ClaimCheck::AtLeast);
  c.precision = "at least " + formatGeneral(bound, 6);
  c.computedText = formatGeneral(computed, 6);
  settle(c, computed >= bound, std::move(likelyCause));
  return c;
}

Claim claimAtMost(std::string text, std::string claimedText, double bound, double computed, std::string likelyCause) {
  Claim c = base(std::move(text), std::move(claimedText), bound, computed, ClaimCheck::AtMost);
  c.precision = "at most " + formatGeneral(bound, 6);
  c.computedText = formatGeneral(computed, 6);
  settle(c, computed <= bound, std::move(likelyCause));
  return c;
}

Claim claimEvent(std::string text, std::string claimedText, bool happened, std::string what, std::string likelyCause) {
  Claim c = base(std::move(text), std::move(claimedText), 1.0, happened ? 1.0 : 0.0, ClaimCheck::Event);
  c.precision = "event";
  c.computedText = std::move(what);
  settle(c, happened, std::move(likelyCause));
  return c;
}

namespace {

// causes: the distinct likely causes of differing claims, each with whether it is conceptual.
void add(VerdictCount& n, const Claim& c, std::map<std::string, bool>& causes) {
  switch (c.verdict) {
    case Verdict::Agrees: ++n.agrees; break;
    case Verdict::Truncated: ++n.truncated; break;
    case Verdict::Differs:
      ++n.differs;
      causes[c.likelyCause] = causes[c.likelyCause] || c.conceptual;
      break;
  }
  n.causes = static_cast<int>(causes.size());
  n.conceptCauses = static_cast<int>(std::count_if(causes.begin(), causes.end(), [](const auto& p) { return p.second; }));
}

}  // namespace

VerdictCount countVerdicts(const Step& s) {
  VerdictCount n;
  std::map<std::string, bool> causes;
  for (const Claim& c : s.claims) add(n, c, causes);
  return n;
}

VerdictCount countVerdicts(const WorkedExample& e) {
  VerdictCount n;
  std::map<std::string, bool> causes;
  for (const Step& s : e.steps)
    for (const Claim& c : s.claims) add(n, c, causes);
  return n;
}

std::string verdictSummary(const VerdictCount& n) {
  std::string s = std::to_string(n.agrees) + " agree";
  if (n.truncated > 0) s += ", " + std::to_string(n.truncated) + " truncated";
  if (n.differs > 0) {
    s += ", " + std::to_string(n.differs) + (n.differs == 1 ? " differs" : " differ");
    if (n.differs > 1) s += " (" + std::to_string(n.causes) + (n.causes == 1 ? " cause)" : " causes)");
  }
  return s;
}

std::string articleSummary(const VerdictCount& n) {
  if (n.differs == 0 && n.truncated == 0) return "holds (" + std::to_string(n.agrees) + (n.agrees == 1 ? " check)" : " checks)");
  std::string s;
  const auto part = [&s](int count, const char* one, const char* many) {
    if (count > 0) s += (s.empty() ? "" : ", ") + std::to_string(count) + " " + (count == 1 ? one : many);
  };
  part(n.conceptCauses, "wrong concept", "wrong concepts");
  part(n.causes - n.conceptCauses, "wrong number", "wrong numbers");
  part(n.truncated, "truncated digit", "truncated digits");
  return s;
}

std::string behaviourSummary(const WorkedExample& e) {
  std::vector<std::pair<std::string, int>> counts;  // in order of first appearance
  for (const Step& st : e.steps)
    for (const Claim& c : st.claims) {
      if (c.behaviour.empty()) continue;
      auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& p) { return p.first == c.behaviour; });
      if (it == counts.end()) counts.emplace_back(c.behaviour, 1);
      else ++it->second;
    }
  std::stable_sort(counts.begin(), counts.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string s;
  for (const auto& [name, n] : counts) s += (s.empty() ? "" : ", ") + std::to_string(n) + " " + name;
  return s;
}

}  // namespace posviz
