// Language-model checkpoints (io/checkpoint/lm_checkpoint): a round trip keeps every weight,
// the config, the scaling and the optimiser state; a damaged or hostile file is one
// FileError naming the problem, never a crash.
#include <unistd.h>
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "core/common/errors.hpp"
#include "core/common/excerpt.hpp"
#include "core/lm/lm.hpp"
#include "io/checkpoint/lm_checkpoint.hpp"
#include "io/training/lm_train_run.hpp"

using namespace poslab;
using namespace poslab::lm;

namespace {

std::string tmp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("poslab_lm_ck_" + name)).string();
}

std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

LmConfig cfg(LmPosition p) {
  LmConfig c;
  c.embed = 16;
  c.heads = 2;
  c.layers = 2;
  c.context = 12;
  c.position = p;
  return c;
}

}  // namespace

TEST_CASE("lm checkpoint round trip keeps weights, config, scaling and optimiser", "[lm]") {
  for (LmPosition p : {LmPosition::learned, LmPosition::t5, LmPosition::rope}) {
    INFO("position " << lm_position_name(p));
    const LmConfig c = cfg(p);
    LmModel m(c);
    m.init(9);
    nn::AdamWState st = nn::adamw_init(m.params.size());
    st.step = 5;
    for (size_t i = 0; i < st.m.size(); ++i) st.m[i] = 0.001f * i, st.v[i] = 0.002f * i;
    const std::string path = tmp_path("rt.safetensors");
    const LmScaling sc{RopeScaling::yarn, 4.0};
    io::lm_checkpoint_save(path, c, m.params, 5, sc, &st, {{"command", "test"}});
    const auto ck = io::lm_checkpoint_load(path);
    CHECK(ck.config == c);
    CHECK(ck.step == 5);
    CHECK(ck.scaling == sc);
    CHECK(ck.params == m.params);
    REQUIRE(ck.optim);
    CHECK(ck.optim->m == st.m);
    CHECK(ck.optim->v == st.v);
    CHECK(ck.metadata.at("command") == "test");
    io::lm_checkpoint_save(path, c, m.params, 5, sc, nullptr, {});
    CHECK_FALSE(io::lm_checkpoint_load(path).optim);
    std::filesystem::remove(path);
  }
}

TEST_CASE("lm checkpoint: damaged files are one FileError", "[lm]") {
  const LmConfig c = cfg(LmPosition::learned);
  LmModel m(c);
  m.init(1);
  const std::string path = tmp_path("bad.safetensors");
  io::lm_checkpoint_save(path, c, m.params, 3, {}, nullptr, {});
  const std::string good = slurp(path);
  auto expect_error = [&](std::string bytes, const std::string& needle) {
    INFO("expecting: " << needle);
    try {
      (void)io::lm_checkpoint_parse(std::move(bytes), "x.safetensors");
      FAIL("no error");
    } catch (const FileError& e) {
      INFO("error: " << e.what());
      CHECK(std::string(e.what()).find(needle) != std::string::npos);
    } catch (const Error& e) {
      FAIL(std::string("not a FileError: ") + e.what());
    }
  };
  auto replace = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    const auto at = s.find(from);
    REQUIRE(at != std::string::npos);
    s.replace(at, from.size(), to);
    return s;
  };
  CHECK_NOTHROW(io::lm_checkpoint_parse(good, "x.safetensors"));
  expect_error(replace("poslab-byte-lm", "poslab-byte-xx"), "not a PosLab byte language model");
  expect_error(replace("\\\"embed\\\":16", "\\\"embed\\\":17"), "embed = 17");
  expect_error(replace("\\\"position\\\":\\\"learned\\\"", "\\\"position\\\":\\\"wrapped\\\""),
               "position");
  expect_error(replace("\\\"context\\\":12", "\\\"context\\\":13"), "param_count");
  expect_error(replace("\\\"scaling\\\":\\\"none\\\"", "\\\"scaling\\\":\\\"nonx\\\""), "scaling");
  expect_error(good.substr(0, good.size() - 4), "x.safetensors");
  expect_error("", "x.safetensors");
  // a NaN weight: the last float of the data
  std::string nan = good;
  const float q = std::numeric_limits<float>::quiet_NaN();
  std::memcpy(nan.data() + nan.size() - 4, &q, 4);
  expect_error(nan, "ln_f.bias");
  std::filesystem::remove(path);
}

