// Tests for core/lessons/lesson_data: every lesson file loads and binds to its code, and every
// mismatch between data and code is a std::logic_error naming the lesson, the step and the key.
#include <doctest/doctest.h>

#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/embedded.hpp"
#include "core/lessons/lesson_data.hpp"

using namespace posviz;

namespace {

const LessonCode kTest{"test-lesson", "test.json", nullptr};

// One lesson with one step whose claims are `claims` (a JSON array's inside).
std::string oneStep(const std::string& claims, const std::string& stepExtra = "") {
  return R"({"lessons": [{"name": "test-lesson", "title": "T", "article": "interview", "source": "an article, a section",
             "texts": {"shared": "pair {pair}", "loop": "{loop}"},
             "steps": [{"title": "S", "formula": "f", )" +
         stepExtra + R"("claims": [)" + claims + "]}]}]}";
}

StepResult computed() {
  StepResult r;
  r.numbers = {{"x", 0.141120008059867}, {"n", 4.0}, {"rule", 0.5}};
  r.checked = {{"hidden", 2.0}};
  r.outcomes = {{"lookup 9", "learnedLookup: pos 9 has no row"}, {"lookup 1", ""}};
  r.fields = {{"pair", "64"}};
  return r;
}

// The claims every test below adds, so that computed()'s checked value and outcomes are used.
const std::string kUseAll =
    R"({"text": "h", "of": "hidden", "check": "exact", "claimed": 2, "claimedText": "2"},
       {"text": "e", "of": "lookup 9", "check": "event", "claimed": "error", "claimedText": "crash",
        "observedWithoutError": "no error"},
       {"text": "f", "of": "lookup 1", "check": "event", "claimed": "no error", "claimedText": "works",
        "observedWithoutError": "row returned"})";

WorkedExample bind(const std::string& claims, const std::string& stepExtra = "") {
  return bindLesson(kTest, oneStep(claims + (claims.empty() ? "" : ", ") + kUseAll, stepExtra), {computed()});
}

}  // namespace

