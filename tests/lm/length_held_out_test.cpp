// The length lab's held-out file (io/length/length_lab_io: what the browser reads instead
// of the fortune files): written from the text files a model's metadata records, it gives
// back exactly the validation text those files give (the entries i % k == k - 1); made from
// another split, damaged or cut short, it is one FileError naming it, never other bytes.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/common/errors.hpp"
#include "core/lm/lm.hpp"
#include "io/checkpoint/lm_checkpoint.hpp"
#include "io/files/atomic_file.hpp"
#include "io/length/length_lab_io.hpp"

using namespace poslab;
namespace fs = std::filesystem;

namespace {

struct HeldOutFixture {
  fs::path dir = fs::temp_directory_path() / "poslab_held_out_test";
  std::vector<std::string> files;
  HeldOutFixture() {
    fs::remove_all(dir);
    fs::create_directories(dir);
    // A checkpoint's record is read only when it names PosLab's own fortune files: this
    // folder stands in for theirs, holding two of their names.
    ::setenv("POSLAB_FORTUNES_DIR", dir.c_str(), 1);
    // Two fortune files, ten entries: with valid_every 3, entries 2, 5 and 8 are held out.
    const std::vector<std::string> texts{"e0 a\n%\ne1 b\n%\ne2 c\n%\ne3 d\n%\ne4 e\n",
                                         "e5 f\n%\ne6 g\n%\ne7 h\n%\ne8 i\n%\ne9 j\n"};
    const char* names[] = {"fortunes", "literature"};
    for (size_t i = 0; i < texts.size(); ++i) {
      files.push_back((dir / names[i]).string());
      std::ofstream(files.back(), std::ios::binary) << texts[i];
    }
  }
  ~HeldOutFixture() {
    ::unsetenv("POSLAB_FORTUNES_DIR");
    fs::remove_all(dir);
  }
  // A tiny model whose "data" metadata records `files` and `valid_every`.
  std::string model(const std::string& name, int valid_every) const {
    lm::LmConfig c;
    c.embed = 8;
    c.heads = 2;
    c.layers = 1;
    c.context = 8;
    lm::LmModel m(c);
    m.init(3);
    nlohmann::json data = {{"valid_every", valid_every}, {"files", nlohmann::json::array()}};
    for (const std::string& f : files) data["files"].push_back({{"path", f}});
    const std::string path = (dir / name).string();
    io::lm_checkpoint_save(path, c, m.params, 0, {}, nullptr, {{"data", data.dump()}});
    return path;
  }
  io::TensorMetadata meta(const std::string& model) const {
    return io::SafetensorsFile::open_header(model).metadata();
  }
};

std::string text_of(const std::vector<uint8_t>& b) {
  return {b.begin(), b.end()};
}

}  // namespace

TEST_CASE("length held-out file: read where the text files are missing, the same bytes",
          "[lm][length]") {
  HeldOutFixture fx;
  const std::string model = fx.model("m.safetensors", 3);
  const std::string saved = (fx.dir / "lm_held_out.txt").string();
  const std::vector<uint8_t> from_files = io::length_held_out_text(fx.meta(model), saved);
  const std::string valid = text_of(from_files);
  // The held-out entries and no other (the split rule, independent of the file).
  for (const char* held : {"e2 c", "e5 f", "e8 i"}) CHECK(valid.find(held) != std::string::npos);
  for (const char* trained : {"e0 a", "e1 b", "e3 d", "e4 e", "e6 g", "e7 h", "e9 j"})
    CHECK(valid.find(trained) == std::string::npos);

  // Installed text files are the source: a held-out file beside them is not read.
  std::ofstream(saved, std::ios::binary) << "not a held-out file";
  CHECK(io::length_held_out_text(fx.meta(model), saved) == from_files);

  io::length_held_out_save(model, saved);
  fs::remove(fx.files[1]);  // as in the browser: the fortune files are not there
  CHECK(io::length_held_out_text(fx.meta(model), saved) == from_files);
  // Neither the files nor a held-out file: the error says what to install.
  CHECK_THROWS_WITH(io::length_held_out_text(fx.meta(model), (fx.dir / "absent").string()),
                    Catch::Contains("fortunes"));
}

