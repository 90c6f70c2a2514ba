#include "report/device_info.hpp"

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <memory>

#include "check.hpp"
#include "base/text.hpp"

namespace csg {
namespace {

// NVML comes with the driver, not the toolkit, and is absent on machines
// without one; load it at run time so the binaries start everywhere. Only
// these stable entry points are used.
using NvmlDevice = void*;
using NvmlGetUint = int (*)(NvmlDevice, unsigned*);

template <class Function>
Function nvml_symbol(void* library, const char* name) {
  return reinterpret_cast<Function>(dlsym(library, name));
}

std::optional<int> read_uint(NvmlGetUint getter, NvmlDevice device) {
  unsigned value = 0;
  if (getter(device, &value) != 0) return std::nullopt;
  return static_cast<int>(value);
}

void read_pcie_link(DeviceInfo& info) {
  const std::unique_ptr<void, int (*)(void*)> library(dlopen("libnvidia-ml.so.1", RTLD_LAZY | RTLD_LOCAL), dlclose);
  if (library == nullptr) return;
  const auto init = nvml_symbol<int (*)()>(library.get(), "nvmlInit_v2");
  const auto shutdown = nvml_symbol<int (*)()>(library.get(), "nvmlShutdown");
  const auto by_bus_id =
      nvml_symbol<int (*)(const char*, NvmlDevice*)>(library.get(), "nvmlDeviceGetHandleByPciBusId_v2");
  const auto gen = nvml_symbol<NvmlGetUint>(library.get(), "nvmlDeviceGetCurrPcieLinkGeneration");
  const auto width = nvml_symbol<NvmlGetUint>(library.get(), "nvmlDeviceGetCurrPcieLinkWidth");
  const auto gen_max = nvml_symbol<NvmlGetUint>(library.get(), "nvmlDeviceGetMaxPcieLinkGeneration");
  const auto width_max = nvml_symbol<NvmlGetUint>(library.get(), "nvmlDeviceGetMaxPcieLinkWidth");
  const auto driver_version = nvml_symbol<int (*)(char*, unsigned)>(library.get(), "nvmlSystemGetDriverVersion");
  if (!init || !shutdown || !by_bus_id || !gen || !width || !gen_max || !width_max || init() != 0) return;
  char version[96] = {};  // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE is 80
  if (driver_version != nullptr && driver_version(version, sizeof version) == 0) info.driver = version;
  NvmlDevice device = nullptr;
  if (by_bus_id(info.pci_bus_id.c_str(), &device) == 0) {
    info.pcie_gen = read_uint(gen, device);
    info.pcie_width = read_uint(width, device);
    info.pcie_gen_max = read_uint(gen_max, device);
    info.pcie_width_max = read_uint(width_max, device);
  }
  shutdown();
}

std::string version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

}  // namespace

DeviceInfo query_device_info(int device) {
  DeviceInfo info;
  info.ordinal = device;
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  info.name = prop.name;
  info.cc_major = prop.major;
  info.cc_minor = prop.minor;
  info.sm_count = prop.multiProcessorCount;
  info.async_engines = prop.asyncEngineCount;
  info.total_memory_bytes = prop.totalGlobalMem;
  char bus_id[32] = {};
  CUDA_CHECK(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, device));
  info.pci_bus_id = bus_id;
  CUDA_CHECK(cudaDriverGetVersion(&info.driver_version));
  CUDA_CHECK(cudaRuntimeGetVersion(&info.runtime_version));
  read_pcie_link(info);
  return info;
}

std::string DeviceInfo::summary() const {
  std::string text = name + " (sm_" + std::to_string(cc_major) + std::to_string(cc_minor) + ", " +
                     plural(sm_count, "SM") + ", " + plural(async_engines, "copy engine");
  if (pcie_gen && pcie_width) {
    text += ", PCIe Gen" + std::to_string(*pcie_gen) + " x" + std::to_string(*pcie_width);
  }
  text += ", driver " + (driver ? *driver : std::string("version unknown")) + ", CUDA driver API " +
          version_text(driver_version) + ", runtime " + version_text(runtime_version) + ")";
  return text;
}

}  // namespace csg
