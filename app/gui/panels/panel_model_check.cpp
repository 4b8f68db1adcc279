// panel_model_check.cpp: the Model tab's "Check my RoPE": the selected layer kind's exact RoPE
// against the user's own tensors (.npy), the mistake named when they differ (core/rope_check).
#include <imgui.h>

#include "app/cli/check_command.hpp"
#include "app/gui/panels/panel_model.hpp"
#include "app/gui/widgets/theme.hpp"
#include "app/gui/widgets/ui_common.hpp"
#include "core/untrusted_text.hpp"

namespace posviz::app {

namespace {

const cli::LayerKind* selectedRopeKind(const ModelPanelState& s) {
  if (!s.config || s.selectedKind < 0 || s.selectedKind >= static_cast<int>(s.config->layerKinds.size())) return nullptr;
  const cli::LayerKind& kind = s.config->layerKinds[static_cast<std::size_t>(s.selectedKind)];
  return kind.scheme == cli::LayerScheme::Rope ? &kind : nullptr;
}

void runCheck(ModelPanelState& s, const RopeParams& p) {
  cli::CheckFiles f;
  if (s.checkInvFreq[0] != '\0') f.files["inv-freq"] = s.checkInvFreq;
  if (s.checkCos[0] != '\0') f.files["cos"] = s.checkCos;
  if (s.checkSin[0] != '\0') f.files["sin"] = s.checkSin;
  try {
    const RopeCheckResult r = checkRope(cli::loadCheckInput(f, p));
    s.checkMatch = r.match;
    s.checkVerdict = (r.match ? "MATCH: " : "MISMATCH: ") + r.verdict;
  } catch (const std::exception& e) {  // a file, a shape or a combination that is wrong
    s.checkMatch = false;
    s.checkVerdict = "Cannot check: " + displayMessage(e.what());
  }
}

}  // namespace

void runModelCheck(ModelPanelState& s) {
  if (const cli::LayerKind* kind = selectedRopeKind(s)) runCheck(s, kind->rope);
}

void drawModelCheck(ModelPanelState& s) {
  const cli::LayerKind* k = selectedRopeKind(s);
  if (k == nullptr) return;
  const cli::LayerKind& kind = *k;
  if (!s.checkVerdict.empty()) ImGui::SetNextItemOpen(true, ImGuiCond_Once);
  if (!ImGui::CollapsingHeader("Check my RoPE tensors (.npy)")) return;
  ImGui::TextWrapped("Your inv_freq (one value per rotary pair), or your cos and sin caches (positions 0, 1, ... x rotary dims, as "
                     "the model's rotary embedding returns them), against the exact reference of the %s layers. The same check: "
                     "posviz check --config FILE --cos C.npy --sin S.npy.", kind.attention.c_str());
  const float w = ImGui::GetFontSize() * 28.0f;
  pathField({"inv_freq", "path/to/inv_freq.npy (or leave empty and give cos and sin)", {".npy"}, false, w}, s.checkInvFreq,
            sizeof s.checkInvFreq, s.checkInvFreqPick);
  pathField({"cos", "path/to/cos.npy", {".npy"}, false, w}, s.checkCos, sizeof s.checkCos, s.checkCosPick);
  pathField({"sin", "path/to/sin.npy", {".npy"}, false, w}, s.checkSin, sizeof s.checkSin, s.checkSinPick);
  if (ImGui::Button("Check")) runModelCheck(s);
  if (s.checkVerdict.empty()) return;
  ImGui::PushStyleColor(ImGuiCol_Text, s.checkMatch ? themed(ImVec4(0.45f, 0.85f, 0.45f, 1.0f)) : themed(ImVec4(1.0f, 0.55f, 0.35f, 1.0f)));
  ImGui::TextWrapped("%s", s.checkVerdict.c_str());
  ImGui::PopStyleColor();
}

}  // namespace posviz::app
