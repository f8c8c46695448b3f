// atomic_writer: the kill test's subject for atomic saves.
//   atomic_writer save PATH N   saves progress files 1..N (save i holds attempts = i in
//                               every answer), printing "saved i" after each returns
//   atomic_writer check PATH    loads PATH; prints its attempts value, exit 1 if it is
//                               not a readable progress file or its answers disagree
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/common/errors.hpp"
#include "io/lessons/progress_file.hpp"

namespace {

// About 100 KB of JSON, so that a kill often lands inside a write.
poslab::Progress make(int i) {
  poslab::Progress p;
  for (int l = 0; l < 40; ++l) {
    auto& lesson = p.lessons["lesson-" + std::to_string(l)];
    lesson.checklist.assign(8, i % 2 == 0);
    for (int q = 0; q < 25; ++q) {
      auto& a = lesson.answers["q" + std::to_string(q)];
      a.attempts = i;
      a.seed = static_cast<uint64_t>(i) * 1000003u;
      a.text = "answer " + std::to_string(i);
    }
  }
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: atomic_writer save PATH N | check PATH\n");
    return 2;
  }
  const std::string mode = argv[1], path = argv[2];
  try {
    if (mode == "save" && argc == 4) {
      const int n = std::atoi(argv[3]);
      for (int i = 1; i <= n; ++i) {
        poslab::io::save_progress(path, make(i));
        std::printf("saved %d\n", i);
        std::fflush(stdout);
      }
      return 0;
    }
    if (mode == "check") {
      const poslab::io::ProgressLoad load = poslab::io::load_progress(path);
      if (!load.notice.empty()) {
        std::fprintf(stderr, "unreadable: %s\n", load.notice.c_str());
        return 1;
      }
      int attempts = -1;
      for (const auto& [id, lesson] : load.progress.lessons)
        for (const auto& [qid, a] : lesson.answers) {
          if (attempts >= 0 && a.attempts != attempts) {
            std::fprintf(stderr, "torn: answers with attempts %d and %d\n", attempts, a.attempts);
            return 1;
          }
          attempts = a.attempts;
        }
      std::printf("%d\n", attempts < 0 ? 0 : attempts);
      return 0;
    }
  } catch (const poslab::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  std::fprintf(stderr, "usage: atomic_writer save PATH N | check PATH\n");
  return 2;
}