namespace {

// A tiny training request on a small text in a fresh folder (issue 36's run checks).
struct TinyRun {
  std::filesystem::path dir = tmp_path("run_" + std::to_string(::getpid()));
  io::LmTrainRequest r;
  TinyRun() {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const std::string text = (dir / "text.txt").string();
    std::ofstream out(text);
    for (int i = 1; i <= 60; ++i) out << "Fortune " << i << ": the cat sat on the mat.\n%\n";
    r.output = (dir / "m.safetensors").string();
    r.config = cfg(LmPosition::rope);
    r.settings.batch = 2;
    r.settings.steps = 4;
    r.settings.log_every = 2;
    r.settings.valid_windows = 2;
    r.settings.threads = 1;
    r.text = {text};
  }
  ~TinyRun() { std::filesystem::remove_all(dir); }
};

}  // namespace

TEST_CASE("lm train checks its output and log paths before training") {
  // Issue 36: `lm train` found a missing folder at its first checkpoint, 66 s in.
  TinyRun t;
  t.r.output = (t.dir / "no" / "such" / "m.safetensors").string();
  CHECK_THROWS_WITH(io::LmTrainRun(t.r), Catch::Contains("--output") &&
                                             Catch::Contains("does not exist (create it first)"));
  t.r.output = (t.dir / "m.safetensors").string();
  t.r.log = (t.dir / "no" / "log.csv").string();
  CHECK_THROWS_WITH(io::LmTrainRun(t.r), Catch::Contains("--log") && Catch::Contains("no/log.csv"));
  t.r.log = t.dir.string();  // a folder
  CHECK_THROWS_WITH(io::LmTrainRun(t.r), Catch::Contains("is not a regular file"));
}

TEST_CASE("a training run never writes a checkpoint ahead of its curve") {
  // Issue 36: a kill between the checkpoint write and the CSV write lost that step's row for
  // good (a resume keeps the rows up to the checkpoint's step). The CSV is written first:
  // here its write fails at the second row, and the checkpoint must still be the first row's.
  TinyRun t;
  io::LmTrainRun run(t.r);
  const std::string csv = (t.dir / "m.csv").string();
  const auto sabotage = [&](const LmTrainRow& row) {
    if (row.step != 2) return;
    std::filesystem::remove(csv);
    std::filesystem::create_directory(csv);  // the next CSV write cannot replace a folder
  };
  CHECK_THROWS(run.train(nullptr, sabotage));
  CHECK(io::lm_checkpoint_load(t.r.output).step == 2);
}

TEST_CASE("terminal_text escapes control characters and keeps UTF-8 text") {
  // Issue 36: a path recorded in a checkpoint reached the terminal raw (ESC sequences).
  CHECK(terminal_text("plain /a/b.txt") == "plain /a/b.txt");
  CHECK(terminal_text("a\x1b[31mb\x1b]0;t\x07\n") == "a\\x1b[31mb\\x1b]0;t\\x07\\x0a");
  CHECK(terminal_text("\x7f") == "\\x7f");
  CHECK(terminal_text("中文 一") == "中文 一");  // E4 B8 80: a continuation byte 0x80
  CHECK(terminal_text("\xc2\x9b"
                      "2J") == "\\xc2\\x9b2J");          // U+009B, the C1 CSI
  CHECK(terminal_text("\x9b") == "\\x9b");               // and as a raw byte
  CHECK(terminal_text("caf\xc3\xa9") == "caf\xc3\xa9");  // é stays
}
