// Safetensors checkpoints: a round trip keeps every bit, the bytes follow the published
// format (checked by decoding by hand here), and every kind of damage (truncation, an
// oversized or garbled header, wrong shape or dtype, overlaps, unknown or missing tensors,
// random byte flips) is a FileError naming the file, never a crash.
#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/common/errors.hpp"
#include "core/common/excerpt.hpp"
#include "core/common/random.hpp"
#include "io/checkpoint/safetensors.hpp"
#include "io/checkpoint/wm_checkpoint.hpp"

using namespace poslab;
using namespace poslab::io;

namespace {

TensorLayout small_layout() {
  return {{"embed.weight", {3, 4}, 0}, {"head.bias", {5}, 12}, {"scale", {1}, 17}};
}
std::vector<float> small_values() {
  std::vector<float> v(18);
  SeededStream s(7, "checkpoint-test", 0);
  for (auto& x : v) x = static_cast<float>(s.normal());
  v[3] = -0.0f;
  v[4] = 1e-39f;  // a denormal survives too
  return v;
}

// Builds a file from a header JSON text and a data section (for hand-made damage).
std::string make_file(const std::string& header, size_t data_bytes) {
  std::string out(8, '\0');
  const uint64_t n = header.size();
  for (int i = 0; i < 8; ++i)
    out[static_cast<size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xff);
  return out + header + std::string(data_bytes, '\x01');
}

void require_error(const std::string& bytes, const std::string& fragment) {
  INFO("expected an error containing: " << fragment);
  try {
    SafetensorsFile f(bytes, "bad.safetensors");
    std::vector<float> buf(18);
    f.load(small_layout(), buf);
    FAIL("no error");
  } catch (const FileError& e) {
    INFO(e.what());
    CHECK(std::string(e.what()).find("bad.safetensors") == 0);
    CHECK(std::string(e.what()).find(fragment) != std::string::npos);
  }
}

}  // namespace

TEST_CASE("safetensors round trip keeps every bit and the metadata", "[checkpoint]") {
  const auto values = small_values();
  const TensorMetadata meta{{"format_version", "1"}, {"config", "{\"E\":64}"}, {"step", "12"}};
  const auto path =
      (std::filesystem::temp_directory_path() / "poslab_ckpt_roundtrip.safetensors").string();
  safetensors_save(path, small_layout(), values, meta);
  const auto f = SafetensorsFile::open(path);
  std::vector<float> back(18, 99.0f);
  f.load(small_layout(), back);
  CHECK(std::memcmp(back.data(), values.data(), 18 * 4) == 0);
  CHECK(f.metadata() == meta);
  CHECK(f.meta("step") == "12");
  CHECK_THROWS_AS(f.meta("missing"), FileError);
  std::filesystem::remove(path);
}

TEST_CASE("safetensors bytes follow the format, decoded by hand", "[checkpoint]") {
  const auto values = small_values();
  const std::string bytes = safetensors_bytes(small_layout(), values, {{"a", "b"}});
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i)
    n = (n << 8) | static_cast<unsigned char>(bytes[static_cast<size_t>(i)]);
  REQUIRE(8 + n + 18 * 4 == bytes.size());
  CHECK((8 + n) % 8 == 0);
  const auto h = nlohmann::json::parse(bytes.substr(8, n));
  CHECK(h["__metadata__"]["a"] == "b");
  CHECK(h["embed.weight"]["dtype"] == "F32");
  CHECK(h["embed.weight"]["shape"] == nlohmann::json::array({3, 4}));
  CHECK(h["head.bias"]["data_offsets"] == nlohmann::json::array({48, 68}));
  float x = 0;
  std::memcpy(&x, bytes.data() + 8 + n + 48, 4);  // head.bias[0] = values[12]
  CHECK(x == values[12]);
}

