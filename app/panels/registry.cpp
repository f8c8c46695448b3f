// The list of panels, in menu order, and each lab's one-line guide. Adding a lab = one line
// in panel_registry, one in lab_guides, plus its file.
#include "app/panels/panels.hpp"

#include <imgui.h>

namespace poslab::app {

const std::vector<PanelEntry>& panel_registry() {
  static const std::vector<PanelEntry> entries{
      {kWelcomeName, make_welcome_panel},
      {"lessons", make_lessons_panel},
      {"rope", make_rope_wheels_panel},
      {"attention", make_attention_panel},
      {"kv", make_kv_panel},
      {"arena", make_arena_panel},
      {"dreams", make_dreams_panel},
      {"length", make_length_panel},
  };
  return entries;
}

std::vector<std::unique_ptr<Panel>> make_panels() {
  std::vector<std::unique_ptr<Panel>> panels;
  for (const PanelEntry& e : panel_registry()) {
    panels.push_back(e.make());
    IM_ASSERT(std::string(panels.back()->id()) == e.id && "registry id != the panel's id()");
  }
  return panels;
}

std::string panel_id_list() {
  std::string out;
  for (const PanelEntry& e : panel_registry()) out += (out.empty() ? "" : ", ") + std::string(e.id);
  return out;
}

const std::vector<LabGuide>& lab_guides() {
  static const std::vector<LabGuide> guides{
      {"lessons", "Lessons",
       "short lessons with quizzes, in English and Chinese; their links open the labs in the "
       "state they talk about.",
       nullptr},
      {"rope", "Rotary wheels",
       "one dial per RoPE frequency pair; each hand turns by position x its frequency, so "
       "fast hands tell nearby tokens apart and slow ones far ones.",
       "lessons?lesson=03-rope"},
      {"attention", "Attention heatmaps",
       "attention weights of one sentence (rows = queries, columns = keys) under each "
       "position encoding; shift the sentence to see which encodings only care about distance.",
       "lessons?lesson=07-relative-biases"},
      {"kv", "KV cache",
       "a cache of keys and values in a sliding window or stitched from pieces, and how far "
       "its outputs drift from recomputing everything.",
       "lessons?lesson=08-kv-sliding"},
      {"arena", "Boost and Broadside arena",
       "a 2-D ship fight simulated exactly: the world a transformer world model learns; fly a "
       "ship, inspect the 15 numbers per ship the model sees, scrub recorded datasets.",
       nullptr},
      {"dreams", "Dream lab",
       "the same fight played by the simulator and dreamt by the world model; watch the error "
       "grow against two baselines, step through the dream, see its KV cache and attention.",
       "lessons?lesson=10-world-model"},
      {"length", "Length lab",
       "small language models trained here, one per position encoding, measured past their "
       "training length L: loss against position, a text coloured by surprise, the real heads.",
       "lessons?lesson=06-long-context"},
  };
  return guides;
}

const LabGuide* find_lab_guide(const std::string& id) {
  for (const LabGuide& g : lab_guides())
    if (id == g.id) return &g;
  return nullptr;
}

}  // namespace poslab::app
