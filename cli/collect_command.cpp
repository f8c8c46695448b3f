// `poslab-cli collect`: many Boost and Broadside episodes into one HDF5 dataset, on several
// threads. Episode e has seed --seed + e (so `sim --seed` replays any of them) and is
// written in episode order, whatever thread ran it. Crash safety (bnb_dataset.hpp): the
// output path changes only once, when the run ends; until then committed snapshots appear
// as <output>.partial, so kill -9 loses no committed episode and never a previous file.
// Ctrl-C stops after the episodes in flight and leaves a valid file.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>
#include <system_error>
#include <thread>

#include "cli/bnb_input.hpp"
#include "cli/commands.hpp"
#include "cli/json_util.hpp"
#include "core/bnb/bnb_episode.hpp"
#include "core/common/errors.hpp"
#include "core/nn/parallel.hpp"
#include "io/dataset/bnb_dataset.hpp"

namespace poslab::cli {
namespace {

std::atomic<bool> g_interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the signal handler needs a lock-free flag");

extern "C" void on_sigint(int) {
  g_interrupted.store(true);
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C kills at once
}

struct CollectArgs {
  int64_t episodes = 0;
  int threads = 0;
  std::string output;
  std::string seed = "0";  // text: parsed strictly (no -1 -> 2^64-1)
  std::string policy = "noisy";
  std::string teams = "random";
  int max_steps = bnb::kMaxEpisodeSteps;
  int compression = 1;
  bool force = false;
  bool quiet = false;
  bool progress = false;
  bool commit_log = false;
};

// A simple bar: [#####.....] 45% 450/1000 episodes  123456 steps  98.7k steps/s  12.3 s
void draw_progress(int64_t done, int64_t total, int64_t steps, double seconds) {
  constexpr int width = 30;
  const double frac = total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
  const int filled = static_cast<int>(frac * width);
  std::string bar(static_cast<size_t>(filled), '#');
  bar.append(static_cast<size_t>(width - filled), '.');
  std::fprintf(stderr, "\r[%s] %3d%% %lld/%lld episodes  %lld steps  %.1fk steps/s  %.1f s   ",
               bar.c_str(), static_cast<int>(frac * 100.0), static_cast<long long>(done),
               static_cast<long long>(total), static_cast<long long>(steps),
               seconds > 0 ? static_cast<double>(steps) / seconds / 1000.0 : 0.0, seconds);
  std::fflush(stderr);
}

void run(const CollectArgs& a) {
  if (a.episodes < 1 || a.episodes > 100000000)
    throw InputError("--episodes = " + std::to_string(a.episodes) + ": must be in [1, 1e8]");
  const uint64_t seed0 = parse_u64(a.seed, "--seed");
  if (seed0 > UINT64_MAX - static_cast<uint64_t>(a.episodes - 1))
    throw InputError("--seed = " + a.seed + " with --episodes = " + std::to_string(a.episodes) +
                     ": the last episode's seed would pass 18446744073709551615");
  const int threads = nn::resolve_threads(nn::threads_validate(a.threads, "--threads"));
  bnb::EpisodeSpec base;
  const auto [t0, t1] = parse_team_sizes(a.teams);
  base.config.team0_size = t0;
  base.config.team1_size = t1;
  base.config.max_steps = a.max_steps;
  bnb::validate(base.config);
  base.policy = bnb::policy_from_name(a.policy);
  if (base.policy == bnb::PolicyKind::replay)
    throw InputError("--policy replay is not for collect (use expert, noisy or random)");

  io::BnbWriterOptions opts;
  opts.compression = a.compression;
  opts.overwrite = a.force;
  opts.policy = a.policy;
  io::BnbDatasetWriter writer(a.output, opts);

  // Workers take episode indices from `next` and park finished episodes in `done`; this
  // thread writes them in order. At most `window` finished episodes wait in memory.
  std::atomic<int64_t> next{0};
  std::mutex mu;
  std::condition_variable cv;
  std::map<int64_t, bnb::EpisodeRecord> done;
  int running = threads;
  std::exception_ptr failure;
  int64_t written = 0;
  const size_t window = static_cast<size_t>(4) * static_cast<size_t>(threads);

  g_interrupted.store(false);
  const auto old_handler = std::signal(SIGINT, on_sigint);
  const auto t_start = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  for (int i = 0; i < threads; ++i) {
    // A thread that cannot start stops the run: the started ones finish their episode.
    const auto start_failed = [&](const std::system_error& err) {
      std::lock_guard lock(mu);
      running -= threads - i;
      if (!failure)
        failure = std::make_exception_ptr(Error("could not start thread " + std::to_string(i + 1) +
                                                " of " + std::to_string(threads) + " (" +
                                                err.what() + "); use fewer --threads"));
      g_interrupted.store(true);
      cv.notify_all();
    };
    try {
      pool.emplace_back([&] {
        try {
          for (;;) {
            {
              std::unique_lock lock(mu);
              cv.wait(lock,
                      [&] { return done.size() < window || g_interrupted.load() || failure; });
            }
            if (g_interrupted.load()) break;
            const int64_t e = next.fetch_add(1);
            if (e >= a.episodes) break;
            bnb::EpisodeSpec spec = base;
            spec.seed = seed0 + static_cast<uint64_t>(e);
            bnb::EpisodeRecord rec = bnb::run_episode(spec);
            std::lock_guard lock(mu);
            done.emplace(e, std::move(rec));
            cv.notify_all();
          }
        } catch (...) {
          std::lock_guard lock(mu);
          if (!failure) failure = std::current_exception();
          g_interrupted.store(true);
        }
        std::lock_guard lock(mu);
        --running;
        cv.notify_all();
      });
    } catch (const std::system_error& err) {
      start_failed(err);
      break;
    }
  }

  const bool show = !a.quiet && (a.progress || isatty(STDERR_FILENO));
  int64_t steps = 0;
  auto last_draw = t_start;
  const auto seconds_since_start = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  };
  std::exception_ptr write_failure;
  int64_t logged_commit = 0;
  for (;;) {
    bnb::EpisodeRecord rec;
    {
      std::unique_lock lock(mu);
      cv.wait_for(lock, std::chrono::milliseconds(200),
                  [&] { return done.count(written) > 0 || running == 0; });
      auto it = done.find(written);
      if (it == done.end()) {
        if (running == 0) break;
      } else {
        rec = std::move(it->second);
        done.erase(it);
        cv.notify_all();
      }
    }
    if (rec.rows > 0) {
      try {
        writer.append(rec);
      } catch (...) {  // stop the workers, then report
        write_failure = std::current_exception();
        g_interrupted.store(true);
        cv.notify_all();
        break;
      }
      ++written;
      steps += rec.rows - 1;
      if (a.commit_log && writer.committed_episodes() != logged_commit) {
        logged_commit = writer.committed_episodes();
        std::fprintf(stderr, "committed %lld episodes to %s\n",
                     static_cast<long long>(logged_commit), io::bnb_partial_path(a.output).c_str());
        std::fflush(stderr);
      }
    }
    const auto now = std::chrono::steady_clock::now();
    if (show && now - last_draw > std::chrono::milliseconds(200)) {
      draw_progress(written, a.episodes, steps, seconds_since_start());
      last_draw = now;
    }
  }
  for (auto& t : pool) t.join();
  const bool interrupted = g_interrupted.load() && !failure && !write_failure;
  std::signal(SIGINT, old_handler);
  if (write_failure) {
    try {
      std::rethrow_exception(write_failure);
    } catch (const FileError& e) {
      const int64_t kept = writer.committed_episodes();
      throw FileError(e.path(), std::string(e.what()).substr(e.path().size() + 2) +
                                    "; any previous " + a.output + " is untouched" +
                                    (kept > 0 ? ", and " + std::to_string(kept) +
                                                    " committed episodes are in " +
                                                    io::bnb_partial_path(a.output)
                                              : std::string()));
    }
  }
  if (failure) std::rethrow_exception(failure);
  writer.close();
  if (a.commit_log) {
    std::fprintf(stderr, "committed %lld episodes to %s\n", static_cast<long long>(written),
                 a.output.c_str());
    std::fflush(stderr);
  }
  const double seconds = seconds_since_start();
  if (show) {
    draw_progress(written, a.episodes, steps, seconds);
    std::fprintf(stderr, "\n");
  }
  if (interrupted && !a.quiet)
    std::fprintf(stderr, "interrupted: %lld of %lld episodes written; %s is valid\n",
                 static_cast<long long>(written), static_cast<long long>(a.episodes),
                 a.output.c_str());
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(a.output, ec);
  Json out;
  out["output"] = a.output;
  out["episodes"] = written;
  out["episodes_requested"] = a.episodes;
  out["rows"] = writer.rows();
  out["agent_steps"] = steps;
  out["threads"] = threads;
  out["seconds"] = seconds;
  out["agent_steps_per_second"] = seconds > 0 ? static_cast<double>(steps) / seconds : 0.0;
  out["file_bytes"] = ec ? 0 : static_cast<int64_t>(bytes);
  out["bytes_per_million_steps"] =
      steps > 0 && !ec ? static_cast<double>(bytes) * 1e6 / static_cast<double>(steps) : 0.0;
  out["interrupted"] = interrupted;
  std::cout << dump_json(out, 2) << "\n";
}

}  // namespace

