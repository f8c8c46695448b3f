// HDF5 dataset round trip and rejection of damaged files. Each damaged file is made by
// breaking a valid one in exactly one way (bad_datasets.hpp); the reader must refuse it
// with a FileError that names the file and says what is wrong.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "core/common/errors.hpp"
#include "io/dataset/bnb_dataset.hpp"
#include "tests/bnb/bad_datasets.hpp"

using namespace poslab;
namespace fs = std::filesystem;

namespace {

std::string temp_path(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("poslab_bnb_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return (dir / name).string();
}

// Reads every episode (as inspect does), so damage anywhere in the data is found.
void read_everything(const std::string& path) {
  const io::BnbDatasetReader r(path);
  for (int64_t e = 0; e < r.info().num_episodes; ++e) r.read_episode(e);
}

void require_rejected(const std::string& path, const std::string& must_contain) {
  INFO("file " << path << ", expected an error containing \"" << must_contain << "\"");
  try {
    read_everything(path);
    FAIL("the damaged file was accepted");
  } catch (const FileError& e) {
    INFO("error: " << e.what());
    CHECK(e.path() == path);
    CHECK(std::string(e.what()).find(must_contain) != std::string::npos);
  }
}

}  // namespace

TEST_CASE("dataset round trip: every array and attribute reads back exactly") {
  for (int compression : {0, 1, 6}) {
    const std::string path = temp_path("roundtrip_" + std::to_string(compression) + ".h5");
    const auto written = testing::write_valid_dataset(path, 5, compression);
    const io::BnbDatasetReader r(path);
    const io::BnbDatasetInfo& info = r.info();
    INFO("compression=" << compression);
    CHECK(info.format_version == io::kBnbFormatVersion);
    REQUIRE(info.num_episodes == 5);
    int64_t rows = 0;
    for (size_t e = 0; e < written.size(); ++e) {
      INFO("episode " << e);
      CHECK(info.episode_lengths[e] == written[e].rows);
      CHECK(info.episode_offsets[e] == rows);
      CHECK(info.episode_seeds[e] == written[e].seed);
      rows += written[e].rows;
      const bnb::EpisodeRecord got = r.read_episode(static_cast<int64_t>(e));
      CHECK(got.rows == written[e].rows);
      CHECK(got.tokens == written[e].tokens);
      CHECK(got.actions == written[e].actions);
      CHECK(got.expert_actions == written[e].expert_actions);
      CHECK(got.rewards == written[e].rewards);
      CHECK(bnb::record_team_sizes(got) == bnb::record_team_sizes(written[e]));
    }
    CHECK(info.total_timesteps == rows);
    CHECK_THROWS_AS(r.read_episode(5), InputError);
  }
}

TEST_CASE("the writer refuses to overwrite unless asked, and a partial file is valid") {
  const std::string path = temp_path("partial.h5");
  testing::write_valid_dataset(path, 1);
  CHECK_THROWS_AS(io::BnbDatasetWriter(path), FileError);
  {
    io::BnbWriterOptions o;
    o.overwrite = true;
    io::BnbDatasetWriter w(path, o);
    w.append(bnb::run_episode({1, {}, bnb::PolicyKind::expert, {}}));
    // Before close (as after an interrupted collect), another reader sees one episode.
    const io::BnbDatasetReader r(path);
    CHECK(r.info().num_episodes == 1);
    r.read_episode(0);
  }
  const io::BnbDatasetReader empty_ok([&] {
    const std::string p = temp_path("empty.h5");
    io::BnbWriterOptions o;
    o.overwrite = true;
    io::BnbDatasetWriter w(p, o);
    return p;
  }());
  CHECK(empty_ok.info().num_episodes == 0);
  CHECK_THROWS_AS(io::BnbDatasetWriter(temp_path("nodir/x/y.h5")), FileError);
}

TEST_CASE("damaged, foreign and missing files are rejected with errors naming the file") {
  const std::string base = temp_path("base.h5");
  SECTION("missing file") {
    require_rejected(temp_path("does_not_exist.h5"), "no such file");
  }
  SECTION("not HDF5") {
    const std::string p = temp_path("text.h5");
    std::ofstream(p) << "tokens,actions\n1,2\n";
    require_rejected(p, "not an HDF5 file");
  }
  SECTION("wrong format version") {
    testing::write_valid_dataset(base);
    testing::set_int_attribute(base, "format_version", 99);
    require_rejected(base, "format_version 99");
  }
  SECTION("no magic") {
    testing::write_valid_dataset(base);
    testing::delete_attribute(base, "magic");
    require_rejected(base, "not a Boost and Broadside dataset");
  }
  SECTION("wrong token shape") {
    testing::write_valid_dataset(base);
    testing::break_token_shape(base);
    require_rejected(base, "'tokens' has shape");
  }
  SECTION("missing dataset") {
    testing::write_valid_dataset(base);
    testing::delete_dataset(base, "expert_actions");
    require_rejected(base, "'expert_actions' is missing");
  }
  SECTION("lengths disagree with total_timesteps") {
    testing::write_valid_dataset(base);
    testing::set_int_attribute(base, "num_episodes", 2);
    require_rejected(base, "shape");
  }
  SECTION("truncated") {
    for (double frac : {0.05, 0.3, 0.6, 0.95}) {
      testing::write_valid_dataset(base);
      testing::truncate_file(base, frac);
      INFO("kept fraction " << frac);
      require_rejected(base,
                       base);  // message starts with the path; content varies by where it was cut
    }
  }
  SECTION("corrupted chunk bytes fail the checksum") {
    for (int compression : {0, 1}) {
      testing::write_valid_dataset(base, 3, compression);
      testing::corrupt_token_chunk(base);
      INFO("compression " << compression);
      require_rejected(base, "corrupt");
    }
  }
}
