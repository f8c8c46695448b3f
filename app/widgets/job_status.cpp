// Progress bar and buttons of a background job (see job_status.hpp).
#include "app/widgets/job_status.hpp"

#include <imgui.h>

#include <cmath>
#include <cstdio>
#include <string>

namespace poslab::app {

JobAction job_status(const JobProgress& p, bool pausable, float width,
                     const JobStatusTexts& texts) {
  if (!p.running) return JobAction::none;
  JobAction action = JobAction::none;
  ImGui::PushID("##job_status");
  char overlay[96];
  const double f = p.fraction();
  if (f >= 0)
    std::snprintf(overlay, sizeof overlay, "%lld / %lld  (%.0f s)", static_cast<long long>(p.done),
                  static_cast<long long>(p.total), p.seconds);
  else
    std::snprintf(overlay, sizeof overlay, "%s  %.1f s", p.paused ? texts.paused : texts.working,
                  p.seconds);
  // Unknown total: a bar sweeping back and forth so the user sees the job is alive.
  const float shown =
      f >= 0 ? static_cast<float>(f)
             : (p.paused ? 0.0f : 0.5f + 0.5f * std::sin(static_cast<float>(p.seconds) * 3.0f));
  ImGui::ProgressBar(shown, ImVec2(width, 0), overlay);
  ImGui::SameLine();
  if (pausable) {
    const std::string label = std::string(p.paused ? texts.resume : texts.pause) + "###pause";
    if (ImGui::SmallButton(label.c_str())) action = p.paused ? JobAction::resume : JobAction::pause;
    ImGui::SameLine();
  }
  if (ImGui::SmallButton((std::string(texts.cancel) + "###cancel").c_str()))
    action = JobAction::cancel;
  if (!p.status.empty()) ImGui::TextDisabled("%s", p.status.c_str());
  ImGui::PopID();
  return action;
}

}  // namespace poslab::app
