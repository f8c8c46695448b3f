// The interface every lab panel implements. One panel per file in app/panels/, each
// holding its own small UI-state struct; app/panels/registry.cpp lists them all for the
// menu, dispatch, presets and the headless checks. Panels draw; the core computes.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "app/export/share_messages.hpp"

namespace poslab::app {

class AppContext;  // services the shell offers panels (app_context.hpp)
class Recorder;    // records the lab's view to a video file (widgets/recorder.hpp)

// What "Export numbers" writes for a lab's current state (docs/export.md).
struct LabNumbers {
  std::string json;  // the JSON the lab's cli_args() print ("" = none)
  std::string csv;   // the same numbers as CSV tables (io/labjson/lab_csv.hpp)
  Message why_not;   // when json and csv are empty: why (share_messages.hpp)

  static LabNumbers of(std::string json, std::string csv) {
    LabNumbers n;
    n.json = std::move(json);
    n.csv = std::move(csv);
    return n;
  }
  static LabNumbers none(Message why) {
    LabNumbers n;
    n.why_not = std::move(why);
    return n;
  }
};

// A rectangle in ImGui screen coordinates (pixels at the current UI scale).
struct ViewRect {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  bool empty() const { return x1 <= x0 || y1 <= y0; }
};

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
  // The preset came from the user's own command line: start what it asks to start (the dream
  // lab's train=2). A link, a pasted preset or a restored setting only shows the controls.
  virtual void start_requested_runs() {}
  // The preset the settings keep for the next start, which opens its files unasked: the
  // state less what the user has not said yes to (a file a link or pasted preset named that
  // still waits for approval keeps the last approved one; a run a link asked to start).
  virtual std::string saved_preset() const { return preset(); }
  // The interface language is now `lang` ("en" or "zh"): from the settings at start, from
  // --language, or from View > Language. A lab with its own text language follows it.
  virtual void set_interface_language(const std::string& lang) { (void)lang; }
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
  // ---- sharing (issue 16; the shell's Share popup and File menu use these) ----
  // The poslab-cli arguments (after "poslab-cli") that print this state's numbers; empty
  // if no command does, and cli_note() says why (a share_messages.hpp message: the Share
  // popup shows it in the user's language).
  virtual std::vector<std::string> cli_args() const { return {}; }
  virtual Message cli_note() const { return share_message("share.why.no_command"); }
  // The numbers the view shows, as the CLI's JSON and as CSV.
  virtual LabNumbers numbers() const {
    return LabNumbers::none(share_message("share.why.no_numbers"));
  }
  // Where the lab's main view was drawn in the last frame; empty = the whole lab area.
  virtual ViewRect main_view_rect() const { return {}; }
  // Smallest width, in unscaled pixels, the lab lays itself out in. When the window is
  // narrower the shell gives the lab this much room and a scroll bar across, instead of
  // letting its views shrink to slivers. Down, the lab takes the window's height: its panes
  // scroll by themselves (one scroll bar each, never a page scrolling around them).
  virtual float min_width() const { return 980.0f; }
};

// Every panel, in menu order (app/panels/registry.cpp).
std::vector<std::unique_ptr<Panel>> make_panels();

}  // namespace poslab::app