TEST_CASE("safetensors rejects damaged files with an error naming the problem", "[checkpoint]") {
  const auto good = safetensors_bytes(small_layout(), small_values(), {{"k", "v"}});
  SECTION("truncated") {
    require_error(good.substr(0, 5), "truncated");
    require_error(good.substr(0, good.size() - 4), "outside");
    require_error(good.substr(0, 20), "header length");
  }
  SECTION("oversized header length") {
    std::string b = good;
    b[6] = '\x7f';
    require_error(b, "header length");
    std::string all_ff(16, '\xff');
    require_error(all_ff, "header length");
  }
  SECTION("bad JSON") {
    std::string b = good;
    b[8] = '[';
    b[9] = '{';
    require_error(b, "JSON");
    require_error(make_file("[1, 2]", 0), "not an object");
    require_error(make_file("{\"__metadata__\": {\"a\": 1}}", 0), "not a string");
  }
  SECTION("wrong shape for the model") {
    TensorLayout other = small_layout();
    other[0].shape = {4, 3};
    const auto b = safetensors_bytes(other, small_values(), {});
    require_error(b, "embed.weight' has shape [4, 3], this model needs [3, 4]");
  }
  SECTION("wrong dtype") {
    require_error(
        make_file(R"({"scale": {"dtype": "BF16", "shape": [1], "data_offsets": [0, 2]}})", 2),
        "dtype BF16");
  }
  SECTION("shape and offsets disagree, negative or fractional sizes, huge sizes") {
    require_error(
        make_file(R"({"scale": {"dtype": "F32", "shape": [2], "data_offsets": [0, 4]}})", 4),
        "needs 8 bytes");
    require_error(
        make_file(R"({"scale": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}})", 4),
        "non-negative");
    require_error(
        make_file(R"({"scale": {"dtype": "F32", "shape": [1.5], "data_offsets": [0, 4]}})", 4),
        "non-negative");
    require_error(make_file(R"({"scale": {"dtype": "F32", "shape": [4294967296, 4294967296],
                                 "data_offsets": [0, 0]}})",
                            4),
                  "exceeds the file");
    require_error(
        make_file(R"({"scale": {"dtype": "F32", "shape": [1], "data_offsets": [0, 99999999999]}})",
                  4),
        "outside");
  }
  SECTION("overlap, gap and trailing bytes") {
    require_error(make_file(R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},
                                "b": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}})",
                            4),
                  "overlaps");
    require_error(make_file(R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}})", 8),
                  "gap");
    require_error(make_file(R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}})", 8),
                  "trailing");
  }
  SECTION("unknown and missing tensors") {
    TensorLayout more = small_layout();
    more.push_back({"extra", {1}, 0});
    require_error(safetensors_bytes(more, small_values(), {}), "unknown tensor 'extra'");
    TensorLayout fewer = small_layout();
    fewer.pop_back();
    require_error(safetensors_bytes(fewer, small_values(), {}), "lacks tensor 'scale'");
  }
}

TEST_CASE("optional tensors load when present and are not required", "[checkpoint]") {
  const auto values = small_values();
  TensorLayout with_opt = small_layout();
  with_opt.push_back({"opt.m", {2}, 0});  // offsets into the flat buffer below
  std::vector<float> flat(values);
  flat.push_back(5.0f);
  flat.push_back(6.0f);
  with_opt.back().offset = 18;
  const auto f = SafetensorsFile(safetensors_bytes(with_opt, flat, {}), "x");
  std::vector<float> model(18), opt(2, 0.0f);
  f.load(small_layout(), model, {{"opt.m", {2}, 0}}, opt);
  CHECK(opt[0] == 5.0f);
  CHECK(opt[1] == 6.0f);
  const auto g = SafetensorsFile(safetensors_bytes(small_layout(), values, {}), "y");
  std::vector<float> opt2(2, 1.0f);
  g.load(small_layout(), model, {{"opt.m", {2}, 0}}, opt2);
  CHECK(opt2[0] == 1.0f);
}

