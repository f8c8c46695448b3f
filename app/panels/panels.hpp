// Factory functions of every panel (one per file in app/panels/). registry.cpp lists them.
#pragma once
#include <memory>

#include "app/panel.hpp"

namespace poslab::app {

std::unique_ptr<Panel> make_rope_wheels_panel();
std::unique_ptr<Panel> make_kv_panel();
std::unique_ptr<Panel> make_attention_panel();
std::unique_ptr<Panel> make_arena_panel();
std::unique_ptr<Panel> make_lessons_panel();
std::unique_ptr<Panel> make_dreams_panel();

}  // namespace poslab::app
