// HDF5 helpers of the Boost and Broadside datasets (bnb_hdf5.hpp): the quiet library set-up,
// the datasets' specs, attributes and row appends, for the writer and the reader.
#include "io/dataset/bnb_hdf5.hpp"

#include <algorithm>
#include <chrono>

#include "core/bnb/bnb_episode.hpp"
#include "core/common/errors.hpp"

namespace poslab::io::bnb_hdf5 {

using bnb::kActionHeads;
using bnb::kSlots;
using bnb::kTokenDim;

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

}  // namespace poslab::io::bnb_hdf5
