// The GPU a run used, as reported in every table header and results JSON.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

// (require_device, which selects the GPU, is in stage.hpp.)
namespace csg {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  int async_engines = 0;  // copy engines: 2+ lets H2D and D2H run at the same time
  std::size_t total_memory_bytes = 0;
  std::string pci_bus_id;
  // PCIe link as NVML reports it (absent without NVML), read at the end of a run (the
  // current generation drops while the GPU idles); *_max is what the link can do.
  std::optional<int> pcie_gen;
  std::optional<int> pcie_width;
  std::optional<int> pcie_gen_max;
  std::optional<int> pcie_width_max;
  std::optional<std::string> driver;  // NVML's driver version, e.g. "580.159.04"; absent without NVML
  int driver_version = 0;   // the CUDA version the driver supports, e.g. 13000 for 13.0
  int runtime_version = 0;

  std::string compute_capability() const { return std::to_string(cc_major) + "." + std::to_string(cc_minor); }
  // "NVIDIA H200 (sm_90, 132 SMs, 3 copy engines, PCIe Gen5 x16, driver 580.159.04, CUDA driver API 13.0, runtime 13.0)"
  std::string summary() const;
};

DeviceInfo query_device_info(int device);

}  // namespace csg
