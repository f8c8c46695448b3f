// mutate_datasets: the mutation campaign that shows libhdf5 crashes are contained.
//   mutate_datasets VALID.h5 COUNT SEED WORKDIR [MIN_CONTAINED]
// Makes COUNT mutants of a valid dataset (1..4 changed bytes each, half of them aimed at
// the first 4 KiB where HDF5 keeps the superblock and object headers), and reads each one
// completely (every episode, as inspect does) through the helper process. This process
// must survive every mutant: each read ends as "accepted" (the bytes changed nothing that
// matters), "rejected" (a FileError naming the file) or "contained" (the helper process
// crashed or hung; still a FileError here). Prints the counts as JSON; exit 1 if any read
// ended another way or fewer than MIN_CONTAINED crashes were contained (to show the
// campaign reaches the library's crashes at all).
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include "core/common/errors.hpp"
#include "core/common/random.hpp"
#include "io/dataset/bnb_dataset.hpp"
#include "io/dataset/isolated.hpp"

int main(int argc, char** argv) {
  using namespace poslab;
  if (argc < 5) {
    std::fprintf(stderr, "usage: mutate_datasets VALID.h5 COUNT SEED WORKDIR [MIN_CONTAINED]\n");
    return 2;
  }
  const std::string valid_path = argv[1], workdir = argv[4];
  const long count = std::atol(argv[2]);
  const uint64_t seed = std::strtoull(argv[3], nullptr, 10);
  const long min_contained = argc > 5 ? std::atol(argv[5]) : 0;
  std::ifstream in(valid_path, std::ios::binary);
  std::ostringstream whole;
  whole << in.rdbuf();
  const std::string valid = whole.str();
  if (valid.size() < 4096) {
    std::fprintf(stderr, "mutate_datasets: %s is not a dataset of at least 4 KiB\n",
                 valid_path.c_str());
    return 2;
  }
  long accepted = 0, rejected = 0, contained = 0, unexpected = 0;
  io::IsolationOptions options;
  options.timeout_seconds = 20;
  const std::string path = workdir + "/mutant.h5";
  for (long i = 0; i < count; ++i) {
    SeededStream rng(seed, "mutant", static_cast<uint64_t>(i));
    std::string bytes = valid;
    const int changes = 1 + static_cast<int>(rng.next_u64() % 4);
    const bool header = rng.next_u64() % 2 == 0;
    for (int c = 0; c < changes; ++c) {
      const size_t span = header ? 4096 : bytes.size();
      const size_t at = static_cast<size_t>(rng.next_u64() % span);
      const uint64_t how = rng.next_u64();
      if (how % 3 == 0)
        bytes[at] = static_cast<char>(bytes[at] ^ (1u << (how >> 8) % 8));  // one bit
      else
        bytes[at] = static_cast<char>(how >> 16);  // any byte
    }
    {
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    }
    try {
      io::run_isolated(
          path,
          [&] {
            const io::BnbDatasetReader r(path, io::BnbReadMode::in_process);
            for (int64_t e = 0; e < r.info().num_episodes; ++e) r.read_episode(e);
            return std::string();
          },
          options);
      ++accepted;
    } catch (const FileError& e) {
      const std::string what = e.what();
      if (what.find("crashed") != std::string::npos ||
          what.find("did not finish") != std::string::npos)
        ++contained;
      else
        ++rejected;
    } catch (const std::exception& e) {
      ++unexpected;
      std::fprintf(stderr, "mutant %ld: unexpected %s\n", i, e.what());
    }
  }
  std::printf(
      "{\"mutants\": %ld, \"accepted\": %ld, \"rejected\": %ld, \"contained_library_crashes\": "
      "%ld, \"unexpected\": %ld, \"crashes_of_this_process\": 0}\n",
      count, accepted, rejected, contained, unexpected);
  return unexpected == 0 && contained >= min_contained ? 0 : 1;
}