TEST_CASE("length held-out file: another split, a bad header or a cut file is one FileError",
          "[lm][length]") {
  HeldOutFixture fx;
  const std::string model = fx.model("m.safetensors", 3);
  const std::string other = fx.model("other.safetensors", 4);
  const std::string saved = (fx.dir / "lm_held_out.txt").string();
  io::length_held_out_save(model, saved);
  const std::string good = read_file(saved);
  for (const std::string& f : fx.files) fs::remove(f);

  const auto fails = [&](const std::string& what, const std::string& model_path,
                         const std::string& bytes) {
    INFO(what);
    std::ofstream(saved, std::ios::binary | std::ios::trunc) << bytes;
    try {
      io::length_held_out_text(fx.meta(model_path), saved);
      FAIL("no error");
    } catch (const FileError& e) {
      const std::string msg = e.what();
      CHECK(msg.find(saved) == 0);
      CHECK(msg.find('\n') == std::string::npos);
      CHECK(msg.find("reinstall PosLab") != std::string::npos);
    }
  };
  fails("made for another split", other, good);
  fails("another magic", model, "poslab-held-out 2" + good.substr(good.find('\n')));
  fails("cut short", model, good.substr(0, good.size() - 3));
  fails("a byte more", model, good + "x");
  fails("header not JSON", model, "poslab-held-out 1\n{\"files\": [\n");
  fails("empty", model, "");
}

// Issue 40: the held-out file ships with the models (assets/models/lm_held_out.txt), so an
// installed copy without Debian's fortune files runs the length lab. It is exactly what the
// io code makes from the fortune files the shipped models record (where they are installed).
TEST_CASE("length held-out file: the shipped one is what the fortune files give", "[lm][length]") {
  const fs::path models = POSLAB_TEST_MODELS_DIR;
  const std::string shipped = (models / "lm_held_out.txt").string();
  REQUIRE(fs::is_regular_file(shipped));
  for (const char* name :
       {"none", "sinusoidal", "learned", "rope", "alibi", "t5", "rope_ft_pi", "rope_ft_yarn"}) {
    INFO(name);
    const std::string model = (models / ("lm_" + std::string(name) + ".safetensors")).string();
    // Every shipped model records the same files and split, so the one file serves them all.
    const io::TensorMetadata meta = io::SafetensorsFile::open_header(model).metadata();
    const io::LmRecordedText rec = io::lm_recorded_text(meta);
    CHECK(rec.files == io::lm_default_text_paths());
  }
  bool installed = true;
  for (const std::string& f : io::lm_default_text_paths()) installed &= fs::is_regular_file(f);
  if (!installed) {
    WARN("fortune files not installed: the shipped held-out file is not compared with them");
    return;
  }
  const fs::path dir = fs::temp_directory_path() / "poslab_held_out_shipped_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string made = (dir / "lm_held_out.txt").string();
  io::length_held_out_save((models / "lm_none.safetensors").string(), made);
  const std::string a = read_file(made, size_t{64} << 20);
  const std::string b = read_file(shipped, size_t{64} << 20);
  fs::remove_all(dir);
  CHECK(a.size() == b.size());
  CHECK(a == b);  // else: regenerate it (scripts/train_length_models.sh held-out)
}

TEST_CASE("length held-out text: a record naming files that are not PosLab's own is refused",
          "[lm][length]") {
  HeldOutFixture fx;
  const std::string saved = (fx.dir / "lm_held_out.txt").string();
  for (const char* path : {"/etc/passwd", "/proc/self/environ"}) {
    const io::TensorMetadata meta{
        {"data", std::string(R"({"valid_every": 3, "files": [{"path": ")") + path + "\"}]}"}};
    CHECK_THROWS_WITH(io::length_held_out_text(meta, saved, "lm_own_x.safetensors"),
                      Catch::StartsWith("lm_own_x.safetensors") &&
                          Catch::Contains(std::string("'") + path + "'") &&
                          Catch::Contains("PosLab's own"));
  }
  // PosLab's own files named twice (200 copies of a large one passed 3 GB): refused too.
  nlohmann::json data = {{"valid_every", 3}, {"files", nlohmann::json::array()}};
  for (int i = 0; i < 200; ++i) data["files"].push_back({{"path", fx.files[0]}});
  CHECK_THROWS_WITH(io::length_held_out_text({{"data", data.dump()}}, saved, "m"),
                    Catch::Contains("more than once"));
}

TEST_CASE("text files: 64 MB together, checked before reading, and a lying size bounded", "[lm]") {
  HeldOutFixture fx;
  const std::string big = (fx.dir / "big").string();
  { std::ofstream(big, std::ios::binary); }
  fs::resize_file(big, 40u << 20);  // sparse: nothing is written
  CHECK_THROWS_WITH(io::lm_read_text_files({big, big}, nullptr),
                    Catch::Contains("more than 64 MB together"));
  // /proc files report size 0; what is read is still bounded (and here small).
  const auto status = io::lm_read_text_files({"/proc/self/status"}, nullptr);
  REQUIRE(status.size() == 1);
  CHECK(status[0].bytes.find("VmHWM") != std::string::npos);
}
