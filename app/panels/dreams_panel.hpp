// The dream lab's panel class, shared by the files that define its members (the lab was one
// 734-line file): dreams_panel.cpp (presets, sharing, checks and the frame),
// dreams_session.cpp (the model and the session on their workers), dreams_controls.cpp (the
// foldable column, the dataset file, restart here, the timeline bar) and dreams_train.cpp
// (the training section). The UI state and the drawing pieces: dreams_views.hpp.
#pragma once
#include <string>
#include <vector>

#include "app/panel.hpp"
#include "app/panels/dreams_views.hpp"
#include "core/wm/dream_lab.hpp"
#include "io/labjson/lab_json.hpp"

namespace poslab::app {

class DreamsPanel final : public Panel {
 public:
  const char* id() const override { return wm::kDreamLabName; }
  const char* title() const override { return "Dream lab (world model)"; }
  std::string preset() const override { return wm::dreams_to_preset(ui_.lab); }
  void load_preset(const std::string& text) override {
    ui_.lab = wm::dreams_from_preset(text);
    ui_.path_edit = ui_.lab.file;
    ui_.train_autostart = false;  // a link shows the training view; a run takes a click
  }
  void trust_named_files() override {
    ui_.confirmed_file = FileApproval::of(ui_.lab.file);
    ui_.confirmed_model = FileApproval::of(ui_.lab.model);
  }
  void start_requested_runs() override { ui_.train_autostart = ui_.lab.train == 2; }
  // What the next start opens unasked: only approved files, and never a run by itself.
  std::string saved_preset() const override;

  // ---- sharing: `poslab-cli wm dream --preset` prints these numbers (dreams_panel.cpp)
  std::vector<std::string> cli_args() const override;
  Message cli_note() const override;
  LabNumbers numbers() const override;

  bool animating() const override {
    return (ui_.lab.playing && !ui_.runner.timeline().finished) || ui_.train.running();
  }
  void cancel_jobs() override {
    ui_.model_job.abandon();  // a checkpoint being read does not look at a cancel flag
    ui_.runner.cancel();
    ui_.compare_job.cancel();
    ui_.train.cancel();
    ui_.recorder.cancel();
  }
  Recorder* recorder() override { return &ui_.recorder; }
  void release_gl() override {
    ui_.real_view.release_gl();
    ui_.dream_view.release_gl();
    ui_.attention_tex.release();
  }
  ViewRect main_view_rect() const override { return view_rect_; }

  // ---- checks and the frame (dreams_panel.cpp) -----------------------------------------
  std::vector<std::string> check_presets() const override;
  std::string check_state() const override;
  void draw(AppContext& ctx) override;

 private:
  bool awaiting_approval() const {
    return ui_.lab.start == wm::DreamSource::file && !ui_.confirmed_file.approves(ui_.lab.file);
  }
  io::Json session_json() const;
  void record_steps(AppContext& ctx);

  // ---- model and session (dreams_session.cpp) ------------------------------------------
  void ensure_model(AppContext& ctx);
  void poll_model(AppContext& ctx);
  void ensure_file_info(AppContext& ctx);
  void ensure_session(AppContext& ctx);
  void start_restart(int at);
  void start_steps(int n);
  void poll_runner(AppContext& ctx, bool block);
  void restarted(int at, bool helm_flew);
  void restart_at(AppContext& ctx, int frame);

  // ---- controls (dreams_controls.cpp) and training (dreams_train.cpp) ------------------
  void controls(AppContext& ctx);
  void model_controls(AppContext& ctx);
  void file_controls(AppContext& ctx);
  void timeline_bar(AppContext& ctx);
  void train_section(AppContext& ctx);

  DreamsUi ui_;
  ViewRect view_rect_;
};

}  // namespace poslab::app
