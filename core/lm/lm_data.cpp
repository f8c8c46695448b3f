// Fortune files into training and validation bytes (see lm_data.hpp).
#include "core/lm/lm_data.hpp"

#include "core/common/errors.hpp"

namespace poslab::lm {

std::string lm_strip_ansi(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\x1b') {
      out.push_back(text[i]);
      continue;
    }
    if (i + 1 < text.size() && text[i + 1] == '[') {  // CSI: params 0x30-0x3F, inter 0x20-0x2F
      size_t j = i + 2;
      while (j < text.size() && text[j] >= 0x20 && text[j] <= 0x3f) ++j;
      i = j < text.size() && text[j] >= 0x40 && text[j] <= 0x7e ? j : j - 1;
    } else {  // ESC, intermediates 0x20-0x2F, one final byte (e.g. "\x1b(B")
      size_t j = i + 1;
      while (j < text.size() && text[j] >= 0x20 && text[j] <= 0x2f) ++j;
      i = j;
    }
  }
  return out;
}

std::vector<std::string> lm_split_entries(std::string_view text) {
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&] {
    if (cur.find_first_not_of(" \t\r\n") != std::string::npos) out.push_back(cur);
    cur.clear();
  };
  size_t i = 0;
  while (i < text.size()) {
    size_t e = text.find('\n', i);
    const size_t end = e == std::string_view::npos ? text.size() : e + 1;
    std::string_view line = text.substr(i, end - i);
    std::string_view bare = line;
    while (!bare.empty() && (bare.back() == '\n' || bare.back() == '\r')) bare.remove_suffix(1);
    if (bare == "%")
      flush();
    else
      cur.append(line);
    i = end;
  }
  flush();
  return out;
}

LmCorpus lm_corpus_build(const std::vector<LmTextFile>& files, const LmCorpusParams& p,
                         int64_t min_bytes) {
  require_in_range("valid_every", p.valid_every, LmCorpusParams::valid_every_range);
  LmCorpus c;
  c.params = p;
  int64_t i = 0;
  for (const auto& f : files)
    for (const std::string& e : lm_split_entries(lm_strip_ansi(f.bytes))) {
      const bool valid = i % p.valid_every == p.valid_every - 1;
      auto& dst = valid ? c.valid : c.train;
      dst.insert(dst.end(), e.begin(), e.end());
      dst.push_back('\n');
      ++(valid ? c.valid_entries : c.train_entries);
      ++i;
    }
  if (static_cast<int64_t>(c.train.size()) < min_bytes ||
      static_cast<int64_t>(c.valid.size()) < min_bytes)
    throw InputError("text of " + std::to_string(files.size()) + " files gives " +
                     std::to_string(c.train.size()) + " training and " +
                     std::to_string(c.valid.size()) + " validation bytes; need at least " +
                     std::to_string(min_bytes) + " each: add files or use a shorter context");
  return c;
}

}  // namespace poslab::lm