TEST_CASE("safetensors header fuzz: random damage never crashes", "[checkpoint][fuzz]") {
  const auto good = safetensors_bytes(small_layout(), small_values(), {{"k", "v"}});
  SeededStream s(11, "checkpoint-fuzz", 0);
  int rejected = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::string b = good;
    const int flips = 1 + static_cast<int>(s.next_u64() % 4);
    for (int k = 0; k < flips; ++k) {
      // Mostly the length and the header, sometimes anywhere.
      const size_t limit = (s.next_u64() % 4 == 0) ? b.size() : std::min<size_t>(b.size(), 200);
      b[s.next_u64() % limit] = static_cast<char>(s.next_u64() & 0xff);
    }
    if (s.next_u64() % 5 == 0) b.resize(s.next_u64() % b.size());
    try {
      SafetensorsFile f(b, "fuzz");
      std::vector<float> buf(18);
      f.load(small_layout(), buf);
    } catch (const FileError&) {
      ++rejected;
    }
  }
  CHECK(rejected > 1000);  // most damage is detected; none of it crashed
}

// ---- World-model checkpoints on top of safetensors ----------------------------------

namespace {

wm::WmConfig micro_config(wm::WmPosition pos) {
  wm::WmConfig c;
  c.embed = 16;
  c.heads = 2;
  c.layers = 2;
  c.context = 6;
  c.position = pos;
  return c;
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / name).string();
}

}  // namespace

TEST_CASE("world-model config survives the JSON metadata and bad configs are named",
          "[checkpoint]") {
  for (auto pos : {wm::WmPosition::rope, wm::WmPosition::absolute}) {
    const auto c = wm::wm_preset("paper", pos);
    CHECK(wm_config_from_json(wm_config_to_json(c)) == c);
  }
  CHECK_THROWS_WITH(wm_config_from_json("{\"embed\": 64}"), Catch::Contains("heads"));
  CHECK_THROWS_WITH(wm_config_from_json("not json"), Catch::Contains("not a JSON object"));
  CHECK_THROWS_WITH(
      wm_config_from_json(
          R"({"embed":64,"heads":4,"layers":4,"context":32,"position":"alibi","rope_base":10000})"),
      Catch::Contains("alibi"));
  CHECK_THROWS_WITH(
      wm_config_from_json(
          R"({"embed":64,"heads":4,"layers":4,"context":32,"position":"rope","rope_base":10000,"x":1})"),
      Catch::Contains("'x' is unknown"));
  // The scaled state head: scale and base survive; the original model writes neither field.
  auto c = wm::wm_preset("tiny");
  CHECK(wm_config_to_json(c).find("state_") == std::string::npos);
  c.state_base = wm::WmStateBase::cv;
  c.state_scale = {1e-4f,  1e-4f,  0.0123f, 0.031f, 2.7e-3f, 2.9e-3f, 2.8e-3f, 3.1e-3f,
                   0.027f, 0.026f, 0.05f,   0.049f, 0.41f,   0.12f,   0.3f};
  CHECK(wm_config_from_json(wm_config_to_json(c)) == c);
  CHECK(wm_config_to_json(c).find("state_loss") == std::string::npos);  // raw: not written
  c.state_loss = wm::WmStateLoss::sigma;
  CHECK(wm_config_to_json(c).find("\"state_loss\":\"sigma\"") != std::string::npos);
  CHECK(wm_config_from_json(wm_config_to_json(c)) == c);
  const std::string base =
      R"({"embed":64,"heads":4,"layers":4,"context":32,"position":"rope","rope_base":10000,)";
  CHECK_THROWS_WITH(wm_config_from_json(base + R"("state_scale":[1,2]})"),
                    Catch::Contains("state_scale"));
  CHECK_THROWS_WITH(wm_config_from_json(base + R"("state_base":"next"})"), Catch::Contains("next"));
  CHECK_THROWS_WITH(wm_config_from_json(base + R"("state_loss":"l1"})"), Catch::Contains("l1"));
  CHECK_THROWS_WITH(wm_config_from_json(base + R"("state_scale":[1,1,1,1,1,1,1,1,1,1,1,1,1,1,0]})"),
                    Catch::Contains("state_scale[14]"));
  // Beyond float's range (converting would be undefined; UBSan checks it in the sanitizer
  // run): refused naming the entry, whatever the sign.
  CHECK_THROWS_WITH(
      wm_config_from_json(base + R"("state_scale":[1,1,1,1,1,1,1,1,1,1,1,1,1,1e300,1]})"),
      Catch::Contains("state_scale[13] = inf"));
  CHECK_THROWS_WITH(
      wm_config_from_json(base + R"("state_scale":[-1e300,1,1,1,1,1,1,1,1,1,1,1,1,1,1]})"),
      Catch::Contains("state_scale[0] = -inf"));
}

