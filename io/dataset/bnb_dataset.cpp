// HDF5 writer and reader for Boost and Broadside datasets (bnb_dataset.hpp). Uses only the
// C API. HDF5's own error stack printing is switched off; every failure becomes one
// FileError sentence naming the file and what to do.
// Sections: HDF5 helpers (identifiers, dataset specs, attributes, writing rows) | writer
// (atomic copy, BnbDatasetWriter) | reader (checks of a file's shape, the helper process's
// answers as bytes, BnbDatasetReader: open, rows, whole episodes).
#include "io/dataset/bnb_dataset.hpp"

#include <fcntl.h>
#include <hdf5.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <string>

#include "core/common/errors.hpp"
#include "io/dataset/isolated.hpp"
#include "io/files/atomic_file.hpp"

namespace poslab::io {

// ============================== HDF5 helpers ==============================

namespace {

using bnb::kActionHeads;
using bnb::kSlots;
using bnb::kTokenDim;

const char* const kLayout =
    "row t of an episode: tokens = state S_t, actions = action taken in S_t (slot k at [t, k]), "
    "expert_actions = scripted expert in S_t, rewards = per team for the step from S_t; the last "
    "row of "
    "each episode is the terminal state (its action not executed, reward 0). Screen convention: y "
    "down.";

}  // namespace

// Owns one HDF5 identifier and closes it with the matching H5?close. Outside the anonymous
// namespace: the writer's and reader's Handles (declared in the header) hold Hids, and a
// class with external linkage may not hold a member of an internal type (gcc's
// -Wsubobject-linkage, seen in the unity build).
namespace bnb_hdf5 {
class Hid {
 public:
  using Closer = herr_t (*)(hid_t);
  Hid() = default;
  Hid(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  Hid(Hid&& o) noexcept : id_(o.id_), closer_(o.closer_) { o.id_ = -1; }
  Hid& operator=(Hid&& o) noexcept {
    reset();
    id_ = o.id_;
    closer_ = o.closer_;
    o.id_ = -1;
    return *this;
  }
  Hid(const Hid&) = delete;
  Hid& operator=(const Hid&) = delete;
  ~Hid() { reset(); }
  void reset() {
    if (id_ >= 0 && closer_) closer_(id_);
    id_ = -1;
  }
  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  hid_t release() {  // hands the id over without closing it
    const hid_t id = id_;
    id_ = -1;
    return id;
  }

 private:
  hid_t id_ = -1;
  Closer closer_ = nullptr;
};
}  // namespace bnb_hdf5
using bnb_hdf5::Hid;

namespace {

void quiet_hdf5() {
  // No library clean-up at exit: when H5Fclose fails (a full disk), libhdf5 1.10 keeps the
  // half-closed file in its tables and closes it again from atexit, which segfaults. Every
  // file we write is closed explicitly, so nothing is lost. Only effective before the
  // library starts, so this comes first.
  H5dont_atexit();
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  H5PLset_loading_state(0);  // a file naming an unknown filter loads no plugin code
}

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Most values an attribute we read may hold, and most bytes of a string attribute: the
// writer stores at most 3 and a few hundred.
constexpr hssize_t kMaxAttrValues = 16;
constexpr size_t kMaxAttrStringBytes = 1 << 16;
constexpr hsize_t kMaxChunkRows = 65536;

struct DatasetSpec {
  const char* name;
  hid_t file_type;  // stored type
  hid_t mem_type;   // type of our buffers
  int rank;
  std::array<hsize_t, 3> inner;  // dims after axis 0
};

// Per-row datasets (axis 0 = S) and per-episode ones (axis 0 = E).
std::array<DatasetSpec, 5> row_specs() {
  return {{{"tokens", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 3, {kSlots, kTokenDim, 0}},
           {"actions", H5T_STD_U8LE, H5T_NATIVE_UINT8, 3, {kSlots, kActionHeads, 0}},
           {"expert_actions", H5T_STD_U8LE, H5T_NATIVE_UINT8, 3, {kSlots, kActionHeads, 0}},
           {"rewards", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 2, {2, 0, 0}},
           {"episode_ids", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, {0, 0, 0}}}};
}
std::array<DatasetSpec, 2> episode_specs() {
  return {{{"episode_lengths", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, {0, 0, 0}},
           {"episode_seeds", H5T_STD_U64LE, H5T_NATIVE_UINT64, 1, {0, 0, 0}}}};
}

hsize_t row_elements(const DatasetSpec& d) {
  hsize_t n = 1;
  for (int i = 1; i < d.rank; ++i) n *= d.inner[i - 1];
  return n;
}

// ---- attributes ----
void write_attr_i64(const std::string& path, hid_t obj, const char* name,
                    const std::vector<int64_t>& v) {
  const hsize_t n = v.size();
  Hid space(n == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, nullptr), H5Sclose);
  Hid attr;
  if (H5Aexists(obj, name) > 0) {
    attr = Hid(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
  } else {
    attr =
        Hid(H5Acreate2(obj, name, H5T_STD_I64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  }
  if (!attr.valid() || H5Awrite(attr.get(), H5T_NATIVE_INT64, v.data()) < 0)
    throw FileError(
        path, std::string("cannot write attribute '") + name + "' (disk full or not writable?)");
}

void write_attr_f64(const std::string& path, hid_t obj, const char* name,
                    const std::vector<double>& v) {
  const hsize_t n = v.size();
  Hid space(n == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, nullptr), H5Sclose);
  Hid attr(H5Acreate2(obj, name, H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  if (!attr.valid() || H5Awrite(attr.get(), H5T_NATIVE_DOUBLE, v.data()) < 0)
    throw FileError(path, std::string("cannot write attribute '") + name + "'");
}

void write_attr_str(const std::string& path, hid_t obj, const char* name, const std::string& v) {
  Hid type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.get(), std::max<size_t>(1, v.size()));
  H5Tset_strpad(type.get(), H5T_STR_NULLPAD);
  Hid space(H5Screate(H5S_SCALAR), H5Sclose);
  Hid attr(H5Acreate2(obj, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  if (!attr.valid() || H5Awrite(attr.get(), type.get(), v.empty() ? "" : v.data()) < 0)
    throw FileError(path, std::string("cannot write attribute '") + name + "'");
}

bool read_attr_str(hid_t obj, const char* name, std::string& out) {
  if (H5Aexists(obj, name) <= 0) return false;
  Hid attr(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
  Hid type(H5Aget_type(attr.get()), H5Tclose);
  Hid space(H5Aget_space(attr.get()), H5Sclose);
  if (!type.valid() || H5Tget_class(type.get()) != H5T_STRING || H5Tis_variable_str(type.get()) > 0)
    return false;
  // One fixed-size string only: H5Aread writes every element, so a string array would
  // overrun the buffer.
  if (!space.valid() || H5Sget_simple_extent_npoints(space.get()) != 1) return false;
  const size_t n = H5Tget_size(type.get());
  if (n == 0 || n > kMaxAttrStringBytes) return false;
  Hid mem(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(mem.get(), n);
  H5Tset_strpad(mem.get(), H5T_STR_NULLPAD);
  std::string buf(n, '\0');
  if (H5Aread(attr.get(), mem.get(), buf.data()) < 0) return false;
  buf.resize(buf.find('\0') == std::string::npos ? n : buf.find('\0'));
  out = buf;
  return true;
}

// Reads an integer attribute (scalar or the first element); false if absent or not integer.
bool read_attr_i64(hid_t obj, const char* name, int64_t& out) {
  if (H5Aexists(obj, name) <= 0) return false;
  Hid attr(H5Aopen(obj, name, H5P_DEFAULT), H5Aclose);
  Hid type(H5Aget_type(attr.get()), H5Tclose);
  Hid space(H5Aget_space(attr.get()), H5Sclose);
  if (!type.valid() || H5Tget_class(type.get()) != H5T_INTEGER) return false;
  const hssize_t n = H5Sget_simple_extent_npoints(space.get());
  if (n < 1 || n > kMaxAttrValues) return false;
  std::vector<int64_t> v(static_cast<size_t>(n));
  if (H5Aread(attr.get(), H5T_NATIVE_INT64, v.data()) < 0) return false;
  out = v[0];
  return true;
}

// ---- writing rows ----
void append_rows(const std::string& path, hid_t dset, const DatasetSpec& d, hsize_t old_rows,
                 hsize_t new_rows, const void* data) {
  std::array<hsize_t, 3> dims{old_rows + new_rows, d.inner[0], d.inner[1]};
  const auto fail = [&](const char* what) {
    throw FileError(path, std::string(what) + " dataset '" + d.name +
                              "' failed (disk full or file not writable?)");
  };
  if (H5Dset_extent(dset, dims.data()) < 0) fail("growing");
  Hid fspace(H5Dget_space(dset), H5Sclose);
  std::array<hsize_t, 3> start{old_rows, 0, 0}, count{new_rows, d.inner[0], d.inner[1]};
  if (H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(),
                          nullptr) < 0)
    fail("selecting rows of");
  Hid mspace(H5Screate_simple(d.rank, count.data(), nullptr), H5Sclose);
  if (H5Dwrite(dset, d.mem_type, mspace.get(), fspace.get(), H5P_DEFAULT, data) < 0)
    fail("writing");
}

}  // namespace

// ============================== writer ==============================

namespace {

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

// ============================== reader ==============================

namespace {

void check_path(const std::string& path) {
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(st)) throw FileError(path, "no such file (check the path)");
  if (std::filesystem::is_directory(st))
    throw FileError(path, "is a directory, not a dataset file");
  if (!std::filesystem::is_regular_file(st))
    throw FileError(path, "is not a regular file (a FIFO or device?); give a dataset file");
}

// The layout PosLab writes and nothing that reads elsewhere: chunked (never virtual, never
// external storage), chunk dims (c, inner...) with c <= 65536, and only the shuffle,
// deflate and Fletcher32 filters (no plugin filters).
void check_storage(const std::string& path, hid_t ds, const DatasetSpec& d) {
  const std::string name = std::string("dataset '") + d.name + "'";
  Hid dcpl(H5Dget_create_plist(ds), H5Pclose);
  if (!dcpl.valid()) throw FileError(path, name + ": its creation properties are unreadable");
  if (H5Pget_external_count(dcpl.get()) != 0)
    throw FileError(path, name +
                              " keeps its data in external files (refused: a dataset must not "
                              "read other files)");
  const H5D_layout_t layout = H5Pget_layout(dcpl.get());
  if (layout == H5D_VIRTUAL)
    throw FileError(path, name + " is a virtual dataset mapping other files (refused)");
  if (layout != H5D_CHUNKED)
    throw FileError(path, name +
                              " is not chunked as PosLab writes it; regenerate it with "
                              "`poslab-cli collect`");
  std::array<hsize_t, 3> chunk{0, 0, 0};
  if (H5Pget_chunk(dcpl.get(), 3, chunk.data()) != d.rank || chunk[0] < 1 ||
      chunk[0] > kMaxChunkRows)
    throw FileError(path, name + " has impossible chunk dimensions (corrupt file)");
  for (int i = 1; i < d.rank; ++i)
    if (chunk[i] != d.inner[i - 1])
      throw FileError(path, name + " has impossible chunk dimensions (corrupt file)");
  const int nfilters = H5Pget_nfilters(dcpl.get());
  if (nfilters < 0 || nfilters > 8)
    throw FileError(path, name + " has an unreadable filter pipeline (corrupt file)");
  for (int i = 0; i < nfilters; ++i) {
    unsigned flags = 0, cd[8];
    size_t ncd = 8;
    char fname[64];
    const H5Z_filter_t id = H5Pget_filter2(dcpl.get(), static_cast<unsigned>(i), &flags, &ncd, cd,
                                           sizeof fname, fname, nullptr);
    if (id != H5Z_FILTER_SHUFFLE && id != H5Z_FILTER_DEFLATE && id != H5Z_FILTER_FLETCHER32)
      throw FileError(path, name + " uses filter " + std::to_string(id) +
                                ", which PosLab does not read (only shuffle, deflate, "
                                "fletcher32)");
  }
}

// Every row must lie in a chunk the file stores: a few bytes of header can announce 1e12
// rows of fill value, and reading those would allocate terabytes.
void check_stored_rows(const std::string& path, hid_t ds, const DatasetSpec& d, hsize_t rows) {
  if (rows == 0) return;
  Hid dcpl(H5Dget_create_plist(ds), H5Pclose);
  std::array<hsize_t, 3> chunk{0, 0, 0};
  H5Pget_chunk(dcpl.get(), 3, chunk.data());
  Hid space(H5Dget_space(ds), H5Sclose);
  hsize_t stored = 0;
  if (H5Dget_num_chunks(ds, space.get(), &stored) < 0)
    throw FileError(path, std::string("dataset '") + d.name +
                              "': its chunk index is unreadable (corrupt file)");
  const hsize_t needed = (rows + chunk[0] - 1) / chunk[0];
  if (stored < needed)
    throw FileError(path, std::string("dataset '") + d.name + "' announces " +
                              std::to_string(rows) + " rows but stores only " +
                              std::to_string(stored) + " of the " + std::to_string(needed) +
                              " chunks they need (damaged or forged sizes); regenerate it with "
                              "`poslab-cli collect`");
}

// Reads rows [first, first + count) of the row dataset `ds` (spec `d`) into `out`, in its
// memory type. False when HDF5 fails (a checksum or decompression error: corrupt data).
bool read_row_slab(hid_t ds, const DatasetSpec& d, int64_t first, int64_t count, void* out) {
  Hid fspace(H5Dget_space(ds), H5Sclose);
  std::array<hsize_t, 3> start{static_cast<hsize_t>(first), 0, 0},
      cnt{static_cast<hsize_t>(count), d.inner[0], d.inner[1]};
  H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, start.data(), nullptr, cnt.data(), nullptr);
  Hid mspace(H5Screate_simple(d.rank, cnt.data(), nullptr), H5Sclose);
  return H5Dread(ds, d.mem_type, mspace.get(), fspace.get(), H5P_DEFAULT, out) >= 0;
}

// ---- the helper process's answers, as bytes ----
class Encoder {
 public:
  template <class T>
  void put(const T& v) {
    out_.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  template <class T>
  void put_vec(const std::vector<T>& v) {
    put<uint64_t>(v.size());
    out_.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
  }
  void put_str(const std::string& s) {
    put<uint64_t>(s.size());
    out_ += s;
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class Decoder {
 public:
  explicit Decoder(const std::string& in) : in_(in) {}
  template <class T>
  T get() {
    T v{};
    need(sizeof v);
    std::memcpy(&v, in_.data() + pos_, sizeof v);
    pos_ += sizeof v;
    return v;
  }
  template <class T>
  std::vector<T> get_vec() {
    const auto n = get<uint64_t>();
    if (n > (in_.size() - pos_) / sizeof(T)) need(in_.size() + 1);
    std::vector<T> v(n);
    if (n > 0)
      std::memcpy(v.data(), in_.data() + pos_, n * sizeof(T));  // empty: data() may be null
    pos_ += n * sizeof(T);
    return v;
  }
  std::string get_str() {
    const auto n = get<uint64_t>();
    need(n);
    std::string s = in_.substr(pos_, n);
    pos_ += n;
    return s;
  }

 private:
  void need(size_t n) const {
    if (n > in_.size() - pos_) throw std::runtime_error("reader process answer is truncated");
  }
  const std::string& in_;
  size_t pos_ = 0;
};

std::string encode_info(const BnbDatasetInfo& i) {
  Encoder e;
  e.put_str(i.path);
  e.put(i.format_version);
  e.put(i.num_episodes);
  e.put(i.total_timesteps);
  e.put_str(i.policy);
  e.put_vec(i.episode_lengths);
  e.put_vec(i.episode_offsets);
  e.put_vec(i.episode_seeds);
  return e.take();
}

BnbDatasetInfo decode_info(const std::string& bytes) {
  Decoder d(bytes);
  BnbDatasetInfo i;
  i.path = d.get_str();
  i.format_version = d.get<int64_t>();
  i.num_episodes = d.get<int64_t>();
  i.total_timesteps = d.get<int64_t>();
  i.policy = d.get_str();
  i.episode_lengths = d.get_vec<int64_t>();
  i.episode_offsets = d.get_vec<int64_t>();
  i.episode_seeds = d.get_vec<uint64_t>();
  return i;
}

}  // namespace

struct BnbDatasetReader::Handles {
  Hid file;
  std::array<Hid, 5> rows;
  std::array<Hid, 2> episodes;
};

BnbDatasetReader::BnbDatasetReader(const std::string& path, BnbReadMode mode) : mode_(mode) {
  info_.path = path;
  if (mode == BnbReadMode::helper_process) {
    check_path(path);
    info_ = decode_info(run_isolated(path, [&] {
      const BnbDatasetReader r(path, BnbReadMode::in_process);
      return encode_info(r.info());
    }));
    return;
  }
  h_ = std::make_unique<Handles>();
  quiet_hdf5();
  const std::string regenerate = "; regenerate it with `poslab-cli collect`";
  check_path(path);
  if (H5Fis_hdf5(path.c_str()) <= 0)
    throw FileError(path, "not an HDF5 file (wrong file, or its header is corrupt)" + regenerate);
  h_->file = Hid(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!h_->file.valid())
    throw FileError(
        path, "HDF5 cannot open it: truncated or corrupt (an interrupted copy?)" + regenerate);
  const hid_t f = h_->file.get();

  std::string magic;
  if (!read_attr_str(f, "magic", magic) || magic != kBnbMagic)
    throw FileError(
        path, "not a Boost and Broadside dataset (root attribute 'magic' is missing or not \"" +
                  std::string(kBnbMagic) + "\")" + regenerate);
  if (!read_attr_i64(f, "format_version", info_.format_version))
    throw FileError(path, "has no integer 'format_version' attribute" + regenerate);
  if (info_.format_version != kBnbFormatVersion)
    throw FileError(path, "format_version " + std::to_string(info_.format_version) +
                              ", but this build reads version " +
                              std::to_string(kBnbFormatVersion) + regenerate + " from this build");
  if (!read_attr_i64(f, "num_episodes", info_.num_episodes) || info_.num_episodes < 0)
    throw FileError(path, "attribute 'num_episodes' is missing or negative" + regenerate);
  if (!read_attr_i64(f, "total_timesteps", info_.total_timesteps) || info_.total_timesteps < 0)
    throw FileError(path, "attribute 'total_timesteps' is missing or negative" + regenerate);
  read_attr_str(f, "policy", info_.policy);

  // Every dataset present, of the right type class, size and shape.
  const auto open = [&](const DatasetSpec& d, hsize_t expect_rows) {
    if (H5Lexists(f, d.name, H5P_DEFAULT) <= 0)
      throw FileError(path, std::string("dataset '") + d.name + "' is missing" + regenerate);
    // A hard link only: an external link would open another file, a soft link another name.
    H5L_info_t link{};
    if (H5Lget_info(f, d.name, &link, H5P_DEFAULT) < 0 || link.type != H5L_TYPE_HARD)
      throw FileError(path, std::string("'") + d.name +
                                "' is a soft or external link, not a dataset stored in this "
                                "file (refused: a dataset must not read other files)");
    Hid ds(H5Dopen2(f, d.name, H5P_DEFAULT), H5Dclose);
    if (!ds.valid())
      throw FileError(path, std::string("dataset '") + d.name + "' cannot be opened (corrupt?)");
    Hid type(H5Dget_type(ds.get()), H5Tclose);
    const bool want_float = d.mem_type == H5T_NATIVE_FLOAT;
    const H5T_class_t cls = H5Tget_class(type.get());
    if (cls != (want_float ? H5T_FLOAT : H5T_INTEGER) ||
        H5Tget_size(type.get()) != H5Tget_size(d.file_type))
      throw FileError(path, std::string("dataset '") + d.name +
                                "' has the wrong element type (expected " +
                                (want_float                      ? "f4"
                                 : H5Tget_size(d.file_type) == 1 ? "u1"
                                                                 : "8-byte integer") +
                                ")");
    Hid space(H5Dget_space(ds.get()), H5Sclose);
    std::array<hsize_t, 3> dims{0, 0, 0};
    const int rank = H5Sget_simple_extent_ndims(space.get());
    if (rank == d.rank) H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
    std::string want = "(" + std::to_string(expect_rows);
    for (int i = 1; i < d.rank; ++i) want += ", " + std::to_string(d.inner[i - 1]);
    want += d.rank == 1 ? ",)" : ")";
    bool ok = rank == d.rank && dims[0] == expect_rows;
    for (int i = 1; i < d.rank && ok; ++i) ok = dims[i] == d.inner[i - 1];
    if (!ok) {
      std::string got = "(";
      for (int i = 0; i < rank && i < 3; ++i) got += (i ? ", " : "") + std::to_string(dims[i]);
      got += ")";
      throw FileError(
          path, std::string("dataset '") + d.name + "' has shape " +
                    (rank == d.rank ? got : "of rank " + std::to_string(rank)) + ", expected " +
                    want + " from the attributes (damaged or interrupted write?)" + regenerate);
    }
    check_storage(path, ds.get(), d);
    check_stored_rows(path, ds.get(), d, expect_rows);
    return ds;
  };
  const auto rs = row_specs();
  for (size_t i = 0; i < rs.size(); ++i)
    h_->rows[i] = open(rs[i], static_cast<hsize_t>(info_.total_timesteps));
  const auto es = episode_specs();
  for (size_t i = 0; i < es.size(); ++i)
    h_->episodes[i] = open(es[i], static_cast<hsize_t>(info_.num_episodes));

  info_.episode_lengths.resize(static_cast<size_t>(info_.num_episodes));
  info_.episode_seeds.resize(static_cast<size_t>(info_.num_episodes));
  if (info_.num_episodes > 0 && (H5Dread(h_->episodes[0].get(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL,
                                         H5P_DEFAULT, info_.episode_lengths.data()) < 0 ||
                                 H5Dread(h_->episodes[1].get(), H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL,
                                         H5P_DEFAULT, info_.episode_seeds.data()) < 0))
    throw FileError(
        path, "reading episode_lengths / episode_seeds failed: the file is corrupt" + regenerate);
  int64_t sum = 0;
  for (size_t e = 0; e < info_.episode_lengths.size(); ++e) {
    const int64_t len = info_.episode_lengths[e];
    if (len < 1 || len > bnb::EpisodeConfig::max_steps_range.hi + 1)
      throw FileError(path, "episode_lengths[" + std::to_string(e) + "] = " + std::to_string(len) +
                                " is impossible (corrupt file)" + regenerate);
    info_.episode_offsets.push_back(sum);
    sum += len;
  }
  if (sum != info_.total_timesteps)
    throw FileError(
        path, "episode_lengths add up to " + std::to_string(sum) + " rows but total_timesteps = " +
                  std::to_string(info_.total_timesteps) + " (corrupt file)" + regenerate);
}

BnbDatasetReader::~BnbDatasetReader() = default;

void BnbDatasetReader::read_rows(int64_t first, int64_t count, std::vector<float>& tokens,
                                 std::vector<uint8_t>& actions,
                                 std::vector<uint8_t>& expert_actions) const {
  if (first < 0 || count < 0 || first > info_.total_timesteps ||
      count > info_.total_timesteps - first)
    throw InputError("rows [" + std::to_string(first) + ", " + std::to_string(first + count) +
                     ") outside the " + std::to_string(info_.total_timesteps) + " rows of " +
                     info_.path);
  if (mode_ == BnbReadMode::helper_process) {
    const std::string bytes = run_isolated(info_.path, [&] {
      const BnbDatasetReader r(info_.path, BnbReadMode::in_process);
      std::vector<float> t;
      std::vector<uint8_t> a, x;
      r.read_rows(first, count, t, a, x);
      Encoder e;
      e.put_vec(t);
      e.put_vec(a);
      e.put_vec(x);
      return e.take();
    });
    Decoder d(bytes);
    tokens = d.get_vec<float>();
    actions = d.get_vec<uint8_t>();
    expert_actions = d.get_vec<uint8_t>();
    return;
  }
  quiet_hdf5();
  const auto rs = row_specs();
  void* out[3];
  tokens.resize(static_cast<size_t>(count) * kSlots * kTokenDim);
  actions.resize(static_cast<size_t>(count) * kSlots * kActionHeads);
  expert_actions.resize(actions.size());
  out[0] = tokens.data();
  out[1] = actions.data();
  out[2] = expert_actions.data();
  if (count == 0) return;
  for (int i = 0; i < 3; ++i) {
    const DatasetSpec& d = rs[i];
    if (!read_row_slab(h_->rows[i].get(), d, first, count, out[i]))
      throw FileError(info_.path,
                      std::string("reading '") + d.name + "' rows " + std::to_string(first) + ".." +
                          std::to_string(first + count - 1) +
                          " failed: the data is corrupt (checksum or decompression error); "
                          "regenerate it with `poslab-cli collect`");
  }
  for (size_t i = 0; i < actions.size(); ++i) {
    const int head = static_cast<int>(i % kActionHeads);
    if (actions[i] >= bnb::kActionSizes[head] || expert_actions[i] >= bnb::kActionSizes[head])
      throw FileError(
          info_.path,
          "action value out of range at row " +
              std::to_string(first + static_cast<int64_t>(i / (kSlots * kActionHeads))) +
              " (corrupt file)");
  }
}

// ---- whole episodes ----
namespace {

void encode_record(Encoder& enc, const bnb::EpisodeRecord& rec) {
  enc.put(rec.seed);
  enc.put(rec.rows);
  enc.put_vec(rec.tokens);
  enc.put_vec(rec.actions);
  enc.put_vec(rec.expert_actions);
  enc.put_vec(rec.rewards);
}

bnb::EpisodeRecord decode_record(Decoder& d) {
  bnb::EpisodeRecord rec;
  rec.seed = d.get<uint64_t>();
  rec.rows = d.get<int>();
  rec.tokens = d.get_vec<float>();
  rec.actions = d.get_vec<uint8_t>();
  rec.expert_actions = d.get_vec<uint8_t>();
  rec.rewards = d.get_vec<float>();
  return rec;
}

}  // namespace

std::vector<bnb::EpisodeRecord> BnbDatasetReader::read_all_episodes() const {
  std::vector<bnb::EpisodeRecord> out;
  if (mode_ == BnbReadMode::helper_process) {
    IsolationOptions options;
    options.timeout_seconds = 1e6;  // a whole large file; a crash is still caught
    const std::string bytes = run_isolated(
        info_.path,
        [&] {
          const BnbDatasetReader r(info_.path, BnbReadMode::in_process);
          Encoder enc;
          enc.put<int64_t>(r.info().num_episodes);
          for (int64_t e = 0; e < r.info().num_episodes; ++e) encode_record(enc, r.read_episode(e));
          return enc.take();
        },
        options);
    Decoder d(bytes);
    const auto n = d.get<int64_t>();
    for (int64_t e = 0; e < n; ++e) out.push_back(decode_record(d));
    return out;
  }
  for (int64_t e = 0; e < info_.num_episodes; ++e) out.push_back(read_episode(e));
  return out;
}

bnb::EpisodeRecord BnbDatasetReader::read_episode(int64_t e) const {
  if (e < 0 || e >= info_.num_episodes)
    throw InputError("episode " + std::to_string(e) + " does not exist: " + info_.path + " has " +
                     std::to_string(info_.num_episodes) + " episodes (0.." +
                     std::to_string(info_.num_episodes - 1) + ")");
  if (mode_ == BnbReadMode::helper_process) {
    const std::string bytes = run_isolated(info_.path, [&] {
      const BnbDatasetReader r(info_.path, BnbReadMode::in_process);
      Encoder enc;
      encode_record(enc, r.read_episode(e));
      return enc.take();
    });
    Decoder d(bytes);
    return decode_record(d);
  }
  quiet_hdf5();
  bnb::EpisodeRecord rec;
  const int64_t first = info_.episode_offsets[static_cast<size_t>(e)];
  const int64_t n = info_.episode_lengths[static_cast<size_t>(e)];
  rec.seed = info_.episode_seeds[static_cast<size_t>(e)];
  rec.rows = static_cast<int>(n);
  read_rows(first, n, rec.tokens, rec.actions, rec.expert_actions);
  const auto rs = row_specs();
  rec.rewards.resize(static_cast<size_t>(n) * 2);
  std::vector<int64_t> ids(static_cast<size_t>(n));
  void* out[2] = {rec.rewards.data(), ids.data()};
  for (int i = 3; i < 5; ++i) {
    const DatasetSpec& d = rs[i];
    if (!read_row_slab(h_->rows[i].get(), d, first, n, out[i - 3]))
      throw FileError(info_.path,
                      std::string("reading '") + d.name + "' of episode " + std::to_string(e) +
                          " failed: the data is corrupt; regenerate it with `poslab-cli collect`");
  }
  for (int64_t id : ids)
    if (id != e)
      throw FileError(info_.path, "episode_ids of episode " + std::to_string(e) + " contain " +
                                      std::to_string(id) +
                                      ": episode_lengths and episode_ids disagree (corrupt file)");
  return rec;
}

}  // namespace poslab::io
