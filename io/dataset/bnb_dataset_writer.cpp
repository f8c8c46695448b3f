// The Boost and Broadside dataset writer (bnb_dataset.hpp): works in <out>.work, publishes
// consistent snapshots as <out>.partial by copy + rename, renames the finished file to <out>.
// HDF5 helpers: bnb_hdf5.hpp; the reader: bnb_dataset.cpp.
#include <fcntl.h>
#include <hdf5.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

#include "core/common/errors.hpp"
#include "io/dataset/bnb_dataset.hpp"
#include "io/dataset/bnb_hdf5.hpp"
#include "io/files/atomic_file.hpp"

namespace poslab::io {

namespace {

const char* const kLayout =
    "row t of an episode: tokens = state S_t, actions = action taken in S_t (slot k at [t, k]), "
    "expert_actions = scripted expert in S_t, rewards = per team for the step from S_t; the last "
    "row of "
    "each episode is the terminal state (its action not executed, reward 0). Screen convention: y "
    "down.";

void fsync_parent_dir(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  const std::string dir = parent.empty() ? "." : parent.string();
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

// Copies `from` to a temporary file beside `to`, flushes it to disk and renames it over
// `to`: readers of `to` see the old or the new snapshot, never a mix.
void copy_atomically(const std::string& from, const std::string& to) {
  std::string tmp;
  const int tmp_fd = create_temporary(to, tmp);  // unpredictable name, O_EXCL
  const auto fail = [&](const std::string& what, int in, int out) {
    const std::string why = std::strerror(errno);
    if (in >= 0) ::close(in);
    if (out >= 0) ::close(out);
    ::unlink(tmp.c_str());
    throw FileError(to, what + ": " + why + " (disk full?); the previous snapshot is kept");
  };
  const int out = tmp_fd;
  const int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) fail("cannot read the work file " + from, -1, out);
  if (::fchmod(out, new_file_mode()) != 0) fail("cannot set the snapshot's permissions", in, out);
  for (;;) {
    const ssize_t n = ::copy_file_range(in, nullptr, out, nullptr, 1 << 24, 0);
    if (n == 0) break;
    if (n > 0) continue;
    if (errno == EINTR) continue;
    if (errno != EXDEV && errno != ENOSYS && errno != EINVAL && errno != EOPNOTSUPP)
      fail("copying the snapshot failed", in, out);
    // File systems without copy_file_range: plain reads and writes from where we are.
    char buf[1 << 16];
    for (;;) {
      const ssize_t r = ::read(in, buf, sizeof buf);
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) fail("reading the work file failed", in, out);
      if (r == 0) break;
      for (ssize_t done = 0; done < r;) {
        const ssize_t w = ::write(out, buf + done, static_cast<size_t>(r - done));
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) fail("writing the snapshot failed", in, out);
        done += w;
      }
    }
    break;
  }
  ::close(in);
  if (::fsync(out) != 0) fail("flushing the snapshot failed", -1, out);
  if (::close(out) != 0) fail("closing the snapshot failed", -1, -1);
  if (::rename(tmp.c_str(), to.c_str()) != 0) fail("renaming the snapshot failed", -1, -1);
  fsync_parent_dir(to);
}

}  // namespace

std::string bnb_partial_path(const std::string& output) {
  return output + ".partial";
}

struct BnbDatasetWriter::Handles {
  Hid file;
  std::array<Hid, 5> rows;
  std::array<Hid, 2> episodes;
};

