// The recorder shared by the arena and the dream lab (see recorder.hpp). Frames travel from
// the shell's capture (main thread) to the encoding worker through a bounded queue; the
// worker owns the WebpAnimWriter, so cancelling simply drops it and nothing is written.
#include "app/widgets/recorder.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <mutex>

#include "app/export/export_files.hpp"
#include "app/widgets.hpp"
#include "app/widgets/desktop_only.hpp"
#include "app/widgets/fit_width.hpp"
#include "app/widgets/job_status.hpp"
#include "app/widgets/tr_args.hpp"
#include "app/widgets/tr_format.hpp"
#include "app/widgets/tr_label.hpp"
#include "core/common/errors.hpp"
#include "io/video/webp_anim.hpp"

namespace poslab::app {

namespace {
// The worker's status line while it writes the file: a key of recorder.toml, translated
// when drawn (the worker has no AppContext).
constexpr const char* kWritingStatus = "recorder.writing";

// `v` with `digits` decimals ("1.25"), for the placeholders of recorder.toml.
std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}
}  // namespace

// Shared by the main thread (producer) and the worker (consumer).
struct Recorder::Session {
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<io::RgbaImage> queue;
  size_t queued_bytes = 0;
  bool closed = false;  // no more frames will come
  int captured = 0;     // frames pushed so far
  int width = 0, height = 0;
};

Recorder::Recorder(std::string name) : name_(std::move(name)) {}

Recorder::~Recorder() {
  cancel();
}

int Recorder::frames() const {
  if (!session_) return 0;
  std::lock_guard lock(session_->mutex);
  return session_->captured;
}

void Recorder::start(const RecordOptions& options) {
  if (busy()) throw InputError("a recording is still running; stop it first");
  // Opening the writer checks the options and that the folder takes files, before any frame.
  auto writer = std::make_shared<io::WebpAnimWriter>(
      options.path, io::WebpAnimOptions{options.fps, options.lossless, 80.0f, options.max_width});
  opt_ = options;
  std::snprintf(path_buf_.data(), path_buf_.size(), "%s", options.path.c_str());
  auto session = std::make_shared<Session>();
  session_ = session;
  const int fps = options.fps;
  job_.start(options.path, [session, writer, fps](auto& control) {
    RecordingOutcome out;
    double busy_s = 0;
    std::vector<uint8_t> previous;  // the last frame's pixels: counts the frames that differ
    for (;;) {
      io::RgbaImage frame;
      int captured = 0;
      {
        std::unique_lock lock(session->mutex);
        session->changed.wait_for(lock, std::chrono::milliseconds(50), [&] {
          return !session->queue.empty() || session->closed || control.cancelled();
        });
        if (control.cancelled()) return out;  // the writer goes with us: no file
        if (session->queue.empty()) {
          if (session->closed) break;
          continue;
        }
        frame = std::move(session->queue.front());
        session->queue.pop_front();
        session->queued_bytes -= frame.rgba.size();
        captured = session->captured;
      }
      session->changed.notify_all();  // room for the producer
      const auto t0 = std::chrono::steady_clock::now();
      if (frame.rgba != previous) ++out.distinct_frames;
      writer->add(frame);
      previous = std::move(frame.rgba);
      busy_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      control.set_progress(writer->frames(), captured);
    }
    control.set_status(kWritingStatus);  // a key: draw() shows it in the user's language
    const auto t0 = std::chrono::steady_clock::now();
    out.bytes = writer->finish();  // throws FileError naming the path; nothing is written then
    busy_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    out.frames = writer->frames();
    out.width = writer->canvas_width();
    out.height = writer->canvas_height();
    out.video_seconds = static_cast<double>(out.frames) / fps;
    out.encode_seconds = busy_s;
    return out;
  });
  recording_ = true;
  pending_ = false;
  wall_accum_ = 0;
  message_.clear();
  message_is_error_ = false;
}

void Recorder::stop() {
  recording_ = false;
  pending_ = false;
  // The queue closes at the next poll(): the capture asked for this frame is still to come.
}

void Recorder::close_queue() {
  if (!session_ || recording_) return;
  {
    std::lock_guard lock(session_->mutex);
    if (session_->closed) return;
    session_->closed = true;
  }
  session_->changed.notify_all();
}

void Recorder::cancel() {
  recording_ = false;
  pending_ = false;
  job_.cancel();
  if (session_) session_->changed.notify_all();
}

