// Writing user files so that a crash or kill at any moment leaves either the old file or
// the new one, never a torn mix: write a temporary file in the same directory, flush it to
// disk, then rename it over the target (rename is atomic on POSIX file systems).
#pragma once
#include <string>

namespace poslab {

// Throws FileError naming the path if any step fails (the old file is then untouched).
void write_file_atomically(const std::string& path, const std::string& contents);

// Reads a whole file; throws FileError naming the path if it cannot be opened.
std::string read_file(const std::string& path);

}  // namespace poslab
