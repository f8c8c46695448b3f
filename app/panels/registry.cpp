// The list of panels, in menu order. Adding a lab = one line here plus its file.
#include "app/panels/panels.hpp"

namespace poslab::app {

std::vector<std::unique_ptr<Panel>> make_panels() {
  std::vector<std::unique_ptr<Panel>> panels;
  panels.push_back(make_rope_wheels_panel());
  panels.push_back(make_kv_panel());
  panels.push_back(make_attention_panel());
  panels.push_back(make_arena_panel());
  panels.push_back(make_dreams_panel());
  panels.push_back(make_lessons_panel());
  return panels;
}

}  // namespace poslab::app
