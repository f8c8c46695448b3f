// Core's structured messages (core/common/message.hpp) and the app's tr_format: every id
// core can emit (and every message of the Share popup, app/export/share_messages.hpp) has an
// English and a Chinese interface text with the same placeholders,
// the English interface text equals core's template (so the GUI in English shows exactly
// what the CLI prints), real notes render identically in English and really in Chinese,
// and an unknown id falls back to core's English.
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <optional>
#include <regex>
#include <set>

#include "app/export/share_messages.hpp"
#include "app/widgets/tr_format.hpp"
#include "core/attention/attention_lab.hpp"
#include "core/attention/attention_messages.hpp"
#include "core/attention/demos.hpp"
#include "core/common/errors.hpp"
#include "core/common/preset_messages.hpp"
#include "core/kv/kv_messages.hpp"
#include "core/kv/kv_session.hpp"
#include "core/labs.hpp"
#include "core/rope/rope.hpp"
#include "core/rope/rope_messages.hpp"
#include "io/i18n/ui_strings.hpp"
#include "tests/app/keys_used.hpp"

using namespace poslab;
using poslab::io::UiStrings;

using poslab::test::kI18nDir;

namespace {

std::vector<std::string> all_ids() {
  std::vector<std::string> ids = attention_message_ids();
  for (const auto& id : kv_message_ids()) ids.push_back(id);
  for (const auto& id : preset_message_ids()) ids.push_back(id);
  for (const auto& id : rope_message_ids()) ids.push_back(id);
  for (const auto& id : app::share_message_ids()) ids.push_back(id);  // the Share popup's
  return ids;
}

std::set<std::string> placeholders(const std::string& text) {
  static const std::regex re(R"(\{([a-zA-Z_][a-zA-Z0-9_]*)\})");
  std::set<std::string> names;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator();
       ++it)
    names.insert((*it)[1]);
  return names;
}

std::string render(const UiStrings& s, const Message& m) {
  return app::tr_format(
      [&s](const char* key) -> const char* { return s.has(key) ? s.get(key).c_str() : nullptr; },
      m);
}

bool has_cjk(const std::string& utf8) {
  // U+4E00..U+9FFF are 3-byte sequences starting with 0xE4..0xE9.
  return std::any_of(utf8.begin(), utf8.end(), [](char c) {
    const auto b = static_cast<unsigned char>(c);
    return b >= 0xE4 && b <= 0xE9;
  });
}

// The InputError `run` throws; a failed check (and nothing) when it throws none.
std::optional<InputError> thrown_input_error(const std::function<void()>& run) {
  try {
    run();
  } catch (const InputError& e) {
    return e;
  }
  FAIL_CHECK("accepted");
  return std::nullopt;
}

// A catalog message as the app shows it: English exactly core's text, Chinese with every
// placeholder filled. Returns the Chinese rendering for the caller's own checks.
std::string check_both_languages(const UiStrings& en, const UiStrings& zh, const Message& m) {
  INFO("id " << m.id << ": " << m.text);
  CHECK(render(en, m) == m.text);
  const std::string z = render(zh, m);
  CHECK(has_cjk(z));
  CHECK(placeholders(z).empty());
  return z;
}

// Real notes and refusals, built by the core functions that the labs call.
std::vector<Message> real_messages() {
  std::vector<Message> out;
  AttentionParams p;  // RoPE
  const AttentionInput in = attention_sequence_input({"the", "cat", "sat", "on", "the", "mat"});
  out.push_back(attention_shift_demo(p, in, 3).note_message);
  out.push_back(attention_compare_encodings(p, AttentionEncoding::learned, in).note_message);
  out.push_back(attention_permutation_demo(p, in, attention_reversal(6)).note_message);
  AttentionParams rope_bug = p;
  rope_bug.rope_mixed = true;
  out.push_back(attention_shift_demo(rope_bug, in, 2.5).note_message);
  AttentionParams learned = p;
  learned.encoding = AttentionEncoding::learned;
  learned.table_length = 8;
  const ExtrapolationDemo d = attention_extrapolation_demo(learned, 12);
  CHECK(!d.result.note_message.empty());  // positions 8..11 have no learned row
  out.push_back(d.note_message);
  out.push_back(d.result.note_message);
  AttentionParams t5 = p;
  t5.encoding = AttentionEncoding::t5;
  out.push_back(attention_extrapolation_demo(t5, 20).note_message);
  AttentionParams swin = p;
  swin.encoding = AttentionEncoding::swin;
  out.push_back(attention_extrapolation_demo(swin, 20).note_message);

  KvLabSettings kv;
  kv.model.positions = KvPositions::learned;
  kv.model.context = 8;
  kv.steps = 1;
  const KvSession ses = kv_session_start(kv);
  out.push_back(kv_session_append_refusal(ses));
  KvLabSettings bad = kv;
  bad.drop_steps = 4;  // 2 x 4 >= C = 8
  try {
    kv_lab_validate(bad);
    FAIL("drop_steps = 4 with C = 8 was accepted");
  } catch (const InputError& e) {
    out.push_back(e.message());
    CHECK(e.message().text == e.what());
  }
  KvLabSettings stitch = kv;
  stitch.scenario = KvScenario::stitch;
  CHECK_THROWS_AS(kv_lab_validate(stitch), InputError);
  try {
    kv_lab_validate(stitch);
  } catch (const InputError& e) {
    out.push_back(e.message());
  }
  return out;
}

}  // namespace

