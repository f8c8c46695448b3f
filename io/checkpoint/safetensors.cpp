// Safetensors writing and validated reading (see safetensors.hpp). The header is parsed by
// nlohmann-json without exceptions; every size from the file is checked against the file's
// own length before it is used, so a damaged file can neither crash nor over-allocate.
#include "io/checkpoint/safetensors.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>

#include "core/common/errors.hpp"
#include "core/common/excerpt.hpp"
#include "io/files/atomic_file.hpp"

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

int json_nesting_depth(std::string_view text, int stop_after) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
      if (deepest > stop_after) break;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

SafetensorsFile SafetensorsFile::open(const std::string& path, uint64_t max_bytes) {
  std::string bytes = read_file(path, static_cast<size_t>(max_bytes));
  const uint64_t size = bytes.size();
  return SafetensorsFile(std::move(bytes), path, size);
}

SafetensorsFile SafetensorsFile::open_header(const std::string& path) {
  // O_NONBLOCK: a FIFO must not block the open; fstat then refuses it.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw FileError(path, std::string("cannot open: ") + std::strerror(errno));
  std::string bytes;
  struct stat st {};
  const auto read_upto = [&](size_t n) {
    while (bytes.size() < n) {
      char buf[1 << 16];
      const ssize_t got = ::read(fd, buf, std::min(sizeof buf, n - bytes.size()));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) break;
      bytes.append(buf, static_cast<size_t>(got));
    }
  };
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw FileError(path, "is not a regular file (a directory, FIFO or device?); give a file");
  }
  read_upto(8);
  if (bytes.size() == 8) {
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i)
      n = (n << 8) | static_cast<unsigned char>(bytes[static_cast<size_t>(i)]);
    // An impossible length is reported by the parser below, from the 8 bytes alone.
    if (n <= kSafetensorsMaxHeader && n <= static_cast<uint64_t>(st.st_size) - 8)
      read_upto(8 + static_cast<size_t>(n));
  }
  ::close(fd);
  return SafetensorsFile(std::move(bytes), path, static_cast<uint64_t>(st.st_size));
}

SafetensorsFile::SafetensorsFile(std::string bytes, std::string path)
    : SafetensorsFile(std::move(bytes), std::move(path), 0) {}

