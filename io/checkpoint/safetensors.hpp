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

// Serialises the tensors of `layout` taken from `flat` (little-endian F32) with the
// metadata; the bytes of a complete file.
std::string safetensors_bytes(const TensorLayout& layout, std::span<const float> flat,
                              const TensorMetadata& metadata);
// The same, written atomically (core/common/atomic_file.hpp). Throws FileError.
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
  static SafetensorsFile open(const std::string& path);  // reads the file, then parses

  const std::string& path() const { return path_; }
  const TensorMetadata& metadata() const { return metadata_; }
  const std::vector<SafetensorsTensor>& tensors() const { return tensors_; }
  const SafetensorsTensor* find(const std::string& name) const;  // nullptr if absent
  // Metadata value or a FileError naming the missing key.
  const std::string& meta(const std::string& key) const;

  // Checks that the file holds exactly the tensors of `required` (names and shapes), plus
  // any of `optional`, nothing else; then copies every present tensor into `flat` at its
  // offset. Unknown, missing or misshapen tensors are FileErrors naming the tensor.
  void load(const TensorLayout& required, std::span<float> flat, const TensorLayout& optional = {},
            std::span<float> optional_flat = {}) const;
  // Copies one tensor (must exist with this many values) into dst.
  void copy(const std::string& name, std::span<float> dst) const;

 private:
  std::string bytes_, path_;
  size_t data_start_ = 0;
  TensorMetadata metadata_;
  std::vector<SafetensorsTensor> tensors_;
};

}  // namespace poslab::io
