#include "report/device_info.hpp"

#include <cuda_runtime.h>
#include <dlfcn.h>

#include "check.hpp"
#include "base/errors.hpp"
#include "base/text.hpp"

namespace csg {
namespace {

// NVML comes with the driver, not the toolkit, and is absent on machines
// without one; load it at run time so the binaries start everywhere. Only
// these stable entry points are used.
struct Nvml {
  using Device = void*;
  using Init = int (*)();
  using Shutdown = int (*)();
  using ByBusId = int (*)(const char*, Device*);
  using GetUint = int (*)(Device, unsigned*);
  using GetText = int (*)(char*, unsigned);

  void* library = nullptr;
  Init init = nullptr;
  Shutdown shutdown = nullptr;
  ByBusId by_bus_id = nullptr;
  GetUint curr_gen = nullptr;
  GetUint curr_width = nullptr;
  GetUint max_gen = nullptr;
  GetUint max_width = nullptr;
  GetText driver_version = nullptr;

  Nvml() {
    library = dlopen("libnvidia-ml.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (library == nullptr) return;
    init = reinterpret_cast<Init>(dlsym(library, "nvmlInit_v2"));
    shutdown = reinterpret_cast<Shutdown>(dlsym(library, "nvmlShutdown"));
    by_bus_id = reinterpret_cast<ByBusId>(dlsym(library, "nvmlDeviceGetHandleByPciBusId_v2"));
    curr_gen = reinterpret_cast<GetUint>(dlsym(library, "nvmlDeviceGetCurrPcieLinkGeneration"));
    curr_width = reinterpret_cast<GetUint>(dlsym(library, "nvmlDeviceGetCurrPcieLinkWidth"));
    max_gen = reinterpret_cast<GetUint>(dlsym(library, "nvmlDeviceGetMaxPcieLinkGeneration"));
    max_width = reinterpret_cast<GetUint>(dlsym(library, "nvmlDeviceGetMaxPcieLinkWidth"));
    driver_version = reinterpret_cast<GetText>(dlsym(library, "nvmlSystemGetDriverVersion"));
  }
  ~Nvml() {
    if (library != nullptr) dlclose(library);
  }
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  bool usable() const {
    return init && shutdown && by_bus_id && curr_gen && curr_width && max_gen && max_width;
  }
};

std::optional<int> read_uint(Nvml::GetUint getter, Nvml::Device device) {
  unsigned value = 0;
  if (getter(device, &value) != 0) return std::nullopt;
  return static_cast<int>(value);
}

void read_pcie_link(DeviceInfo& info) {
  Nvml nvml;
  if (!nvml.usable() || nvml.init() != 0) return;
  Nvml::Device device = nullptr;
  if (nvml.driver_version != nullptr) {
    char version[96] = {};  // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE is 80
    if (nvml.driver_version(version, sizeof version) == 0) info.driver = version;
  }
  if (nvml.by_bus_id(info.pci_bus_id.c_str(), &device) == 0) {
    info.pcie_gen = read_uint(nvml.curr_gen, device);
    info.pcie_width = read_uint(nvml.curr_width, device);
    info.pcie_gen_max = read_uint(nvml.max_gen, device);
    info.pcie_width_max = read_uint(nvml.max_width, device);
  }
  nvml.shutdown();
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