SafetensorsFile::SafetensorsFile(std::string bytes, std::string path, uint64_t file_bytes)
    : bytes_(std::move(bytes)), path_(std::move(path)) {
  const auto fail = [&](const std::string& what) {
    throw FileError(path_, "not a valid safetensors checkpoint: " + what);
  };
  // Texts from the file are quoted through error_excerpt: never more than 40 bytes.
  const auto q = [](const std::string& text) { return "'" + error_excerpt(text) + "'"; };
  const uint64_t size = std::max<uint64_t>(file_bytes, bytes_.size());
  if (size < 8) fail("only " + std::to_string(size) + " bytes (truncated?)");
  if (bytes_.size() < 8) fail("the file shrank while it was read");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i)
    n = (n << 8) | static_cast<unsigned char>(bytes_[static_cast<size_t>(i)]);
  if (n < 2 || n > kSafetensorsMaxHeader || n > size - 8)
    fail("header length " + std::to_string(n) + " does not fit the file of " +
         std::to_string(size) + " bytes (truncated or not safetensors)");
  if (bytes_.size() < 8 + n) fail("the file shrank while it was read");
  data_start_ = 8 + static_cast<size_t>(n);
  data_size_ = size - data_start_;
  header_only_ = bytes_.size() < size;
  if (header_only_) bytes_.resize(data_start_);
  const uint64_t data_size = data_size_;
  const std::string_view header_text(bytes_.data() + 8, static_cast<size_t>(n));
  // Bounded before nlohmann sees it: its parser is iterative, but copying, printing and
  // comparing a parsed value recurse once per level.
  if (json_nesting_depth(header_text) > kSafetensorsMaxDepth)
    fail("the JSON header is nested deeper than " + std::to_string(kSafetensorsMaxDepth) +
         " levels (a PosLab header needs 3; a damaged or hostile file)");
  const auto header = nlohmann::json::parse(header_text, nullptr, /*allow_exceptions=*/false);
  if (header.is_discarded()) fail("the JSON header does not parse");
  if (!header.is_object()) fail("the JSON header is not an object");
  for (const auto& [key, value] : header.items()) {
    if (key == "__metadata__") {
      if (!value.is_object()) fail("__metadata__ is not an object");
      for (const auto& [mk, mv] : value.items()) {
        if (!mv.is_string()) fail("__metadata__ value " + q(mk) + " is not a string");
        metadata_[mk] = mv.get<std::string>();
      }
      continue;
    }
    const std::string where = "tensor " + q(key) + ": ";
    if (key.empty()) fail("a tensor has an empty name");
    if (!value.is_object() || !value.contains("dtype") || !value.contains("shape") ||
        !value.contains("data_offsets") || value.size() != 3)
      fail(where + "needs exactly dtype, shape and data_offsets");
    SafetensorsTensor t;
    t.name = key;
    if (!value["dtype"].is_string()) fail(where + "dtype is not a string");
    t.dtype = value["dtype"].get<std::string>();
    if (t.dtype != "F32")
      fail(where + "dtype " + error_excerpt(t.dtype) + " (PosLab checkpoints are F32)");
    const auto& shape = value["shape"];
    if (!shape.is_array() || shape.size() > 8) fail(where + "shape is not an array of <= 8 sizes");
    uint64_t numel = 1;
    for (const auto& d : shape) {
      if (!d.is_number_unsigned() && !(d.is_number_integer() && d.get<int64_t>() >= 0))
        fail(where + "shape entry " + q(d.dump()) + " is not a non-negative integer");
      const uint64_t e = d.get<uint64_t>();
      if (e > data_size) fail(where + "shape entry " + std::to_string(e) + " exceeds the file");
      numel *= e;
      if (numel > data_size)
        fail(where + "shape " + q(shape.dump()) + " needs more data than the file has");
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
      fail(where + "shape " + shape_text(t.shape) + " needs " + std::to_string(numel * 4) +
           " bytes but data_offsets hold " + std::to_string(t.end - t.begin));
    tensors_.push_back(std::move(t));
  }
  std::vector<const SafetensorsTensor*> order;
  for (const auto& t : tensors_) order.push_back(&t);
  std::sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->begin < b->begin; });
  uint64_t pos = 0;
  for (const auto* t : order) {
    if (t->begin != pos)
      fail("tensor " + q(t->name) + " starts at byte " + std::to_string(t->begin) + ", expected " +
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
  if (header_only_)
    throw InputError(path_ + ": opened for its header only; open() it to read tensors");
  const auto* t = find(name);
  if (!t) throw FileError(path_, "checkpoint lacks tensor '" + name + "'");
  if (t->end - t->begin != dst.size() * 4)
    throw FileError(path_, "tensor '" + name + "' has " + std::to_string((t->end - t->begin) / 4) +
                               " values, expected " + std::to_string(dst.size()));
  std::memcpy(dst.data(), bytes_.data() + data_start_ + t->begin, dst.size() * 4);
}

void SafetensorsFile::check(const TensorLayout& required, const TensorLayout& optional) const {
  std::set<std::string> known;
  const auto check_one = [&](const TensorEntry& e, bool must) {
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
  };
  for (const auto& e : required) check_one(e, true);
  for (const auto& e : optional) check_one(e, false);
  for (const auto& t : tensors_)
    if (!known.count(t.name))
      throw FileError(path_, "unknown tensor '" + error_excerpt(t.name) + "' " +
                                 shape_text(t.shape) +
                                 " (checkpoint of another model or version?)");
}

void SafetensorsFile::load(const TensorLayout& required, std::span<float> flat,
                           const TensorLayout& optional, std::span<float> optional_flat) const {
  check(required, optional);
  std::vector<std::pair<std::string, std::span<float>>> todo;  // copied once all checks pass
  const auto place = [&](const TensorEntry& e, std::span<float> buf) {
    if (!find(e.name)) return;
    const size_t n = static_cast<size_t>(tensor_numel(e.shape));
    if (e.offset + n > buf.size())
      throw InputError("tensor " + e.name + " does not fit its buffer");
    todo.emplace_back(e.name, buf.subspan(e.offset, n));
  };
  for (const auto& e : required) place(e, flat);
  for (const auto& e : optional) place(e, optional_flat);
  for (const auto& [name, dst] : todo) copy(name, dst);
}

}  // namespace poslab::io
