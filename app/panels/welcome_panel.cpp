// The welcome page: what PosLab is, where to begin (the first lesson, or a lab in a telling
// state), and one line per lab saying what it shows. Opened at the first start and from
// Help > Getting started. Preset "welcome" (no parameters).
#include <imgui.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "app/app_context.hpp"
#include "app/gfx/image_texture.hpp"
#include "app/panels/panels.hpp"
#include "app/widgets/markdown_view.hpp"
#include "app/widgets/tooltip.hpp"
#include "core/common/preset.hpp"
#include "io/data/data_dir.hpp"
#include "io/i18n/ui_strings.hpp"

namespace poslab::app {
namespace {

// A suggested first step: a button opening a preset. Texts are keys of
// assets/i18n/<lang>/shell.toml.
struct Start {
  const char* label;   // button text key
  const char* preset;  // what it opens
  const char* why;     // key of the line next to it
  const char* thumb;   // picture of what it opens: assets/welcome/<thumb>.png
};

constexpr Start kStarts[] = {
    {"welcome.start_lesson", "lessons?lesson=01-why-positions", "welcome.start_lesson_why",
     "lesson"},
    {"welcome.start_rope", "rope?dim=16&play=1", "welcome.start_rope_why", "rope"},
    {"welcome.start_attention", "attention", "welcome.start_attention_why", "attention"},
    {"welcome.start_arena", "arena?helm=0&practice=1&team1=1&team0=1", "welcome.start_arena_why",
     "arena"},
    {"welcome.start_dreams", "dreams", "welcome.start_dreams_why", "dreams"},
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
  std::string check_state() const override {
    return buttons_drawn_ == static_cast<int>(std::size(kStarts)) ? std::string()
                                                                  : "start buttons missing";
  }

  void release_gl() override {
    for (auto& t : thumbs_) t.release();
  }

  void draw(AppContext& ctx) override {
    const float scale = ctx.ui_scale();
    // Reading width capped so lines stay readable on wide windows; a wide window shows a
    // picture of each start on the right (the right half was left empty).
    // Pictures or not is decided on the width with a scroll bar, shown or not: decided on
    // the width left, a page just wide enough flipped every frame at 1024x700 (pictures: no
    // scroll bar, the next frame one: no pictures).
    const float avail = ImGui::GetContentRegionAvail().x;
    const bool pictures =
        ImGui::GetWindowWidth() - ImGui::GetStyle().ScrollbarSize >= 1000.0f * scale;
    const float width = std::min(pictures ? avail * 0.5f : avail, 760.0f * scale);
    if (pictures) ImGui::BeginGroup();
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
    if (pictures) {
      ImGui::EndGroup();
      ImGui::SameLine(0, 24.0f * scale);
      draw_pictures(ctx, ImGui::GetContentRegionAvail().x);
    }
  }

 private:
  // One clickable picture per start, two per row, captioned with the start's button text.
  void draw_pictures(AppContext& ctx, float width) {
    const std::filesystem::path dir = io::welcome_dir();
    const float gap = ImGui::GetStyle().ItemSpacing.x;
    const float cell = (width - gap) / 2.0f;
    ImGui::BeginGroup();
    int shown = 0;
    for (size_t i = 0; i < std::size(kStarts); ++i) {
      gfx::ImageTexture& t = thumbs_[i];
      if (!t.load((dir / (std::string(kStarts[i].thumb) + ".png")).string())) continue;
      if (shown % 2 == 1) ImGui::SameLine();
      ImGui::BeginGroup();
      ImGui::TextDisabled("%s", ctx.tr(kStarts[i].label));
      // Full width; a tall picture shows its top part (at most 3:4), never squeezed.
      const float w = cell - 2 * ImGui::GetStyle().FramePadding.x;
      const float h = w * static_cast<float>(t.height()) / static_cast<float>(t.width());
      const float shown_h = std::min(h, w * 0.75f);
      ImGui::PushID(static_cast<int>(i));
      if (ImGui::ImageButton(t.texture(), ImVec2(w, shown_h), ImVec2(0, 0), ImVec2(1, shown_h / h)))
        ctx.open_lab(kStarts[i].preset);
      ImGui::PopID();
      tooltip(ctx.tr(kStarts[i].why));
      ImGui::EndGroup();
      ++shown;
    }
    ImGui::EndGroup();
  }

  int buttons_drawn_ = 0;
  gfx::ImageTexture thumbs_[std::size(kStarts)];
};

}  // namespace

std::unique_ptr<Panel> make_welcome_panel() {
  return std::make_unique<WelcomePanel>();
}

}  // namespace poslab::app
