// Results of the serial run and its stage sums, shared by stage 01 and by the
// stages that run the serial variant as their same-process baseline.
#pragma once

#include <ostream>
#include <string>

#include "report/result.hpp"
#include "measure/stage_sums.hpp"

namespace csg {

// Measurements "serial", "h2d_sum", "kernel_sum", "d2h_sum"; bounds with the
// three sums, their total and total ÷ sum; verification of both passes.
StageResult serial_result(const std::string& stage, const DeviceInfo& device, const CommonOptions& options,
                          const Summary& total, const StageSums& sums, const VerifyResult& serial_check,
                          const VerifyResult& sums_check);

// The workload line, the table, the sums line and what they mean, the verification.
void print_serial_result(std::ostream& out, const StageResult& result, const CommonOptions& options,
                         const StageSums& sums);

// "100 batches of C_i = A_i·B: A_i 1024×512, B 512×1024, C_i 1024×1024 (float)"
std::string describe_workload(const Workload& work, const GemmChoice& gemm);

}  // namespace csg
