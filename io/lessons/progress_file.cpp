// Progress as JSON (nlohmann-json), written atomically; corrupt files are kept aside.
#include "io/lessons/progress_file.hpp"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>

#include "core/common/atomic_file.hpp"
#include "core/common/errors.hpp"

namespace poslab {
namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace {

Json bools(const std::vector<bool>& v) {
  Json a = Json::array();
  for (bool b : v) a.push_back(b);
  return a;
}

std::vector<bool> read_bools(const Json& j) {
  std::vector<bool> out;
  for (const auto& b : j) out.push_back(b.get<bool>());
  return out;
}

std::string timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &tm);
  return buf;
}

}  // namespace

std::string progress_path(const std::string& data_dir) {
  return (fs::path(data_dir) / "progress.json").string();
}

std::string progress_to_json(const Progress& p) {
  Json j;
  j["format"] = kProgressFormat;
  j["version"] = kProgressVersion;
  j["language"] = p.language;
  Json lessons = Json::object();
  for (const auto& [id, lp] : p.lessons) {
    Json l;
    l["completed"] = lp.completed;
    l["checklist"] = bools(lp.checklist);
    Json answers = Json::object();
    for (const auto& [qid, a] : lp.answers) {
      Json r;
      r["attempts"] = a.attempts;
      r["answered"] = a.answered;
      r["correct"] = a.correct;
      if (!a.chosen.empty()) r["chosen"] = a.chosen;
      r["number"] = a.number;
      r["seed"] = a.seed;
      if (!a.text.empty()) r["text"] = a.text;
      if (!a.ticks.empty()) r["ticks"] = bools(a.ticks);
      answers[qid] = std::move(r);
    }
    l["answers"] = std::move(answers);
    lessons[id] = std::move(l);
  }
  j["lessons"] = std::move(lessons);
  return j.dump(1) + "\n";
}

Progress progress_from_json(const std::string& text, const std::string& source) {
  Json j;
  try {
    j = Json::parse(text);
  } catch (const Json::parse_error& e) {
    throw FileError(source, "not valid JSON (error at byte " + std::to_string(e.byte) + ")");
  }
  std::string field = "(top level)";
  try {
    if (!j.is_object() || j.value("format", "") != std::string(kProgressFormat))
      throw FileError(source, std::string("not a PosLab progress file (\"format\" is not \"") +
                                  kProgressFormat + "\")");
    const int version = j.at("version").get<int>();
    if (version != kProgressVersion)
      throw FileError(source, "progress version " + std::to_string(version) +
                                  " is not supported (this build reads " +
                                  std::to_string(kProgressVersion) + ")");
    Progress p;
    field = "language";
    p.language = j.value("language", "en");
    if (p.language != "en" && p.language != "zh") p.language = "en";
    for (const auto& [id, l] : j.at("lessons").items()) {
      field = "lessons." + id;
      LessonProgress lp;
      lp.completed = l.at("completed").get<bool>();
      lp.checklist = read_bools(l.at("checklist"));
      for (const auto& [qid, r] : l.at("answers").items()) {
        field = "lessons." + id + ".answers." + qid;
        AnswerRecord a;
        a.attempts = r.at("attempts").get<int>();
        a.answered = r.at("answered").get<bool>();
        a.correct = r.at("correct").get<bool>();
        if (r.contains("chosen")) a.chosen = r.at("chosen").get<std::vector<int>>();
        a.number = r.at("number").get<double>();
        a.seed = r.at("seed").get<std::uint64_t>();
        if (r.contains("text")) a.text = r.at("text").get<std::string>();
        if (r.contains("ticks")) a.ticks = read_bools(r.at("ticks"));
        if (a.attempts < 0) throw FileError(source, field + ".attempts is negative");
        lp.answers[qid] = std::move(a);
      }
      p.lessons[id] = std::move(lp);
    }
    return p;
  } catch (const Json::exception& e) {
    // nlohmann's text starts with "[json.exception.type_error.302] ": keep only the reason.
    std::string why = e.what();
    if (const size_t close = why.find("] "); close != std::string::npos) why.erase(0, close + 2);
    throw FileError(source, field + ": " + why);
  }
}

ProgressLoad load_progress(const std::string& path) {
  ProgressLoad out;
  std::error_code ec;
  if (!fs::exists(path, ec)) return out;
  try {
    out.progress = progress_from_json(read_file(path), path);
    return out;
  } catch (const FileError& e) {
    // Keep the unreadable file for the user (and for us to learn from), start afresh.
    std::string backup = path + ".corrupt-" + timestamp();
    for (int n = 2; fs::exists(backup, ec); ++n)
      backup = path + ".corrupt-" + timestamp() + "-" + std::to_string(n);
    if (std::rename(path.c_str(), backup.c_str()) != 0)
      throw FileError(path, std::string("is corrupt and could not be moved aside: ") +
                                std::strerror(errno) + " (move or delete it by hand)");
    out.backup_path = backup;
    out.notice = "Your lesson progress could not be read (" + std::string(e.what()) +
                 "). It was kept as " + backup + "; progress starts fresh.";
    return out;
  }
}

void save_progress(const std::string& path, const Progress& progress) {
  write_file_atomically(path, progress_to_json(progress));
}

}  // namespace poslab
