// Boost and Broadside datasets in HDF5 (spec section 8), written and read with Debian's
// libhdf5 C API so that h5py opens the same files. One file holds many episodes; every
// per-row dataset grows along axis 0 (chunked, resizable) and the file is flushed after
// each episode, so a collection that stops early leaves a valid file.
//   S = rows over all episodes (agent steps + 1 per episode), E = episodes
//   tokens f4 (S, 8, 15)   actions u1 (S, 8, 3)   expert_actions u1 (S, 8, 3)
//   rewards f4 (S, 2)      episode_ids i8 (S,)    episode_lengths i8 (E,)
//   episode_seeds u8 (E,)  (PosLab's addition: replaying a seed reproduces the episode)
// Root attributes: magic, format_version, num_episodes, total_timesteps, max_ships,
// token_dim, num_actions, action_sizes, world_size, agent_dt, policy, layout.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/bnb/bnb_episode.hpp"

namespace poslab::io {

inline constexpr int64_t kBnbFormatVersion = 1;
inline constexpr const char* kBnbMagic = "poslab/boost-and-broadside";

struct BnbWriterOptions {
  int compression = 1;           // deflate level with byte shuffle, 0 = none, [0, 9]
  int chunk_rows = 512;          // rows per chunk of the per-row datasets, [16, 65536]
  bool overwrite = false;        // replace an existing file (else it is an error)
  std::string policy = "noisy";  // recorded in the 'policy' attribute
};

struct BnbDatasetInfo {
  std::string path;
  int64_t format_version = 0;
  int64_t num_episodes = 0;              // E
  int64_t total_timesteps = 0;           // S
  std::string policy;                    // attribute, may be empty
  std::vector<int64_t> episode_lengths;  // (E,) rows of each episode
  std::vector<int64_t> episode_offsets;  // (E,) first row of each episode
  std::vector<uint64_t> episode_seeds;   // (E,)
};

// Creates the file at construction (with every dataset empty and the attributes set);
// append() writes one episode, updates num_episodes / total_timesteps and flushes.
// Errors are FileError naming the path.
class BnbDatasetWriter {
 public:
  BnbDatasetWriter(const std::string& path, const BnbWriterOptions& options = {});
  ~BnbDatasetWriter();
  BnbDatasetWriter(const BnbDatasetWriter&) = delete;
  BnbDatasetWriter& operator=(const BnbDatasetWriter&) = delete;

  void append(const bnb::EpisodeRecord& episode);
  void close();  // idempotent; the destructor calls it
  int64_t episodes() const { return episodes_; }
  int64_t rows() const { return rows_; }

 private:
  struct Handles;
  std::unique_ptr<Handles> h_;
  std::string path_;
  int64_t episodes_ = 0, rows_ = 0;
};

// Opens and checks a dataset: HDF5 readable, magic, format version, every dataset present
// with the right type and shape, lengths adding up. Every failure is a FileError that
// names the file and says what to do.
class BnbDatasetReader {
 public:
  explicit BnbDatasetReader(const std::string& path);
  ~BnbDatasetReader();
  BnbDatasetReader(const BnbDatasetReader&) = delete;
  BnbDatasetReader& operator=(const BnbDatasetReader&) = delete;

  const BnbDatasetInfo& info() const { return info_; }
  // Episode e (0-based); checks its episode_ids and action values.
  bnb::EpisodeRecord read_episode(int64_t e) const;
  // Rows [first, first + count) of tokens (count, 8, 15) and actions (count, 8, 3) for
  // whole-file statistics.
  void read_rows(int64_t first, int64_t count, std::vector<float>& tokens,
                 std::vector<uint8_t>& actions, std::vector<uint8_t>& expert_actions) const;

 private:
  struct Handles;
  std::unique_ptr<Handles> h_;
  BnbDatasetInfo info_;
};

}  // namespace poslab::io
