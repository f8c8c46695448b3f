// The welcome page: what PosLab is, where to begin (the first lesson, or a lab in a telling
// state), and one line per lab saying what it shows. Opened at the first start and from
// Help > Getting started. Preset "welcome" (no parameters).
#include <imgui.h>

#include <string>

#include "app/app_context.hpp"
#include "app/panels/panels.hpp"
#include "app/widgets/markdown_view.hpp"
#include "core/common/preset.hpp"

namespace poslab::app {
namespace {

// A suggested first step: a button opening a preset. Texts are keys of
// assets/i18n/<lang>/shell.toml.
struct Start {
  const char* label;   // button text key
  const char* preset;  // what it opens
  const char* why;     // key of the line next to it
};

constexpr Start kStarts[] = {
    {"welcome.start_lesson", "lessons?lesson=01-why-positions", "welcome.start_lesson_why"},
    {"welcome.start_rope", "rope?dim=16&play=1", "welcome.start_rope_why"},
    {"welcome.start_attention", "attention", "welcome.start_attention_why"},
    {"welcome.start_arena", "arena?helm=0&practice=1&team1=1&team0=1", "welcome.start_arena_why"},
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
    const float right = ImGui::GetCursorPosX() + width;  // Chinese wraps between characters
    ImGui::PushTextWrapPos(right);
    ImGui::PushFont(ctx.heading_font());
    ImGui::TextUnformatted(ctx.tr("welcome.title"));
    ImGui::PopFont();
    wrapped_text(ctx.tr("welcome.intro"), right);
    ImGui::Spacing();
    ImGui::PushFont(ctx.heading_font());
    ImGui::TextUnformatted(ctx.tr("welcome.begin"));
    ImGui::PopFont();
    buttons_drawn_ = 0;
    for (const Start& s : kStarts) {
      const std::string label = std::string(ctx.tr(s.label)) + "###" + s.preset;
      if (ImGui::Button(label.c_str(), ImVec2(220.0f * scale, 0))) ctx.open_lab(s.preset);
      ++buttons_drawn_;
      ImGui::SameLine();
      wrapped_text(ctx.tr(s.why), right);
    }
    ImGui::Spacing();
    ImGui::PushFont(ctx.heading_font());
    ImGui::TextUnformatted(ctx.tr("welcome.labs"));
    ImGui::PopFont();
    for (const LabGuide& g : lab_guides()) {
      ImGui::Bullet();
      const std::string title = std::string("title.") + g.id, guide = std::string("guide.") + g.id;
      wrapped_text(std::string(ctx.tr(title.c_str())) + ": " + ctx.tr(guide.c_str()), right);
    }
    ImGui::Spacing();
    wrapped_text(ctx.tr("welcome.tips"), right);
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
