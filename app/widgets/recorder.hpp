// Recording what a lab shows to an animated WebP (io/video): start/stop, a frame-rate
// choice, a frame counter with a size estimate, and a worker thread that encodes while the
// lab keeps running (a progress bar and Cancel). The arena and the dream lab own one each.
//
// Pacing: video frame k shows the lab at playback time k / fps, whatever the machine does.
// While recording, the panel asks pace() each rendered frame for the time step to advance
// its content: 1/fps when a video frame is due (wall time says so, or at once in headless
// runs), else 0. A slow machine (or an encoder that falls behind) slows the lab down while
// it records; the video stays the same. The panel then calls capture() with the view's
// screen rectangle once its content has advanced; the shell reads those pixels after the
// frame is rendered (AppContext::capture_rect).
#pragma once
#include <imgui.h>

#include <array>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "app/app_context.hpp"
#include "app/widgets/background_job.hpp"

namespace poslab::app {

struct RecordOptions {
  std::string path;       // output file, .webp
  int fps = 25;           // video frames per second (25 = one per agent step at 1x)
  bool lossless = false;  // exact pixels (several times larger) or lossy, quality 80
  int max_width = 640;    // wider views are scaled down to this many px (480, 640 or 960)
};

// What a finished recording wrote.
struct RecordingOutcome {
  std::string path;
  size_t bytes = 0;
  int frames = 0;             // frames captured (libwebp merges equal neighbours in the file)
  int distinct_frames = 0;    // frames that differ from the one before (1: a still picture)
  int width = 0, height = 0;  // px
  double video_seconds = 0;   // frames / fps
  double encode_seconds = 0;  // worker time spent encoding and writing
};

class Recorder {
 public:
  static constexpr int kMaxFrames = 3000;  // 2 minutes at 25 fps: a cap on memory and file size
  static constexpr size_t kMaxQueuedBytes = size_t{256} << 20;  // frames waiting for the encoder
  static constexpr std::array<int, 4> kFpsChoices{10, 15, 25, 30};

  // `name`: the default file name ("arena" -> <data dir>/recordings/arena.webp).
  explicit Recorder(std::string name);
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  // Starts a recording; throws poslab::Error naming the path (folder missing or not writable,
  // bad options). An existing file is replaced only at the end, and only by a complete one.
  void start(const RecordOptions& options);
  void stop();    // no more frames; the worker finishes and writes the file
  void cancel();  // while recording or encoding: nothing is written
  bool recording() const { return recording_; }
  bool busy() const { return recording_ || job_.running(); }  // recording or still encoding
  int frames() const;  // frames captured by the current (or last) recording

  // Pacing and capture (see the file comment). pace() returns `wall_dt` when not recording.
  double pace(AppContext& ctx, double wall_dt);
  bool frame_due() const { return recording_ && pending_; }
  void capture(AppContext& ctx, ImVec2 min, ImVec2 max);

  // Once per frame (draw() does it): hands frames over, takes the worker's outcome (errors go
  // to the banner). Returns the outcome of a recording that just finished writing.
  std::optional<RecordingOutcome> poll(AppContext& ctx);
  // Headless runs: after stop(), waits for the file; the outcome, or throws poslab::Error.
  RecordingOutcome finish_blocking();

  // The controls: file, fps, lossy/lossless, width, Record/Stop, counter, progress, result.
  void draw(AppContext& ctx);

 private:
  struct Session;
  void close_queue();
  void try_start(AppContext& ctx);  // start() with the path field; errors to the banner
  double estimate_bytes() const;

  std::string name_;
  RecordOptions opt_;
  std::shared_ptr<Session> session_;
  BackgroundJob<RecordingOutcome> job_;
  bool recording_ = false;
  bool pending_ = false;                            // a video frame is due and not yet captured
  double wall_accum_ = 0;                           // wall time towards the next video frame, s
  double bytes_per_pixel_frame_[2] = {0.015, 0.1};  // size estimate (lossy, lossless); learned
  std::string message_;  // last result or error, shown under the controls
  bool message_is_error_ = false;
  std::array<char, 1024> path_buf_{};
  bool confirm_overwrite_ = false;
};

}  // namespace poslab::app
