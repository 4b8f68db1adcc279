#include "core/lessons/lesson_data.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>
#include <stdexcept>

#include "core/embedded.hpp"
#include "core/lessons/articles.hpp"
#include "core/untrusted_text.hpp"

// [SECTION] errors and JSON access
// [SECTION] texts and placeholders
// [SECTION] claims
// [SECTION] steps and lessons

namespace posviz {

namespace {

using nlohmann::json;
using Texts = std::map<std::string, std::string>;

// ---------------------------------------------------------------------------------------------
// [SECTION] errors and JSON access
// ---------------------------------------------------------------------------------------------

// Where in the data a mismatch is; parts not known yet are left out of the message.
struct Where {
  std::string lesson, file;
  int step = -1;  // 0-based; printed 1-based, as the CLI numbers steps
  std::string stepTitle;
  int claim = -1;

  std::string text() const {
    std::string s = lesson.empty() ? file : "lesson '" + lesson + "' (" + file + ")";
    if (step >= 0) s += ", step " + std::to_string(step + 1) + " '" + stepTitle + "'";
    if (claim >= 0) s += ", claim " + std::to_string(claim + 1);
    return s;
  }
};

Where whereIn(std::string lesson, std::string file) {
  Where w;
  w.lesson = std::move(lesson);
  w.file = std::move(file);
  return w;
}

[[noreturn]] void fail(const Where& w, const std::string& what) { throw std::logic_error(w.text() + ": " + what); }

std::string keyText(std::string_view key) { return "\"" + std::string(key) + "\""; }

void onlyKeys(const json& obj, const std::vector<std::string_view>& keys, const Where& w) {
  if (!obj.is_object()) fail(w, std::string("expected a JSON object, got ") + obj.type_name());
  for (const auto& item : obj.items())
    if (std::find(keys.begin(), keys.end(), item.key()) == keys.end()) fail(w, "unknown key " + keyText(item.key()));
}

const json& member(const json& obj, const char* key, const Where& w) {
  const auto it = obj.find(key);
  if (it == obj.end()) fail(w, keyText(key) + " is missing");
  return *it;
}

std::string stringAt(const json& obj, const char* key, const Where& w) {
  const json& v = member(obj, key, w);
  if (!v.is_string()) fail(w, keyText(key) + " must be a string, got " + v.type_name());
  return v.get<std::string>();
}

double numberAt(const json& obj, const char* key, const Where& w) {
  const json& v = member(obj, key, w);
  if (!v.is_number()) fail(w, keyText(key) + " must be a number, got " + v.type_name());
  return v.get<double>();
}

const json& arrayAt(const json& obj, const char* key, const Where& w) {
  const json& v = member(obj, key, w);
  if (!v.is_array()) fail(w, keyText(key) + " must be an array, got " + v.type_name());
  return v;
}

json parseFile(std::string_view text, const Where& w) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& ex) {
    fail(w, std::string("not valid JSON: ") + ex.what());
  }
  onlyKeys(root, {"about", "lessons"}, w);
  (void)arrayAt(root, "lessons", w);
  return root;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] texts and placeholders
// ---------------------------------------------------------------------------------------------

// Where a {name} is looked up, in this order; the lesson's texts may hold placeholders too.
struct TextSources {
  const Texts* claim = nullptr;   // {claimed}, {rounded}
  const Texts* step = nullptr;    // the step's fields, from its code
  const Texts* lesson = nullptr;  // the lesson's "texts"
};

bool isNameChar(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

std::string render(std::string_view text, const TextSources& src, const Where& w, int depth = 0);

std::string lookupText(const std::string& name, const TextSources& src, const Where& w, int depth) {
  for (const Texts* t : {src.claim, src.step}) {
    if (t == nullptr) continue;
    const auto it = t->find(name);
    if (it != t->end()) return it->second;
  }
  if (src.lesson != nullptr) {
    const auto it = src.lesson->find(name);
    if (it != src.lesson->end()) return render(it->second, src, w, depth + 1);
  }
  fail(w, "{" + name + "} is neither a field the step's code computed nor one of the lesson's texts");
}

std::string render(std::string_view text, const TextSources& src, const Where& w, int depth) {
  if (depth > 4) fail(w, "texts nest more than 4 deep (a text that names itself?)");
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t open = text.find('{', i);
    if (open == std::string_view::npos) {
      out.append(text.substr(i));
      break;
    }
    std::size_t end = open + 1;
    while (end < text.size() && isNameChar(text[end])) ++end;
    if (end == open + 1 || end >= text.size() || text[end] != '}') {  // not a placeholder: keep the brace
      out.append(text.substr(i, open + 1 - i));
      i = open + 1;
      continue;
    }
    out.append(text.substr(i, open - i));
    out += lookupText(std::string(text.substr(open + 1, end - open - 1)), src, w, depth);
    i = end + 1;
  }
  return out;
}

