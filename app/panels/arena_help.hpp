// Tooltip keys of the arena's inspector: what each of a ship's 15 token values and each of
// the 12 relational features means (core/bnb/bnb_features.hpp, spec sections 5 and 6), the
// helm's key list and the actions' names; the texts are in assets/i18n/<lang>/arena.toml.
#pragma once
#include <array>

#include "core/bnb/bnb_features.hpp"
#include "core/bnb/bnb_sim.hpp"

namespace poslab::app {

// What each token value means (core/bnb/bnb_features.hpp, spec section 5), for tooltips:
// keys of arena.toml (the texts are in the interface language).
inline constexpr std::array<const char*, bnb::kTokenDim> kTokenHelp{
    "arena.token_help.v00", "arena.token_help.v01", "arena.token_help.v02", "arena.token_help.v03",
    "arena.token_help.v04", "arena.token_help.v05", "arena.token_help.v06", "arena.token_help.v07",
    "arena.token_help.v08", "arena.token_help.v09", "arena.token_help.v10", "arena.token_help.v11",
    "arena.token_help.v12", "arena.token_help.v13", "arena.token_help.v14"};

// The 12 relational features of ship j seen from ship i (spec section 6), for tooltips
// (keys of arena.toml).
inline constexpr std::array<const char*, bnb::kRelDim> kRelHelp{
    "arena.rel_help.v00", "arena.rel_help.v01", "arena.rel_help.v02", "arena.rel_help.v03",
    "arena.rel_help.v04", "arena.rel_help.v05", "arena.rel_help.v06", "arena.rel_help.v07",
    "arena.rel_help.v08", "arena.rel_help.v09", "arena.rel_help.v10", "arena.rel_help.v11"};

// The helm's keys (arena_helm_action() in app/gfx/arena_view.cpp), shown to a player at the
// helm in the arena and the dream lab: a key of arena.toml.
inline constexpr const char* kHelmKeysHelp = "arena.helm_keys";

// The ship table's action column: power and turn names in the simulator's order
// (bnb::kPowerTable, kTurnTable), keys of arena.toml [arena.act].
inline constexpr std::array<const char*, bnb::kPowerCount> kPowerKeys{
    "arena.act.coast", "arena.act.boost", "arena.act.reverse"};
inline constexpr std::array<const char*, bnb::kTurnCount> kTurnKeys{
    "arena.act.straight",       "arena.act.left",        "arena.act.right",
    "arena.act.sharp_left",     "arena.act.sharp_right", "arena.act.air_brake",
    "arena.act.sharp_air_brake"};

}  // namespace poslab::app
