// Shared by the libFuzzer harnesses: the one rule every PosLab parser keeps is that bad
// input ends as a poslab::Error (InputError / FileError) with a message, never as another
// exception, a crash or a sanitizer report. RUN_EXPECTING_ERRORS runs a body under it.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/common/errors.hpp"

// Any other exception escapes the harness, and libFuzzer reports it as a crash (abort).
#define POSLAB_FUZZ_BODY(body)     \
  try {                            \
    body;                          \
  } catch (const poslab::Error&) { \
  }

inline std::string fuzz_text(const uint8_t* data, size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// A directory of its own for harnesses that must hand the parser a file.
std::string fuzz_scratch_dir();