TEST_SUITE("lessons") {

TEST_CASE("lesson data: every lesson file loads and every claim binds to a computed number") {
  std::set<std::string> inData;
  int files = 0;
  for (const embedded::File& f : embedded::lessons) {
    CAPTURE(f.name);
    ++files;
    std::vector<std::string> names;
    REQUIRE_NOTHROW(names = lessonNamesIn(f.name, f.text()));
    CHECK_FALSE(names.empty());
    for (const std::string& n : names) {
      CAPTURE(n);
      CHECK(inData.insert(n).second);  // unique across files
      bool hasCode = false;
      for (const LessonCode& code : lessonCodes()) hasCode = hasCode || (n == code.name && std::string(f.name) == code.file);
      CHECK_MESSAGE(hasCode, "a lesson in the data has no code");
    }
  }
  CHECK(files == 10);
  int claims = 0;
  for (const LessonCode& code : lessonCodes()) {
    CAPTURE(code.name);
    CHECK(inData.count(code.name) == 1);
    WorkedExample e;
    REQUIRE_NOTHROW(e = computeLesson(code));
    CHECK(e.name == code.name);
    for (const Step& s : e.steps) {
      CAPTURE(s.title);
      CHECK(s.title.find('{') == std::string::npos);  // every placeholder filled
      CHECK(s.explanation.find('{') == std::string::npos);
      for (const Claim& c : s.claims) {
        CHECK(c.likelyCause.find('{') == std::string::npos);
        ++claims;
      }
    }
  }
  CHECK(claims == 303);  // the sum of the verdict counts `posviz examples` lists
  CHECK(lessonCodes().size() == inData.size());
}

TEST_CASE("lesson data: claims bind to the named numbers, with the document's values and texts") {
  const WorkedExample e = bind(R"(
      {"text": "sin(3) for {pair}", "of": "x", "check": "decimals", "decimals": 9, "claimed": 0.141120009,
       "claimedText": "0.141120009", "cause": "rounds to {rounded}, not {claimed}; {shared}"},
      {"text": "rule", "of": "n", "check": "atLeast", "claimed": {"of": "rule"}, "claimedText": "{claimed}"})");
  REQUIRE(e.steps.size() == 1);
  const std::vector<Claim>& c = e.steps[0].claims;
  REQUIRE(c.size() == 5);
  CHECK(c[0].text == "sin(3) for 64");
  CHECK(c[0].verdict == Verdict::Differs);
  CHECK(c[0].likelyCause == "rounds to 0.141120008, not 0.14112; pair 64");
  CHECK(c[1].claimed == 0.5);
  CHECK(c[1].claimedText == "0.5");
  CHECK(c[1].verdict == Verdict::Agrees);
  CHECK(c[2].verdict == Verdict::Agrees);
  CHECK(c[3].computedText == "pos 9 has no row");   // the function name stays out of the text a person reads
  CHECK(c[3].verdict == Verdict::Agrees);
  CHECK(c[4].computedText == "row returned");
  CHECK(c[4].verdict == Verdict::Agrees);
  CHECK(e.steps[0].numbers.size() == 3);  // checked values are not shown
  CHECK(e.source == "an article, a section");
  CHECK(e.article == "interview");
  // Severity: a wrong decimal is a wrong number; a bound, an event or "severity": "concept" is a concept.
  CHECK(claimSeverity(c[0]) == Severity::WrongNumber);
  CHECK(c[1].conceptual);          // atLeast
  CHECK(claimSeverity(c[1]) == Severity::Holds);
  CHECK(c[3].conceptual);          // event
  CHECK_FALSE(c[2].conceptual);    // exact
}

TEST_CASE("lesson data: a claim's severity, a lesson's article and its code fixes") {
  const WorkedExample e = bind(R"(
      {"text": "t", "of": "x", "check": "decimals", "decimals": 9, "claimed": 0.2, "claimedText": "0.2", "severity": "concept", "cause": "a"},
      {"text": "u", "of": "n", "check": "atLeast", "claimed": 5, "claimedText": "5", "severity": "number", "cause": "b"})");
  const std::vector<Claim>& c = e.steps[0].claims;
  CHECK(claimSeverity(c[0]) == Severity::WrongConcept);
  CHECK(claimSeverity(c[1]) == Severity::WrongNumber);   // "number" overrides the atLeast default
  const VerdictCount n = countVerdicts(e);
  CHECK(n.differs == 2);
  CHECK(n.conceptCauses == 1);
  CHECK(articleSummary(n) == "1 wrong concept, 1 wrong number");
  CHECK_THROWS_WITH_AS(bind(R"({"text": "t", "of": "x", "check": "exact", "claimed": 1, "claimedText": "1", "severity": "big"})"),
                       doctest::Contains("\"severity\" must be \"concept\" or \"number\", got 'big'"), std::logic_error);

  std::string text = oneStep(kUseAll);
  const std::string withFix = R"("article": "teaching", "fixes": [{"faulty": "a = b[:n]", "corrected": "a = b[o:o + n]", "why": "the offset"}],)";
  text.replace(text.find(R"("article": "interview",)"), std::string(R"("article": "interview",)").size(), withFix);
  const WorkedExample f = bindLesson(kTest, text, {computed()});
  CHECK(f.article == "teaching");
  REQUIRE(f.fixes.size() == 1);
  CHECK(f.fixes[0].faulty == "a = b[:n]");
  CHECK(f.fixes[0].corrected == "a = b[o:o + n]");
  CHECK(f.fixes[0].why == "the offset");
  std::string unknown = oneStep(kUseAll);
  unknown.replace(unknown.find(R"("interview")"), std::string(R"("interview")").size(), R"("nowhere")");
  CHECK_THROWS_WITH_AS(bindLesson(kTest, unknown, {computed()}), doctest::Contains("\"article\": 'nowhere' is not an article id"),
                       std::logic_error);
  CHECK(articleSummary(countVerdicts(bind(""))) == "holds (3 checks)");
}

TEST_CASE("lesson data: explanation variants and braces that are not placeholders") {
  StepResult r = computed();
  r.variant = "changed";
  const std::string text = oneStep(kUseAll, R"("explanation": {"changed": "moved theta_{p,i}", "unchanged": "same"}, )");
  CHECK(bindLesson(kTest, text, {r}).steps[0].explanation == "moved theta_{p,i}");
  r.variant = "other";
  CHECK_THROWS_WITH_AS(bindLesson(kTest, text, {r}),
                       "lesson 'test-lesson' (test.json), step 1 'S': \"explanation\" has no text for the variant 'other'",
                       std::logic_error);
  CHECK_THROWS_WITH_AS(bindLesson(kTest, text, {computed()}),
                       "lesson 'test-lesson' (test.json), step 1 'S': \"explanation\" has variants but the code chose none",
                       std::logic_error);
}

TEST_CASE("lesson data: a claim naming a number the step did not compute is a logic_error") {
  CHECK_THROWS_WITH_AS(bind(R"({"text": "t", "of": "y", "check": "exact", "claimed": 1, "claimedText": "1"})"),
                       "lesson 'test-lesson' (test.json), step 1 'S', claim 1: \"of\": 'y' is not a number the step computed",
                       std::logic_error);
  CHECK_THROWS_WITH_AS(bind(R"({"text": "t", "of": "x", "check": "exact", "claimed": {"of": "z"}, "claimedText": "1"})"),
                       "lesson 'test-lesson' (test.json), step 1 'S', claim 1: \"claimed.of\": 'z' is not a number the step computed",
                       std::logic_error);
  CHECK_THROWS_WITH_AS(bind(R"({"text": "t", "of": "lookup 2", "check": "event", "claimed": "error", "claimedText": "c",
                                "observedWithoutError": "ok"})"),
                       "lesson 'test-lesson' (test.json), step 1 'S', claim 1: \"of\": 'lookup 2' is not an outcome the step observed",
                       std::logic_error);
}

