// The one-line view of a background job that every panel draws the same way: a progress
// bar (or "working..." when the total is unknown), elapsed time, the worker's status line
// and Pause/Resume/Cancel buttons. It returns what the user clicked; the panel acts on it.
#pragma once
#include "app/widgets/background_job.hpp"

namespace poslab::app {

enum class JobAction { none, cancel, pause, resume };

// The words job_status draws; a panel passes them in the user's language (from its own
// interface file). The buttons' IDs do not depend on them.
struct JobStatusTexts {
  const char* paused = "paused";       // bar overlay while paused (unknown total)
  const char* working = "working...";  // bar overlay while running (unknown total)
  const char* pause = "Pause";
  const char* resume = "Resume";
  const char* cancel = "Cancel";
};

// Draws nothing when the job is not running. `pausable`: offer Pause/Resume (long jobs).
JobAction job_status(const JobProgress& p, bool pausable, float width,
                     const JobStatusTexts& texts = {});

// Draws job_status and applies the click to the job (cancel, pause or resume).
template <class Result, class Report>
JobAction job_status(BackgroundJob<Result, Report>& job, bool pausable, float width,
                     const JobStatusTexts& texts = {}) {
  const JobAction a = job_status(job.progress(), pausable, width, texts);
  if (a == JobAction::cancel) job.cancel();
  if (a == JobAction::pause) job.pause(true);
  if (a == JobAction::resume) job.pause(false);
  return a;
}

}  // namespace poslab::app
