// Why a lab has no command or no numbers to share, and why a path cannot be written, as
// message ids with English templates (core/common/message.hpp). Panels return them from
// cli_note() and numbers(); export_files.cpp returns them from export_path_problem(). The
// Share popup shows them through assets/i18n/<lang>/share.toml ([share.why], [share.problem]),
// whose English equals these templates (tests/app/messages_test.cpp); the headless hooks
// print the English.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "core/common/message.hpp"

namespace poslab::app {

inline constexpr MessageTemplate kShareMessages[] = {
    // Why no poslab-cli command reproduces the view (cli_note) or there are no numbers now.
    {"share.why.no_command", "no poslab-cli command prints this lab's view"},
    {"share.why.no_numbers", "this lab shows no numbers to export; export a picture instead"},
    {"share.why.computing", "the view is still being computed; export again when it is done"},
    {"share.why.arena_file",
     "a dataset row: the file is the source (poslab-cli inspect summarises it)"},
    {"share.why.arena_helm", "a ship is at the helm: your steering is not in the preset"},
    {"share.why.arena_practice", "practice mode (ships hold fire) has no poslab-cli sim flag"},
    {"share.why.no_episode", "no dataset episode is open"},
    {"share.why.no_model", "no model is loaded: only the real simulator and the baselines run"},
    {"share.why.file_approval", "the preset's dataset file waits for your approval"},
    {"share.why.no_dream", "no dream has run yet"},
    {"share.why.start_failed", "the start failed ({error}); the default episode runs"},
    {"share.why.helm_changed",
     "the helm changed during this dream, which the preset cannot say: restart the dream (or "
     "change a setting) to get a session poslab-cli can replay"},
    {"share.why.restarted",
     "the dream was restarted from a reality that the preset cannot say (open loop, the helm, "
     "or past step 511)"},
    // export_path_problem: why a file cannot be written there, before trying.
    {"share.problem.no_name", "no file name given"},
    {"share.problem.is_folder", "is a folder; give a file name"},
    {"share.problem.no_folder", "the folder {folder} does not exist"},
    {"share.problem.not_folder", "{folder} is not a folder"},
    {"share.problem.not_writable", "the folder {folder} is not writable; choose another folder"},
    // preset_from_uri: a text that is not a preset link.
    {"share.problem.not_link", "\"{text}\" is not a poslab: link (poslab:LAB?key=value)"},
    {"share.problem.no_lab", "\"{text}\" names no lab (poslab:LAB?...)"},
};

inline Message share_message(std::string_view id, std::vector<MessageArg> args = {}) {
  return message_make(kShareMessages, id, std::move(args));
}

inline std::vector<std::string> share_message_ids() {
  return message_ids(kShareMessages);
}

}  // namespace poslab::app
