// Running untrusted-file work in a helper process. libhdf5 1.10 can read out of bounds or
// use freed memory on a file with one corrupted byte; PosLab cannot fix the library, so
// every read of a dataset that PosLab did not just write happens in a forked child. A
// crash, a hang or a runaway allocation there ends the child only; the caller gets a
// FileError naming the file.
#pragma once
#include <functional>
#include <string>

namespace poslab::io {

struct IsolationOptions {
  double timeout_seconds = 300.0;  // the child is killed after this long, (0, 1e6]
  // The child is killed once its resident memory grows by more than this many bytes over
  // what it shared with the caller at the fork. 0: automatic, 64 times the file's size but
  // at least 1 GiB (a dataset's rows take about 3 times its compressed bytes, 10 times for
  // a 1v1 file; the answer is copied twice more), and at most 3/4 of the machine's memory.
  // A 28 KB corrupt file made libhdf5 allocate without end (fuzz_dataset): 24 GB of a
  // development machine in 3 minutes before the kernel's out-of-memory killer stepped in.
  double memory_limit_bytes = 0;
};

// Runs work() in a forked child and returns the bytes it returned. An exception of the
// core's error types thrown in the child is rethrown here with the same type and text; any
// other death of the child (signal, sanitizer report, exit without an answer, timeout,
// memory past its limit) becomes FileError(path, "... the file is corrupt ..."). The caller's
// process never runs work() itself, so it never touches the file through libhdf5.
std::string run_isolated(const std::string& path, const std::function<std::string()>& work,
                         const IsolationOptions& options = {});

}  // namespace poslab::io
