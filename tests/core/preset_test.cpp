// Preset strings restore lab settings exactly, and bad presets name what is wrong.
#include <catch2/catch.hpp>

#include "core/common/errors.hpp"
#include "core/common/preset.hpp"
#include "core/rope/wheels_lab.hpp"

using namespace poslab;

TEST_CASE("wheels preset round-trips every field exactly") {
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
  CHECK(r.position == s.position);
  CHECK(r.rope.base == s.rope.base);
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

TEST_CASE("text values survive percent-encoding, including Chinese") {
  PresetWriter w("demo");
  w.add_text("sentence", "我 喜欢 你 & a=b%");
  PresetReader r(w.str(), "demo");
  std::string out;
  r.read_text("sentence", out);
  r.finish();
  CHECK(out == "我 喜欢 你 & a=b%");
}
