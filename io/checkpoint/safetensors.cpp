// Safetensors writing and validated reading (see safetensors.hpp). The header is parsed by
// nlohmann-json without exceptions; every size from the file is checked against the file's
// own length before it is used, so a damaged file can neither crash nor over-allocate.
#include "io/checkpoint/safetensors.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>

#include "core/common/atomic_file.hpp"
#include "core/common/errors.hpp"

namespace poslab::io {

static_assert(std::endian::native == std::endian::little,
              "safetensors data is little-endian; this build copies floats as they are");

int64_t tensor_numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string safetensors_bytes(const TensorLayout& layout, std::span<const float> flat,
                              const TensorMetadata& metadata) {
  nlohmann::ordered_json header;
  if (!metadata.empty()) {
    nlohmann::ordered_json meta = nlohmann::ordered_json::object();
    for (const auto& [k, v] : metadata) meta[k] = v;
    header["__metadata__"] = meta;
  }
  uint64_t pos = 0;
  std::set<std::string> seen;
  for (const auto& t : layout) {
    if (t.name.empty() || t.name == "__metadata__" || !seen.insert(t.name).second)
      throw InputError("tensor name '" + t.name + "' is empty, reserved or repeated");
    const int64_t n = tensor_numel(t.shape);
    if (n < 1 || t.offset + static_cast<size_t>(n) > flat.size())
      throw InputError("tensor " + t.name + " " + shape_text(t.shape) +
                       " does not fit the buffer of " + std::to_string(flat.size()) + " floats");
    const uint64_t bytes = static_cast<uint64_t>(n) * 4;
    header[t.name] = {{"dtype", "F32"}, {"shape", t.shape}, {"data_offsets", {pos, pos + bytes}}};
    pos += bytes;
  }
  std::string json = header.dump();
  json.append((8 - json.size() % 8) % 8, ' ');  // keep the data 8-byte aligned
  std::string out(8, '\0');
  const uint64_t n = json.size();
  for (int i = 0; i < 8; ++i)
    out[static_cast<size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xff);
  out += json;
  out.reserve(out.size() + pos);
  for (const auto& t : layout) {
    const auto* p = reinterpret_cast<const char*>(flat.data() + t.offset);
    out.append(p, static_cast<size_t>(tensor_numel(t.shape)) * 4);
  }
  return out;
}

void safetensors_save(const std::string& path, const TensorLayout& layout,
                      std::span<const float> flat, const TensorMetadata& metadata) {
  write_file_atomically(path, safetensors_bytes(layout, flat, metadata));
}

SafetensorsFile SafetensorsFile::open(const std::string& path) {
  return SafetensorsFile(read_file(path), path);
}

SafetensorsFile::SafetensorsFile(std::string bytes, std::string path)
    : bytes_(std::move(bytes)), path_(std::move(path)) {
  const auto fail = [&](const std::string& what) {
    throw FileError(path_, "not a valid safetensors checkpoint: " + what);
  };
  if (bytes_.size() < 8) fail("only " + std::to_string(bytes_.size()) + " bytes (truncated?)");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i)
    n = (n << 8) | static_cast<unsigned char>(bytes_[static_cast<size_t>(i)]);
  if (n < 2 || n > kSafetensorsMaxHeader || n > bytes_.size() - 8)
    fail("header length " + std::to_string(n) + " does not fit the file of " +
         std::to_string(bytes_.size()) + " bytes (truncated or not safetensors)");
  data_start_ = 8 + static_cast<size_t>(n);
  const uint64_t data_size = bytes_.size() - data_start_;
  const auto header =
      nlohmann::json::parse(bytes_.begin() + 8, bytes_.begin() + static_cast<long>(data_start_),
                            nullptr, /*allow_exceptions=*/false);
  if (header.is_discarded()) fail("the JSON header does not parse");
  if (!header.is_object()) fail("the JSON header is not an object");
  for (const auto& [key, value] : header.items()) {
    if (key == "__metadata__") {
      if (!value.is_object()) fail("__metadata__ is not an object");
      for (const auto& [mk, mv] : value.items()) {
        if (!mv.is_string()) fail("__metadata__ value '" + mk + "' is not a string");
        metadata_[mk] = mv.get<std::string>();
      }
      continue;
    }
    const std::string where = "tensor '" + key + "': ";
    if (key.empty()) fail("a tensor has an empty name");
    if (!value.is_object() || !value.contains("dtype") || !value.contains("shape") ||
        !value.contains("data_offsets") || value.size() != 3)
      fail(where + "needs exactly dtype, shape and data_offsets");
    SafetensorsTensor t;
    t.name = key;
    if (!value["dtype"].is_string()) fail(where + "dtype is not a string");
    t.dtype = value["dtype"].get<std::string>();
    if (t.dtype != "F32") fail(where + "dtype " + t.dtype + " (PosLab checkpoints are F32)");
    const auto& shape = value["shape"];
    if (!shape.is_array() || shape.size() > 8) fail(where + "shape is not an array of <= 8 sizes");
    uint64_t numel = 1;
    for (const auto& d : shape) {
      if (!d.is_number_unsigned() && !(d.is_number_integer() && d.get<int64_t>() >= 0))
        fail(where + "shape entry " + d.dump() + " is not a non-negative integer");
      const uint64_t e = d.get<uint64_t>();
      if (e > data_size) fail(where + "shape entry " + std::to_string(e) + " exceeds the file");
      numel *= e;
      if (numel > data_size)
        fail(where + "shape " + shape.dump() + " needs more data than the file has");
      t.shape.push_back(static_cast<int64_t>(e));
    }
    const auto& off = value["data_offsets"];
    if (!off.is_array() || off.size() != 2 || !off[0].is_number_unsigned() ||
        !off[1].is_number_unsigned())
      fail(where + "data_offsets is not two non-negative integers");
    t.begin = off[0].get<uint64_t>();
    t.end = off[1].get<uint64_t>();
    if (t.begin > t.end || t.end > data_size)
      fail(where + "data_offsets [" + std::to_string(t.begin) + ", " + std::to_string(t.end) +
           "] lie outside the " + std::to_string(data_size) + " data bytes (truncated?)");
    if (t.end - t.begin != numel * 4)
      fail(where + "shape " + shape.dump() + " needs " + std::to_string(numel * 4) +
           " bytes but data_offsets hold " + std::to_string(t.end - t.begin));
    tensors_.push_back(std::move(t));
  }
  std::vector<const SafetensorsTensor*> order;
  for (const auto& t : tensors_) order.push_back(&t);
  std::sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->begin < b->begin; });
  uint64_t pos = 0;
  for (const auto* t : order) {
    if (t->begin != pos)
      fail("tensor '" + t->name + "' starts at byte " + std::to_string(t->begin) + ", expected " +
           std::to_string(pos) + " (data overlaps or has a gap)");
    pos = t->end;
  }
  if (pos != data_size)
    fail("tensors end at byte " + std::to_string(pos) + " of " + std::to_string(data_size) +
         " data bytes (trailing data or truncated)");
}