Texts lessonTexts(const json& lesson, const Where& w) {
  Texts texts;
  const auto it = lesson.find("texts");
  if (it == lesson.end()) return texts;
  if (!it->is_object()) fail(w, std::string("\"texts\" must be an object, got ") + it->type_name());
  for (const auto& item : it->items()) {
    if (!item.value().is_string()) fail(w, "\"texts\": " + keyText(item.key()) + " must be a string");
    texts[item.key()] = item.value().get<std::string>();
  }
  return texts;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] claims
// ---------------------------------------------------------------------------------------------

constexpr std::pair<std::string_view, ClaimCheck> kCheckKinds[] = {
    {"decimals", ClaimCheck::Decimals}, {"relative", ClaimCheck::Relative}, {"exact", ClaimCheck::Exact},
    {"atLeast", ClaimCheck::AtLeast},   {"atMost", ClaimCheck::AtMost},     {"event", ClaimCheck::Event}};

ClaimCheck checkKind(const std::string& kind, const Where& w) {
  for (const auto& [name, check] : kCheckKinds)
    if (name == kind) return check;
  fail(w, "\"check\": unknown kind '" + kind + "' (decimals, relative, exact, atLeast, atMost, event)");
}

void requireClaimKeys(const json& c, ClaimCheck check, const Where& w) {
  std::vector<std::string_view> keys = {"text", "of", "check", "claimed", "claimedText", "cause", "behaviour", "severity"};
  if (check == ClaimCheck::Decimals) keys.push_back("decimals");
  if (check == ClaimCheck::Relative) keys.push_back("tolerance");
  if (check == ClaimCheck::Event) keys.push_back("observedWithoutError");
  onlyKeys(c, keys, w);
}

double computedNumber(const StepResult& r, const std::string& name, const char* key, const Where& w) {
  for (const auto& [n, v] : r.numbers)
    if (n == name) return v;
  const auto it = r.checked.find(name);
  if (it == r.checked.end()) fail(w, keyText(key) + ": '" + name + "' is not a number the step computed");
  return it->second;
}

// "claimed": a number, or {"of": NAME}: a number the step computed.
double claimedValue(const json& c, const StepResult& r, std::set<std::string>& used, const Where& w) {
  const json& v = member(c, "claimed", w);
  if (v.is_number()) return v.get<double>();
  if (!v.is_object()) fail(w, std::string("\"claimed\" must be a number or {\"of\": NAME}, got ") + v.type_name());
  onlyKeys(v, {"of"}, w);
  const std::string name = stringAt(v, "of", w);
  used.insert(name);
  return computedNumber(r, name, "claimed.of", w);
}

Claim bindEvent(const json& c, const StepResult& r, const Texts* lesson, const std::string& of, const Where& w) {
  const std::string claimed = stringAt(c, "claimed", w);
  if (claimed != "error" && claimed != "no error")
    fail(w, "\"claimed\" of an event must be \"error\" or \"no error\", got '" + claimed + "'");
  const auto it = r.outcomes.find(of);
  if (it == r.outcomes.end()) fail(w, "\"of\": '" + of + "' is not an outcome the step observed");
  const std::string& error = it->second;
  const TextSources src{nullptr, &r.fields, lesson};
  const std::string without = render(stringAt(c, "observedWithoutError", w), src, w);
  const std::string cause = c.contains("cause") ? render(stringAt(c, "cause", w), src, w) : std::string();
  const bool happened = (claimed == "error") == !error.empty();
  return claimEvent(render(stringAt(c, "text", w), src, w), render(stringAt(c, "claimedText", w), src, w), happened,
                    error.empty() ? without : withoutCodeNames(error), cause);
}

Claim bindClaimValue(const json& c, const StepResult& r, const Texts* lesson, std::set<std::string>& used, const Where& w);

