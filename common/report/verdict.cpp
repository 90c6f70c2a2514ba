#include "report/verdict.hpp"

#include <stdexcept>

namespace csg {

nlohmann::json to_json(const Verdict& verdict) {
  return {{"id", verdict.id},
          {"outcome", verdict.outcome},
          {"figures", verdict.figures},
          {"threshold", verdict.threshold},
          {"sentence", verdict.sentence}};
}

Verdict verdict_from_json(const nlohmann::json& doc) {
  auto text = [&doc](const char* key) {
    if (!doc.contains(key) || !doc[key].is_string()) {
      throw std::invalid_argument(std::string("a verdict needs a text \"") + key + "\"");
    }
    return doc[key].get<std::string>();
  };
  Verdict verdict{text("id"), text("outcome"), doc.value("figures", nlohmann::json::object()),
                  doc.value("threshold", nlohmann::json(nullptr)), text("sentence")};
  if (!verdict.figures.is_object()) throw std::invalid_argument("a verdict's \"figures\" is an object");
  return verdict;
}

}  // namespace csg
