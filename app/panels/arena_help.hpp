// Tooltip texts of the arena's inspector: what each of a ship's 15 token values and each of
// the 12 relational features means (core/bnb/bnb_features.hpp, spec sections 5 and 6).
#pragma once
#include <array>

#include "core/bnb/bnb_features.hpp"

namespace poslab::app {

// What each token value means (core/bnb/bnb_features.hpp, spec section 5), for tooltips.
inline constexpr std::array<const char*, bnb::kTokenDim> kTokenHelp{
    "1 while the ship is alive, 0 once destroyed (or an unused slot)",
    "0 = blue team (slots 0-3), 1 = orange team (slots 4-7)",
    "health / 100",
    "power / 100",
    "sin(2 pi x / 1024): position on the wrapping map, as an angle, so both edges meet",
    "cos(2 pi x / 1024)",
    "sin(2 pi y / 1024)",
    "cos(2 pi y / 1024)",
    "x velocity / 180 px/s",
    "y velocity / 180 px/s",
    "nose direction, x (unit vector)",
    "nose direction, y (screen y points down)",
    "1 if the ship fired at this step",
    "time until the gun can fire again / 0.1 s",
    "last turn angle / 15 degrees (negative = left)"};

// The 12 relational features of ship j seen from ship i (spec section 6), for tooltips.
inline constexpr std::array<const char*, bnb::kRelDim> kRelHelp{
    "r_x: where j is, along i's nose (wrapped to the nearest copy) / 1024",
    "r_y: where j is, to i's side / 1024",
    "rv_x: j's velocity minus i's, along i's nose / 180 (never wrapped)",
    "rv_y: relative velocity, to i's side / 180",
    "d = sqrt(|r|^2 + 1e-6): distance",
    "inv = 1 / (d + 0.1): large when close",
    "s = sqrt(|rv|^2 + 1e-6): relative speed",
    "closing = (rv . r) / d: negative while they approach",
    "dir_x = r_x / d: direction to j",
    "dir_y = r_y / d",
    "ttca = tanh(-(rv . r) / |rv|^2): time to closest approach, squashed; > 0 = still ahead",
    "dot = rv . r"};

}  // namespace poslab::app
