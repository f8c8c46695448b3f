// The background job panels share: results and errors arrive once with their key, a
// cancelled job stops (jobs here loop forever unless cancelled, so a broken cancel hangs
// the test until ctest's timeout fails it), pause holds the worker at its checkpoint,
// progress and reports reach the panel, and headless polling waits for the result.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "app/widgets/background_job.hpp"

using namespace poslab::app;

namespace {

// The few AppContext services poll() uses; the rest are never called.
class FakeContext final : public AppContext {
 public:
  explicit FakeContext(bool headless) : headless_(headless) {}
  void report_error(const std::string&, const std::string&) override {}
  void open_lab(const std::string&) override {}
  void request_frames(int n) override { frames_requested += n; }
  float ui_scale() const override { return 1.0f; }
  bool dark_theme() const override { return true; }
  const std::string& config_dir() const override { return dir_; }
  const std::string& data_dir() const override { return dir_; }
  ImFont* cjk_font() const override { return nullptr; }
  ImFont* heading_font() const override { return nullptr; }
  ImFont* title_font() const override { return nullptr; }
  ImFont* mono_font() const override { return nullptr; }
  void ensure_glyphs(const std::string&) override {}
  bool headless() const override { return headless_; }
  void capture_rect(float, float, float, float, CaptureSink) override {}
  int frames_requested = 0;

 private:
  bool headless_;
  std::string dir_ = "/nonexistent";
};

// Polls until the job's outcome arrives (the worker is about to finish).
template <class R, class P>
JobOutcome<R> poll_until_done(BackgroundJob<R, P>& job) {
  for (;;) {
    if (auto out = job.poll()) return std::move(*out);
    std::this_thread::yield();
  }
}

}  // namespace

TEST_CASE("background job: the result arrives once with its key") {
  BackgroundJob<int> job;
  CHECK_FALSE(job.running());
  job.start("answer", [](JobControl&) { return 42; });
  CHECK(job.running());
  CHECK(job.key() == "answer");
  const JobOutcome<int> out = poll_until_done(job);
  CHECK(out.key == "answer");
  REQUIRE(out.value);
  CHECK(*out.value == 42);
  CHECK_FALSE(out.cancelled);
  CHECK(out.error.empty());
  CHECK(out.seconds >= 0);
  CHECK_FALSE(job.running());
  CHECK_FALSE(job.poll());  // handed out once
  CHECK(job.key().empty());
}

TEST_CASE("background job: an exception becomes the outcome's error") {
  BackgroundJob<int> job;
  job.start("bad", [](JobControl&) -> int { throw std::runtime_error("head_dim = 3: odd"); });
  const JobOutcome<int> out = poll_until_done(job);
  CHECK_FALSE(out.value);
  CHECK(out.error == "head_dim = 3: odd");
  CHECK_FALSE(out.cancelled);
}

TEST_CASE("background job: core's message travels with the error, so the panel can translate it") {
  BackgroundJob<int> job;
  job.start("bad", [](JobControl&) -> int {
    throw poslab::InputError(poslab::Message{
        "kv.message.some_id", {poslab::message_arg("n", "3")}, "three is too many"});
  });
  const JobOutcome<int> out = poll_until_done(job);
  CHECK(out.error == "three is too many");
  CHECK(out.error_message.id == "kv.message.some_id");
  CHECK(out.error_message.text == out.error);
  REQUIRE(out.error_message.args.size() == 1);
  CHECK(out.error_message.args[0].value == "3");
  // Any other exception: its what() as plain text.
  job.start("plain", [](JobControl&) -> int { throw std::runtime_error("disk full"); });
  const JobOutcome<int> plain = poll_until_done(job);
  CHECK(plain.error_message.id.empty());
  CHECK(plain.error_message.text == "disk full");
}

TEST_CASE("background job: cancel stops a worker that would run forever") {
  BackgroundJob<int> job;
  std::atomic<int> iterations{0};
  job.start("forever", [&](JobControl& c) {
    while (!c.cancelled()) iterations.fetch_add(1);
    return -1;
  });
  while (iterations.load() == 0) std::this_thread::yield();  // it is running
  job.cancel();
  const JobOutcome<int> out = poll_until_done(job);
  CHECK(out.cancelled);
  CHECK_FALSE(out.value);  // a cancelled job's value is dropped
  CHECK(out.error.empty());
}