double Recorder::pace(AppContext& ctx, double wall_dt) {
  if (!recording_) return wall_dt;
  ctx.request_frames(2);
  if (pending_) return 0;
  const double interval = 1.0 / opt_.fps;
  auto full = [&] {
    std::lock_guard lock(session_->mutex);
    return session_->queued_bytes >= kMaxQueuedBytes;
  };
  if (ctx.headless()) {
    // No user waits: let the encoder catch up instead of growing the queue.
    std::unique_lock lock(session_->mutex);
    session_->changed.wait(
        lock, [&] { return session_->queued_bytes < kMaxQueuedBytes || job_.finished(); });
  } else {
    wall_accum_ += wall_dt;
    if (wall_accum_ < interval || full()) return 0;
    wall_accum_ = std::min(wall_accum_ - interval, interval);  // a slow machine drops backlog
  }
  pending_ = true;
  return interval;
}

void Recorder::capture(AppContext& ctx, ImVec2 min, ImVec2 max) {
  if (!recording_ || !pending_) return;
  pending_ = false;
  std::shared_ptr<Session> s = session_;
  ctx.capture_rect(min.x, min.y, max.x, max.y, [s](int w, int h, std::vector<uint8_t> rgba) {
    {
      std::lock_guard lock(s->mutex);
      if (s->closed) return;
      s->queued_bytes += rgba.size();
      s->queue.push_back(io::RgbaImage{w, h, std::move(rgba)});
      ++s->captured;
      s->width = w;
      s->height = h;
    }
    s->changed.notify_all();
  });
  if (frames() + 1 >= kMaxFrames) {
    stop();
    message_ = tr_args(ctx.tr("recorder.cap_reached"),
                       {{"frames", std::to_string(kMaxFrames)},
                        {"seconds", std::to_string(kMaxFrames / opt_.fps)}});
    message_is_error_ = true;
  }
}

std::optional<RecordingOutcome> Recorder::poll(AppContext& ctx) {
  close_queue();
  if (!job_.running()) return std::nullopt;
  auto out = job_.poll(ctx, false);
  if (!out) return std::nullopt;
  recording_ = false;
  pending_ = false;
  if (out->cancelled) {
    message_ = ctx.tr("recorder.cancelled");
    message_is_error_ = false;
    return std::nullopt;
  }
  if (!out->error.empty()) {
    message_ = out->error;
    message_is_error_ = true;
    ctx.report_error(ctx.tr("recorder.where"), out->error);
    return std::nullopt;
  }
  RecordingOutcome r = *out->value;
  r.path = opt_.path;
  const double pixels = static_cast<double>(r.width) * r.height * std::max(1, r.frames);
  if (pixels > 0) bytes_per_pixel_frame_[opt_.lossless ? 1 : 0] = r.bytes / pixels;
  message_ = tr_args(ctx.tr("recorder.wrote"), {{"path", r.path},
                                                {"mb", fixed(r.bytes / 1e6, 2)},
                                                {"frames", std::to_string(r.frames)},
                                                {"seconds", fixed(r.video_seconds, 1)},
                                                {"width", std::to_string(r.width)},
                                                {"height", std::to_string(r.height)},
                                                {"encode_seconds", fixed(r.encode_seconds, 1)}});
  message_is_error_ = false;
  return r;
}

void Recorder::try_start(AppContext& ctx) {
  RecordOptions o = opt_;
  o.path = path_buf_.data();
  // The default folder is ours to create; any other folder must exist already.
  const std::string default_dir = ctx.data_dir() + "/recordings";
  std::error_code ec;
  if (std::filesystem::path(o.path).parent_path() == default_dir)
    std::filesystem::create_directories(default_dir, ec);
  if (const Message why = export_path_problem(o.path); !why.empty()) {
    message_ = o.path + ": " + tr_format(ctx, why);
    message_is_error_ = true;
    ctx.report_error(ctx.tr("recorder.where"), message_);
    return;
  }
  try {
    start(o);
  } catch (const Error& e) {
    message_ = e.what();
    message_is_error_ = true;
    ctx.report_error(ctx.tr("recorder.where"), e.what());
  }
}

RecordingOutcome Recorder::finish_blocking() {
  stop();
  close_queue();
  job_.wait();
  auto out = job_.poll();
  if (!out) throw Error(opt_.path + ": the recording was never started");
  if (out->cancelled) throw Error(opt_.path + ": the recording was cancelled; nothing was written");
  if (!out->error.empty()) throw Error(out->error);
  RecordingOutcome r = *out->value;
  r.path = opt_.path;
  return r;
}

double Recorder::estimate_bytes() const {
  if (!session_) return 0;
  std::lock_guard lock(session_->mutex);
  double w = session_->width, h = session_->height;
  if (w > opt_.max_width) {
    h = h * opt_.max_width / w;
    w = opt_.max_width;
  }
  return w * h * session_->captured * bytes_per_pixel_frame_[opt_.lossless ? 1 : 0];
}

