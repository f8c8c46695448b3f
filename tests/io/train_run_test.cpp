// One checkpoint core and one training-run skeleton for both models (issue 38): the checks
// the world model's and the language models' checkpoints share hold for both; a run's files
// are written curve first and a resumed run continues its curve at the checkpoint's step;
// the world model's run (io/training), stopped at a checkpoint and resumed, ends where an
// unbroken run ends.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "core/bnb/bnb_episode.hpp"
#include "core/common/errors.hpp"
#include "core/lm/lm.hpp"
#include "core/wm/world_model.hpp"
#include "io/checkpoint/lm_checkpoint.hpp"
#include "io/checkpoint/wm_checkpoint.hpp"
#include "io/dataset/bnb_dataset.hpp"
#include "io/files/atomic_file.hpp"
#include "io/training/train_run.hpp"
#include "io/training/wm_train_run.hpp"

using namespace poslab;
using namespace poslab::io;
using Catch::Matchers::Contains;

namespace {

std::string fresh_dir(const std::string& name) {
  const auto d = std::filesystem::temp_directory_path() / name;
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d.string();
}

}  // namespace

TEST_CASE("both models' checkpoints refuse a negative second moment and a weight past the limit",
          "[checkpoint][wm][lm]") {
  const std::string dir = fresh_dir("poslab_train_run_ckpt");
  wm::WmConfig c;
  c.embed = 16;
  c.heads = 2;
  c.layers = 1;
  c.context = 6;
  wm::WorldModel m(c);
  m.init(1);
  auto opt = nn::adamw_init(m.params.size());
  opt.step = 3;
  opt.v[5] = -1.0f;  // sqrt(v) of AdamW: a NaN at the first resumed step
  wm_checkpoint_save(dir + "/wm.safetensors", c, m.params, 3, &opt, {});
  CHECK_THROWS_WITH(wm_checkpoint_load(dir + "/wm.safetensors"),
                    Contains("'optim.v.*' holds a negative value"));

  lm::LmConfig lc;
  lc.embed = 16;
  lc.heads = 2;
  lc.layers = 1;
  lc.context = 16;
  lm::LmModel lm_model(lc);
  lm_model.init(1);
  lm_model.params[0] = 2e6f;
  lm_checkpoint_save(dir + "/lm.safetensors", lc, lm_model.params, 0, {}, nullptr, {});
  CHECK_THROWS_WITH(lm_checkpoint_load(dir + "/lm.safetensors"),
                    Contains("holds 2e+06, beyond +-1e+06"));
  wm_checkpoint_save(dir + "/wm.safetensors", c, m.params, 3, nullptr, {});
  CHECK(wm_checkpoint_load(dir + "/wm.safetensors").params == m.params);
  std::filesystem::remove_all(dir);
}

TEST_CASE("a run's files: the curve is written before the checkpoint and resumes at its step",
          "[train-run][wm][lm]") {
  const std::string dir = fresh_dir("poslab_train_run_files");
  CHECK_THROWS_WITH(TrainFiles("", "", "give -o"), "give -o");
  TrainFiles f(dir + "/run.safetensors", "", "give -o");
  CHECK(f.log() == dir + "/run.csv");
  f.begin_curve("step,x,seconds", false, 0);
  f.add_row("2,0.5,1.5");
  f.add_row("4,0.25,3.0");
  bool written = false;
  f.save(4, [&] {
    CHECK(read_file(f.log()) == "step,x,seconds\n2,0.5,1.5\n4,0.25,3.0\n");
    written = true;
  });
  CHECK(written);
  CHECK(f.saved_step() == 4);

  TrainFiles g(dir + "/run.safetensors", "", "give -o");
  CHECK(g.begin_curve("step,x,seconds", true, 2, 2) == 1.5);  // the clock continues
  CHECK(g.csv() == "step,x,seconds\n2,0.5,1.5\n");            // the row past step 2 is dropped
  CHECK(g.begin_curve("step,x,seconds", false, 2, 2) == 0);
  CHECK(g.csv() == "step,x,seconds\n");
  CHECK(!g.saved());
  CHECK(train_command({}, "b") == "b");
  CHECK(train_command({{"command", "a"}}, "b") == "a ; resumed: b");
  std::filesystem::remove_all(dir);
}

TEST_CASE("the world model's run stopped at a checkpoint and resumed ends as an unbroken run",
          "[wm-train][wm]") {
  const std::string dir = fresh_dir("poslab_train_run_wm");
  {
    BnbDatasetWriter w(dir + "/d.h5");
    for (uint64_t e = 0; e < 6; ++e) {
      bnb::EpisodeSpec spec;
      spec.seed = 300 + e;
      spec.config.max_steps = 40;
      w.append(bnb::run_episode(spec));
    }
    w.close();
  }
  WmTrainRequest r;
  r.data = {dir + "/d.h5"};
  r.steps = 6;
  r.seed = 3;
  r.threads = 1;
  r.data_params.batch = 2;
  r.train.log_every = 2;
  r.train.val_every = 4;
  r.train.checkpoint_every = 2;
  r.train.val_windows = 3;
  r.command = "test";

  WmTrainRequest unbroken = r;
  unbroken.output = dir + "/a.safetensors";
  WmTrainRun(unbroken).train({});

  WmTrainRequest first = r;
  first.output = dir + "/b.safetensors";
  WmTrainRun run(first);
  run.train([&] { return run.optimiser().step >= 3; });  // a stop between checkpoints
  CHECK(wm_checkpoint_load(first.output).step == 3);     // kept where it stopped
  WmTrainRequest again = first;
  again.resume = true;
  again.data.clear();  // the recorded datasets
  WmTrainRun resumed(again);
  CHECK(resumed.first_step() == 3);
  resumed.train({});

  const WmCheckpoint a = wm_checkpoint_load(dir + "/a.safetensors");
  const WmCheckpoint b = wm_checkpoint_load(dir + "/b.safetensors");
  CHECK(b.step == 6);
  CHECK(b.params == a.params);
  REQUIRE(b.optim.has_value());
  CHECK(b.optim->m == a.optim->m);
  CHECK(b.optim->v == a.optim->v);
  CHECK(b.metadata.at("command") == "test ; resumed: test");
  CHECK(b.metadata.at("data") == a.metadata.at("data"));
  CHECK(b.metadata.at("training") == a.metadata.at("training"));
  std::filesystem::remove_all(dir);
}
