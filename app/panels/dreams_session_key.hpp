// The dream lab's session key: the settings that define a dream session, as a preset
// string; when it changes, the session starts over (app/panels/dreams_panel.cpp).
#pragma once
#include <string>

#include "core/wm/dream_lab.hpp"

namespace poslab::app {

// The fields that define a session: when they change, the session starts over.
inline std::string session_key(const wm::DreamLabSettings& s) {
  wm::DreamLabSettings k;
  k.start = s.start;
  k.seed = s.seed;
  k.team0_size = s.team0_size;
  k.team1_size = s.team1_size;
  k.policy = s.policy;
  k.file = s.file;
  k.episode = s.episode;
  k.from = s.from;
  k.horizon = s.horizon;
  k.window = s.window;
  k.model = s.model;
  k.loop = s.loop;
  k.temperature = s.temperature;
  return wm::dreams_to_preset(k);
}

}  // namespace poslab::app