void add_collect_command(CLI::App& app) {
  auto a = std::make_shared<CollectArgs>();
  auto* cmd =
      app.add_subcommand("collect", "Collect Boost and Broadside episodes into an HDF5 dataset");
  cmd->add_option("--episodes", a->episodes, "number of episodes")->required();
  cmd->add_option("--output,-o", a->output, "output .h5 file")->required();
  cmd->add_option("--threads", a->threads, "worker threads (0 = one per core)");
  cmd->add_option("--seed", a->seed, "seed of episode 0, 0..2^64-1; episode e uses seed + e");
  cmd->add_option("--policy", a->policy,
                  "noisy (default, sticky noise with team skills) | expert | random");
  cmd->add_option("--teams", a->teams, "random (1v1..4v4, 25 % each) or NvM, e.g. 4v4");
  cmd->add_option("--max-steps", a->max_steps, "truncation, agent steps (default 512)");
  cmd->add_option("--compression", a->compression,
                  "deflate level 0..9 with shuffle (0 = none; default 1)");
  cmd->add_flag("--force", a->force,
                "replace the output file (only once the new one is complete) and discard a "
                "stale <output>.partial");
  cmd->add_flag("--quiet", a->quiet, "no progress bar");
  cmd->add_flag("--progress", a->progress,
                "show the progress bar even when stderr is not a terminal");
  cmd->add_flag("--commit-log", a->commit_log,
                "print a line on stderr after each committed snapshot (for kill tests)");
  cmd->callback([a] { run(*a); });
}

}  // namespace poslab::cli