TEST_CASE("world-model checkpoint round trip with and without optimiser state", "[checkpoint]") {
  for (auto pos : {wm::WmPosition::rope, wm::WmPosition::absolute}) {
    const auto c = micro_config(pos);
    wm::WorldModel m(c);
    m.init(3);
    auto opt = nn::adamw_init(m.params.size());
    for (size_t i = 0; i < opt.m.size(); ++i) {
      opt.m[i] = static_cast<float>(i) * 1e-3f;
      opt.v[i] = static_cast<float>(i) * 2e-3f;
    }
    opt.step = 17;
    const auto path = temp_path("poslab_wm_ckpt.safetensors");
    wm_checkpoint_save(path, c, m.params, 17, &opt, {{"command", "test"}});
    const auto ck = wm_checkpoint_load(path);
    CHECK(ck.config == c);
    CHECK(ck.step == 17);
    CHECK(ck.params == m.params);
    REQUIRE(ck.optim.has_value());
    CHECK(ck.optim->m == opt.m);
    CHECK(ck.optim->v == opt.v);
    CHECK(ck.optim->step == 17);
    CHECK(ck.optim->swa.empty());
    CHECK(ck.metadata.at("command") == "test");
    // With SWA, and exported without the optimiser.
    opt.swa = m.params;
    opt.swa[0] += 1.0f;
    opt.swa_count = 3;
    wm_checkpoint_save(path, c, m.params, 17, &opt, {});
    CHECK(wm_checkpoint_load(path).optim->swa == opt.swa);
    wm_checkpoint_save(path, c, m.params, 17, nullptr, {});
    const auto bare = wm_checkpoint_load(path);
    CHECK(!bare.optim.has_value());
    CHECK(bare.params == m.params);
    std::filesystem::remove(path);
  }
}

TEST_CASE("world-model checkpoints of another config or format are named errors", "[checkpoint]") {
  const auto c = micro_config(wm::WmPosition::absolute);
  wm::WorldModel m(c);
  m.init(1);
  const TensorLayout layout = wm_tensor_layout(c);
  TensorMetadata meta{{"format", kWmCheckpointFormat},
                      {"format_version", "1"},
                      {"step", "0"},
                      {"param_count", std::to_string(m.params.size())}};
  const auto path = temp_path("poslab_wm_bad.safetensors");
  const auto expect = [&](const TensorMetadata& md, const std::string& fragment) {
    safetensors_save(path, layout, m.params, md);
    INFO("expected: " << fragment);
    try {
      wm_checkpoint_load(path);
      FAIL("no error");
    } catch (const FileError& e) {
      INFO(e.what());
      CHECK(std::string(e.what()).find(path) == 0);
      CHECK(std::string(e.what()).find(fragment) != std::string::npos);
    }
  };
  auto md = meta;
  md["config"] = wm_config_to_json(c);
  safetensors_save(path, layout, m.params, md);
  CHECK_NOTHROW(wm_checkpoint_load(path));
  // A config with one more layer: tensors missing.
  auto more = c;
  more.layers = 3;
  md["config"] = wm_config_to_json(more);
  md["param_count"] = std::to_string(wm::wm_param_count(more));
  expect(md, "lacks tensor 'blocks.2");
  // Wider embedding: shapes differ.
  auto wide = c;
  wide.embed = 32;
  md["config"] = wm_config_to_json(wide);
  md["param_count"] = std::to_string(wm::wm_param_count(wide));
  expect(md, "has shape");
  // RoPE config on an absolute file: emb.pos is unknown.
  auto rope = c;
  rope.position = wm::WmPosition::rope;
  md["config"] = wm_config_to_json(rope);
  md["param_count"] = std::to_string(wm::wm_param_count(rope));
  expect(md, "unknown tensor 'emb.pos'");
  md = meta;
  md["config"] = wm_config_to_json(c);
  md["format_version"] = "9";
  expect(md, "format_version 9");
  md["format_version"] = "1";
  md["format"] = "something-else";
  expect(md, "not a PosLab world model");
  md["format"] = kWmCheckpointFormat;
  md["step"] = "-4";
  expect(md, "'step'");
  md["step"] = "0";
  md["param_count"] = "12";
  expect(md, "param_count");
  md.erase("config");
  md["param_count"] = std::to_string(m.params.size());
  expect(md, "lacks 'config'");
  std::filesystem::remove(path);
}