BnbDatasetWriter::BnbDatasetWriter(const std::string& path, const BnbWriterOptions& options)
    : h_(std::make_unique<Handles>()),
      path_(path),
      partial_path_(bnb_partial_path(path)),
      options_(options) {
  quiet_hdf5();
  if (options.compression < 0 || options.compression > 9)
    throw InputError("compression = " + std::to_string(options.compression) +
                     ": must be 0 (none) .. 9");
  if (options.chunk_rows < 16 || options.chunk_rows > 65536)
    throw InputError("chunk_rows = " + std::to_string(options.chunk_rows) +
                     ": must be in [16, 65536]");
  if (!(options.commit_min_seconds >= 0 && options.commit_min_seconds <= 3600))
    throw InputError("commit_min_seconds = " + std::to_string(options.commit_min_seconds) +
                     ": must be in [0, 3600]");
  if (!(options.commit_overhead > 0 && options.commit_overhead <= 1))
    throw InputError("commit_overhead = " + std::to_string(options.commit_overhead) +
                     ": must be in (0, 1]");
  std::error_code ec;
  if (!options.overwrite && std::filesystem::exists(path, ec))
    throw FileError(path,
                    "already exists; choose another output path or pass --force to replace it");
  if (!options.overwrite && std::filesystem::exists(partial_path_, ec))
    throw FileError(partial_path_,
                    "is left from an interrupted collection (it is a valid dataset of the "
                    "episodes committed before it stopped): rename it to keep them, or pass "
                    "--force to discard it");
  // What the finished file replaces: never a device or FIFO; through a symbolic link of ours.
  const ReplaceTarget target = replace_target(path);
  path_ = target.path;
  // The work file: an unpredictable name created exclusively beside the output (a fixed
  // "<out>.work" could be a link another user planted in a shared folder), with the mode
  // the finished file will have.
  {
    const int fd = create_temporary(path_, work_path_);
    const bool moded = ::fchmod(fd, target.exists ? target.mode : new_file_mode()) == 0;
    ::close(fd);
    if (!moded) {
      ::unlink(work_path_.c_str());
      throw FileError(path, "cannot set the permissions of the work file " + work_path_);
    }
  }
  h_->file = Hid(H5Fcreate(work_path_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
  if (!h_->file.valid()) ::unlink(work_path_.c_str());
  if (!h_->file.valid())
    throw FileError(path, "cannot create the work file " + work_path_ +
                              " (does the directory exist and is it writable?)");
  const hid_t f = h_->file.get();
  try {
    const auto create = [&](const DatasetSpec& d, hsize_t chunk) {
      std::array<hsize_t, 3> dims{0, d.inner[0], d.inner[1]},
          maxdims{H5S_UNLIMITED, d.inner[0], d.inner[1]}, chunks{chunk, d.inner[0], d.inner[1]};
      Hid space(H5Screate_simple(d.rank, dims.data(), maxdims.data()), H5Sclose);
      Hid plist(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
      H5Pset_chunk(plist.get(), d.rank, chunks.data());
      if (options.compression > 0) {
        H5Pset_shuffle(plist.get());
        H5Pset_deflate(plist.get(), static_cast<unsigned>(options.compression));
      }
      H5Pset_fletcher32(plist.get());  // per-chunk checksums: corrupted bytes are detected
      Hid ds(H5Dcreate2(f, d.name, d.file_type, space.get(), H5P_DEFAULT, plist.get(), H5P_DEFAULT),
             H5Dclose);
      if (!ds.valid())
        throw FileError(path, std::string("cannot create dataset '") + d.name + "' (disk full?)");
      return ds;
    };
    const auto rs = row_specs();
    for (size_t i = 0; i < rs.size(); ++i)
      h_->rows[i] = create(rs[i], static_cast<hsize_t>(options.chunk_rows));
    const auto es = episode_specs();
    for (size_t i = 0; i < es.size(); ++i) h_->episodes[i] = create(es[i], 1024);

    write_attr_str(path, f, "magic", kBnbMagic);
    write_attr_i64(path, f, "format_version", {kBnbFormatVersion});
    write_attr_i64(path, f, "num_episodes", {0});
    write_attr_i64(path, f, "total_timesteps", {0});
    write_attr_i64(path, f, "max_ships", {kSlots});
    write_attr_i64(path, f, "token_dim", {kTokenDim});
    write_attr_i64(path, f, "num_actions", {kActionHeads});
    write_attr_i64(path, f, "action_sizes", {bnb::kPowerCount, bnb::kTurnCount, bnb::kShootCount});
    write_attr_f64(path, f, "world_size", {bnb::kWorldW, bnb::kWorldH});
    write_attr_f64(path, f, "agent_dt", {bnb::kAgentDt});
    write_attr_str(path, f, "policy", options.policy);
    write_attr_str(path, f, "layout", kLayout);
    if (H5Fflush(f, H5F_SCOPE_GLOBAL) < 0) throw FileError(path, "cannot flush the new file");
  } catch (...) {
    for (auto& d : h_->rows) d.reset();
    for (auto& d : h_->episodes) d.reset();
    h_->file.reset();
    ::unlink(work_path_.c_str());
    throw;
  }
  last_commit_end_ = now_seconds();
}

BnbDatasetWriter::~BnbDatasetWriter() {
  if (!h_ || !h_->file.valid()) return;
  // Not finished (an exception unwinds us): drop the work file; <path> and the last
  // snapshot in <path>.partial stay as they are.
  for (auto& d : h_->rows) d.reset();
  for (auto& d : h_->episodes) d.reset();
  H5Fclose(h_->file.release());
  ::unlink(work_path_.c_str());
}

void BnbDatasetWriter::append(const bnb::EpisodeRecord& ep) {
  quiet_hdf5();
  if (!h_->file.valid()) throw FileError(path_, "append after close");
  if (ep.rows < 1) throw InputError("episode with no rows cannot be stored");
  const hsize_t n = static_cast<hsize_t>(ep.rows), old = static_cast<hsize_t>(rows_);
  const std::vector<int64_t> ids(n, episodes_);
  const auto rs = row_specs();
  const void* data[5] = {ep.tokens.data(), ep.actions.data(), ep.expert_actions.data(),
                         ep.rewards.data(), ids.data()};
  const size_t sizes[5] = {ep.tokens.size(), ep.actions.size(), ep.expert_actions.size(),
                           ep.rewards.size(), ids.size()};
  for (size_t i = 0; i < rs.size(); ++i)
    if (sizes[i] != n * row_elements(rs[i]))
      throw InputError(std::string("episode array '") + rs[i].name + "' has " +
                       std::to_string(sizes[i]) + " values, expected rows x " +
                       std::to_string(row_elements(rs[i])));
  for (size_t i = 0; i < rs.size(); ++i)
    append_rows(path_, h_->rows[i].get(), rs[i], old, n, data[i]);
  const int64_t len = ep.rows;
  const uint64_t seed = ep.seed;
  const auto es = episode_specs();
  append_rows(path_, h_->episodes[0].get(), es[0], static_cast<hsize_t>(episodes_), 1, &len);
  append_rows(path_, h_->episodes[1].get(), es[1], static_cast<hsize_t>(episodes_), 1, &seed);
  rows_ += ep.rows;
  ++episodes_;
  write_attr_i64(path_, h_->file.get(), "num_episodes", {episodes_});
  write_attr_i64(path_, h_->file.get(), "total_timesteps", {rows_});
  // Snapshots cost a copy of the whole file: take one when the last copy's time is at most
  // commit_overhead of the time since, so copying stays a bounded share of the run.
  const double now = now_seconds(), since = now - last_commit_end_;
  if (committed_ == 0 || (since >= options_.commit_min_seconds &&
                          last_commit_seconds_ <= options_.commit_overhead * since))
    commit();
}

void BnbDatasetWriter::commit() {
  quiet_hdf5();
  if (!h_->file.valid()) throw FileError(path_, "commit after close");
  if (H5Fflush(h_->file.get(), H5F_SCOPE_GLOBAL) < 0)
    throw FileError(path_, "flush failed (disk full?)");
  const double t0 = now_seconds();
  copy_atomically(work_path_, partial_path_);
  last_commit_end_ = now_seconds();
  last_commit_seconds_ = last_commit_end_ - t0;
  committed_ = episodes_;
}

void BnbDatasetWriter::close() {
  if (!h_ || !h_->file.valid()) return;
  for (auto& d : h_->rows) d.reset();
  for (auto& d : h_->episodes) d.reset();
  // release(): H5Fclose is called exactly once, whatever it returns.
  const herr_t rc = H5Fclose(h_->file.release());
  if (rc < 0) {
    ::unlink(work_path_.c_str());
    throw FileError(path_, "closing the file failed (disk full?); " +
                               std::string(committed_ > 0 ? "the last snapshot is in " +
                                                                partial_path_ + ", and "
                                                          : "") +
                               "any previous file at this path is untouched");
  }
  if (const int fd = ::open(work_path_.c_str(), O_RDONLY | O_CLOEXEC); fd >= 0) {
    ::fsync(fd);  // the data reaches the disk before the name does
    ::close(fd);
  }
  if (::rename(work_path_.c_str(), path_.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(work_path_.c_str());
    throw FileError(path_, "cannot move the finished file into place: " + why);
  }
  fsync_parent_dir(path_);
  ::unlink(partial_path_.c_str());
  // Work files and snapshot copies of killed runs (their process is gone).
  remove_stale_temporaries(path_);
  remove_stale_temporaries(partial_path_);
  committed_ = episodes_;
  finished_ = true;
}

}  // namespace poslab::io
