// Boost and Broadside datasets in HDF5 (spec section 8), written and read with Debian's
// libhdf5 C API so that h5py opens the same files. One file holds many episodes; every
// per-row dataset grows along axis 0 (chunked, resizable).
// Crash safety: HDF5 rewrites chunks and metadata in place, so a file being written is
// never the file a reader may see. The writer works in <out>.work, publishes consistent
// snapshots as <out>.partial by copy + rename, and renames the finished file to <out>:
//   kill -9 at any moment -> <out> untouched (absent, or the previous dataset), and
//                            <out>.partial (if any) a valid dataset of the committed episodes
// Reading: files may come from anywhere, so by default every libhdf5 call on them runs in a
// helper process (isolated.hpp); sizes are bounded by what the file stores, and external
// links, external storage and virtual datasets are refused (a dataset reads no other file).
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
  int compression = 1;              // deflate level with byte shuffle, 0 = none, [0, 9]
  int chunk_rows = 512;             // rows per chunk of the per-row datasets, [16, 65536]
  bool overwrite = false;           // replace an existing file / stale .partial (else error)
  std::string policy = "noisy";     // recorded in the 'policy' attribute
  double commit_min_seconds = 0.5;  // least time between two .partial snapshots, s, [0, 3600]
  double commit_overhead = 0.1;     // most time spent copying snapshots, fraction, (0, 1]
};

// "<out>.partial": the last committed snapshot of an unfinished collection.
std::string bnb_partial_path(const std::string& output);

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

// Creates <path>.work at construction (every dataset empty, attributes set); append()
// writes one episode and, when due (see the options), commits a snapshot to <path>.partial;
// close() renames the finished file to <path> (replacing a previous one only then) and
// removes <path>.partial. Without close() (an exception, a kill) <path> is never touched.
// Errors are FileError naming the path; after one, <path> and <path>.partial are intact.
class BnbDatasetWriter {
 public:
  BnbDatasetWriter(const std::string& path, const BnbWriterOptions& options = {});
  ~BnbDatasetWriter();  // without close(): removes the work file, keeps <path>.partial
  BnbDatasetWriter(const BnbDatasetWriter&) = delete;
  BnbDatasetWriter& operator=(const BnbDatasetWriter&) = delete;

  void append(const bnb::EpisodeRecord& episode);
  void commit();  // snapshot to <path>.partial now (append() calls it when due)
  void close();   // finish: <path> holds every appended episode; idempotent
  int64_t episodes() const { return episodes_; }
  int64_t rows() const { return rows_; }
  int64_t committed_episodes() const { return committed_; }  // in <path>.partial or <path>

 private:
  struct Handles;
  std::unique_ptr<Handles> h_;
  std::string path_, work_path_, partial_path_;
  BnbWriterOptions options_;
  int64_t episodes_ = 0, rows_ = 0, committed_ = 0;
  double last_commit_end_ = 0, last_commit_seconds_ = 0;
  bool finished_ = false;
};

enum class BnbReadMode {
  helper_process,  // every libhdf5 call in a forked child (for files from anywhere)
  in_process,      // libhdf5 in this process (inside a helper, or files we just wrote)
};

// Opens and checks a dataset: HDF5 readable, magic, format version, every dataset present
// as a hard link, chunked, with the right type, shape and filters, no external storage,
// enough stored chunks for its rows, lengths adding up. Every failure is a FileError that
// names the file and says what to do. In helper_process mode (the default) the checks and
// every later read run in a child process, so even a libhdf5 crash is a FileError here.
class BnbDatasetReader {
 public:
  explicit BnbDatasetReader(const std::string& path,
                            BnbReadMode mode = BnbReadMode::helper_process);
  ~BnbDatasetReader();
  BnbDatasetReader(const BnbDatasetReader&) = delete;
  BnbDatasetReader& operator=(const BnbDatasetReader&) = delete;

  const BnbDatasetInfo& info() const { return info_; }
  // Episode e (0-based); checks its episode_ids and action values.
  bnb::EpisodeRecord read_episode(int64_t e) const;
  // Every episode in order (one helper process for all of them, not one per episode).
  std::vector<bnb::EpisodeRecord> read_all_episodes() const;
  // Rows [first, first + count) of tokens (count, 8, 15) and actions (count, 8, 3) for
  // whole-file statistics.
  void read_rows(int64_t first, int64_t count, std::vector<float>& tokens,
                 std::vector<uint8_t>& actions, std::vector<uint8_t>& expert_actions) const;

 private:
  struct Handles;
  std::unique_ptr<Handles> h_;  // in_process mode only
  BnbReadMode mode_;
  BnbDatasetInfo info_;
};

}  // namespace poslab::io
