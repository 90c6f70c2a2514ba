#include "base/text.hpp"

#include <cstdio>

namespace csg {
namespace {

bool is_vowel(char c) { return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u'; }

std::string regular_plural(std::string_view singular) {
  const std::string word(singular);
  for (const std::string_view tail : {"s", "x", "z", "ch", "sh"}) {
    if (singular.ends_with(tail)) return word + "es";
  }
  if (singular.size() >= 2 && singular.back() == 'y' && !is_vowel(singular[singular.size() - 2])) {
    return word.substr(0, word.size() - 1) + "ies";
  }
  return word + "s";
}

bool is_one(long long count) { return count == 1 || count == -1; }

}  // namespace

std::string noun(long long count, std::string_view singular) {
  return is_one(count) ? std::string(singular) : regular_plural(singular);
}

std::string noun(long long count, std::string_view singular, std::string_view plural_form) {
  return std::string(is_one(count) ? singular : plural_form);
}

std::string plural(long long count, std::string_view singular) {
  return std::to_string(count) + " " + noun(count, singular);
}

std::string plural(long long count, std::string_view singular, std::string_view plural_form) {
  return std::to_string(count) + " " + noun(count, singular, plural_form);
}

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string text;
  for (const auto& item : items) {
    if (!text.empty()) text += separator;
    text += item;
  }
  return text;
}

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    const char* named = c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t" : nullptr;
    if (byte >= 0x20 && byte != 0x7f) {
      out += c;
    } else if (named != nullptr) {
      out += named;
    } else {
      char escape[5];
      std::snprintf(escape, sizeof escape, "\\x%02x", static_cast<unsigned>(byte));
      out += escape;
    }
  }
  return out;
}

std::string shorten_long_words(std::string_view text, std::size_t longest) {
  constexpr std::size_t kKept = 64;  // of a word cut short: enough to recognise what was typed
  std::string out;
  std::size_t at = 0;
  while (at < text.size()) {
    const bool blank = text[at] == ' ';
    std::size_t end = at;
    while (end < text.size() && (text[end] == ' ') == blank) ++end;
    const std::string_view piece = text.substr(at, end - at);
    if (!blank && piece.size() > longest) {
      out += piece.substr(0, kKept);
      out += "...(" + std::to_string(piece.size()) + " characters)";
    } else {
      out += piece;
    }
    at = end;
  }
  return out;
}

std::string in_quotes(std::string_view text) {
  // Appended piece by piece: "'" + printable(text) + "'" trips GCC 12's false -Wrestrict.
  std::string out(1, '\'');
  out += printable(text);
  out += '\'';
  return out;
}

}  // namespace csg
