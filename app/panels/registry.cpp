// The list of panels, in menu order, and each lab's one-line guide. Adding a lab = one line
// in make_panels, one in lab_guides, plus its file.
#include "app/panels/panels.hpp"

namespace poslab::app {

std::vector<std::unique_ptr<Panel>> make_panels() {
  std::vector<std::unique_ptr<Panel>> panels;
  panels.push_back(make_welcome_panel());
  panels.push_back(make_lessons_panel());
  panels.push_back(make_rope_wheels_panel());
  panels.push_back(make_attention_panel());
  panels.push_back(make_kv_panel());
  panels.push_back(make_arena_panel());
  panels.push_back(make_dreams_panel());
  panels.push_back(make_length_panel());
  return panels;
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
