// Appends a panel's drawn numbers to $POSLAB_DRAWN_NUMBERS (see drawn_numbers.hpp).
#include "app/widgets/drawn_numbers.hpp"

#include <cstdlib>
#include <fstream>

namespace poslab::app {

bool drawn_numbers_wanted() {
  const char* path = std::getenv("POSLAB_DRAWN_NUMBERS");
  return path && *path;
}

void record_drawn_numbers(const std::string& lab, const std::string& preset,
                          const std::vector<std::string>& cli_args, const nlohmann::json& numbers) {
  if (!drawn_numbers_wanted()) return;
  // Appending a line is not an atomic file write; the file is a test artefact that the
  // test creates empty and reads once the run has ended.
  std::ofstream out(std::getenv("POSLAB_DRAWN_NUMBERS"), std::ios::app);
  const nlohmann::json line{
      {"lab", lab}, {"preset", preset}, {"cli", cli_args}, {"numbers", numbers}};
  out << line.dump() << "\n";
}

}  // namespace poslab::app
