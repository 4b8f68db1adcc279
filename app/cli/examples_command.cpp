#include "core/untrusted_text.hpp"
#include "app/cli/examples_command.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>

#include "core/lessons/articles.hpp"
#include "core/lessons/code_listings.hpp"
#include "core/lessons/lessons.hpp"

namespace posviz::cli {

namespace {

void printUsage(std::FILE* f) {
  std::fprintf(f,
               "usage: posviz examples                  list the documents' worked examples\n"
               "       posviz examples --topic TOPIC    list one topic's examples, each claim with its verdict\n"
               "                                        (and, for code audits, what the listing did)\n"
               "       posviz examples --tests          the test list of Teaching Transformers to Count run\n"
               "                                        against every listing (pass / FAIL / n/a)\n"
               "       posviz examples NAME             print NAME's steps, numbers and checked claims\n");
}

std::string topicNames(const std::vector<WorkedExample>& all) {
  std::string names;
  for (const WorkedExample& e : all)
    if (names.find(e.topic) == std::string::npos) names += (names.empty() ? "" : ", ") + e.topic;
  return names;
}

void printList(const std::vector<WorkedExample>& all) {
  std::printf("%zu worked examples from the documents, by article in reading order (posviz examples NAME prints one):\n", all.size());
  std::string article;
  for (const WorkedExample& e : all) {
    if (e.article != article) {
      article = e.article;
      const Article* a = findArticle(article);
      std::printf("\n%s\n", a != nullptr ? a->title : article.c_str());
    }
    std::printf("  %-32s %-34s %s\n", e.name.c_str(), verdictSummary(countVerdicts(e)).c_str(), e.title.c_str());
    std::printf("  %-32s article: %s\n", "", articleSummary(countVerdicts(e)).c_str());
    const std::string behaviours = behaviourSummary(e);
    if (!behaviours.empty()) std::printf("  %-32s listing: %s\n", "", behaviours.c_str());
  }
}

// One line per claim: example, verdict, the listing's behaviour (code audits), the claim.
void printTopic(const std::vector<WorkedExample>& all, const std::string& topic) {
  for (const WorkedExample& e : all) {
    if (e.topic != topic) continue;
    std::printf("%s  (%s)  %s\n", e.name.c_str(), verdictSummary(countVerdicts(e)).c_str(), e.title.c_str());
    for (const Step& s : e.steps)
      for (const Claim& c : s.claims) {
        const std::string v = c.verdict == Verdict::Agrees ? "agrees" : c.verdict == Verdict::Truncated ? "truncated" : "DIFFERS";
        std::string text = c.text.size() > 90 ? c.text.substr(0, 87) + "..." : c.text;
        std::printf("  %-9s %-19s %s\n", v.c_str(), c.behaviour.empty() ? "" : ("[" + c.behaviour + "]").c_str(), text.c_str());
      }
  }
}

void printTests() {
  const TestGrid g = documentTestGrid();
  std::printf("The \"Test Coverage\" list of Teaching Transformers to Count run against each listing (pass / FAIL / n/a: the test is about another kind of module)\n");
  std::printf("%-44s", "");
  for (std::size_t l = 0; l < g.listings.size(); ++l) std::printf(" %c%-3zu", 'L', l + 1);
  std::printf("\n");
  for (std::size_t t = 0; t < g.tests.size(); ++t) {
    std::printf("%-44s", g.tests[t].c_str());
    for (std::size_t l = 0; l < g.listings.size(); ++l) std::printf(" %-4s", testCellName(g.at(t, l)));
    std::printf("\n");
  }
  std::printf("\nlistings:");
  for (std::size_t l = 0; l < g.listings.size(); ++l) std::printf("%s L%zu %s", l ? "," : "", l + 1, g.listings[l].c_str());
  std::printf("\n\nwhat each cell ran:\n");
  int labelWidth = 0;   // the listing column as wide as its longest label
  for (const std::string& l : g.listings) labelWidth = std::max(labelWidth, static_cast<int>(l.size()));
  for (std::size_t t = 0; t < g.tests.size(); ++t)
    for (std::size_t l = 0; l < g.listings.size(); ++l)
      if (g.at(t, l) != TestCell::NotApplicable)
        std::printf("  %-4s %-44s %-*s %s\n", testCellName(g.at(t, l)), g.tests[t].c_str(), labelWidth, g.listings[l].c_str(),
                    g.notes[t * g.listings.size() + l].c_str());
}

void printClaim(const Claim& c) {
  std::printf("  claim: %s\n", c.text.c_str());
  if (!c.behaviour.empty()) std::printf("    listing: %s\n", c.behaviour.c_str());
  if (c.check == ClaimCheck::Event)
    std::printf("    %s: claimed %s, observed: %s%s%s\n", c.verdict == Verdict::Agrees ? "AGREES" : "DIFFERS",
                c.claimedText.c_str(), c.computedText.c_str(), c.verdict == Verdict::Agrees ? "" : ", likely cause: ",
                c.likelyCause.c_str());
  else if (c.verdict == Verdict::Agrees)
    std::printf("    AGREES: claimed %s, computed %s (%s)\n", c.claimedText.c_str(), c.computedText.c_str(),
                c.precision.c_str());
  else if (c.verdict == Verdict::Truncated)
    std::printf("    TRUNCATED: claimed %s, computed %s (%s): right, but the last digit is cut off, not rounded\n",
                c.claimedText.c_str(), c.computedText.c_str(), c.precision.c_str());
  else
    std::printf("    DIFFERS: claimed %s, correct %s (%s), likely cause: %s\n", c.claimedText.c_str(),
                c.computedText.c_str(), c.precision.c_str(), c.likelyCause.c_str());
  if (c.verdict != Verdict::Agrees) std::printf("    the article is %s here\n", severityName(claimSeverity(c)));
}

void printExample(const WorkedExample& e) {
  std::printf("%s: %s\n", e.name.c_str(), e.title.c_str());
  std::printf("source: %s\n", e.source.c_str());
  std::printf("verdicts: %s\n", verdictSummary(countVerdicts(e)).c_str());
  std::printf("the article: %s\n", articleSummary(countVerdicts(e)).c_str());
  const std::size_t n = e.steps.size();
  for (std::size_t i = 0; i < n; ++i) {
    const Step& s = e.steps[i];
    std::printf("\nStep %zu/%zu: %s\n", i + 1, n, s.title.c_str());
    std::printf("  formula: %s\n", s.formula.c_str());
    if (!s.explanation.empty()) std::printf("  %s\n", s.explanation.c_str());
    for (const auto& [name, value] : s.numbers) std::printf("    %s = %.10g\n", name.c_str(), value);
    for (const Claim& c : s.claims) printClaim(c);
  }
  for (const CodeFix& f : e.fixes) std::printf("\nThe listing's faulty line, and its correction:\n  - %s\n  + %s\n  %s\n", f.faulty.c_str(), f.corrected.c_str(), f.why.c_str());
}

}  // namespace

int runExamplesCommand(const std::vector<std::string>& args) {
  if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
    printUsage(stdout);
    return 0;
  }
  if (args.size() == 1 && args[0] == "--tests") {
    try {
      printTests();
    } catch (const std::exception& ex) {
      std::fprintf(stderr, "posviz examples: running the test list failed: %s\n", displayMessage(ex.what()).c_str());
      return 1;
    }
    return 0;
  }
  const bool byTopic = !args.empty() && args[0] == "--topic";
  if (byTopic && args.size() != 2) {
    std::fprintf(stderr, "posviz examples: --topic needs one TOPIC (posviz examples --topic code_audits)\n");
    printUsage(stderr);
    return 2;
  }
  if (!byTopic && args.size() > 1) {
    std::fprintf(stderr, "posviz examples: expected at most one NAME, got %zu arguments\n", args.size());
    printUsage(stderr);
    return 2;
  }
  if (!byTopic && !args.empty() && args[0].starts_with("-")) {
    std::fprintf(stderr, "posviz examples: unknown option %s; options: --topic TOPIC, --tests, --help\n", quotedText(args[0]).c_str());
    return 2;
  }
  std::vector<WorkedExample> all;
  try {
    all = workedExamples();
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "posviz examples: computing the examples failed: %s\n", displayMessage(ex.what()).c_str());
    return 1;
  }
  if (args.empty()) {
    printList(all);
    return 0;
  }
  if (byTopic) {
    if (std::none_of(all.begin(), all.end(), [&](const WorkedExample& e) { return e.topic == args[1]; })) {
      std::fprintf(stderr, "posviz examples: unknown topic %s; topics: %s\n", quotedText(args[1]).c_str(), topicNames(all).c_str());
      return 2;
    }
    printTopic(all, args[1]);
    return 0;
  }
  for (const WorkedExample& e : all)
    if (e.name == args[0]) {
      printExample(e);
      return 0;
    }
  std::fprintf(stderr, "posviz examples: unknown example %s; the names are:\n", quotedText(args[0]).c_str());
  for (const WorkedExample& e : all) std::fprintf(stderr, "  %s\n", e.name.c_str());
  return 2;
}

}  // namespace posviz::cli