TEST_CASE("background job: the cancel flag reaches core code through cancel_flag()") {
  BackgroundJob<int> job;
  // Stands for a core function taking `const std::atomic<bool>* cancel`.
  auto core_loop = [](const std::atomic<bool>* cancel) {
    int n = 0;
    while (!cancel->load()) ++n;
    return n;
  };
  job.start("core", [&](JobControl& c) { return core_loop(c.cancel_flag()); });
  job.cancel();
  CHECK(poll_until_done(job).cancelled);
}

TEST_CASE("background job: a newer start cancels and replaces the running job") {
  BackgroundJob<std::string> job;
  job.start("old", [](JobControl& c) {
    while (!c.cancelled()) std::this_thread::yield();
    return std::string("old");
  });
  job.start("new", [](JobControl&) { return std::string("new"); });
  const auto out = poll_until_done(job);
  CHECK(out.key == "new");
  REQUIRE(out.value);
  CHECK(*out.value == "new");
}

TEST_CASE("background job: destroying the slot cancels and joins its worker") {
  std::atomic<bool> returned{false};
  {
    BackgroundJob<int> job;
    job.start("forever", [&](JobControl& c) {
      while (!c.cancelled()) std::this_thread::yield();
      returned = true;
      return 0;
    });
  }
  CHECK(returned.load());
}

