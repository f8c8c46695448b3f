// The English interface texts built into the program (assets/i18n/en/*.toml, embedded at
// build time by cmake/embed_texts.cmake): the layer under the data folder's files, so a
// wrong or incomplete data folder shows English words, never text keys.
#pragma once
#include <string_view>
#include <utility>
#include <vector>

namespace poslab::app {

// (file name, TOML text) of each English file, in name order.
const std::vector<std::pair<std::string_view, std::string_view>>& embedded_english_texts();

}  // namespace poslab::app
