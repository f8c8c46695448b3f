// The welcome page: what PosLab is, where to begin (the first lesson, or a lab in a telling
// state), and one line per lab saying what it shows. Opened at the first start and from
// Help > Getting started. Preset "welcome" (no parameters).
#include <imgui.h>

#include <string>

#include "app/app_context.hpp"
#include "app/panels/panels.hpp"
#include "core/common/preset.hpp"

namespace poslab::app {
namespace {

// A suggested first step: a button opening a preset.
struct Start {
  const char* label;   // button text
  const char* preset;  // what it opens
  const char* why;     // one line next to it
};

constexpr Start kStarts[] = {
    {"Start the first lesson", "lessons?lesson=01-why-positions",
     "Why attention needs positions at all; about ten minutes, with a short quiz."},
    {"Watch RoPE turn", "rope?dim=16&play=1",
     "Eight dials, one per frequency pair: fast hands for nearby tokens, slow for far ones."},
    {"Compare encodings", "attention",
     "The same sentence under no encoding, sinusoids, RoPE, ALiBi, T5 buckets and more."},
    {"Fly a ship", "arena?helm=0&practice=1&team1=1&team0=1",
     "Take the helm in Boost and Broadside (practice: the other ship holds fire)."},
};

class WelcomePanel final : public Panel {
 public:
  const char* id() const override { return kWelcomeName; }
  const char* title() const override { return "Welcome"; }
  std::string preset() const override { return kWelcomeName; }
  void load_preset(const std::string& text) override {
    PresetReader in(text, kWelcomeName);
    in.finish();  // the page has no parameters
  }
  float min_width() const override { return 480.0f; }
  float min_height() const override { return 360.0f; }
  std::string check_state() const override {
    return buttons_drawn_ == static_cast<int>(std::size(kStarts)) ? std::string()
                                                                  : "start buttons missing";
  }

  void draw(AppContext& ctx) override {
    const float scale = ctx.ui_scale();
    // Reading width capped so lines stay readable on wide windows.
    const float width = std::min(ImGui::GetContentRegionAvail().x, 760.0f * scale);
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
    ImGui::PushFont(ctx.heading_font());
    ImGui::TextUnformatted("Welcome to PosLab");
    ImGui::PopFont();
    ImGui::TextWrapped(
        "Transformers see a set of tokens, not a sequence: position encodings put the order "
        "back. PosLab computes them for real and draws them. Each lab shows one idea; each "
        "lesson explains it and opens the labs in the right state.");
    ImGui::Spacing();
    ImGui::PushFont(ctx.heading_font());
    ImGui::TextUnformatted("Where to begin");
    ImGui::PopFont();
    buttons_drawn_ = 0;
    for (const Start& s : kStarts) {
      if (ImGui::Button(s.label, ImVec2(220.0f * scale, 0))) ctx.open_lab(s.preset);
      ++buttons_drawn_;
      ImGui::SameLine();
      ImGui::TextWrapped("%s", s.why);
    }
    ImGui::Spacing();
    ImGui::PushFont(ctx.heading_font());
    ImGui::TextUnformatted("The labs");
    ImGui::PopFont();
    for (const LabGuide& g : lab_guides()) {
      ImGui::Bullet();
      ImGui::TextWrapped("%s: %s", g.title, g.summary);
    }
    ImGui::Spacing();
    ImGui::TextWrapped(
        "Tips: every control has a tooltip. The Preset bar above each lab holds the lab's "
        "whole state as text: copy it, share it, paste it back. View > Scale enlarges "
        "everything; Help > Getting started brings you back here.");
    ImGui::PopTextWrapPos();
  }

 private:
  int buttons_drawn_ = 0;
};

}  // namespace

std::unique_ptr<Panel> make_welcome_panel() {
  return std::make_unique<WelcomePanel>();
}

}  // namespace poslab::app
