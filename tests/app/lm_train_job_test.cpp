// The length lab's "Train your own" worker (app/widgets/lm_train_job) against the core
// trainer: a run started the way the panel starts it ends with the weights core/lm's
// lm_train computes for the same settings, bit for bit; Cancel stops at a step whose
// checkpoint loads and equals the core run of that many steps; starting again resumes it to
// the weights of one unbroken run; an unwritable folder ends the job with one line.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "app/widgets/lm_train_job.hpp"
#include "core/lm/lm_own.hpp"
#include "core/lm/lm_train.hpp"
#include "io/checkpoint/lm_checkpoint.hpp"

using namespace poslab;
using namespace poslab::app;

namespace {

namespace fs = std::filesystem;

// A fresh folder with a small text of "%"-separated entries.
struct TrainDir {
  fs::path root;
  std::string text;
  TrainDir() {
    root = fs::temp_directory_path() /
           ("poslab_lm_train_job_" +
            std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
    fs::create_directories(root);
    text = (root / "text.txt").string();
    std::ofstream out(text);
    for (int i = 1; i <= 80; ++i)
      out << "Fortune " << i << ": the cat sat on the mat, and the dog did not.\n%\n";
  }
  ~TrainDir() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  std::string models() const { return (root / "models").string(); }
};

lm::LmOwnSpec small_spec(int64_t steps) {
  lm::LmOwnSpec s;
  s.position = lm::LmPosition::rope;
  s.steps = steps;
  s.context = 16;
  s.seed = 3;
  return s;
}

// The core trainer alone on the same text and settings: the reference.
std::vector<float> core_weights(const lm::LmOwnSpec& spec, const std::string& text) {
  lm::LmModel m(lm::lm_own_config(spec));
  m.init(spec.seed);
  nn::AdamWState opt;
  const lm::LmTrainSettings s = lm::lm_own_settings(spec);
  const lm::LmCorpus corpus =
      lm::lm_corpus_build(io::lm_read_text_files({text}, nullptr), {}, spec.context + 1);
  REQUIRE(lm::lm_train(m, opt, s, corpus, nullptr, {}));
  REQUIRE(opt.step == spec.steps);
  return m.params;
}

JobOutcome<LmTrainCurves> finish(LmTrainJob& job) {
  job.wait();
  auto out = job.poll();
  REQUIRE(out);
  return *out;
}

}  // namespace

TEST_CASE("lm train job: the panel's run equals the core trainer bit for bit", "[lm_train_job]") {
  TrainDir d;
  const lm::LmOwnSpec spec = small_spec(12);
  LmTrainJob job;
  lm_train_job_start(job, spec, d.models(), {d.text});
  const auto out = finish(job);
  INFO("error: " << out.error);
  REQUIRE(out.value);
  CHECK(out.value->finished);
  CHECK(out.value->done == 12);
  CHECK(out.value->step.size() == 12);
  CHECK(out.value->row_step.size() == 1);  // a row every 100 steps and after the last
  const std::string path = lm_own_path(d.models(), spec);
  CHECK(out.key == path);
  const io::LmCheckpoint ck = io::lm_checkpoint_load(path);
  CHECK(ck.step == 12);
  CHECK(ck.optim);
  CHECK(ck.config == lm::lm_own_config(spec));
  CHECK(ck.params == core_weights(spec, d.text));
  // The provenance names the command line that runs the same training.
  CHECK(ck.metadata.at("command").find("poslab-cli lm train --position rope") == 0);
}

TEST_CASE("lm train job: Cancel keeps a checkpoint that loads, and Start resumes it",
          "[lm_train_job]") {
  TrainDir d;
  lm::LmOwnSpec spec = small_spec(100000);
  LmTrainJob job;
  lm_train_job_start(job, spec, d.models(), {d.text});
  // Cancel once a few steps are done (the run would take far longer than this test).
  for (int i = 0; i < 6000 && job.progress().done < 3; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  REQUIRE(job.progress().done >= 3);
  job.cancel();
  const auto out = finish(job);
  CHECK(out.cancelled);
  CHECK_FALSE(out.value);
  const io::LmCheckpoint ck = io::lm_checkpoint_load(lm_own_path(d.models(), spec));
  INFO("stopped at step " << ck.step);
  REQUIRE(ck.step >= 3);
  REQUIRE(ck.step < 100000);
  REQUIRE(ck.optim);
  spec.steps = ck.step;
  CHECK(ck.params == core_weights(spec, d.text));

  // The same choices again continue the checkpoint: one unbroken run of steps + 10.
  spec.steps = ck.step + 10;
  lm_train_job_start(job, spec, d.models(), {d.text});
  const auto resumed = finish(job);
  INFO("error: " << resumed.error);
  REQUIRE(resumed.value);
  CHECK(resumed.value->first == ck.step);
  CHECK(resumed.value->done == spec.steps);
  CHECK(io::lm_checkpoint_load(lm_own_path(d.models(), spec)).params == core_weights(spec, d.text));
}

TEST_CASE("lm train job: an unwritable models folder is one error line, no crash",
          "[lm_train_job]") {
  TrainDir d;
  // A regular file where the folder should be: no user (root included) can create it.
  const fs::path blocker = d.root / "not_a_folder";
  std::ofstream(blocker) << "x";
  const std::string models = (blocker / "models").string();
  LmTrainJob job;
  lm_train_job_start(job, small_spec(10), models, {d.text});
  const auto out = finish(job);
  CHECK_FALSE(out.value);
  CHECK_FALSE(out.cancelled);
  INFO(out.error);
  CHECK(out.error.find(models) != std::string::npos);
  CHECK(out.error.find('\n') == std::string::npos);
}
