// The length lab's training text: the bytes of fortune files (Debian's `fortunes`, English,
// and `fortunes-zh`, Tang and Song poems) with their terminal colour codes removed, cut into
// entries at the lines "%", and split by entry into training and validation text. Core is
// handed the files' bytes; which files and which package versions is io's and the CLI's
// business (io/checkpoint/lm_checkpoint.hpp lists the defaults).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/param_range.hpp"

namespace poslab::lm {

// One source file as handed to core: its name (recorded in the metadata) and its bytes.
struct LmTextFile {
  std::string name;   // e.g. "/usr/share/games/fortunes/science"
  std::string bytes;  // the file's content, UTF-8
};

struct LmCorpusParams {
  int valid_every = 10;  // entry i (counted over all files in order) is validation text when
                         // i % valid_every == valid_every - 1, [2, 1000]
  bool operator==(const LmCorpusParams&) const = default;
  static constexpr ParamRange valid_every_range{2, 1000};
};

// Training and validation text: entries in file order, each followed by one "\n" (so an
// entry that ends in a newline is followed by a blank line).
struct LmCorpus {
  std::vector<uint8_t> train;  // bytes
  std::vector<uint8_t> valid;  // bytes
  int64_t train_entries = 0;
  int64_t valid_entries = 0;
  LmCorpusParams params;
};

// Removes ANSI escape sequences: CSI (ESC '[' parameters intermediates final, e.g.
// "\x1b[32m") and other ESC sequences (intermediates 0x20-0x2F then one final byte, e.g.
// "\x1b(B"); a lone ESC at the end is dropped too.
std::string lm_strip_ansi(std::string_view text);
// Entries of a fortune file: the text between lines that are exactly "%" (a "\r" before the
// newline is allowed). Empty entries (only whitespace) are dropped.
std::vector<std::string> lm_split_entries(std::string_view text);
// Strips, splits and distributes the entries of every file. Throws InputError when either
// side ends up shorter than min_bytes (a window needs L + 1 bytes).
LmCorpus lm_corpus_build(const std::vector<LmTextFile>& files, const LmCorpusParams& p,
                         int64_t min_bytes = 2);

}  // namespace poslab::lm
