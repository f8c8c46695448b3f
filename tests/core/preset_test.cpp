// Preset strings restore lab settings (numbers to about 6 significant digits), stay
// readable, and bad presets name what is wrong.
#include <algorithm>
#include <cctype>

#include <catch2/catch.hpp>

#include "core/common/errors.hpp"
#include "core/common/preset.hpp"
#include "core/rope/wheels_lab.hpp"

using namespace poslab;

TEST_CASE("wheels preset round-trips every field to 6 significant digits") {
  WheelsLabSettings s;
  s.rope.head_dim = 96;
  s.rope.rotary_fraction = 0.5;
  s.rope.base = 123456.789;
  s.rope.layout = RopeLayout::interleaved;
  s.rope.scaling = RopeScaling::yarn;
  s.rope.factor = 3.3;
  s.rope.original_context = 2048;
  s.rope.yarn_beta_fast = 31.5;
  s.position = 0.1 + 0.2;  // not exactly representable: must still round-trip
  s.log_slider = true;
  s.speed = 1e-2 * 3;
  s.selected_pair = 17;
  s.decay_vectors = DecayVectors::random;
  const std::string text = wheels_to_preset(s);
  const WheelsLabSettings r = wheels_from_preset(text);
  CHECK(wheels_to_preset(r) == text);
  CHECK(r.position == 0.3);        // 0.30000000000000004 written as 0.3
  CHECK(r.rope.base == 123456.8);  // integer part exact, one more digit
  CHECK(r.rope.factor == 3.3);
  CHECK(r.rope.layout == RopeLayout::interleaved);
  CHECK(r.selected_pair == 17);
  CHECK(wheels_to_preset(WheelsLabSettings{}) == "rope");
}

TEST_CASE("bad presets are rejected with the key and value named") {
  CHECK_THROWS_WITH(wheels_from_preset("rope?dim=abc"), Catch::Contains("rope.dim"));
  CHECK_THROWS_WITH(wheels_from_preset("rope?dim=3"), Catch::Contains("even"));
  CHECK_THROWS_WITH(wheels_from_preset("rope?base=0.5"), Catch::Contains("rope.base"));
  CHECK_THROWS_WITH(wheels_from_preset("rope?colour=red"), Catch::Contains("colour"));
  CHECK_THROWS_WITH(wheels_from_preset("attention?heads=2"), Catch::Contains("attention"));
  CHECK_THROWS_WITH(wheels_from_preset("rope?layout=diag"), Catch::Contains("interleaved"));
  CHECK_THROWS_WITH(wheels_from_preset("rope?pos=1e300"), Catch::Contains("rope.pos"));
  CHECK_THROWS_AS(wheels_from_preset("rope?dim=64&dim=32"), InputError);
  CHECK_THROWS_AS(wheels_from_preset(""), InputError);
}

TEST_CASE("numbers round to about 6 significant digits, inside their range") {
  const ParamRange any{-1e300, 1e300};
  CHECK(format_double_rounded(111.14443619549274, any) == "111.144");
  CHECK(format_double_rounded(0.1 + 0.2, any) == "0.3");
  CHECK(format_double_rounded(1234567.25, any) == "1234567.2");  // %.8g rounds half to even
  CHECK(format_double_rounded(4096, any) == "4096");             // whole numbers exact
  CHECK(format_double_rounded(2147483647.0, any) == "2147483647");
  CHECK(format_double_rounded(1e-7 / 3, any) == "3.33333e-08");
  // The smallest valid RoPE base has 7 digits: rounding must not leave the range.
  CHECK(format_double_rounded(1.000001, RopeParams::base_range) == "1.000001");
  CHECK(format_double_rounded(1.0000012, RopeParams::base_range) == "1.000001");
  CHECK(wheels_from_preset(wheels_to_preset(wheels_from_preset("rope?base=1.000001"))).rope.base ==
        1.000001);
}

TEST_CASE("text values stay readable: UTF-8 and '/' unencoded, format characters encoded") {
  PresetWriter w("demo");
  w.add_text("sentence", "我 喜欢 你");
  w.add_text("file", "runs/a b.h5");
  CHECK(w.str() == "demo?sentence=我%20喜欢%20你&file=runs/a%20b.h5");
  PresetReader r(w.str(), "demo");
  std::string a, b;
  r.read_text("sentence", a);
  r.read_text("file", b);
  r.finish();
  CHECK(a == "我 喜欢 你");
  CHECK(b == "runs/a b.h5");
  // Presets written before (every byte percent-encoded) still load.
  PresetReader old("demo?sentence=%E6%88%91", "demo");
  old.read_text("sentence", a);
  CHECK(a == "我");
}

TEST_CASE("text values survive percent-encoding, including Chinese") {
  PresetWriter w("demo");
  w.add_text("sentence", "我 喜欢 你 & a=b%");
  PresetReader r(w.str(), "demo");
  std::string out;
  r.read_text("sentence", out);
  r.finish();
  CHECK(out == "我 喜欢 你 & a=b%");
}

TEST_CASE("escapes that decode to control characters are refused, naming the escape") {
  // A link is text from a stranger: ESC, newline or NUL must never reach a banner, stderr or
  // a file name (issue 29). One decoder serves the app, links and the CLI's --preset.
  for (const char* bad : {"%1B", "%1b", "%0A", "%0D", "%00", "%09", "%7F"}) {
    INFO("escape " << bad);
    const std::string preset = std::string("arena?source=file&file=/tmp/a") + bad + "b.h5";
    try {
      PresetReader r(preset, "arena");
      FAIL("accepted " << bad);
    } catch (const InputError& e) {
      std::string named = bad;  // named with upper-case hex digits
      std::transform(named.begin(), named.end(), named.begin(), ::toupper);
      CHECK(std::string(e.what()).find(named) != std::string::npos);
      CHECK(std::string(e.what()).find("control character") != std::string::npos);
    }
  }
  // Raw control characters (a link's own escapes already decoded) are named, never echoed.
  for (const std::string& bad : {std::string("\x1b[2J"), std::string("\n"), std::string(1, '\0')}) {
    try {
      PresetReader r("arena?source=file&file=/tmp/a" + bad + "b.h5", "arena");
      FAIL("accepted a raw control character");
    } catch (const InputError& e) {
      const std::string what = e.what();
      CHECK(what.find("control character") != std::string::npos);
      CHECK(std::none_of(what.begin(), what.end(),
                         [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }));
    }
  }
  CHECK_THROWS_AS(preset_lab("ro\x1bpe?dim=8"), InputError);
  // Whitespace a paste carries at either end is still trimmed.
  CHECK(wheels_from_preset("rope?dim=32\n").rope.head_dim == 32);
  // Printable escapes and UTF-8 still decode.
  PresetReader ok("demo?a=%20%25%E6%88%91", "demo");
  std::string a;
  ok.read_text("a", a);
  CHECK(a == " %我");
}
