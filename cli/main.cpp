// poslab-cli: every number the GUI shows, as JSON, scriptable without a display. Links the
// core only. Exit codes: 0 success, 2 invalid input (one line on stderr naming the value).
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/commands.hpp"
#include "core/common/errors.hpp"

int main(int argc, char** argv) {
  CLI::App app{"PosLab command line: position-encoding computations as JSON"};
  app.require_subcommand(1);
  poslab::cli::add_rope_command(app);
  poslab::cli::add_sim_command(app);
  poslab::cli::add_collect_command(app);
  poslab::cli::add_inspect_command(app);
  poslab::cli::add_quiz_command(app);
  poslab::cli::add_kv_command(app);
  poslab::cli::add_attention_command(app);
  poslab::cli::add_wm_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "error: " << e.what() << " (see --help)\n";
    return 2;
  } catch (const poslab::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
