// comparison_claims.hpp: what the documents claim in their comparison tables and decision
// chart (assets/lessons/comparison.json, embedded as posviz::embedded::comparison), and the
// verdict of each claim against the cells core/comparison.hpp computes.
//
// FILE FORMAT
//   {"about": TEXT, "claims": [CLAIM, ...], "decision": {"source": TEXT, "nodes": [NODE, ...]}}
//   CLAIM   {"row", "scheme", "text": the document's words, "source": "ARTICLE, \"SECTION\"" (the
//            article's short name and section, never a line number), "expect"}
//     row     "parameters" | "applied" | "at-target" | "relative" | "cost" | "used-by" | "coupling"
//     scheme  "sinusoidal" | "learned" | "rope" | "alibi" | "nope"
//     expect  per row: parameters "zero" | "table";  applied "embedding" | "qk" | "scores";
//             at-target "defined" | "error";  relative "direct" | "viaEncoding" | "none" | "blind";
//             cost "noPositionRows";  used-by "models" (text: model names, comma-separated);
//             coupling "coupled" | "decoupled" | "scoreOnly"
//   NODE    {"name", "question", "answers": [ANSWER, ...]}, the first node is the root
//   ANSWER  {"label", "next": NODE NAME} or {"label", "leaf": {"title", "notes": [TEXT...],
//            "tab": a window tab, "scheme": the column it recommends}}
//   Unknown keys, unknown rows, schemes or expectations, and "next" naming no node are errors
//   (std::invalid_argument naming the claim or node and the key).
//
// VERDICTS (judgeClaim; the reason quotes the computed numbers)
//   Agrees       the computed cell is what the claim says
//   Qualifies    true as stated, but the numbers add a condition: defined at L-1 while pairs
//                reach angles never seen in training (sinusoidal, RoPE) or ALiBi's bias runs
//                past its trained range; the sinusoidal rotation property holds for PE.PE but
//                not for the score once content is added; no parameters but a cache or buffer
//                that grows with L
//   Contradicts  the computed cell says otherwise
//   NotTested    the parameters do not reach the claim (L <= L0 for an extrapolation claim), or
//                no model the claim names is among the models given (used-by)
//   used-by: a name matches a model when its letters and digits, lower-cased, occur in the
//   model's ("GPT-2" matches "gpt2", "LLaMA" "llama-3.1-8b"). Agrees: every name matched uses the
//   scheme; Qualifies: only some names are among the models; Contradicts: a matched model does not
//   use the scheme.
//   coupling: "coupled" agrees when the cross terms have a share > 0 and the position's effect
//   depends on content; "decoupled" (RoPE) qualifies when nothing is added (share 0) but the
//   effect still depends on content; "scoreOnly" agrees when the effect is the same for every
//   content.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/comparison.hpp"

namespace posviz {

enum class ComparisonRow { Parameters, Applied, AtTarget, Relative, Cost, UsedBy, Coupling };
// "parameters", "applied", "at-target", "relative", "cost", "used-by", "coupling"
const char* comparisonRowName(ComparisonRow r);
const char* comparisonRowTitle(ComparisonRow r);  // "Parameters", "Where applied", "At position L-1", ...
const std::vector<ComparisonRow>& comparisonRows();

struct ComparisonClaim {
  ComparisonRow row = ComparisonRow::Parameters;
  Scheme scheme = Scheme::Sinusoidal;
  std::string text;    // the document's words
  std::string source;  // "Teaching Transformers to Count, \"Comparison: Which to Use When\""
  std::string expect;  // see FILE FORMAT
};

struct DecisionLeaf {
  std::string title;
  std::vector<std::string> notes;
  std::string tab;     // window tab the leaf opens
  Scheme scheme = Scheme::Rope;
};

struct DecisionAnswer {
  std::string label;
  int next = -1;       // index of the next node, or -1 for a leaf
  DecisionLeaf leaf;   // when next == -1
};

struct DecisionNode {
  std::string name;
  std::string question;
  std::vector<DecisionAnswer> answers;
};

struct ComparisonClaims {
  std::string about;
  std::vector<ComparisonClaim> claims;
  std::string decisionSource;
  std::vector<DecisionNode> decision;  // [0] is the root
};

// Parses a file in the format above; std::invalid_argument "comparison.json: claim 3: ..." on
// malformed data.
ComparisonClaims parseComparisonClaims(std::string_view text, std::string_view fileName = "comparison.json");
// The embedded file, parsed once.
const ComparisonClaims& comparisonClaims();

enum class CellVerdict { Agrees, Qualifies, Contradicts, NotTested };
const char* cellVerdictName(CellVerdict v);  // "agrees", "qualifies", "contradicts", "not tested"

struct ClaimVerdict {
  CellVerdict verdict = CellVerdict::Agrees;
  std::string reason;  // with the computed numbers
};
ClaimVerdict judgeClaim(const ComparisonClaim& claim, const Comparison& computed);

// The computed cell as one line of text ("32768 = L0 x d_model", "error: learnedLookup: ...").
std::string comparisonCellText(const Comparison& c, ComparisonRow row, Scheme s);

}  // namespace posviz
