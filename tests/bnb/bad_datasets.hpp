// Makes damaged Boost and Broadside dataset files for the rejection tests: a valid file is
// written with the real writer, then one thing is broken with the raw HDF5 C API or by
// cutting / overwriting bytes. Shared by the Catch2 tests and the make_bad_dataset tool
// that the command-line test uses.
#pragma once
#include <hdf5.h>
#include <sstream>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/bnb/bnb_episode.hpp"
#include "io/dataset/bnb_dataset.hpp"

namespace poslab::testing {

// Writes `n` episodes (mixed policies and team sizes) and returns them.
inline std::vector<bnb::EpisodeRecord> write_valid_dataset(const std::string& path, int n = 3,
                                                           int compression = 1) {
  io::BnbWriterOptions opts;
  opts.overwrite = true;
  opts.compression = compression;
  opts.chunk_rows = 64;
  io::BnbDatasetWriter w(path, opts);
  std::vector<bnb::EpisodeRecord> out;
  for (int e = 0; e < n; ++e) {
    bnb::EpisodeSpec spec;
    spec.seed = 100 + static_cast<uint64_t>(e);
    spec.policy = static_cast<bnb::PolicyKind>(e % 3);
    spec.config.team0_size = 1 + e % 4;
    spec.config.team1_size = 1 + (e + 1) % 4;
    out.push_back(bnb::run_episode(spec));
    w.append(out.back());
  }
  w.close();
  return out;
}

// Writes 3 valid episodes, then a fourth whose row 2, slot 0, value 8 (vx/180) is `value`
// (NaN, an infinity or 1e30: what a damaged or edited file holds; issue 29).
inline void write_dataset_with_token(const std::string& path, float value) {
  io::BnbWriterOptions opts;
  opts.overwrite = true;
  io::BnbDatasetWriter w(path, opts);
  for (int e = 0; e < 4; ++e) {
    bnb::EpisodeSpec spec;
    spec.seed = 200 + static_cast<uint64_t>(e);
    bnb::EpisodeRecord rec = bnb::run_episode(spec);
    if (e == 3) rec.tokens[2 * 8 * 15 + 8] = value;
    w.append(rec);
  }
  w.close();
}

inline std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

inline void check(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(std::string("bad_datasets: ") + what);
}

inline void set_int_attribute(const std::string& path, const char* name, int64_t value) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  check(f >= 0, "open");
  const hid_t a = H5Aopen(f, name, H5P_DEFAULT);
  check(a >= 0 && H5Awrite(a, H5T_NATIVE_INT64, &value) >= 0, "write attribute");
  H5Aclose(a);
  H5Fclose(f);
}

inline void delete_attribute(const std::string& path, const char* name) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  check(f >= 0 && H5Adelete(f, name) >= 0, "delete attribute");
  H5Fclose(f);
}

// Replaces `tokens` with a (S, 8, 14) dataset (one value per ship missing).
inline void break_token_shape(const std::string& path) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  check(f >= 0, "open");
  hid_t d = H5Dopen2(f, "tokens", H5P_DEFAULT);
  hid_t sp = H5Dget_space(d);
  hsize_t dims[3];
  H5Sget_simple_extent_dims(sp, dims, nullptr);
  H5Sclose(sp);
  H5Dclose(d);
  check(H5Ldelete(f, "tokens", H5P_DEFAULT) >= 0, "delete tokens");
  dims[2] = 14;
  sp = H5Screate_simple(3, dims, nullptr);
  d = H5Dcreate2(f, "tokens", H5T_IEEE_F32LE, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  check(d >= 0, "create tokens");
  H5Dclose(d);
  H5Sclose(sp);
  H5Fclose(f);
}

inline void delete_dataset(const std::string& path, const char* name) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  check(f >= 0 && H5Ldelete(f, name, H5P_DEFAULT) >= 0, "delete dataset");
  H5Fclose(f);
}

// Keeps the first `fraction` of the bytes.
inline void truncate_file(const std::string& path, double fraction) {
  const auto size = std::filesystem::file_size(path);
  std::filesystem::resize_file(path, static_cast<uintmax_t>(static_cast<double>(size) * fraction));
}

