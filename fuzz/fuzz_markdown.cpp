// Lesson Markdown (md4c): any text parses (it is all valid Markdown); lab links and plain
// text of every block are extracted as the lessons panel does.
#include "fuzz/fuzz_common.hpp"
#include "io/lessons/markdown.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = fuzz_text(data, size);
  POSLAB_FUZZ_BODY({
    const poslab::io::MdDocument doc = poslab::io::parse_markdown(text);
    (void)poslab::io::markdown_lab_links(doc);
    for (const auto& block : doc.blocks) (void)poslab::io::markdown_plain_text(block);
  });
  return 0;
}