TEST_CASE("background job: abandon frees the slot at once from a worker that never checks") {
  // A checkpoint being read does not look at its cancel flag: Cancel and Quit must not wait
  // for it (issue 29, S2). The worker ends on its own later; its result is dropped.
  auto release = std::make_shared<std::promise<void>>();
  std::shared_future<void> gate = release->get_future().share();
  auto finished = std::make_shared<std::atomic<bool>>(false);
  BackgroundJob<std::unique_ptr<int>> job;
  job.start("read", [gate, finished](auto&) {
    gate.wait();  // blocks until released, whatever the cancel flag says
    finished->store(true);
    return std::make_unique<int>(7);
  });
  job.abandon();  // joining here would never return: the gate opens only below
  CHECK_FALSE(job.running());
  CHECK_FALSE(job.poll().has_value());
  // The slot takes a new job at once while the abandoned one still runs.
  job.start("next", [](auto&) { return std::make_unique<int>(8); });
  const auto out = poll_until_done(job);
  REQUIRE(out.value);
  CHECK(**out.value == 8);
  CHECK_FALSE(finished->load());
  release->set_value();
  for (int i = 0; i < 1000 && !finished->load(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  CHECK(finished->load());
}

TEST_CASE("background job: a paused worker waits at its checkpoint until resumed or cancelled") {
  SECTION("cancel wakes a paused worker and checkpoint says stop") {
    BackgroundJob<bool> job;
    std::promise<void> go;
    std::shared_future<void> go_f = go.get_future().share();
    job.start("paused", [go_f](JobControl& c) {
      go_f.wait();
      return c.checkpoint();  // must block while paused, then report the cancel
    });
    job.pause(true);
    CHECK(job.paused());
    go.set_value();
    // Give a broken checkpoint (one that ignores the pause) time to return true.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    CHECK_FALSE(job.finished());
    job.cancel();
    const auto out = poll_until_done(job);
    CHECK(out.cancelled);
  }
  SECTION("resume lets it run to the end") {
    BackgroundJob<int> job;
    std::promise<void> go;
    std::shared_future<void> go_f = go.get_future().share();
    job.start("paused", [go_f](JobControl& c) {
      go_f.wait();
      int steps = 0;
      while (steps < 10 && c.checkpoint()) ++steps;
      return steps;
    });
    job.pause(true);
    go.set_value();
    job.pause(false);
    const auto out = poll_until_done(job);
    REQUIRE(out.value);
    CHECK(*out.value == 10);
  }
  SECTION("wait() resumes a paused job so it can finish") {
    BackgroundJob<int> job;
    job.start("paused", [](JobControl& c) {
      while (!c.checkpoint()) {
      }
      return 7;
    });
    job.pause(true);
    job.wait();
    REQUIRE(job.finished());
    CHECK(*poll_until_done(job).value == 7);
  }
}

TEST_CASE("background job: progress, status and reports reach the panel") {
  struct Loss {
    int epoch;
    double loss;
  };
  BackgroundJob<int, Loss> job;
  std::promise<void> reported, done;
  std::shared_future<void> done_f = done.get_future().share();
  job.start("train", [&reported, done_f](JobChannel<Loss>& c) {
    for (int e = 1; e <= 5; ++e) c.report({e, 1.0 / e});
    c.set_progress(3, 10);
    c.set_status("epoch 5");
    reported.set_value();
    done_f.wait();
    return 5;
  });
  CHECK_FALSE(JobProgress{}.running);
  reported.get_future().wait();
  const JobProgress p = job.progress();
  CHECK(p.running);
  CHECK(p.done == 3);
  CHECK(p.total == 10);
  CHECK(p.fraction() == Approx(0.3));
  CHECK(p.status == "epoch 5");
  const auto r = job.take_report();
  REQUIRE(r);
  CHECK(r->epoch == 5);            // the latest one
  CHECK_FALSE(job.take_report());  // nothing newer
  done.set_value();
  CHECK(*poll_until_done(job).value == 5);
  CHECK(JobProgress{}.fraction() == -1.0);  // unknown total
}

TEST_CASE("background job: headless polling waits for the result, a window keeps frames coming") {
  BackgroundJob<int> job;
  FakeContext headless(true);
  job.start("slow", [](JobControl&) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return 1;
  });
  auto out = job.poll(headless);
  REQUIRE(out);
  CHECK(*out->value == 1);

  FakeContext window(false);
  std::promise<void> go;
  std::shared_future<void> go_f = go.get_future().share();
  job.start("blocked", [go_f](JobControl&) {
    go_f.wait();
    return 2;
  });
  CHECK_FALSE(job.poll(window));  // never blocks with a window
  CHECK(window.frames_requested > 0);
  go.set_value();
  job.wait();
  CHECK(*job.poll(window)->value == 2);

  // A long job can opt out of the headless wait (it reports progress instead).
  std::promise<void> go2;
  std::shared_future<void> go2_f = go2.get_future().share();
  job.start("long", [go2_f](JobControl&) {
    go2_f.wait();
    return 3;
  });
  CHECK_FALSE(job.poll(headless, /*wait_when_headless=*/false));
  go2.set_value();
}

TEST_CASE(
    "background job: a job of steps runs every step, in order, and hands out the last's result") {
  BackgroundJob<int> job;
  auto seen = std::make_shared<std::vector<int>>();
  job.start_steps("count", [seen](JobControl& c) -> std::optional<int> {
    seen->push_back(static_cast<int>(seen->size()));
    c.set_progress(static_cast<int64_t>(seen->size()), 5);
    if (seen->size() < 5) return std::nullopt;
    return 5;
  });
  const JobOutcome<int> out = poll_until_done(job);
  REQUIRE(out.value);
  CHECK(*out.value == 5);
  CHECK(*seen == std::vector<int>{0, 1, 2, 3, 4});
  CHECK_FALSE(jobs_pending());  // the desktop's threads run the steps, never the frames
}

TEST_CASE("background job: a cancelled job of steps gets one more step to end itself") {
  BackgroundJob<int> job;
  auto ended = std::make_shared<std::atomic<bool>>(false);
  auto started = std::make_shared<std::promise<void>>();
  auto once = std::make_shared<std::once_flag>();
  job.start_steps("forever", [ended, started, once](JobControl& c) -> std::optional<int> {
    std::call_once(*once, [&] { started->set_value(); });
    if (!c.cancelled()) return std::nullopt;  // steps until cancelled
    ended->store(true);                       // e.g. a checkpoint written where it stopped
    return -1;
  });
  started->get_future().wait();
  job.cancel();
  const JobOutcome<int> out = poll_until_done(job);
  CHECK(out.cancelled);
  CHECK_FALSE(out.value);  // a cancelled job's value is dropped
  CHECK(ended->load());
}

TEST_CASE("background job: a paused job of steps takes no step until resumed") {
  BackgroundJob<int> job;
  auto steps = std::make_shared<std::atomic<int>>(0);
  auto go = std::make_shared<std::atomic<bool>>(false);
  job.start_steps("paced", [steps, go](JobControl&) -> std::optional<int> {
    while (!go->load()) std::this_thread::yield();  // the first step waits for the test
    if (++*steps < 1000) return std::nullopt;
    return steps->load();
  });
  job.pause(true);
  go->store(true);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const int at_pause = steps->load();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK(steps->load() <= at_pause + 1);  // at most the step running when Pause came
  job.pause(false);
  const JobOutcome<int> out = poll_until_done(job);
  REQUIRE(out.value);
  CHECK(*out.value == 1000);
}