TEST_CASE("every message id core can emit has an English and a Chinese text") {
  const std::vector<std::string> ids = all_ids();
  CHECK(ids.size() > 25);
  CHECK(std::set<std::string>(ids.begin(), ids.end()).size() == ids.size());  // no id twice
  const UiStrings en = UiStrings::load(kI18nDir, "en");
  std::vector<std::string> zh_keys = UiStrings::file_keys(kI18nDir + "/zh/attention.toml");
  for (const auto& k : UiStrings::file_keys(kI18nDir + "/zh/kv.toml")) zh_keys.push_back(k);
  for (const auto& k : UiStrings::file_keys(kI18nDir + "/zh/errors.toml")) zh_keys.push_back(k);
  for (const auto& k : UiStrings::file_keys(kI18nDir + "/zh/wheels.toml")) zh_keys.push_back(k);
  for (const auto& k : UiStrings::file_keys(kI18nDir + "/zh/share.toml")) zh_keys.push_back(k);
  const UiStrings zh = UiStrings::load(kI18nDir, "zh");
  for (const auto& id : ids) {
    INFO("id " << id);
    CHECK(en.has(id));
    CHECK(std::find(zh_keys.begin(), zh_keys.end(), id) != zh_keys.end());
    // Same arguments in both languages, and the Chinese is Chinese.
    CHECK(placeholders(zh.get(id)) == placeholders(en.get(id)));
    CHECK(has_cjk(zh.get(id)));
  }
}

TEST_CASE("the English interface text of every core message equals core's template") {
  const UiStrings en = UiStrings::load(kI18nDir, "en");
  auto check = [&en](std::span<const MessageTemplate> catalog) {
    for (const auto& t : catalog) {
      INFO("id " << t.id);
      CHECK(en.get(t.id) == std::string(t.english));
    }
  };
  check(kAttentionMessages);
  check(kKvMessages);
  check(kPresetMessages);
  check(kRopeMessages);
  check(app::kShareMessages);
  for (const auto& name : attention_encoding_names()) {
    INFO("encoding " << name);
    const Message m = attention_encoding_message(attention_encoding_from_name(name));
    CHECK(en.get(m.id) == m.text);
    CHECK(m.text == attention_encoding_label(attention_encoding_from_name(name)));
  }
}

TEST_CASE("real notes render through tr_format as core's English and as Chinese") {
  const UiStrings en = UiStrings::load(kI18nDir, "en");
  const UiStrings zh = UiStrings::load(kI18nDir, "zh");
  const std::vector<Message> ms = real_messages();
  CHECK(ms.size() == 11);
  for (const auto& m : ms) {
    INFO("id " << m.id << ": " << m.text);
    REQUIRE(!m.id.empty());
    CHECK(render(en, m) == m.text);  // the GUI in English shows what the CLI prints
    const std::string z = render(zh, m);
    CHECK(z != m.text);
    CHECK(has_cjk(z));
    CHECK(placeholders(z).empty());  // every argument substituted
    for (const auto& a : m.args)     // plain arguments (numbers, identifiers) appear as given
      if (!a.message) CHECK(z.find(a.value) != std::string::npos);
  }
  // Nested messages are translated too: the shift note's reason and the compared labels.
  const std::string shift = render(zh, ms[0]);
  CHECK(shift.find("相对位置编码") != std::string::npos);
  CHECK(shift.find("relative") == std::string::npos);
  const std::string enc = render(zh, ms[1]);
  CHECK(enc.find(zh.get("attention.enc.learned")) != std::string::npos);
  CHECK(enc.find(zh.get("attention.enc.rope")) != std::string::npos);
}

