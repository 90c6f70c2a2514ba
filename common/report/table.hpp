// The one table printer: first column left-aligned, the rest right-aligned,
// columns as wide as their widest cell.
#pragma once

#include <functional>
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

// A table declared as columns over rows: each column its header and what it
// shows of a row; the rows are the measurements (or figures) themselves.
//   table_of<Measurement>({{"variant", [](const Measurement& m) { return m.name; }},
//                          {"median ms", [](const Measurement& m) { return figure(m.stats.median_ms, 2); }}},
//                         result.measurements).print(out);
template <class Row>
struct Column {
  std::string header;
  std::function<std::string(const Row&)> cell;
};

template <class Row, class Rows>
Table table_of(const std::vector<Column<Row>>& columns, const Rows& rows) {
  std::vector<std::string> headers;
  for (const Column<Row>& column : columns) headers.push_back(column.header);
  Table table(std::move(headers));
  for (const Row& row : rows) {
    std::vector<std::string> cells;
    for (const Column<Row>& column : columns) cells.push_back(column.cell(row));
    table.add_row(std::move(cells));
  }
  return table;
}

// value with `decimals` digits after the point ("17.02"); "-" for NaN.
std::string fixed(double value, int decimals);

// value with at least `decimals` digits after the point, and more (up to 6)
// where a small value would otherwise lose its `digits` significant digits:
// figure(16.05, 2) "16.05", figure(0.0511, 2) "0.0511" (not "0.05"),
// figure(6252, 0) "6252", figure(0.0312, 0, 2) "0.031" (not "0"). "-" for NaN.
std::string figure(double value, int decimals, int digits = 3);

}  // namespace csg