// "behaviour": NAME, a behaviour the step's code classified (code audits).
Claim bindClaim(const json& c, const StepResult& r, const Texts* lesson, std::set<std::string>& used, const Where& w) {
  Claim claim = bindClaimValue(c, r, lesson, used, w);
  // A bound, an event or a listing's behaviour is a statement about a property: wrong, it is
  // wrong in concept. "severity" says so where the check alone does not tell.
  claim.conceptual = claim.check == ClaimCheck::AtLeast || claim.check == ClaimCheck::AtMost || claim.check == ClaimCheck::Event ||
                     c.contains("behaviour");
  if (c.contains("severity")) {
    const std::string sev = stringAt(c, "severity", w);
    if (sev != "concept" && sev != "number") fail(w, "\"severity\" must be \"concept\" or \"number\", got '" + sev + "'");
    claim.conceptual = sev == "concept";
  }
  if (!c.contains("behaviour")) return claim;
  const std::string name = stringAt(c, "behaviour", w);
  const auto it = r.behaviours.find(name);
  if (it == r.behaviours.end()) fail(w, "\"behaviour\": '" + name + "' is not a behaviour the step classified");
  used.insert("behaviour:" + name);
  claim.behaviour = it->second;
  return claim;
}

Claim bindClaimValue(const json& c, const StepResult& r, const Texts* lesson, std::set<std::string>& used, const Where& w) {
  if (!c.is_object()) fail(w, std::string("a claim must be an object, got ") + c.type_name());
  const ClaimCheck check = checkKind(stringAt(c, "check", w), w);
  requireClaimKeys(c, check, w);
  const std::string of = stringAt(c, "of", w);
  used.insert(of);
  if (check == ClaimCheck::Event) return bindEvent(c, r, lesson, of, w);
  const double computed = computedNumber(r, of, "of", w);
  const double claimed = claimedValue(c, r, used, w);
  Texts builtins = {{"claimed", formatGeneral(claimed, 6)}};
  int decimals = 0;
  double tolerance = 0.0;
  if (check == ClaimCheck::Decimals) {
    const json& d = member(c, "decimals", w);
    if (!d.is_number_integer() || d.get<int>() < 0) fail(w, "\"decimals\" must be an integer >= 0");
    decimals = d.get<int>();
    builtins["rounded"] = formatFixed(computed, decimals);
  }
  if (check == ClaimCheck::Relative) {
    tolerance = numberAt(c, "tolerance", w);
    if (!(tolerance > 0.0)) fail(w, "\"tolerance\" must be > 0");
  }
  const TextSources src{&builtins, &r.fields, lesson};
  std::string text = render(stringAt(c, "text", w), src, w);
  std::string claimedText = render(stringAt(c, "claimedText", w), src, w);
  std::string cause = c.contains("cause") ? render(stringAt(c, "cause", w), src, w) : std::string();
  switch (check) {
    case ClaimCheck::Decimals: return claimDecimals(text, claimedText, claimed, computed, decimals, cause);
    case ClaimCheck::Relative: return claimRelative(text, claimedText, claimed, computed, tolerance, cause);
    case ClaimCheck::Exact: return claimExact(text, claimedText, claimed, computed, cause);
    case ClaimCheck::AtLeast: return claimAtLeast(text, claimedText, claimed, computed, cause);
    case ClaimCheck::AtMost: return claimAtMost(text, claimedText, claimed, computed, cause);
    case ClaimCheck::Event: break;
  }
  fail(w, "unreachable claim kind");
}

// ---------------------------------------------------------------------------------------------
// [SECTION] steps and lessons
// ---------------------------------------------------------------------------------------------

// A claim names its number, so each name must mean one number.
void requireUniqueNames(const StepResult& r, const Where& w) {
  std::set<std::string> names;
  for (const auto& [n, v] : r.numbers)
    if (!names.insert(n).second) fail(w, "the code computed the number '" + n + "' twice");
  for (const auto& [n, v] : r.checked)
    if (!names.insert(n).second) fail(w, "the code both shows and checks a number named '" + n + "'");
}

std::string explanationText(const json& s, const StepResult& r, const Where& w) {
  const auto it = s.find("explanation");
  if (it == s.end() || it->is_string()) {
    if (!r.variant.empty()) fail(w, "the code chose the explanation '" + r.variant + "' but the data has one text");
    return it == s.end() ? std::string() : it->get<std::string>();
  }
  if (!it->is_object()) fail(w, "\"explanation\" must be a string or an object of variants");
  if (r.variant.empty()) fail(w, "\"explanation\" has variants but the code chose none");
  const auto v = it->find(r.variant);
  if (v == it->end() || !v->is_string()) fail(w, "\"explanation\" has no text for the variant '" + r.variant + "'");
  return v->get<std::string>();
}

