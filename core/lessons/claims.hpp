// claims.hpp: a document's number against core's, at the precision the document gives.
//
// CHECKS
//   Decimals   printed to n decimals: |computed - claimed| <= 0.5 * 10^-n (+ 1e-12 slack)
//   Relative   "~630", "about 6": |computed - claimed| <= tol * |claimed|
//   Exact      integers, shapes, counts: |computed - claimed| <= 1e-12
//   AtLeast    "thousands of positions": computed >= claimed
//   AtMost     "no larger than": computed <= claimed
//   Event      "you crash": claimed 1 (it happens), computed 1 when it happened, 0 when not
//   The slack is 1e-12 * max(1, |claimed|). A claim that Differs carries the likely cause; one
//   given none says "no cause identified from the numbers".
// VERDICTS
//   Agrees     within the check's tolerance
//   Truncated  a Decimals claim whose printed digits are the computed value cut off, not rounded:
//              the number is right, its last digit is one short (a typo of precision, not an error)
//   Differs    wrong; countVerdicts counts the distinct likely causes, so one erratum repeated
//              over 13 heads reads "13 differ (1 cause)", not as 13 errors
//
// FORMATTING
//   computedText is the computed value at the claim's precision: Decimals with n + 2 decimals,
//   Relative, AtLeast and AtMost with 6 significant digits, Exact with 12; an Event's is what
//   was observed. formatFixed / formatGeneral / formatInt are the printf forms every lesson's
//   texts use ("%.*f", "%.*g", integers).
//
// ERRORS
//   claimDecimals: std::invalid_argument for decimals < 0; claimRelative: for relTol <= 0.
#pragma once

#include <string>

namespace posviz {

enum class ClaimCheck { Decimals, Relative, Exact, AtLeast, AtMost, Event };
enum class Verdict { Agrees, Truncated, Differs };
const char* verdictName(Verdict v);  // "agrees", "truncated", "differs"

// How wrong a document is at one claim, as a reader should weigh it: a rounded digit is not an
// error, a wrong number is a typo or a slip, a wrong concept misleads (a reversed order, a code
// listing that computes something else, a property that does not hold).
enum class Severity { Holds, Rounded, WrongNumber, WrongConcept };
const char* severityName(Severity s);  // "holds", "rounded", "wrong in a number", "wrong in concept"

struct Claim {
  std::string text;          // what the document says, quoted or closely paraphrased
  std::string claimedText;   // the value as the document prints it: "0.141120008", "~630"
  double claimed = 0.0;
  double computed = 0.0;
  std::string computedText;  // computed value, printed to the claim's precision (+2 digits)
  ClaimCheck check = ClaimCheck::Exact;
  double tolerance = 0.0;    // Decimals: 0.5*10^-n; Relative: fraction; others 0
  std::string precision;     // "9 decimals", "within 10%", "exact", "at least"
  Verdict verdict = Verdict::Agrees;
  std::string likelyCause;   // why the document's number is wrong; empty when it agrees
  std::string behaviour;     // code audits: what the listing did at this edge ("error", "wrong shape",
                             // "silent truncation", "memory", "wrong values", "agrees";
                             // core/lessons/code_listings.hpp); empty for other claims
  bool conceptual = false;   // about a property or a behaviour, not a printed number (lesson data:
                             // "severity", else true for atLeast / atMost / event checks and code audits)
};

// Agrees -> Holds, Truncated -> Rounded, Differs -> WrongConcept when conceptual, else WrongNumber.
Severity claimSeverity(const Claim& c);

// Builders: each computes the verdict. decimals >= 0; relTol > 0.
Claim claimDecimals(std::string text, std::string claimedText, double claimed, double computed, int decimals,
                    std::string likelyCause = {});
Claim claimRelative(std::string text, std::string claimedText, double claimed, double computed, double relTol,
                    std::string likelyCause = {});
Claim claimExact(std::string text, std::string claimedText, double claimed, double computed,
                 std::string likelyCause = {});
Claim claimAtLeast(std::string text, std::string claimedText, double bound, double computed,
                   std::string likelyCause = {});
Claim claimAtMost(std::string text, std::string claimedText, double bound, double computed,
                  std::string likelyCause = {});
// happened: whether the event the document predicts occurred; what: what was observed (an
// error message, "no error").
Claim claimEvent(std::string text, std::string claimedText, bool happened, std::string what,
                 std::string likelyCause = {});

// Verdicts of a step's or a whole example's claims (types in core/lessons/lessons.hpp).
struct Step;
struct WorkedExample;
struct VerdictCount {
  int agrees = 0;
  int truncated = 0;   // right, but cut off instead of rounded in the last printed digit
  int differs = 0;
  int causes = 0;      // distinct likely causes among the differing claims
  int conceptCauses = 0;  // of those, the causes of conceptual claims (WrongConcept)
};
VerdictCount countVerdicts(const WorkedExample& e);
VerdictCount countVerdicts(const Step& s);
// "10 agree, 3 truncated, 1 differs", "10 agree, 13 differ (1 cause)".
std::string verdictSummary(const VerdictCount& n);
// What the reader should take from the article, errors counted once per cause: "holds (24 checks)",
// "1 wrong concept, 3 truncated digits", "4 wrong numbers".
std::string articleSummary(const VerdictCount& n);
// The behaviours of an example's code-audit claims, most frequent first: "3 error, 1 memory";
// empty when it has none.
std::string behaviourSummary(const WorkedExample& e);

std::string formatFixed(double v, int decimals);         // "%.*f": formatFixed(0.5, 1) = "0.5"
std::string formatGeneral(double v, int significant = 10); // "%.*g": formatGeneral(62.83185, 3) = "62.8"
std::string formatInt(long long v);                      // "512"

}  // namespace posviz