const SafetensorsTensor* SafetensorsFile::find(const std::string& name) const {
  for (const auto& t : tensors_)
    if (t.name == name) return &t;
  return nullptr;
}

const std::string& SafetensorsFile::meta(const std::string& key) const {
  const auto it = metadata_.find(key);
  if (it == metadata_.end())
    throw FileError(path_, "checkpoint metadata lacks '" + key + "' (not a PosLab checkpoint?)");
  return it->second;
}

void SafetensorsFile::copy(const std::string& name, std::span<float> dst) const {
  const auto* t = find(name);
  if (!t) throw FileError(path_, "checkpoint lacks tensor '" + name + "'");
  if (t->end - t->begin != dst.size() * 4)
    throw FileError(path_, "tensor '" + name + "' has " + std::to_string((t->end - t->begin) / 4) +
                               " values, expected " + std::to_string(dst.size()));
  std::memcpy(dst.data(), bytes_.data() + data_start_ + t->begin, dst.size() * 4);
}

void SafetensorsFile::load(const TensorLayout& required, std::span<float> flat,
                           const TensorLayout& optional, std::span<float> optional_flat) const {
  std::set<std::string> known;
  std::vector<std::pair<std::string, std::span<float>>> todo;  // copied once all checks pass
  const auto check_one = [&](const TensorEntry& e, std::span<float> buf, bool must) {
    known.insert(e.name);
    const auto* t = find(e.name);
    if (!t) {
      if (must)
        throw FileError(path_, "checkpoint lacks tensor '" + e.name + "' " + shape_text(e.shape) +
                                   " (made for another model layout?)");
      return;
    }
    if (t->shape != e.shape)
      throw FileError(path_, "tensor '" + e.name + "' has shape " + shape_text(t->shape) +
                                 ", this model needs " + shape_text(e.shape) +
                                 " (checkpoint of another config?)");
    const size_t n = static_cast<size_t>(tensor_numel(e.shape));
    if (e.offset + n > buf.size())
      throw InputError("tensor " + e.name + " does not fit its buffer");
    todo.emplace_back(e.name, buf.subspan(e.offset, n));
  };
  for (const auto& e : required) check_one(e, flat, true);
  for (const auto& e : optional) check_one(e, optional_flat, false);
  for (const auto& t : tensors_)
    if (!known.count(t.name))
      throw FileError(path_, "unknown tensor '" + t.name + "' " + shape_text(t.shape) +
                                 " (checkpoint of another model or version?)");
  for (const auto& [name, dst] : todo) copy(name, dst);
}

}  // namespace poslab::io
