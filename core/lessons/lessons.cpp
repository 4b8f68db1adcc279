#include "core/lessons/lessons.hpp"

#include "core/lessons/topics.hpp"
#include "core/random.hpp"

namespace posviz {

namespace {

// The registry: every lesson's code and data file, in the order the CLI lists them: by article
// (core/lessons/articles.hpp), each in the order its article reaches it.
const LessonCode kLessons[] = {
    // Teaching Transformers to Count
    {"shuffled-sentence-permutation", "order.json", shuffledSentenceSteps},
    {"sinusoidal-wavelengths-d512", "sinusoidal.json", sinusoidalWavelengthSteps},
    {"sinusoidal-offset-rotation", "sinusoidal.json", sinusoidalOffsetSteps},
    {"learned-ceiling-512", "learned.json", learnedCeilingSteps},
    {"rope-half-split-code", "rope.json", ropeHalfSplitCodeSteps},
    {"alibi-slopes-8heads", "alibi.json", alibiSlopesSteps},
    {"code-teaching-sinusoidal", "code_audits.json", code001SinusoidalSteps},
    {"code-teaching-learned", "code_audits.json", code001LearnedSteps},
    {"code-teaching-rope", "code_audits.json", code001RopeSteps},
    {"code-teaching-mha", "code_audits.json", code001MhaSteps},
    {"code-teaching-alibi", "code_audits.json", code001AlibiSteps},
    // 8.5 Positional Encoding
    {"dog-bites-man", "order.json", dogBitesManSteps},
    {"code-8-5-modules", "code_audits.json", code002Steps},
    // Understanding Positional Embeddings
    {"toy-the-sky-is-not", "toy_config.json", toyConfigSteps},
    {"code-understanding-apply-rope", "code_audits.json", code003Steps},
    // the interview guide
    {"sinusoidal-frequency-order", "sinusoidal.json", sinusoidalFrequencyOrderSteps},
    {"sinusoidal-pos3-d8", "sinusoidal.json", sinusoidalPos3Steps},
    {"rope-2d-m5-n2", "rope.json", rope2dSteps},
    {"alibi-4tokens-m0.5", "alibi.json", alibiBias4Steps},
    {"ntk-yarn-4096-to-131072", "context_extension.json", contextExtensionSteps},
    {"rope-repeat-interleaved-code", "rope.json", ropeRepeatCodeSteps},
    {"code-interview-rotary", "code_audits.json", code004RopeSteps},
    {"code-interview-main-check", "code_audits.json", code004MainSteps},
    {"interview-q1-equivariance", "interview.json", interviewQ1Steps},
    {"interview-q2-wavelengths", "interview.json", interviewQ2Steps},
    {"interview-q3-learned-vs-rope", "interview.json", interviewQ3Steps},
    {"interview-q4-rope-relative", "interview.json", interviewQ4Steps},
    {"interview-q5-alibi-bias", "interview.json", interviewQ5Steps},
    {"interview-q6-where-position-acts", "interview.json", interviewQ6Steps},
    {"interview-q7-values-not-rotated", "interview.json", interviewQ7Steps},
    {"interview-q8-extending-rope", "interview.json", interviewQ8Steps},
    {"interview-q9-alibi-vs-rope", "interview.json", interviewQ9Steps},
    {"interview-q10-one-pair", "interview.json", interviewQ10Steps},
    {"sinusoidal-pair1-pos3", "sinusoidal.json", sinusoidalPair1Steps},
    {"interview-probes", "interview.json", interviewProbesSteps},
    // the papers beyond the articles
    {"paper-t5-buckets", "papers.json", paperT5Steps},
    {"paper-xpos-scales", "papers.json", paperXposSteps},
    {"paper-alibi-slopes", "papers.json", paperAlibiSteps},
    {"paper-roformer-decay", "papers.json", paperRoformerSteps},
};

}  // namespace

std::span<const LessonCode> lessonCodes() { return kLessons; }

std::vector<WorkedExample> workedExamples() {
  std::vector<WorkedExample> all;
  for (const LessonCode& code : kLessons) all.push_back(computeLesson(code));
  return all;
}

std::optional<WorkedExample> findWorkedExample(const std::string& name) {
  for (const LessonCode& code : kLessons)
    if (name == code.name) return computeLesson(code);
  return std::nullopt;
}

std::vector<std::string> workedExampleNames() {
  std::vector<std::string> names;
  for (const LessonCode& code : kLessons) names.push_back(code.name);
  return names;
}

std::vector<double> randomVector(int n, std::uint64_t seed) { return toDouble(randomNormalVector(n, seed)); }

std::string indexList(const std::vector<int>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

}  // namespace posviz
