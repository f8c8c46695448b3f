// HDF5 dataset round trip and rejection of damaged files. Each damaged file is made by
// breaking a valid one in exactly one way (bad_datasets.hpp); the reader must refuse it
// with a FileError that names the file and says what is wrong.
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <vector>

#include "core/common/errors.hpp"
#include "io/dataset/bnb_dataset.hpp"
#include "io/dataset/isolated.hpp"
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
  const std::string before = testing::file_bytes(path);
  {
    io::BnbWriterOptions o;
    o.overwrite = true;
    io::BnbDatasetWriter w(path, o);
    w.append(bnb::run_episode({1, {}, bnb::PolicyKind::expert, {}}));
    w.append(bnb::run_episode({2, {}, bnb::PolicyKind::expert, {}}));
    // Before close (as after an interrupted or killed collect): the previous file is
    // untouched and the committed snapshot is a valid dataset of what it counts.
    CHECK(testing::file_bytes(path) == before);
    REQUIRE(w.committed_episodes() >= 1);
    const io::BnbDatasetReader r(io::bnb_partial_path(path));
    CHECK(r.info().num_episodes == w.committed_episodes());
    for (int64_t e = 0; e < r.info().num_episodes; ++e) r.read_episode(e);
    w.commit();
    CHECK(io::BnbDatasetReader(io::bnb_partial_path(path)).info().num_episodes == 2);
  }  // destroyed without close(), as when an exception unwinds collect
  CHECK(testing::file_bytes(path) == before);
  CHECK(fs::exists(io::bnb_partial_path(path)));
  // No work file or snapshot temporary left (their names are unpredictable: issue 29).
  for (const auto& e : fs::directory_iterator(fs::path(path).parent_path()))
    CHECK(e.path().filename().string().rfind(fs::path(path).filename().string() + ".tmp.", 0) ==
          std::string::npos);
  // A stale snapshot is not overwritten by accident...
  CHECK_THROWS_WITH(io::BnbDatasetWriter(temp_path("partial.h5")),
                    Catch::Contains("already exists"));
  {
    io::BnbWriterOptions o;
    o.overwrite = true;  // ...but --force discards it, and close() replaces the file
    io::BnbDatasetWriter w(path, o);
    w.append(bnb::run_episode({3, {}, bnb::PolicyKind::expert, {}}));
    w.close();
  }
  CHECK_FALSE(fs::exists(io::bnb_partial_path(path)));
  CHECK(io::BnbDatasetReader(path).info().episode_seeds == std::vector<uint64_t>{3});
  const io::BnbDatasetReader empty_ok([&] {
    const std::string p = temp_path("empty.h5");
    io::BnbWriterOptions o;
    o.overwrite = true;
    io::BnbDatasetWriter w(p, o);
    w.close();
    return p;
  }());
  CHECK(empty_ok.info().num_episodes == 0);
  CHECK_THROWS_AS(io::BnbDatasetWriter(temp_path("nodir/x/y.h5")), FileError);
}

TEST_CASE("sizes come from what the file stores, not from what it announces") {
  const std::string p = temp_path("huge.h5");
  testing::write_valid_dataset(p, 2);
  testing::announce_huge(p, 1000000000LL, 100000000000LL);  // 1e9 episodes, 1e11 rows
  require_rejected(p, "stores only");
}

TEST_CASE("external links, external storage and non-dataset files are refused") {
  const std::string p = temp_path("ext.h5"), other = temp_path("other.h5");
  testing::write_valid_dataset(other, 3);
  SECTION("external link") {
    testing::write_valid_dataset(p, 3);
    testing::make_external_link(p, other, "tokens");
    require_rejected(p, "external link");
  }
  SECTION("external raw storage") {
    testing::write_valid_dataset(p, 3);
    testing::make_external_storage(p, temp_path("seeds.raw"));
    require_rejected(p, "external files");
  }
  SECTION("a FIFO is refused without blocking") {
    const std::string fifo = temp_path("fifo.h5");
    fs::remove(fifo);
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    require_rejected(fifo, "not a regular file");
  }
}

TEST_CASE("the helper process turns crashes, hangs and errors into errors naming the file") {
  const std::string p = "some/file.h5";
  CHECK(io::run_isolated(p, [] { return std::string("answer\0with nul", 15); }) ==
        std::string("answer\0with nul", 15));
  CHECK_THROWS_WITH(io::run_isolated(p,
                                     []() -> std::string {
                                       ::raise(SIGSEGV);
                                       return "";
                                     }),
                    Catch::Contains("some/file.h5: the HDF5 library crashed"));
  CHECK_THROWS_WITH(io::run_isolated(p, []() -> std::string { ::_exit(3); }),
                    Catch::Contains("exit code 3"));
  io::IsolationOptions quick;
  quick.timeout_seconds = 0.5;
  CHECK_THROWS_WITH(io::run_isolated(
                        p,
                        []() -> std::string {
                          ::pause();
                          return "";
                        },
                        quick),
                    Catch::Contains("did not finish within"));
  // A runaway allocation (as libhdf5 makes on some corrupt files) is stopped at the limit:
  // this child would otherwise grow to 1 GiB, 1 MiB a millisecond, and answer "done".
  io::IsolationOptions small;
  small.memory_limit_bytes = 64 << 20;
  CHECK_THROWS_WITH(io::run_isolated(
                        p,
                        []() -> std::string {
                          std::vector<std::vector<char>> grown;
                          for (int mb = 0; mb < 1024; ++mb) {
                            grown.emplace_back(size_t(1) << 20, char(mb));
                            ::usleep(1000);
                          }
                          return "done";
                        },
                        small),
                    Catch::Contains("more than 64 MB of memory"));
  // ...while one that stays under it answers as usual.
  CHECK(io::run_isolated(
            p,
            [] {
              const std::vector<char> some(size_t(16) << 20, 'x');
              return std::string(1, some.back());
            },
            small) == "x");
  small.memory_limit_bytes = -1;
  CHECK_THROWS_AS(io::run_isolated(
                      p, [] { return std::string(); }, small),
                  InputError);
  CHECK_THROWS_AS(io::run_isolated(p, []() -> std::string { throw InputError("bad value"); }),
                  InputError);
  try {
    io::run_isolated(p, []() -> std::string { throw FileError("other.h5", "is odd"); });
    FAIL("no error");
  } catch (const FileError& e) {
    CHECK(e.path() == "other.h5");
    CHECK(std::string(e.what()) == "other.h5: is odd");
  }
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
