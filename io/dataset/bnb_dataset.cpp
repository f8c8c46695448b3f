// The Boost and Broadside dataset reader (bnb_dataset.hpp): checks of a file's shape, the
// helper process's answers as bytes, BnbDatasetReader (open, rows, whole episodes). Every
// failure becomes one FileError naming the file and what to do. HDF5 helpers: bnb_hdf5.hpp;
// the writer: bnb_dataset_writer.cpp.
#include "io/dataset/bnb_dataset.hpp"

#include <hdf5.h>

#include <array>
#include <cstring>
#include <filesystem>
#include <string>

#include "core/common/errors.hpp"
#include "io/dataset/bnb_hdf5.hpp"
#include "io/dataset/isolated.hpp"

namespace poslab::io {

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