TEST_CASE("an unknown message id shows core's English, nested or not, and never throws") {
  const UiStrings zh = UiStrings::load(kI18nDir, "zh");
  const Message unknown{"attention.note.not_a_key", {message_arg("k", "3")}, "core's English 3"};
  CHECK(render(zh, unknown) == "core's English 3");
  CHECK(app::tr_format([](const char* key) { return key; }, unknown) == "core's English 3");
  // A known outer message with an unknown nested one: the nested part stays English.
  const Message outer =
      message_make(kAttentionMessages, "attention.note.orderings", {message_arg("diff", unknown)});
  CHECK(outer.text ==
        "second ordering, rows/columns matched by token, minus first: core's English 3");
  const std::string z = render(zh, outer);
  CHECK(has_cjk(z));
  CHECK(z.find("core's English 3") != std::string::npos);
  CHECK(render(zh, message_plain("plain text")) == "plain text");
  CHECK_THROWS_AS(message_make(kKvMessages, "kv.message.nope"), std::logic_error);
}

TEST_CASE("placeholders: named arguments are replaced, other braces are kept") {
  auto args = [](std::string_view n) -> std::optional<std::string> {
    if (n == "a") return "1";
    if (n == "b") return "{a}";  // substituted text is not scanned again
    return std::nullopt;
  };
  CHECK(message_substitute("{a}+{b} = {c} {} {{a}} {a", args) == "1+{a} = {c} {} {1} {a");
  CHECK(message_substitute("", args).empty());
  CHECK(message_substitute("no braces", args) == "no braces");
}

TEST_CASE("preset errors a user can type carry their message: English as before, and Chinese") {
  const UiStrings en = UiStrings::load(kI18nDir, "en");
  const UiStrings zh = UiStrings::load(kI18nDir, "zh");
  // Each bad preset and a piece of the English that CLI and GUI tests have always matched.
  const std::vector<std::pair<std::string, std::string>> cases{
      {"attention?tokens=99999", "tokens = 99999: must be a number in ["},
      {"attention?tokens=1.5", "tokens = 1.5: must be a whole number"},
      {"attention?tokens=abc", "tokens = \"abc\": not a finite number"},
      {"attention?causal=maybe", "causal = \"maybe\": expected 0 or 1"},
      {"attention?enc=fourier", "enc = \"fourier\": expected one of"},
      {"attention?T=4", "preset for lab \"attention\": unknown key \"T\""},
      {"attention?tokens=4&tokens=5", "preset key \"tokens\" appears twice"},
      {"attention?tokens", "preset field \"tokens\": expected key=value"},
      {"attention?text=a%2", "bad percent escape near \"%2\""},
      {"?tokens=4", "missing lab name before '?'"},
      {"Attention?tokens=4", "lab name \"Attention\" has characters other than a-z, 0-9, _"},
      {"nolab?tokens=4", "unknown lab \"nolab\" (known: "},
  };
  std::set<std::string> ids;
  for (const auto& [preset, english] : cases) {
    INFO("preset " << preset);
    const auto e = thrown_input_error([&] { lab_preset_canonical(preset); });
    if (!e) continue;
    const Message m = e->message();
    CHECK_THAT(std::string(e->what()), Catch::Contains(english));
    CHECK(m.text == e->what());
    REQUIRE(!m.id.empty());
    ids.insert(m.id);
    const std::string z = check_both_languages(en, zh, m);
    for (const auto& a : m.args) CHECK(z.find(a.value) != std::string::npos);
  }
  CHECK(ids.size() >= 10);
  // The reader's own check: a preset for another lab.
  try {
    attention_from_preset("kv?steps=1");
    FAIL("accepted");
  } catch (const InputError& e) {
    CHECK(e.message().id == "errors.preset.wrong_lab");
    CHECK(std::string(e.what()) == "preset is for lab \"kv\", not \"attention\"");
  }
}