void Recorder::draw(AppContext& ctx) {
  if (desktop_only(ctx, "desktop_only.recording")) return;
  poll(ctx);
  const float scale = ctx.ui_scale();
  if (path_buf_[0] == 0) {
    const std::string p = ctx.data_dir() + "/recordings/" + name_ + ".webp";
    std::snprintf(path_buf_.data(), path_buf_.size(), "%s", p.c_str());
  }
  ImGui::PushID("recorder");
  ImGui::BeginDisabled(busy());
  ImGui::SetNextItemWidth(-1);
  ImGui::InputText("##file", path_buf_.data(), path_buf_.size());
  tooltip(ctx.tr("recorder.file_tip"));
  const auto fps_label = [&](int f) {
    return tr_args(ctx.tr("recorder.fps_value"), {{"fps", std::to_string(f)}});
  };
  ImGui::SetNextItemWidth(combo_fit_width({fps_label(kFpsChoices.back()).c_str()}, 70 * scale));
  if (ImGui::BeginCombo("##fps", fps_label(opt_.fps).c_str())) {
    for (int f : kFpsChoices)
      if (ImGui::Selectable(fps_label(f).c_str(), f == opt_.fps)) opt_.fps = f;
    ImGui::EndCombo();
  }
  tooltip(ctx.tr("recorder.fps_tip"));
  ImGui::SameLine();
  int lossless = opt_.lossless ? 1 : 0;
  const char* qualities[] = {ctx.tr("recorder.lossy"), ctx.tr("recorder.lossless")};
  ImGui::SetNextItemWidth(combo_fit_width({qualities[0], qualities[1]}, 90 * scale));
  if (ImGui::Combo("##quality", &lossless, qualities, 2)) opt_.lossless = lossless == 1;
  tooltip(ctx.tr("recorder.quality_tip"));
  ImGui::SameLine();
  int width_choice = opt_.max_width <= 480 ? 0 : opt_.max_width <= 640 ? 1 : 2;
  const std::string width_texts[] = {tr_args(ctx.tr("recorder.width_value"), {{"px", "480"}}),
                                     tr_args(ctx.tr("recorder.width_value"), {{"px", "640"}}),
                                     tr_args(ctx.tr("recorder.width_value"), {{"px", "960"}})};
  const char* widths[] = {width_texts[0].c_str(), width_texts[1].c_str(), width_texts[2].c_str()};
  ImGui::SetNextItemWidth(combo_fit_width({widths[0], widths[1], widths[2]}, 80 * scale));
  if (ImGui::Combo("##width", &width_choice, widths, 3))
    opt_.max_width = width_choice == 0 ? 480 : width_choice == 1 ? 640 : 960;
  tooltip(ctx.tr("recorder.width_tip"));
  ImGui::EndDisabled();

  if (!busy()) {
    if (ImGui::Button(tr_id(ctx, "recorder.record").c_str())) {
      std::error_code ec;
      if (std::filesystem::exists(path_buf_.data(), ec))
        confirm_overwrite_ = true;
      else
        try_start(ctx);
    }
    tooltip(ctx.tr("recorder.record_tip"));
  } else if (recording_) {
    if (ImGui::Button(tr_id(ctx, "recorder.stop").c_str())) stop();
    tooltip(ctx.tr("recorder.stop_tip"));
    ImGui::SameLine();
    if (ImGui::Button(tr_id(ctx, "recorder.discard").c_str())) cancel();
    tooltip(ctx.tr("recorder.discard_tip"));
    const int n = frames();
    ImGui::TextUnformatted(
        tr_args(ctx.tr("recorder.count"), {{"frames", std::to_string(n)},
                                           {"seconds", fixed(static_cast<double>(n) / opt_.fps, 1)},
                                           {"mb", fixed(estimate_bytes() / 1e6, 1)}})
            .c_str());
    tooltip(ctx.tr("recorder.count_tip"));
  }
  if (job_.running()) {
    JobProgress p = job_.progress();
    if (p.status == kWritingStatus) p.status = ctx.tr(kWritingStatus);
    JobStatusTexts words;
    words.working = ctx.tr("recorder.job_working");
    words.cancel = ctx.tr("recorder.job_cancel");
    if (job_status(p, false, -1, words) == JobAction::cancel) cancel();
  }
  if (confirm_overwrite_) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.75f, 0.3f, 1));
    text_wrapped("%s: %s", path_buf_.data(), ctx.tr("recorder.exists"));
    ImGui::PopStyleColor();
    if (ImGui::Button(tr_id(ctx, "recorder.replace").c_str())) {
      confirm_overwrite_ = false;
      try_start(ctx);
    }
    ImGui::SameLine();
    if (ImGui::Button(tr_id(ctx, "recorder.keep").c_str())) confirm_overwrite_ = false;
  }
  if (!message_.empty()) {
    if (message_is_error_) ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.45f, 1));
    text_wrapped("%s", message_.c_str());
    if (message_is_error_) ImGui::PopStyleColor();
  }
  ImGui::PopID();
}

}  // namespace poslab::app
