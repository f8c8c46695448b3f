// The files of a training run, shared by both models' runs (see train_run.hpp).
#include "io/training/train_run.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <utility>

#include "core/common/errors.hpp"
#include "io/files/atomic_file.hpp"

namespace poslab::io {

TrainFiles::TrainFiles(std::string output, std::string log, const std::string& missing_output)
    : output_(std::move(output)), log_(std::move(log)) {
  if (output_.empty()) throw InputError(missing_output);
  if (log_.empty()) log_ = std::filesystem::path(output_).replace_extension(".csv").string();
  require_writable_path(output_, "--output");
  require_writable_path(log_, "--log");
}

double TrainFiles::begin_curve(const std::string& header, bool resume, int64_t step,
                               int seconds_column) {
  csv_ = header + "\n";
  double seconds = 0;
  std::error_code ec;
  if (!resume || !std::filesystem::is_regular_file(log_, ec)) return seconds;
  if (std::filesystem::file_size(log_, ec) > (uint64_t{64} << 20))
    throw FileError(log_, "the training curve is larger than 64 MB; move it aside to resume");
  std::ifstream in(log_, std::ios::binary);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    long long s = -1;
    if (std::sscanf(line.c_str(), "%lld", &s) < 1 || s > step) break;
    csv_ += line + "\n";
    if (seconds_column < 0) continue;
    size_t pos = 0;
    for (int col = 0; col < seconds_column && pos != std::string::npos; ++col)
      pos = line.find(',', pos + 1);
    if (pos != std::string::npos) seconds = std::atof(line.c_str() + pos + 1);
  }
  return seconds;
}

void TrainFiles::add_row(const std::string& row) {
  csv_ += row + "\n";
}

void TrainFiles::save(int64_t step, const std::function<void()>& write_checkpoint) {
  write_file_atomically(log_, csv_);
  write_checkpoint();
  saved_step_ = step;
}

std::string train_command(const TensorMetadata& resumed, const std::string& command) {
  const auto it = resumed.find("command");
  return it != resumed.end() ? it->second + " ; resumed: " + command : command;
}

}  // namespace poslab::io