TEST_CASE("attention errors a user can reach carry their message, in English and Chinese") {
  const UiStrings en = UiStrings::load(kI18nDir, "en");
  const UiStrings zh = UiStrings::load(kI18nDir, "zh");
  std::vector<std::pair<AttentionLabSettings, std::string>> cases;
  AttentionLabSettings s;
  s.compare = AttentionCompare::orderings;
  s.sentence = "我 喜欢 你";
  s.sentence_b = "你 喜欢";
  cases.push_back({s, "orderings: the two sentences have 3 and 2 tokens"});
  s.sentence_b = "你 喜欢 他";
  cases.push_back({s, "orderings: token \"我\" of the first sentence is missing from the second"});
  s = AttentionLabSettings{};
  s.sentence = "   ";
  cases.push_back({s, "sentence is empty"});
  s.sentence = "a \x80 b";
  cases.push_back({s, "sentence: invalid UTF-8 at byte 2 (stray continuation byte;"});
  s = AttentionLabSettings{};
  s.head = 7;
  cases.push_back({s, "head = 7: must be in [0, heads - 1 = 3]"});
  s = AttentionLabSettings{};
  s.params.head_dim = 15;
  cases.push_back({s, "head_dim = 15: must be even (RoPE rotates pairs)"});
  for (const auto& [settings, english] : cases) {
    INFO("expected " << english);
    const auto e = thrown_input_error([&] { attention_lab_compute(settings, nullptr, {}); });
    if (!e) continue;
    const Message m = e->message();
    CHECK_THAT(std::string(e->what()), Catch::Contains(english));
    REQUIRE(m.id.rfind("attention.error.", 0) == 0);
    const std::string z = check_both_languages(en, zh, m);
    CHECK(z.find("stray") == std::string::npos);  // the nested reason is translated too
  }
}

TEST_CASE("KV session errors (the panel's background job) carry their message in both languages") {
  const UiStrings en = UiStrings::load(kI18nDir, "en");
  const UiStrings zh = UiStrings::load(kI18nDir, "zh");
  KvLabSettings s;
  s.model.positions = KvPositions::rope;
  s.scenario = KvScenario::stitch;
  s.method = KvMethod::kshift;
  s.steps = 1;
  KvSession ses = kv_session_start(s);
  kv_session_stitch(ses);
  std::vector<std::pair<std::function<void()>, std::string>> cases{
      {[&] { kv_session_stitch(ses); },
       "stitch: the caches are already stitched; restart to stitch again"},
      {[&] { kv_session_slide(ses); }, "slide: only the sliding scenario has a window (this is "},
      {[&] { kv_session_method(ses, KvMethod::legacy); }, "method legacy is not run in scenario "},
      {[&] { lab_preset_canonical("kv?width=20&heads=4"); },
       "width = 20, heads = 4: width must split into heads of even size"},
  };
  for (const auto& [run, english] : cases) {
    INFO("expected " << english);
    const auto e = thrown_input_error(run);
    if (!e) continue;
    const Message m = e->message();
    CHECK_THAT(std::string(e->what()), Catch::Contains(english));
    REQUIRE(m.id.rfind("kv.message.", 0) == 0);
    const std::string z = check_both_languages(en, zh, m);
    for (const auto& a : m.args) CHECK(z.find(a.value) != std::string::npos);
  }
}

TEST_CASE(
    "RoPE validation errors (a rope preset, the wheels) carry their message in both languages") {
  const UiStrings en = UiStrings::load(kI18nDir, "en");
  const UiStrings zh = UiStrings::load(kI18nDir, "zh");
  RopeParams beta;
  beta.yarn_beta_fast = 1.5;
  beta.yarn_beta_slow = 32;
  RopeParams llama;
  llama.llama3_low_freq_factor = 4;
  llama.llama3_high_freq_factor = 1;
  // What poslab-cli rope printed before the catalog, byte for byte.
  std::vector<std::pair<std::function<void()>, std::string>> cases{
      {[] { lab_preset_canonical("rope?dim=3"); },
       "head_dim = 3: must be even (dims rotate in pairs)"},
      {[&] { rope_validate(beta); },
       "yarn_beta_fast = 1.5 must be greater than yarn_beta_slow = 32"},
      {[] { lab_preset_canonical("rope?beta_fast=2&beta_slow=2"); },
       "yarn_beta_fast = 2 must be greater than yarn_beta_slow = 2"},
      {[&] { rope_validate(llama); },
       "llama3_high_freq_factor must be greater than llama3_low_freq_factor"},
  };
  std::set<std::string> ids;
  for (const auto& [run, english] : cases) {
    INFO("expected " << english);
    const auto e = thrown_input_error(run);
    if (!e) continue;
    const Message m = e->message();
    CHECK(std::string(e->what()) == english);
    REQUIRE(m.id.rfind("wheels.message.", 0) == 0);
    ids.insert(m.id);
    const std::string z = check_both_languages(en, zh, m);
    for (const auto& a : m.args) CHECK(z.find(a.value) != std::string::npos);
  }
  CHECK(ids.size() == std::size(kRopeMessages));  // every entry is reachable
}
