// Where PosLab keeps a user's own files (settings, progress, trained models, recordings):
// one function for the app and the command line, so both agree on the folder and on what
// to do when the environment names none.
#pragma once
#include <string>

namespace poslab {

enum class UserDir { config, data };

// $XDG_CONFIG_HOME/poslab or $XDG_DATA_HOME/poslab when the variable holds an absolute path
// (the XDG rule: relative ones are ignored), else ~/.config/poslab or ~/.local/share/poslab.
// With neither HOME nor the XDG variable set, "<tmp>/poslab-<uid>/config" or ".../data"
// under the system's temporary folder ($TMPDIR or /tmp): the per-user folder
// "<tmp>/poslab-<uid>" is created with mode 0700 and must be a directory (not a link) that
// this user owns and nobody else can enter; otherwise a FileError names it (another user
// made it first to catch our files). The returned folder itself is not created.
std::string user_dir(UserDir kind);

}  // namespace poslab
