// The dream lab's training section (dreams_panel.hpp): the shared training view
// (app/widgets/train_view) below the lab's views when "train" is ticked; a run that saved a
// checkpoint becomes the lab's model, read anew.
#include <imgui.h>

#include <string>
#include <utility>

#include "app/app_context.hpp"
#include "app/panels/dreams_panel.hpp"

namespace poslab::app {

void DreamsPanel::train_section(AppContext& ctx) {
  DreamsUi& u = ui_;
  if (std::exchange(u.scroll_to_train, false)) ImGui::SetScrollHereY(0.0f);
  dreams_section(ctx.tr("dreams.train_heading"));
  bool rope = true;
  const std::string path = u.train.draw(ctx, rope, std::exchange(u.train_autostart, false));
  if (!path.empty()) {
    u.lab.model = path;
    u.confirmed_model = FileApproval::of(path);  // the user's own run
    u.lab.window = rope ? wm::DreamVariant::rope : wm::DreamVariant::recompute;
    u.model_path.clear();  // reload even if the path is the same (newer weights)
  }
}

}  // namespace poslab::app