// Overwrites 16 bytes in the middle of the stored bytes of the last chunk of `tokens`
// (its checksum then fails on read).
inline void corrupt_token_chunk(const std::string& path) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  check(f >= 0, "open");
  const hid_t d = H5Dopen2(f, "tokens", H5P_DEFAULT);
  const hid_t sp = H5Dget_space(d);
  hsize_t n = 0;
  check(H5Dget_num_chunks(d, sp, &n) >= 0 && n > 0, "chunks");
  hsize_t offset[3];
  unsigned mask = 0;
  haddr_t addr = 0;
  hsize_t size = 0;
  check(H5Dget_chunk_info(d, sp, n - 1, offset, &mask, &addr, &size) >= 0, "chunk info");
  H5Sclose(sp);
  H5Dclose(d);
  H5Fclose(f);
  std::fstream io(path, std::ios::in | std::ios::out | std::ios::binary);
  io.seekp(static_cast<std::streamoff>(addr + size / 2));
  const char junk[16] = {'\x5a', '\x13', '\x77', '\x00', '\x42', '\x42', '\x01', '\x7f',
                         '\x6b', '\x2c', '\x00', '\x01', '\x23', '\x45', '\x67', '\x13'};
  io.write(junk, sizeof junk);
}

// Replaces `name` with an external link to the same name in `other` (a valid dataset):
// the reader must refuse it rather than read another file.
inline void make_external_link(const std::string& path, const std::string& other,
                               const char* name) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  check(f >= 0 && H5Ldelete(f, name, H5P_DEFAULT) >= 0, "delete dataset");
  check(H5Lcreate_external(other.c_str(), name, f, name, H5P_DEFAULT, H5P_DEFAULT) >= 0,
        "external link");
  H5Fclose(f);
}

// Replaces `episode_seeds` with a dataset whose bytes live in the external raw file `raw`.
inline void make_external_storage(const std::string& path, const std::string& raw) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  check(f >= 0, "open");
  hid_t d = H5Dopen2(f, "episode_seeds", H5P_DEFAULT);
  hid_t sp = H5Dget_space(d);
  hsize_t n = 0;
  H5Sget_simple_extent_dims(sp, &n, nullptr);
  H5Sclose(sp);
  H5Dclose(d);
  check(H5Ldelete(f, "episode_seeds", H5P_DEFAULT) >= 0, "delete");
  { std::ofstream(raw, std::ios::binary) << std::string(static_cast<size_t>(n) * 8, '\x01'); }
  const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  check(H5Pset_external(dcpl, raw.c_str(), 0, n * 8) >= 0, "set external");
  sp = H5Screate_simple(1, &n, nullptr);
  d = H5Dcreate2(f, "episode_seeds", H5T_STD_U64LE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  check(d >= 0, "create external dataset");
  H5Dclose(d);
  H5Sclose(sp);
  H5Pclose(dcpl);
  H5Fclose(f);
}

// A tiny file announcing `rows` rows and `episodes` episodes: every dataset is resized to
// that many rows (none of them stored) and the attributes agree.
inline void announce_huge(const std::string& path, int64_t episodes, int64_t rows) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  check(f >= 0, "open");
  const char* row_names[] = {"tokens", "actions", "expert_actions", "rewards", "episode_ids"};
  for (const char* name : row_names) {
    const hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    hsize_t dims[3];
    const hid_t sp = H5Dget_space(d);
    H5Sget_simple_extent_dims(sp, dims, nullptr);
    H5Sclose(sp);
    dims[0] = static_cast<hsize_t>(rows);
    check(H5Dset_extent(d, dims) >= 0, "extend rows");
    H5Dclose(d);
  }
  for (const char* name : {"episode_lengths", "episode_seeds"}) {
    const hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    hsize_t dims[1] = {static_cast<hsize_t>(episodes)};
    check(H5Dset_extent(d, dims) >= 0, "extend episodes");
    H5Dclose(d);
  }
  H5Fclose(f);
  set_int_attribute(path, "num_episodes", episodes);
  set_int_attribute(path, "total_timesteps", rows);
}

}  // namespace poslab::testing