TEST_CASE("lesson data: malformed data is a logic_error naming the lesson, step and key") {
  const std::string where = "lesson 'test-lesson' (test.json)";
  SUBCASE("not JSON") {
    CHECK_THROWS_WITH_AS(bindLesson(kTest, "{\"lessons\": [", {}), doctest::Contains("lesson 'test-lesson' (test.json): not valid JSON: "),
                         std::logic_error);
  }
  SUBCASE("no such lesson, or two") {
    CHECK_THROWS_WITH_AS(bindLesson(kTest, R"({"lessons": []})", {}), (where + ": the file holds no lesson with this name").c_str(),
                         std::logic_error);
    const std::string two = R"({"lessons": [{"name": "test-lesson"}, {"name": "test-lesson"}]})";
    CHECK_THROWS_WITH_AS(bindLesson(kTest, two, {}), (where + ": the file holds two lessons with this name").c_str(),
                         std::logic_error);
  }
  SUBCASE("step count") {
    CHECK_THROWS_WITH_AS(bindLesson(kTest, oneStep(kUseAll), {}), (where + ": the data has 1 steps, the code computed 0").c_str(),
                         std::logic_error);
  }
  SUBCASE("missing and misspelt keys") {
    CHECK_THROWS_WITH_AS(bind(R"({"text": "t", "of": "x", "check": "exact", "claimedText": "1"})"),
                         (where + ", step 1 'S', claim 1: \"claimed\" is missing").c_str(), std::logic_error);
    CHECK_THROWS_WITH_AS(bind(R"({"text": "t", "of": "x", "check": "exact", "claimed": 1, "claimedText": "1", "caues": "c"})"),
                         (where + ", step 1 'S', claim 1: unknown key \"caues\"").c_str(), std::logic_error);
    CHECK_THROWS_WITH_AS(bind(R"({"text": "t", "of": "x", "check": "exact", "decimals": 3, "claimed": 1, "claimedText": "1"})"),
                         (where + ", step 1 'S', claim 1: unknown key \"decimals\"").c_str(), std::logic_error);
    CHECK_THROWS_WITH_AS(bind(R"({"text": "t", "of": "x", "check": "close", "claimed": 1, "claimedText": "1"})"),
                         doctest::Contains("claim 1: \"check\": unknown kind 'close'"), std::logic_error);
    CHECK_THROWS_WITH_AS(bind(R"({"text": "t", "of": "x", "check": "decimals", "decimals": -1, "claimed": 1, "claimedText": "1"})"),
                         (where + ", step 1 'S', claim 1: \"decimals\" must be an integer >= 0").c_str(), std::logic_error);
    CHECK_THROWS_WITH_AS(bind(R"({"text": 3, "of": "x", "check": "exact", "claimed": 1, "claimedText": "1"})"),
                         (where + ", step 1 'S', claim 1: \"text\" must be a string, got number").c_str(), std::logic_error);
  }
  SUBCASE("placeholders") {
    CHECK_THROWS_WITH_AS(bind(R"({"text": "{nope}", "of": "x", "check": "exact", "claimed": 1, "claimedText": "1"})"),
                         (where + ", step 1 'S', claim 1: {nope} is neither a field the step's code computed nor one of "
                                  "the lesson's texts").c_str(),
                         std::logic_error);
    CHECK_THROWS_WITH_AS(bind(R"({"text": "{loop}", "of": "x", "check": "exact", "claimed": 1, "claimedText": "1"})"),
                         doctest::Contains("texts nest more than 4 deep"), std::logic_error);
  }
  SUBCASE("code that computed what no claim checks") {
    CHECK_THROWS_WITH_AS(bindLesson(kTest, oneStep(R"({"text": "t", "of": "x", "check": "exact", "claimed": 1, "claimedText": "1"})"),
                                    {computed()}),
                         (where + ", step 1 'S': the code computed the checked value 'hidden' but no claim checks it").c_str(),
                         std::logic_error);
    StepResult twice = computed();
    twice.numbers.push_back({"x", 1.0});
    CHECK_THROWS_WITH_AS(bindLesson(kTest, oneStep(kUseAll), {twice}),
                         (where + ", step 1 'S': the code computed the number 'x' twice").c_str(), std::logic_error);
  }
  SUBCASE("a data file that is not embedded") {
    const LessonCode missing{"test-lesson", "missing.json", [] { return std::vector<StepResult>{}; }};
    CHECK_THROWS_WITH_AS(computeLesson(missing),
                         "lesson 'test-lesson' (missing.json): no such file in the embedded lessons (assets/lessons/)",
                         std::logic_error);
  }
}

}  // TEST_SUITE
