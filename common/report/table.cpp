#include "report/table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace csg {

Table::Table(std::vector<std::string> headers) : headers_(std::move(headers)) {}

void Table::add_row(std::vector<std::string> cells) {
  if (cells.size() != headers_.size()) throw std::invalid_argument("Table::add_row: wrong number of cells");
  rows_.push_back(std::move(cells));
}

void Table::print(std::ostream& out) const {
  std::vector<std::size_t> widths(headers_.size());
  for (std::size_t c = 0; c < headers_.size(); ++c) {
    widths[c] = headers_[c].size();
    for (const auto& row : rows_) widths[c] = std::max(widths[c], row[c].size());
  }
  auto print_row = [&](const std::vector<std::string>& cells) {
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const std::string padding(widths[c] - cells[c].size(), ' ');
      if (c == 0) {
        out << cells[c] << padding;
      } else {
        out << "  " << padding << cells[c];
      }
    }
    out << '\n';
  };
  print_row(headers_);
  std::size_t total = 0;
  for (std::size_t w : widths) total += w + 2;
  out << std::string(total - 2, '-') << '\n';
  for (const auto& row : rows_) print_row(row);
}

std::string fixed(double value, int decimals) {
  if (std::isnan(value)) return "-";
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

std::string figure(double value, int decimals, int digits) {
  if (std::isnan(value)) return "-";
  int shown = decimals;
  if (value != 0.0 && std::isfinite(value)) {
    const int magnitude = int(std::floor(std::log10(std::fabs(value))));  // 0.0511 -> -2
    shown = std::clamp(digits - 1 - magnitude, decimals, std::max(decimals, 6));
  }
  return fixed(value, shown);
}

}  // namespace csg
