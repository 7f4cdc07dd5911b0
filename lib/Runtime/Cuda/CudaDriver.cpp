//===- CudaDriver.cpp - The CUDA driver API, loaded at run time -----------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"
#include "kiln/Support/Error.h"


using namespace kiln;
using namespace kiln::detail::cuda;

std::string kiln::detail::cuda::errorText(const DriverApi &api, CUresult r) {
  const char *name = nullptr, *text = nullptr;
  if (api.cuGetErrorName)
    api.cuGetErrorName(r, &name);
  if (api.cuGetErrorString)
    api.cuGetErrorString(r, &text);
  std::string s = name ? name : "CUDA error " + std::to_string(r);
  if (text)
    s += std::string(": ") + text;
  return s;
}

DriverStatus kiln::detail::cuda::loadDriver(const char *library) {
  DriverStatus status;
  // The handle is never closed: kernels and buffers may be alive until the
  // process exits.
  void *lib = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    status.reason = std::string("no CUDA driver (") + library + " not found)";
    return status;
  }
  static_assert(sizeof(CUdeviceptr) == 8, "the driver ABI of 64-bit hosts");
  auto *api = new DriverApi();
  const char *missing = nullptr;
  auto need = [&](const char *name, auto &fn) {
    if (!missing && !resolveSymbol(lib, name, fn))
      missing = name;
  };
  need("cuInit", api->cuInit);
  need("cuDriverGetVersion", api->cuDriverGetVersion);
  need("cuGetErrorName", api->cuGetErrorName);
  need("cuGetErrorString", api->cuGetErrorString);
  need("cuDeviceGetCount", api->cuDeviceGetCount);
  need("cuDeviceGet", api->cuDeviceGet);
  need("cuDeviceGetName", api->cuDeviceGetName);
  need("cuDeviceGetAttribute", api->cuDeviceGetAttribute);
  need("cuDeviceTotalMem_v2", api->cuDeviceTotalMem);
  need("cuDevicePrimaryCtxRetain", api->cuDevicePrimaryCtxRetain);
  need("cuCtxSetCurrent", api->cuCtxSetCurrent);
  need("cuMemAlloc_v2", api->cuMemAlloc);
  need("cuMemFree_v2", api->cuMemFree);
  need("cuMemGetInfo_v2", api->cuMemGetInfo);
  need("cuMemcpyHtoDAsync_v2", api->cuMemcpyHtoDAsync);
  need("cuMemcpyDtoHAsync_v2", api->cuMemcpyDtoHAsync);
  need("cuMemcpyDtoDAsync_v2", api->cuMemcpyDtoDAsync);
  need("cuMemsetD8Async", api->cuMemsetD8Async);
  need("cuStreamCreate", api->cuStreamCreate);
  need("cuStreamDestroy_v2", api->cuStreamDestroy);
  need("cuStreamSynchronize", api->cuStreamSynchronize);
  need("cuStreamWaitEvent", api->cuStreamWaitEvent);
  need("cuEventCreate", api->cuEventCreate);
  need("cuEventDestroy_v2", api->cuEventDestroy);
  need("cuEventRecord", api->cuEventRecord);
  need("cuEventQuery", api->cuEventQuery);
  need("cuModuleLoadDataEx", api->cuModuleLoadDataEx);
  need("cuModuleUnload", api->cuModuleUnload);
  need("cuModuleGetFunction", api->cuModuleGetFunction);
  need("cuLaunchKernel", api->cuLaunchKernel);
  if (missing) {
    status.reason = std::string("the CUDA driver (") + library +
                    ") is too old: it has no " + missing;
    delete api;
    return status;
  }
  CUresult r = api->cuInit(0);
  if (r == CUDA_ERROR_NO_DEVICE) {
    status.reason = "no CUDA GPU found";
    delete api;
    return status;
  }
  if (r != CUDA_SUCCESS) {
    status.reason = "the CUDA driver failed to initialize (cuInit: " +
                    errorText(*api, r) + ")";
    delete api;
    return status;
  }
  api->cuDriverGetVersion(&status.version);
  r = api->cuDeviceGetCount(&status.deviceCount);
  if (r != CUDA_SUCCESS || status.deviceCount == 0) {
    status.reason = "no CUDA GPU found";
    delete api;
    return status;
  }
  status.api = api;
  return status;
}

const DriverStatus &kiln::detail::cuda::driver() {
  static const DriverStatus status = loadDriver("libcuda.so.1");
  return status;
}

void kiln::detail::cuda::check(CUresult r, const char *what) {
  if (r == CUDA_SUCCESS)
    return;
  const DriverApi *api = driver().api;
  throw Error(std::string("cuda: ") + what + ": " +
              (api ? errorText(*api, r) : "error " + std::to_string(r)));
}
