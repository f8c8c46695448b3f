// JSON vectors and matrices on poslab-cli's stdin (rope --apply, --reencode).
#include "cli/json_util.hpp"
#include "fuzz/fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = fuzz_text(data, size);
  bool was_vector = false;
  POSLAB_FUZZ_BODY({
    const poslab::RowMatrix m = poslab::cli::parse_json_matrix(text, "stdin", was_vector);
    if (m.rows() < 1 || m.cols() < 1 || (was_vector && m.rows() != 1)) std::abort();
  });
  return 0;
}
