// Factory functions of every panel (one per file in app/panels/). registry.cpp lists them.
#pragma once
#include <memory>

#include "panel.hpp"

namespace poslab::app {

std::unique_ptr<Panel> make_rope_wheels_panel();

}  // namespace poslab::app
