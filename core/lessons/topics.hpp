// topics.hpp: the code side of every lesson, one function per worked example, grouped in one
// file per topic (sinusoidal.cpp, toy_config.cpp, rope.cpp, alibi.cpp, learned.cpp, order.cpp,
// context_extension.cpp, interview.cpp, code_audits.cpp, papers.cpp), plus the small vector helpers they share.
//
// Each function computes, with core, the named numbers, outcomes and text fields of each step
// of its example, in the order of the steps in assets/lessons/<topic>.json, and the step's
// mini view; the words and the documents' values live in the data (core/lessons/lesson_data.hpp).
// The registry that pairs each function with its data is in core/lessons/lessons.cpp.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/lessons/lesson_data.hpp"

namespace posviz {

// sinusoidal.cpp
std::vector<StepResult> sinusoidalPos3Steps();         // sinusoidal-pos3-d8
std::vector<StepResult> sinusoidalPair1Steps();        // sinusoidal-pair1-pos3
std::vector<StepResult> sinusoidalWavelengthSteps();   // sinusoidal-wavelengths-d512
std::vector<StepResult> sinusoidalFrequencyOrderSteps();  // sinusoidal-frequency-order
std::vector<StepResult> sinusoidalOffsetSteps();       // sinusoidal-offset-rotation
// toy_config.cpp
std::vector<StepResult> toyConfigSteps();              // toy-the-sky-is-not
// rope.cpp
std::vector<StepResult> rope2dSteps();                 // rope-2d-m5-n2
std::vector<StepResult> ropeRepeatCodeSteps();         // rope-repeat-interleaved-code
std::vector<StepResult> ropeHalfSplitCodeSteps();      // rope-half-split-code
// alibi.cpp
std::vector<StepResult> alibiBias4Steps();             // alibi-4tokens-m0.5
std::vector<StepResult> alibiSlopesSteps();            // alibi-slopes-8heads
// learned.cpp
std::vector<StepResult> learnedCeilingSteps();         // learned-ceiling-512
// order.cpp
std::vector<StepResult> shuffledSentenceSteps();       // shuffled-sentence-permutation
std::vector<StepResult> dogBitesManSteps();            // dog-bites-man
// context_extension.cpp
std::vector<StepResult> contextExtensionSteps();       // ntk-yarn-4096-to-131072
// interview.cpp: 004's interview questions 1..10
std::vector<StepResult> interviewQ1Steps();            // interview-q1-equivariance
std::vector<StepResult> interviewQ2Steps();            // interview-q2-wavelengths
std::vector<StepResult> interviewQ3Steps();            // interview-q3-learned-vs-rope
std::vector<StepResult> interviewQ4Steps();            // interview-q4-rope-relative
std::vector<StepResult> interviewQ5Steps();            // interview-q5-alibi-bias
std::vector<StepResult> interviewQ6Steps();            // interview-q6-where-position-acts
std::vector<StepResult> interviewQ7Steps();            // interview-q7-values-not-rotated
std::vector<StepResult> interviewQ8Steps();            // interview-q8-extending-rope
std::vector<StepResult> interviewQ9Steps();            // interview-q9-alibi-vs-rope
std::vector<StepResult> interviewQ10Steps();           // interview-q10-one-pair
std::vector<StepResult> interviewProbesSteps();        // interview-probes (004's follow-up probes)
// code_audits.cpp: the documents' code listings at their edges
std::vector<StepResult> code001SinusoidalSteps();      // code-teaching-sinusoidal
std::vector<StepResult> code001LearnedSteps();         // code-teaching-learned
std::vector<StepResult> code001RopeSteps();            // code-teaching-rope
std::vector<StepResult> code001AlibiSteps();           // code-teaching-alibi
std::vector<StepResult> code001MhaSteps();             // code-teaching-mha
std::vector<StepResult> code002Steps();                // code-8-5-modules
std::vector<StepResult> code003Steps();                // code-understanding-apply-rope
std::vector<StepResult> code004RopeSteps();            // code-interview-rotary
std::vector<StepResult> code004MainSteps();            // code-interview-main-check
// papers.cpp: worked numbers from the papers of other schemes
std::vector<StepResult> paperT5Steps();                // paper-t5-buckets
std::vector<StepResult> paperXposSteps();              // paper-xpos-scales
std::vector<StepResult> paperAlibiSteps();             // paper-alibi-slopes
std::vector<StepResult> paperRoformerSteps();          // paper-roformer-decay

// Shared helpers: vectors of equal length (extra entries of the longer one are ignored).
inline double maxAbsDiff(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0.0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) m = std::max(m, std::fabs(a[i] - b[i]));
  return m;
}

inline double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0.0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) s += a[i] * b[i];
  return s;
}

inline double norm(const std::vector<double>& a) { return std::sqrt(dot(a, a)); }

inline std::vector<double> toDouble(const std::vector<float>& v) { return {v.begin(), v.end()}; }

// A seeded N(0, 1) vector (core/random.hpp), in float64.
std::vector<double> randomVector(int n, std::uint64_t seed);

// "[0, 1, 2, 3]"
std::string indexList(const std::vector<int>& v);

}  // namespace posviz
