// The one table printer: first column left-aligned, the rest right-aligned,
// columns as wide as their widest cell.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace csg {

class Table {
 public:
  explicit Table(std::vector<std::string> headers);
  void add_row(std::vector<std::string> cells);  // throws if the cell count differs
  void print(std::ostream& out) const;

 private:
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
};

// value with `decimals` digits after the point ("17.02"); "-" for NaN.
std::string fixed(double value, int decimals);

}  // namespace csg
