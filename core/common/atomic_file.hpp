// Writing user files so that a crash or kill at any moment leaves either the old file or
// the new one, never a torn mix: write a temporary file in the same directory, flush it to
// disk, then rename it over the target (rename is atomic on POSIX file systems). Reading
// user files without hanging: only regular files, of bounded size.
#pragma once
#include <cstddef>
#include <string>

namespace poslab {

// Throws FileError naming the path if any step fails (the old file is then untouched).
// Temporary files "<path>.tmp.<pid>" left by killed writers (pid no longer running) are
// removed after a successful write.
void write_file_atomically(const std::string& path, const std::string& contents);

// Reads a whole file; throws FileError naming the path if it cannot be opened, is not a
// regular file (a FIFO would block forever, a device never end) or is larger than
// max_bytes (default 256 MiB: far more than any text input PosLab reads).
std::string read_file(const std::string& path, size_t max_bytes = size_t{256} << 20);

}  // namespace poslab
