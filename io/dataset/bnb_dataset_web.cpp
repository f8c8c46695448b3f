// The browser build's io/dataset (POSLAB_WEB): it has no HDF5, so every dataset file is a
// FileError saying so and what to use instead. The arena plays and the dream lab runs on
// live episodes and the shipped models without one; collecting and reading datasets need
// the desktop app (Debian's libhdf5, read in a helper process the browser cannot start).
#include <string>

#include "core/common/errors.hpp"
#include "io/dataset/bnb_dataset.hpp"

namespace poslab::io {
namespace {

[[noreturn]] void desktop_only(const std::string& path) {
  throw FileError(path,
                  "Boost and Broadside datasets (HDF5) are desktop only; open this file in "
                  "the desktop app (scripts/setup.sh run)");
}

}  // namespace

std::string bnb_partial_path(const std::string& output) {
  return output + ".partial";
}

struct BnbDatasetWriter::Handles {};

BnbDatasetWriter::BnbDatasetWriter(const std::string& path, const BnbWriterOptions& options)
    : path_(path), options_(options) {
  (void)last_commit_end_, (void)last_commit_seconds_, (void)finished_;  // the desktop's state
  desktop_only(path);
}
BnbDatasetWriter::~BnbDatasetWriter() = default;
void BnbDatasetWriter::append(const bnb::EpisodeRecord&) {
  desktop_only(path_);
}
void BnbDatasetWriter::commit() {
  desktop_only(path_);
}
void BnbDatasetWriter::close() {
  desktop_only(path_);
}

struct BnbDatasetReader::Handles {};

BnbDatasetReader::BnbDatasetReader(const std::string& path, BnbReadMode mode) : mode_(mode) {
  (void)mode_;
  desktop_only(path);
}
BnbDatasetReader::~BnbDatasetReader() = default;
bnb::EpisodeRecord BnbDatasetReader::read_episode(int64_t) const {
  desktop_only(info_.path);
}
std::vector<bnb::EpisodeRecord> BnbDatasetReader::read_all_episodes() const {
  desktop_only(info_.path);
}
void BnbDatasetReader::read_rows(int64_t, int64_t, std::vector<float>&, std::vector<uint8_t>&,
                                 std::vector<uint8_t>&) const {
  desktop_only(info_.path);
}

}  // namespace poslab::io
