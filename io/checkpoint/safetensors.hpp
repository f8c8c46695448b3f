// Safetensors files (the Hugging Face format, read by `safetensors` and PyTorch): an 8-byte
// little-endian header length N, N bytes of JSON naming each tensor's dtype, shape and
// byte range, then the raw little-endian tensor bytes. PosLab writes F32 only, atomically,
// and reads with every field checked: any damage is a FileError naming the file and the
// problem, never a crash or an allocation sized by the file.
//
//   [u64 N][ {"__metadata__": {...strings...}, "name": {"dtype":"F32","shape":[..],
//            "data_offsets":[begin,end]}, ...} padded with spaces to N ][data ...]
// data_offsets are relative to the first data byte; tensors are contiguous, in offset
// order, without gaps or overlaps, and end exactly at the end of the file.
#pragma once
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace poslab::io {

using TensorMetadata = std::map<std::string, std::string>;

// One tensor of a flat float buffer: name, shape (row-major, last index fastest) and the
// first float of its values in that buffer.
struct TensorEntry {
  std::string name;            // unique, non-empty, not "__metadata__"
  std::vector<int64_t> shape;  // every extent >= 1 (a scalar is shape [])
  size_t offset = 0;           // index of its first float in the flat buffer
};
using TensorLayout = std::vector<TensorEntry>;

int64_t tensor_numel(const std::vector<int64_t>& shape);
std::string shape_text(const std::vector<int64_t>& shape);  // "[4, 64]"

// Largest header we accept: far above any PosLab header, far below memory limits.
inline constexpr uint64_t kSafetensorsMaxHeader = 64ull << 20;
// Deepest JSON nesting of a header or of a JSON text in its metadata. PosLab's need 3
// ({"tensor": {"shape": [..]}}, {"files": [{..}]}); a hostile file nests 100,000 deep
// to overflow the stack of recursive JSON code.
inline constexpr int kSafetensorsMaxDepth = 8;
// Largest checkpoint file read whole (a model at the parameter budget of
// core/wm/world_model.hpp with its three optimiser copies fits).
inline constexpr uint64_t kSafetensorsMaxFile = uint64_t{300} << 20;

// The deepest nesting of [ and { outside strings in `text`, counting no further than
// stop_after + 1 (so a 100,000-deep text costs one pass and no memory).
int json_nesting_depth(std::string_view text, int stop_after = kSafetensorsMaxDepth);

// Serialises the tensors of `layout` taken from `flat` (little-endian F32) with the
// metadata; the bytes of a complete file.
std::string safetensors_bytes(const TensorLayout& layout, std::span<const float> flat,
                              const TensorMetadata& metadata);
// The same, written atomically (io/files/atomic_file.hpp). Throws FileError.
void safetensors_save(const std::string& path, const TensorLayout& layout,
                      std::span<const float> flat, const TensorMetadata& metadata);

// A parsed, validated file held in memory.
struct SafetensorsTensor {
  std::string name;
  std::string dtype;            // always "F32" once validated
  std::vector<int64_t> shape;   // extents
  uint64_t begin = 0, end = 0;  // byte range relative to the data section
};
class SafetensorsFile {
 public:
  // Parses `bytes` (the whole file); `path` is only used in error messages.
  SafetensorsFile(std::string bytes, std::string path);
  // Reads the file (a regular file of at most max_bytes), then parses.
  static SafetensorsFile open(const std::string& path, uint64_t max_bytes = kSafetensorsMaxFile);
  // Reads only the length and the header, checking every tensor's byte range against the
  // file's size: a cheap look at any file (no data is read; copy() and load() refuse).
  static SafetensorsFile open_header(const std::string& path);

  const std::string& path() const { return path_; }
  const TensorMetadata& metadata() const { return metadata_; }
  const std::vector<SafetensorsTensor>& tensors() const { return tensors_; }
  const SafetensorsTensor* find(const std::string& name) const;  // nullptr if absent
  // Metadata value or a FileError naming the missing key.
  const std::string& meta(const std::string& key) const;

  uint64_t file_bytes() const { return data_start_ + data_size_; }
  bool header_only() const { return header_only_; }

  // Checks that the file holds exactly the tensors of `required` (names and shapes), plus
  // any of `optional`, nothing else. Unknown, missing or misshapen tensors are FileErrors
  // naming the tensor. Reads no data: call it before allocating what load() fills.
  void check(const TensorLayout& required, const TensorLayout& optional = {}) const;
  // check(), then copies every present tensor into `flat` at its offset.
  void load(const TensorLayout& required, std::span<float> flat, const TensorLayout& optional = {},
            std::span<float> optional_flat = {}) const;
  // Copies one tensor (must exist with this many values) into dst.
  void copy(const std::string& name, std::span<float> dst) const;

 private:
  SafetensorsFile(std::string bytes, std::string path, uint64_t file_bytes);
  std::string bytes_, path_;
  size_t data_start_ = 0;
  uint64_t data_size_ = 0;
  bool header_only_ = false;
  TensorMetadata metadata_;
  std::vector<SafetensorsTensor> tensors_;
};

}  // namespace poslab::io
