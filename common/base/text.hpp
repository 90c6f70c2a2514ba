// Text for people: a count with its noun in the right number ("1 batch",
// "3 batches"), and text the user typed shown so that it can neither break
// the one line of an error nor drive the terminal.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace csg {

// The noun in the number `count` asks for: singular for exactly 1 (and -1),
// else the plural ("batch" -> "batches", "copy" -> "copies", "key" -> "keys").
std::string noun(long long count, std::string_view singular);
// The same with the plural given, for a noun the rule gets wrong: noun(n, "child", "children").
std::string noun(long long count, std::string_view singular, std::string_view plural_form);

// The count, a space, and the noun: plural(1, "batch") = "1 batch", plural(0, "batch") = "0 batches".
std::string plural(long long count, std::string_view singular);
std::string plural(long long count, std::string_view singular, std::string_view plural_form);

// The items with `separator` between them: join({"a", "b"}, "|") = "a|b".
std::string join(const std::vector<std::string>& items, std::string_view separator);

// `text` with every control character (a newline, a tab, ESC, DEL ...) written
// as an escape: \n \r \t, else \xNN. The rest, UTF-8 included, is kept.
std::string printable(std::string_view text);
// `text` with every word longer than `longest` (a path is shorter) cut to its
// first 64 characters and its length ("1234...(5000 characters)").
std::string shorten_long_words(std::string_view text, std::size_t longest = 512);
// printable(text) between single quotes: how a message echoes what the user typed.
// (Not "quoted": std::quoted would win overload resolution for a std::string.)
std::string in_quotes(std::string_view text);

}  // namespace csg