// Issue 29: a header nested 100,000 deep crashed the reader (recursive JSON code building
// the error), and a 1.7 KB file claiming a 64-layer model made the loader allocate 12.5 GB
// before it looked at the tensors. Both now fail from the header, in a short line.
TEST_CASE("hostile checkpoint headers: deep nesting and configs beyond the budget",
          "[checkpoint]") {
  CHECK(json_nesting_depth("") == 0);
  CHECK(json_nesting_depth(R"({"a": [1, {"b": []}]})") == 4);
  CHECK(json_nesting_depth(R"({"a": "[[[[{{{{\"[[["})") == 1);  // brackets in strings
  CHECK(json_nesting_depth(std::string(100000, '['), 8) == 9);  // stops counting past 8
  for (const int depth : {9, 1000, 100000}) {
    const std::string deep =
        std::string(static_cast<size_t>(depth), '[') + std::string(static_cast<size_t>(depth), ']');
    for (const std::string& header :
         {R"({"t": {"dtype": "F32", "shape": )" + deep + R"(, "data_offsets": [0, 4]}})",
          R"({"__metadata__": {"x": )" + deep + R"(}, "t": {"dtype": "F32", "shape": [1],
             "data_offsets": [0, 4]}})"}) {
      INFO("depth " << depth);
      try {
        SafetensorsFile f(make_file(header, 4), "deep.safetensors");
        FAIL("no error");
      } catch (const FileError& e) {
        const std::string what = e.what();
        CHECK(what.find("deep.safetensors: ") == 0);
        CHECK(what.find("nested deeper than 8") != std::string::npos);
        CHECK(what.size() < 200);
      }
    }
  }
  // A long hostile name is quoted as an excerpt, never whole.
  const std::string name(100000, 'x');
  try {
    SafetensorsFile f(make_file(R"({")" + name + R"(": {"dtype": "F64", "shape": [1],
                                 "data_offsets": [0, 4]}})",
                                4),
                      "long.safetensors");
    FAIL("no error");
  } catch (const FileError& e) {
    CHECK(std::string(e.what()).size() < 200);
  }
  CHECK(error_excerpt(std::string("a\x1b[2Jb\n") + std::string(50, 'c')) ==
        "a?[2Jb?" + std::string(33, 'c') + "...");

  // The budget: the paper model fits, a 1024-wide 64-layer one does not.
  CHECK_NOTHROW(wm::wm_validate(wm::wm_preset("paper")));
  CHECK(wm::wm_param_count(wm::wm_preset("paper")) * 4 < wm::WmConfig::max_params);
  wm::WmConfig huge;
  huge.embed = 1024, huge.heads = 64, huge.layers = 64, huge.context = 4096;
  CHECK_THROWS_WITH(wm::wm_validate(huge), Catch::Contains("beyond this build's budget"));
  wm::WmConfig long_ctx;  // few parameters, but a 4096-step cache of width 1024
  long_ctx.embed = 1024, long_ctx.heads = 4, long_ctx.layers = 1, long_ctx.context = 4096;
  CHECK_THROWS_WITH(wm::wm_validate(long_ctx), Catch::Contains("dream cache"));
}

TEST_CASE("wm_checkpoint_peek checks a file from its header without reading tensors",
          "[checkpoint]") {
  const auto c = micro_config(wm::WmPosition::rope);
  wm::WorldModel m(c);
  m.init(2);
  const auto path = temp_path("poslab_wm_peek.safetensors");
  nn::AdamWState opt = nn::adamw_init(m.params.size());
  opt.step = 5;
  wm_checkpoint_save(path, c, m.params, 5, &opt, {{"note", "x"}});
  const WmCheckpointPeek p = wm_checkpoint_peek(path);
  CHECK(p.config == c);
  CHECK(p.step == 5);
  CHECK(p.param_count == m.params.size());
  CHECK(p.has_optim);
  CHECK_FALSE(p.has_swa);
  CHECK(p.file_bytes == std::filesystem::file_size(path));
  CHECK(p.metadata.at("note") == "x");
  // A header-only file refuses to hand out data.
  const auto header = SafetensorsFile::open_header(path);
  CHECK(header.header_only());
  std::vector<float> dst(4);
  CHECK_THROWS_AS(header.copy(header.tensors().front().name, dst), InputError);

  // The config claims a model the file does not hold: refused before any allocation.
  const std::string first = wm::wm_param_layout(c).tensors.front().name;
  auto bigger = c;
  bigger.layers = 4;
  const TensorMetadata meta{{"format", kWmCheckpointFormat},
                            {"format_version", "1"},
                            {"config", wm_config_to_json(bigger)},
                            {"step", "0"},
                            {"param_count", std::to_string(wm::wm_param_count(bigger))}};
  safetensors_save(path, {{first, {1}, 0}}, std::vector<float>{1.0f}, meta);
  CHECK_THROWS_WITH(wm_checkpoint_peek(path), Catch::Contains("has shape [1], this model needs"));
  CHECK_THROWS_WITH(wm_checkpoint_load(path), Catch::Contains("has shape [1], this model needs"));

  // Metadata of the wrong type or range is named (was: wrapped, or converted first).
  const auto with = [&](const std::string& key, const std::string& value) {
    TensorMetadata md{{key, value}};
    return md;
  };
  CHECK_THROWS_WITH(wm_recorded_data(with("data", R"({"seed": -1})"), "c"),
                    Catch::Contains("recorded seed = -1"));
  CHECK_THROWS_WITH(wm_recorded_data(with("data", R"({"val_fraction": 2})"), "c"),
                    Catch::Contains("recorded val_fraction = 2"));
  CHECK_THROWS_WITH(wm_recorded_data(with("data", R"({"files": [3]})"), "c"),
                    Catch::Contains("recorded files"));
  wm::WmDataParams dp;
  nn::AdamWParams ap;
  CHECK_THROWS_WITH(wm_recorded_training(with("training", R"({"batch": 1e10})"), "c", dp, ap),
                    Catch::Contains("recorded batch"));
  CHECK_THROWS_WITH(wm_recorded_training(with("training", R"({"batch": 4294967297})"), "c", dp, ap),
                    Catch::Contains("recorded batch"));
  CHECK_THROWS_WITH(wm_recorded_training(with("training", R"({"lr": "1"})"), "c", dp, ap),
                    Catch::Contains("recorded lr"));
  wm_recorded_training(with("training", R"({"batch": 3, "lr": 0.002, "swa_start": -1})"), "c", dp,
                       ap);
  CHECK(dp.batch == 3);
  CHECK(ap.lr == 0.002);
  const auto d = wm_recorded_data(with("data", R"({"files": [{"path": "a.h5"}], "seed": 7})"), "c");
  CHECK(d.files == std::vector<std::string>{"a.h5"});
  CHECK(d.seed == 7u);
  CHECK_FALSE(d.val_fraction.has_value());
  std::filesystem::remove(path);
}
