// The gMock matchers the tests read with, by their short names in namespace csg.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "report/verdict.hpp"

namespace csg {
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::SizeIs;
using ::testing::StartsWith;

// One branch of a verdict, for a parameterised test: its name, the figures
// that choose it, the outcome they must choose and the words its sentence
// must say.
template <class Figures>
struct VerdictBranch {
  const char* name;
  Figures figures;
  const char* outcome;
  std::vector<std::string> words;
};

// How a failed expectation shows a verdict: its id, outcome and sentence.
inline void PrintTo(const Verdict& verdict, std::ostream* os) {
  *os << verdict.id << " -> " << verdict.outcome << ": \"" << verdict.sentence << '"';
}

// A verdict of this id (an empty id: any) and outcome whose sentence says
// every one of `words`.
inline ::testing::Matcher<const Verdict&> IsVerdict(const std::string& id, const std::string& outcome,
                                                    const std::vector<std::string>& words) {
  std::vector<::testing::Matcher<const std::string&>> says;
  for (const std::string& w : words) says.push_back(HasSubstr(w));
  const ::testing::Matcher<const std::string&> any_id = ::testing::_;
  return AllOf(::testing::Field("id", &Verdict::id, id.empty() ? any_id : ::testing::Eq(id)),
               ::testing::Field("outcome", &Verdict::outcome, outcome),
               ::testing::Field("sentence", &Verdict::sentence, ::testing::AllOfArray(says)));
}
}  // namespace csg
