// poslab-cli: every number the GUI shows, as JSON, scriptable without a display. Links the
// core only. Exit codes: 0 success, 2 invalid input (one line on stderr naming the value).
// No exception leaves main: whatever escapes a command becomes one line and exit code 2.
#include <CLI/CLI.hpp>
#include <iostream>
#include <new>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/json_util.hpp"
#include "core/common/errors.hpp"
#include "core/common/excerpt.hpp"

int main(int argc, char** argv) {
  CLI::App app{"PosLab command line: position-encoding computations as JSON"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "poslab-cli " POSLAB_VERSION);
  poslab::cli::add_rope_command(app);
  poslab::cli::add_sim_command(app);
  poslab::cli::add_collect_command(app);
  poslab::cli::add_inspect_command(app);
  poslab::cli::add_quiz_command(app);
  poslab::cli::add_kv_command(app);
  poslab::cli::add_attention_command(app);
  poslab::cli::add_length_command(app);
  poslab::cli::add_wm_command(app);
  poslab::cli::add_wm_train_lab_command(*app.get_subcommand("wm"));
  poslab::cli::add_lm_command(app);
  try {
    // The first word that is not an option names the subcommand; an unknown one is an error
    // naming it, even beside --help (which would otherwise print the main help and exit 0).
    for (int i = 1; i < argc; ++i) {
      const std::string word = argv[i];
      if (word.starts_with("-")) continue;
      bool known = false;
      std::string names;
      for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
        known = known || sub->get_name() == word;
        names += (names.empty() ? "" : ", ") + sub->get_name();
      }
      if (!known)
        throw poslab::InputError("unknown subcommand \"" + word + "\" (subcommands: " + names +
                                 ")");
      break;
    }
    // Every subcommand's --seed is a 64-bit seed: CLI11 would turn -1 into 2^64-1 and
    // saturate 2^64, so the text is checked strictly first (issue 10, class 7).
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg == "--seed" && i + 1 < argc)
        poslab::cli::parse_u64(argv[i + 1], "--seed");
      else if (arg.rfind("--seed=", 0) == 0)
        poslab::cli::parse_u64(arg.substr(7), "--seed");
    }
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "error: " << poslab::terminal_text(e.what()) << " (see --help)\n";
    return 2;
  } catch (const poslab::Error& e) {
    std::cerr << "error: " << poslab::terminal_text(e.what()) << "\n";
    return 2;
  } catch (const nlohmann::json::type_error& e) {
    // 316 = a string that is not UTF-8 on its way to stdout.
    std::cerr << "error: "
              << (e.id == 316 ? "the input holds text that is not valid UTF-8 "
                                "(save it as UTF-8): "
                              : "unexpected JSON value: ")
              << poslab::terminal_text(e.what()) << "\n";
    return 2;
  } catch (const nlohmann::json::exception& e) {
    std::cerr << "error: cannot read the JSON input: " << poslab::terminal_text(e.what()) << "\n";
    return 2;
  } catch (const std::bad_alloc&) {
    std::cerr << "error: out of memory (is an input or a requested size far too large?)\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "error: " << poslab::terminal_text(e.what()) << "\n";
    return 2;
  }
  return 0;
}
