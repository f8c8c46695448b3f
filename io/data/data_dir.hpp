// Where PosLab's data lives, found one way by the app, the command line and the lessons
// loader. The data folder mirrors the source tree: lessons/, assets/i18n/, assets/models/.
//   1. $POSLAB_DATA_DIR, when set
//   2. ../share/poslab/data beside the running executable (installed, an unpacked .deb or
//      tarball); its own folder, so a `--prefix ~/.local` install never mixes the program's
//      files with the user's (~/.local/share/poslab: progress, own models, io/files/user_dirs)
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
std::string icons_dir();      // $POSLAB_ASSETS_DIR/icons, else data_dir()/assets/icons
std::string models_dir();     // $POSLAB_MODELS_DIR, else data_dir()/assets/models
// The length lab's held-out text, shipped beside its models (models_dir()/lm_held_out.txt):
// the validation text of the shipped models' split, so a machine without Debian's fortune
// files runs the lab (io/length/length_lab_io reads and checks it). One of PosLab's own
// data files: a checkpoint's recorded paths may lead here.
std::string lm_held_out_path();

// What the labs need and do not find, one line each naming the path and what to do: the
// lessons' catalog, the interface texts of each language, every shipped world model (tiny
// and paper sizes), every shipped language model, the held-out text and lm_eval.json (the
// lessons' measured table). Empty when all is there. `poslab --check` fails on each line.
std::vector<std::string> data_problems();

}  // namespace poslab::io
