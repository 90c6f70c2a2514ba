// The lesson's report with its device and output given: what report()
// prints and writes for this device, for tests on made-up figures.
#pragma once

#include <ostream>

#include "lesson.hpp"
#include "report/device_info.hpp"

namespace csg::lesson02 {

bool report(std::ostream& out, const Options& options, const DeviceInfo& device, const Figures& figures);

}  // namespace csg::lesson02
