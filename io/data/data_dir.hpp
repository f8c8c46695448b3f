// Where PosLab's data lives, found one way by the app, the command line and the lessons
// loader. The data folder mirrors the source tree: lessons/, assets/i18n/, assets/models/.
//   1. $POSLAB_DATA_DIR, when set
//   2. ../share/poslab beside the running executable (installed, an unpacked .deb or tarball)
//   3. the source tree, for an executable inside the build tree it was configured with
// A folder for one kind of data can still be set alone ($POSLAB_LESSONS_DIR,
// $POSLAB_ASSETS_DIR, $POSLAB_MODELS_DIR: tests use them to point at broken copies).
#pragma once
#include <string>
#include <vector>

namespace poslab::io {

std::string data_dir();       // the folder the rules above choose (absolute, normalised)
std::string data_dir_rule();  // which rule chose it: "POSLAB_DATA_DIR", "installed", "source tree"
std::string lessons_dir();    // $POSLAB_LESSONS_DIR, else data_dir()/lessons
std::string i18n_dir();       // $POSLAB_ASSETS_DIR/i18n, else data_dir()/assets/i18n
std::string welcome_dir();    // $POSLAB_ASSETS_DIR/welcome, else data_dir()/assets/welcome
std::string models_dir();     // $POSLAB_MODELS_DIR, else data_dir()/assets/models

// What the app needs and does not find, one line each naming the path and what to do: the
// lessons' catalog, the interface texts of each language, each shipped world model. Empty
// when all is there. `poslab --check` fails on each line.
std::vector<std::string> data_problems();

}  // namespace poslab::io
