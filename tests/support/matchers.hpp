// The gMock matchers the tests read with, by their short names in namespace csg.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace csg {
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::SizeIs;
using ::testing::StartsWith;
}  // namespace csg
