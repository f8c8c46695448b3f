// HDF5 helpers shared by the Boost and Broadside dataset writer (bnb_dataset_writer.cpp) and
// reader (bnb_dataset.cpp): an owning identifier, the datasets' specs, attributes and row
// appends. Internal to io/dataset (it needs hdf5.h): only those two files include it.
#pragma once
#include <hdf5.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/bnb/bnb_episode.hpp"

// Owns one HDF5 identifier and closes it with the matching H5?close. The writer's and
// reader's Handles (declared in bnb_dataset.hpp) hold Hids, so the class has external
// linkage (gcc's -Wsubobject-linkage in the unity build).
namespace poslab::io::bnb_hdf5 {

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

// Every HDF5 call silent (each failure becomes one FileError); call before the library starts.
void quiet_hdf5();
double now_seconds();

// Most values an attribute we read may hold, and most bytes of a string attribute: the
// writer stores at most 3 and a few hundred.
inline constexpr hssize_t kMaxAttrValues = 16;
inline constexpr size_t kMaxAttrStringBytes = 1 << 16;
inline constexpr hsize_t kMaxChunkRows = 65536;

struct DatasetSpec {
  const char* name;
  hid_t file_type;  // stored type
  hid_t mem_type;   // type of our buffers
  int rank;
  std::array<hsize_t, 3> inner;  // dims after axis 0
};

// Per-row datasets (axis 0 = S) and per-episode ones (axis 0 = E).
std::array<DatasetSpec, 5> row_specs();
std::array<DatasetSpec, 2> episode_specs();
hsize_t row_elements(const DatasetSpec& d);

// Attributes: writing throws FileError naming `path`; reading says false if absent or not of
// the kind asked (an integer reads the scalar or the first element).
void write_attr_i64(const std::string& path, hid_t obj, const char* name,
                    const std::vector<int64_t>& v);
void write_attr_f64(const std::string& path, hid_t obj, const char* name,
                    const std::vector<double>& v);
void write_attr_str(const std::string& path, hid_t obj, const char* name, const std::string& v);
bool read_attr_str(hid_t obj, const char* name, std::string& out);
bool read_attr_i64(hid_t obj, const char* name, int64_t& out);

// Grows `dset` from old_rows to old_rows + new_rows and writes `data` into the new rows.
void append_rows(const std::string& path, hid_t dset, const DatasetSpec& d, hsize_t old_rows,
                 hsize_t new_rows, const void* data);

}  // namespace poslab::io::bnb_hdf5

// The two files that include this header use these names unqualified.
namespace poslab::io {
using bnb::kActionHeads;
using bnb::kSlots;
using bnb::kTokenDim;
using bnb_hdf5::append_rows;
using bnb_hdf5::DatasetSpec;
using bnb_hdf5::episode_specs;
using bnb_hdf5::Hid;
using bnb_hdf5::kMaxAttrStringBytes;
using bnb_hdf5::kMaxAttrValues;
using bnb_hdf5::kMaxChunkRows;
using bnb_hdf5::now_seconds;
using bnb_hdf5::quiet_hdf5;
using bnb_hdf5::read_attr_i64;
using bnb_hdf5::read_attr_str;
using bnb_hdf5::row_elements;
using bnb_hdf5::row_specs;
using bnb_hdf5::write_attr_f64;
using bnb_hdf5::write_attr_i64;
using bnb_hdf5::write_attr_str;
}  // namespace poslab::io
