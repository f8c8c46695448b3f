// Factory functions of every panel (one per file in app/panels/), and the one-line guide
// of each lab (what it shows, which lesson explains it). registry.cpp lists them.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "app/panel.hpp"

namespace poslab::app {

std::unique_ptr<Panel> make_welcome_panel();
std::unique_ptr<Panel> make_rope_wheels_panel();
std::unique_ptr<Panel> make_kv_panel();
std::unique_ptr<Panel> make_attention_panel();
std::unique_ptr<Panel> make_arena_panel();
std::unique_ptr<Panel> make_lessons_panel();
std::unique_ptr<Panel> make_dreams_panel();
std::unique_ptr<Panel> make_length_panel();

inline constexpr const char* kWelcomeName = "welcome";  // the welcome page's panel id

// Every panel in menu order: its id and its factory. make_panels() builds them; the
// command line's --panel help lists the ids from here.
struct PanelEntry {
  const char* id;                    // Panel::id()
  std::unique_ptr<Panel> (*make)();  // its factory
};
const std::vector<PanelEntry>& panel_registry();
std::string panel_id_list();  // "welcome, lessons, rope, ..." for --help

// What a newcomer reads above a lab: what it shows, and the lesson that explains it.
struct LabGuide {
  const char* id;       // panel id
  const char* title;    // short name
  const char* summary;  // "what am I looking at", one line
  const char* lesson;   // preset of the lesson explaining it, nullptr if none yet
};
const std::vector<LabGuide>& lab_guides();
const LabGuide* find_lab_guide(const std::string& id);

}  // namespace poslab::app
