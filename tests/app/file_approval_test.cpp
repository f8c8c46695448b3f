// A file a link names opens once approved, as it was then; a training run never replaces a
// model the user has (issue 29, S3 and S4).
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>

#include <fstream>

#include "app/file_approval.hpp"
#include "app/widgets/train_view.hpp"
#include "tests/app/fresh_dir.hpp"

using namespace poslab::app;
namespace fs = std::filesystem;

TEST_CASE("an approval is for the file as it was when approved") {
  const fs::path d = poslab::test::fresh_dir("approval_test", "file");
  const std::string f = (d / "data.h5").string();
  std::ofstream(f) << "first";
  const FileApproval a = FileApproval::of(f);
  CHECK(a.approves(f));
  CHECK_FALSE(a.approves((d / "other.h5").string()));
  CHECK_FALSE(FileApproval{}.approves(f));
  CHECK_FALSE(FileApproval{}.approves(""));
  // Replaced by a file of another size: asks again.
  std::ofstream(f) << "a longer file";
  CHECK_FALSE(a.approves(f));
  // Same size, another modification time: asks again.
  const FileApproval b = FileApproval::of(f);
  std::ofstream(f) << "a longer filf";
  timespec times[2] = {{0, UTIME_OMIT}, {12345, 0}};
  REQUIRE(::utimensat(AT_FDCWD, f.c_str(), times, 0) == 0);
  CHECK_FALSE(b.approves(f));
  // A missing file approved as missing stays approved until it appears.
  const std::string gone = (d / "gone.safetensors").string();
  CHECK(FileApproval::of(gone).approves(gone));
  fs::remove_all(d);
}

TEST_CASE("a training run writes a new name beside the user's models, never over one") {
  const fs::path d = poslab::test::fresh_dir("approval_test", "models");
  const std::string stem = "wm_tiny_rope";
  CHECK(train_checkpoint_path(d.string(), stem) == (d / "wm_tiny_rope.safetensors").string());
  std::ofstream(d / "wm_tiny_rope.safetensors") << "the user's own model";
  CHECK(train_checkpoint_path(d.string(), stem) == (d / "wm_tiny_rope-2.safetensors").string());
  std::ofstream(d / "wm_tiny_rope-2.safetensors") << "another";
  fs::create_symlink("/nonexistent", d / "wm_tiny_rope-3.safetensors");  // a dangling link
  CHECK(train_checkpoint_path(d.string(), stem) == (d / "wm_tiny_rope-4.safetensors").string());
  fs::remove_all(d);
}