Step bindStep(const json& s, const StepResult& r, const Texts& texts, Where w) {
  onlyKeys(s, {"title", "formula", "explanation", "claims"}, w);
  w.stepTitle = stringAt(s, "title", w);
  requireUniqueNames(r, w);
  const TextSources src{nullptr, &r.fields, &texts};
  Step out;
  out.title = render(w.stepTitle, src, w);
  out.formula = render(stringAt(s, "formula", w), src, w);
  out.explanation = render(explanationText(s, r, w), src, w);
  out.numbers = r.numbers;
  std::set<std::string> used;
  if (s.contains("claims")) {
    const json& claims = arrayAt(s, "claims", w);
    for (std::size_t i = 0; i < claims.size(); ++i) {
      Where cw = w;
      cw.claim = static_cast<int>(i);
      out.claims.push_back(bindClaim(claims[i], r, &texts, used, cw));
    }
  }
  for (const auto& [name, v] : r.checked)
    if (!used.count(name)) fail(w, "the code computed the checked value '" + name + "' but no claim checks it");
  for (const auto& [name, v] : r.outcomes)
    if (!used.count(name)) fail(w, "the code observed the outcome '" + name + "' but no claim checks it");
  for (const auto& [name, v] : r.behaviours)
    if (!used.count("behaviour:" + name)) fail(w, "the code classified the behaviour '" + name + "' but no claim shows it");
  out.view = r.view;
  return out;
}

const json& findLesson(const json& root, const std::string& name, const Where& w) {
  const json* found = nullptr;
  for (const json& lesson : root["lessons"]) {
    if (!lesson.is_object() || !lesson.contains("name") || lesson["name"] != name) continue;
    if (found != nullptr) fail(w, "the file holds two lessons with this name");
    found = &lesson;
  }
  if (found == nullptr) fail(w, "the file holds no lesson with this name");
  return *found;
}

}  // namespace

WorkedExample bindLesson(const LessonCode& code, std::string_view fileText, const std::vector<StepResult>& results) {
  Where w = whereIn(code.name, code.file);
  const json root = parseFile(fileText, w);
  const json& lesson = findLesson(root, code.name, w);
  onlyKeys(lesson, {"name", "title", "article", "source", "fixes", "texts", "steps"}, w);
  const Texts texts = lessonTexts(lesson, w);
  const TextSources src{nullptr, nullptr, &texts};
  WorkedExample e;
  e.name = code.name;
  e.topic = code.file;
  if (e.topic.ends_with(".json")) e.topic.resize(e.topic.size() - 5);
  e.title = render(stringAt(lesson, "title", w), src, w);
  e.source = render(stringAt(lesson, "source", w), src, w);
  e.article = stringAt(lesson, "article", w);
  if (findArticle(e.article) == nullptr) fail(w, "\"article\": '" + e.article + "' is not an article id of core/lessons/articles.cpp");
  if (lesson.contains("fixes")) {
    for (const json& f : arrayAt(lesson, "fixes", w)) {
      if (!f.is_object()) fail(w, "a fix must be an object {\"faulty\", \"corrected\", \"why\"}");
      onlyKeys(f, {"faulty", "corrected", "why"}, w);
      e.fixes.push_back({stringAt(f, "faulty", w), stringAt(f, "corrected", w), render(stringAt(f, "why", w), src, w)});
    }
  }
  const json& steps = arrayAt(lesson, "steps", w);
  if (steps.size() != results.size())
    fail(w, "the data has " + std::to_string(steps.size()) + " steps, the code computed " + std::to_string(results.size()));
  for (std::size_t i = 0; i < steps.size(); ++i) {
    Where sw = w;
    sw.step = static_cast<int>(i);
    e.steps.push_back(bindStep(steps[i], results[i], texts, sw));
  }
  return e;
}

WorkedExample computeLesson(const LessonCode& code) {
  const embedded::File* f = embedded::lessons.find(code.file);
  if (f == nullptr) fail(whereIn(code.name, code.file), "no such file in the embedded lessons (assets/lessons/)");
  return bindLesson(code, f->text(), code.steps());
}

std::vector<std::string> lessonNamesIn(std::string_view file, std::string_view fileText) {
  const Where w = whereIn("", std::string(file));
  const json root = parseFile(fileText, w);
  std::vector<std::string> names;
  for (const json& lesson : root["lessons"]) {
    if (!lesson.is_object()) fail(w, std::string("a lesson must be an object, got ") + lesson.type_name());
    names.push_back(stringAt(lesson, "name", w));
  }
  return names;
}

}  // namespace posviz
