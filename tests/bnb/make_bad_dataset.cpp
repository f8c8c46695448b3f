// make_bad_dataset <kind> <path>: writes a small valid dataset, then breaks it one way
// (kind: valid, version, magic, shape, missing, truncated, corrupt, huge, external-link,
// external-storage, nan-token, huge-token: episode 3 holds NaN or 1e30 in one token). Used by
// tests/cli/cli_bnb_test.sh to check that `poslab-cli inspect` rejects each with exit 2.
#include <cmath>
#include <iostream>

#include "tests/bnb/bad_datasets.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: make_bad_dataset "
                 "valid|version|magic|shape|missing|truncated|corrupt|huge|external-link|"
                 "external-storage|nan-token|huge-token <path>\n";
    return 2;
  }
  namespace t = poslab::testing;
  const std::string kind = argv[1], path = argv[2];
  try {
    t::write_valid_dataset(path, 3, kind == "corrupt" ? 0 : 1);
    if (kind == "version")
      t::set_int_attribute(path, "format_version", 99);
    else if (kind == "magic")
      t::delete_attribute(path, "magic");
    else if (kind == "shape")
      t::break_token_shape(path);
    else if (kind == "missing")
      t::delete_dataset(path, "expert_actions");
    else if (kind == "truncated")
      t::truncate_file(path, 0.6);
    else if (kind == "corrupt")
      t::corrupt_token_chunk(path);
    else if (kind == "huge")
      t::announce_huge(path, 1000000000LL, 100000000000LL);
    else if (kind == "external-link") {
      t::write_valid_dataset(path + ".other.h5", 3, 1);
      t::make_external_link(path, path + ".other.h5", "tokens");
    } else if (kind == "external-storage")
      t::make_external_storage(path, path + ".raw");
    else if (kind == "nan-token")
      t::write_dataset_with_token(path, std::nanf(""));
    else if (kind == "huge-token")
      t::write_dataset_with_token(path, 1e30f);
    else if (kind != "valid")
      throw std::runtime_error("unknown kind " + kind);
  } catch (const std::exception& e) {
    std::cerr << "make_bad_dataset: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
