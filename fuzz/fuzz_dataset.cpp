// Boost and Broadside HDF5 datasets, mutated from the valid seed file in corpus/dataset:
// PosLab's reader in this process (so the sanitizers see PosLab's code), reading every
// episode. libhdf5 itself crashes on some mutants; in PosLab those reads run in a helper
// process (io/dataset/isolated.hpp), so scripts/fuzz.sh runs this harness with -fork and
// sorts crashes into library-only ones and ones with PosLab frames.
#include <hdf5.h>

#include <fstream>

#include "fuzz/fuzz_common.hpp"
#include "io/dataset/bnb_dataset.hpp"

// libhdf5 keeps freed blocks on its own free lists, up to 64 KB per list by default. Every
// file open allocates a metadata cache of about 1 MB and zeroes it; past the limit the cache
// went back to ASan's allocator, which unmaps a block that large, so every execution paid for
// fresh pages (60 % of its time, measured with perf; 375 executions/s, 1,330 with the lists
// below). Larger lists keep one cache for the whole run. PosLab's own code is untouched:
// it never allocates through libhdf5's free lists.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  constexpr int list = 64 << 20, all = 256 << 20;
  H5set_free_list_limits(all, list, all, list, all, list);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = fuzz_scratch_dir() + "/mutant.h5";
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  POSLAB_FUZZ_BODY({
    const poslab::io::BnbDatasetReader r(path, poslab::io::BnbReadMode::in_process);
    for (int64_t e = 0; e < r.info().num_episodes; ++e) (void)r.read_episode(e);
  });
  return 0;
}
