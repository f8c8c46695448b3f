// The interface every lab panel implements. One panel per file in app/panels/, each
// holding its own small UI-state struct; app/panels/registry.cpp lists them all for the
// menu, dispatch, presets and the headless checks. Panels draw; the core computes.
#pragma once
#include <memory>
#include <string>
#include <vector>

namespace poslab::app {

class AppContext;  // services the shell offers panels (app_context.hpp)
class Recorder;    // records the lab's view to a video file (widgets/recorder.hpp)

class Panel {
 public:
  virtual ~Panel() = default;
  // Preset lab name, also the --panel name on the command line: "rope", "attention", ...
  virtual const char* id() const = 0;
  // Title in the Labs menu and on the window.
  virtual const char* title() const = 0;
  // Draw the window's contents (the shell has already called ImGui::Begin). Recompute in
  // core only when an input changed. Throwing poslab::Error is fine: the shell catches it
  // and shows it as a banner; the panel should keep its last good result.
  virtual void draw(AppContext& ctx) = 0;
  // The lab's whole state as a preset string, and back (throws poslab::InputError).
  virtual std::string preset() const = 0;
  virtual void load_preset(const std::string& text) = 0;
  // The preset just loaded came from the user directly (command line, their own saved
  // settings): files it names may be opened without asking. Presets from elsewhere (pasted,
  // lesson links) name files the panel must show and let the user approve first.
  virtual void trust_named_files() {}
  // True while the panel animates (the shell then keeps rendering instead of sleeping).
  virtual bool animating() const { return false; }
  // Presets the headless check runs (defaults are always run): extremes of every range.
  virtual std::vector<std::string> check_presets() const { return {}; }
  // After a few frames of a check preset: empty if the panel's state is consistent,
  // else what is wrong (e.g. "dial count 32 != head_dim/2 = 64").
  virtual std::string check_state() const { return {}; }
  // Free GL objects while the context is still alive (called before shutdown).
  virtual void release_gl() {}
  // Ask every background computation to stop soon (Quit); must not block. The shell exits
  // within a second after saving, whether or not the workers have returned.
  virtual void cancel_jobs() {}
  // The lab's video recorder, if it can record (the arena, the dream lab): --record uses it.
  virtual Recorder* recorder() { return nullptr; }
  // Smallest area, in unscaled pixels, the lab lays itself out in. When the window is
  // smaller (a laptop at UI scale 2, a 1024x700 window) the shell gives the lab this much
  // room and scrollbars, instead of letting its views shrink to slivers.
  virtual float min_width() const { return 980.0f; }
  virtual float min_height() const { return 560.0f; }
};

// Every panel, in menu order (app/panels/registry.cpp).
std::vector<std::unique_ptr<Panel>> make_panels();

}  // namespace poslab::app
