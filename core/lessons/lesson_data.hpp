// lesson_data.hpp: how a lesson's data (assets/lessons/<topic>.json) meets the code that computes
// its numbers (core/lessons/<topic>.cpp), and the registry of lessons.
//
// FILE FORMAT (one file per topic, embedded as posviz::embedded::lessons)
//   {"about": TEXT, "lessons": [LESSON, ...]}
//   LESSON  {"name", "title", "article": an id of core/lessons/articles.hpp, "source",
//            "fixes"?: [{"faulty": a listing's line, "corrected": the line it should be, "why"}, ...],
//            "texts"?: {NAME: TEXT, ...}, "steps": [STEP, ...]}
//   STEP    {"title", "formula", "explanation"?: TEXT or {VARIANT: TEXT, ...}, "claims"?: [CLAIM, ...]}
//   CLAIM   {"text": the document's words, "of": the number checked, "check", "claimed",
//            "severity"?: "concept" or "number" (default: concept for atLeast, atMost, event
//            checks and code-audit behaviours, number otherwise; claims.hpp claimSeverity),
//            "claimedText": the value as the document prints it, "cause"?: why it would differ}
//     check "decimals"  + "decimals": n     claimed: a number (or {"of": NAME}, see below)
//     check "relative"  + "tolerance": > 0  claimed: a number
//     check "exact" / "atLeast" / "atMost"  claimed: the value or the bound
//     check "event"     + "observedWithoutError": TEXT   claimed: "error" or "no error"
//   "behaviour"?: NAME  (code audits) the name of a behaviour the step's code classified
//            (StepResult::behaviours: what a listing did at an edge), shown beside the verdict
//   "of" names a number the step's code computed (shown or checked); for an event, an outcome
//   (a call's error message, "" when it succeeded; the observation printed is that message, or
//   observedWithoutError). "claimed": {"of": NAME} takes the claimed value from a computed
//   number: the document's rule run as the document's code (core/lessons/document_code.hpp).
//   Keys other than these are errors, so a misspelt key cannot be silently ignored.
//
// TEXTS
//   The texts (a lesson's title, source and texts; a step's title, formula and explanation; a
//   claim's text, claimedText, cause and observedWithoutError; not names or "of") may hold
//   placeholders {name} (letters, digits, _), replaced by, in order:
//     in a claim: {claimed}, the claimed value to 6 significant digits, and {rounded}, the
//     computed value to the claim's decimals (decimals checks);
//     the step's fields (StepResult::fields: numbers the code printed into text);
//     the lesson's "texts" (shared sentences, themselves with placeholders).
//   Any other {name} is an error; braces not around a name ("theta_{p,i}") are kept.
//
// BINDING
//   The code returns one StepResult per step of the data, in the same order. A step's number
//   names are unique; a checked value or an outcome that no claim uses is an error (dead code).
//
// ERRORS
//   Data that does not match its code is a programming error: std::logic_error
//   "lesson 'NAME' (FILE), step N 'TITLE', claim M: KEY ..." naming the lesson, step and key.
#pragma once

#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/lessons/lessons.hpp"

namespace posviz {

// What one step's code computed.
struct StepResult {
  std::vector<std::pair<std::string, double>> numbers;  // shown, in this order; claims may check them
  std::map<std::string, double> checked;                // not shown: values only claims check
  std::map<std::string, std::string> outcomes;          // name -> a call's error message, "" on success
  std::map<std::string, std::string> fields;            // {name} in the data's texts -> text
  std::map<std::string, std::string> behaviours;        // code audits: run name -> behaviourName(...)
  std::string variant;                                  // which explanation of the data applies; "" for one
  MiniView view;
};

using LessonSteps = std::vector<StepResult> (*)();

struct LessonCode {
  const char* name;   // the example's name in the data: "sinusoidal-pos3-d8"
  const char* file;   // its data file in posviz::embedded::lessons: "sinusoidal.json"
  LessonSteps steps;  // computes every step, in the data's step order
};

// Every lesson, in the order the CLI lists them (core/lessons/lessons.cpp).
std::span<const LessonCode> lessonCodes();

// Runs code.steps and binds the results to the data in the embedded file.
WorkedExample computeLesson(const LessonCode& code);
// Binds results to the lesson code.name of fileText (the text of code.file); code.steps unused.
WorkedExample bindLesson(const LessonCode& code, std::string_view fileText, const std::vector<StepResult>& results);
// The lesson names a data file holds, in order.
std::vector<std::string> lessonNamesIn(std::string_view file, std::string_view fileText);

}  // namespace posviz
