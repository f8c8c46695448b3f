// The length lab's training worker (see lm_train_job.hpp).
#include "app/widgets/lm_train_job.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <utility>

#include "core/common/errors.hpp"
#include "io/training/lm_train_run.hpp"

namespace poslab::app {

std::string lm_own_path(const std::string& models_dir, const lm::LmOwnSpec& spec) {
  return (std::filesystem::path(models_dir) / (lm::lm_own_stem(spec) + ".safetensors")).string();
}

void lm_train_job_start(LmTrainJob& job, const lm::LmOwnSpec& spec, const std::string& models_dir,
                        std::vector<std::string> text) {
  lm::lm_own_validate(spec);
  const std::string path = lm_own_path(models_dir, spec);
  // What the steps share: the run (set up by the first step), its curves, its clock.
  struct Run {
    std::unique_ptr<io::LmTrainRun> run;
    LmTrainCurves c;
    std::chrono::steady_clock::time_point t0;
    double since() const {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
  };
  auto shared = std::make_shared<Run>();
  job.start_steps(
      path,
      [spec, models_dir, path, text = std::move(text),
       shared](LmTrainJob::Control& control) -> std::optional<LmTrainCurves> {
        Run& st = *shared;
        LmTrainCurves& c = st.c;
        if (!st.run) {
          namespace fs = std::filesystem;
          std::error_code ec;
          fs::create_directories(models_dir, ec);
          if (ec || !fs::is_directory(models_dir, ec))
            throw FileError(models_dir, "cannot create this folder for your models (" +
                                            ec.message() +
                                            "); make it writable or set XDG_DATA_HOME");
          io::LmTrainRequest r;
          r.output = path;
          r.config = lm::lm_own_config(spec);
          r.settings = lm::lm_own_settings(spec);
          r.text = text;
          r.resume = fs::exists(path, ec);
          r.command = lm::lm_own_command(spec, path) + (r.resume ? " --resume" : "") +
                      "  (the length lab's \"Train your own\")";
          st.run = std::make_unique<io::LmTrainRun>(std::move(r));
          const io::LmTrainRun& run = *st.run;
          c.spec = spec;
          c.path = path;
          c.first = c.done = run.optimiser().step;
          c.total = spec.steps;
          // A resumed run's earlier curve rows (step, training, validation first in each row).
          for (size_t at = run.csv().find('\n');
               at != std::string::npos && at + 1 < run.csv().size();
               at = run.csv().find('\n', at + 1)) {
            long long step = 0;
            double train = 0, valid = 0;
            if (std::sscanf(run.csv().c_str() + at + 1, "%lld,%lf,%lf", &step, &train, &valid) ==
                3) {
              c.row_step.push_back(static_cast<double>(step));
              c.row_train.push_back(train);
              c.row_valid.push_back(valid);
            }
          }
          st.t0 = std::chrono::steady_clock::now();
          control.set_progress(c.done, c.total);
          return std::nullopt;
        }
        // Cancel stops at a step and keeps that step's checkpoint.
        const bool left = !control.cancelled() &&
                          st.run->step(
                              [&](const lm::LmTrainRow& row) {  // after its checkpoint was written
                                c.row_step.push_back(static_cast<double>(row.step));
                                c.row_train.push_back(row.train_bpb);
                                c.row_valid.push_back(row.valid_bpb);
                                c.seconds = st.since();
                                control.report(c);
                              },
                              [&](int64_t step, double bits) {
                                c.step.push_back(static_cast<double>(step));
                                c.step_bits.push_back(bits);
                                c.done = step;
                                c.seconds = st.since();
                                control.set_progress(step, c.total);
                                control.report(c);
                              });
        if (left) return std::nullopt;
        if (control.cancelled()) st.run->stopped();
        c.finished = c.done >= c.total;
        c.seconds = st.since();
        control.report(c);  // a cancelled job's outcome carries no value: the report does
        return c;
      });
}

}  // namespace poslab::app
