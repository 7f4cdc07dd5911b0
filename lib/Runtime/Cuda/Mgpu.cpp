//===- Mgpu.cpp - Kiln's mgpu* entry points over the driver ---------------===//
//
// Part of the Kiln project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//

#include "Mgpu.h"
#include "kiln/Support/Error.h"

#include <array>
#include <mutex>
#include <vector>

using namespace kiln;
using namespace kiln::detail::cuda;

namespace {

thread_local int32_t currentDevice = 0;

const DriverApi &api() {
  const DriverStatus &d = driver();
  if (!d.api)
    throw Error("cuda: " + d.reason);
  return *d.api;
}

/// The primary context of `device`, retained once for the process (the
/// runtime never releases it: buffers may outlive every backend object).
CUcontext primaryContext(int32_t device) {
  static std::mutex mu;
  static std::vector<CUcontext> contexts;
  std::lock_guard<std::mutex> lock(mu);
  if (device < 0 || device >= driver().deviceCount)
    throw Error("cuda: device " + std::to_string(device) + " does not exist");
  if (contexts.empty())
    contexts.assign(driver().deviceCount, nullptr);
  if (!contexts[device]) {
    CUdevice dev;
    check(api().cuDeviceGet(&dev, device), "cuDeviceGet");
    check(api().cuDevicePrimaryCtxRetain(&contexts[device], dev),
          "cuDevicePrimaryCtxRetain");
  }
  return contexts[device];
}

/// Makes the current device's context current on this thread. Cheap: the
/// driver keeps one current context per thread.
const DriverApi &enter() {
  const DriverApi &a = api();
  check(a.cuCtxSetCurrent(primaryContext(currentDevice)), "cuCtxSetCurrent");
  return a;
}

CUdeviceptr devicePtr(const void *p) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(p));
}

} // namespace

void kiln::detail::cuda::mgpuSetDefaultDevice(int32_t device) {
  currentDevice = device;
}

CUmodule kiln::detail::cuda::mgpuModuleLoadJIT(void *data, int optLevel,
                                               size_t assemblySize) {
  const DriverApi &a = enter();
  // The driver reads PTX up to a NUL.
  std::string ptx(static_cast<const char *>(data), assemblySize);
  std::array<char, 8192> errorLog{};
  std::array<char, 1024> infoLog{};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_INFO_LOG_BUFFER,
                            CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_OPTIMIZATION_LEVEL};
  void *values[] = {
      errorLog.data(),
      reinterpret_cast<void *>(static_cast<uintptr_t>(errorLog.size())),
      infoLog.data(),
      reinterpret_cast<void *>(static_cast<uintptr_t>(infoLog.size())),
      reinterpret_cast<void *>(static_cast<uintptr_t>(optLevel))};
  CUmodule module = nullptr;
  CUresult r = a.cuModuleLoadDataEx(&module, ptx.c_str(), 5, options, values);
  if (r != CUDA_SUCCESS)
    throw Error("cuda: the driver rejected a PTX module (" +
                errorText(a, r) + "):\n" + std::string(errorLog.data()));
  return module;
}

CUmodule kiln::detail::cuda::mgpuModuleLoad(void *data, size_t gpuBlobSize) {
  (void)gpuBlobSize; // cubins and fatbins carry their size
  const DriverApi &a = enter();
  CUmodule module = nullptr;
  check(a.cuModuleLoadDataEx(&module, data, 0, nullptr, nullptr),
        "cuModuleLoadDataEx");
  return module;
}

void kiln::detail::cuda::mgpuModuleUnload(CUmodule module) {
  check(enter().cuModuleUnload(module), "cuModuleUnload");
}

CUfunction kiln::detail::cuda::mgpuModuleGetFunction(CUmodule module,
                                                     const char *name) {
  CUfunction fn = nullptr;
  CUresult r = enter().cuModuleGetFunction(&fn, module, name);
  if (r != CUDA_SUCCESS)
    throw Error(std::string("cuda: kernel ") + name +
                " is not in its module: " + errorText(api(), r));
  return fn;
}

void kiln::detail::cuda::mgpuLaunchKernel(CUfunction function, intptr_t gridX,
                                          intptr_t gridY, intptr_t gridZ,
                                          intptr_t blockX, intptr_t blockY,
                                          intptr_t blockZ, int32_t smem,
                                          CUstream stream, void **params,
                                          void **extra, size_t paramsCount) {
  (void)paramsCount; // the kernel's signature says how many there are
  check(enter().cuLaunchKernel(function, gridX, gridY, gridZ, blockX, blockY,
                               blockZ, smem, stream, params, extra),
        "cuLaunchKernel");
}

CUstream kiln::detail::cuda::mgpuStreamCreate() {
  CUstream stream = nullptr;
  check(enter().cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING),
        "cuStreamCreate");
  return stream;
}

void kiln::detail::cuda::mgpuStreamDestroy(CUstream stream) {
  check(enter().cuStreamDestroy(stream), "cuStreamDestroy");
}

void kiln::detail::cuda::mgpuStreamSynchronize(CUstream stream) {
  check(enter().cuStreamSynchronize(stream), "cuStreamSynchronize");
}

void kiln::detail::cuda::mgpuStreamWaitEvent(CUstream stream, CUevent event) {
  check(enter().cuStreamWaitEvent(stream, event, 0), "cuStreamWaitEvent");
}

CUevent kiln::detail::cuda::mgpuEventCreate() {
  CUevent event = nullptr;
  check(enter().cuEventCreate(&event, CU_EVENT_DISABLE_TIMING),
        "cuEventCreate");
  return event;
}

void kiln::detail::cuda::mgpuEventDestroy(CUevent event) {
  check(enter().cuEventDestroy(event), "cuEventDestroy");
}

void kiln::detail::cuda::mgpuEventRecord(CUevent event, CUstream stream) {
  check(enter().cuEventRecord(event, stream), "cuEventRecord");
}

bool kiln::detail::cuda::mgpuEventQuery(CUevent event) {
  CUresult r = enter().cuEventQuery(event);
  if (r == CUDA_ERROR_NOT_READY)
    return false;
  check(r, "cuEventQuery");
  return true;
}

void kiln::detail::cuda::mgpuEnterDevice() { enter(); }

void *kiln::detail::cuda::mgpuMemAlloc(uint64_t sizeBytes, CUstream stream,
                                       bool isHostShared) {
  (void)stream; // allocation is not stream-ordered here
  if (isHostShared)
    throw Error("cuda: host-shared memory is not supported");
  CUdeviceptr p = 0;
  CUresult r = enter().cuMemAlloc(&p, sizeBytes);
  if (r == CUDA_ERROR_OUT_OF_MEMORY)
    return nullptr; // the caller may free cached blocks and retry
  check(r, "cuMemAlloc");
  return reinterpret_cast<void *>(static_cast<uintptr_t>(p));
}

void kiln::detail::cuda::mgpuMemFree(void *ptr, CUstream stream) {
  (void)stream;
  check(enter().cuMemFree(devicePtr(ptr)), "cuMemFree");
}

void kiln::detail::cuda::mgpuMemcpyHtoD(void *dst, const void *src,
                                        size_t sizeBytes, CUstream stream) {
  if (sizeBytes)
    check(enter().cuMemcpyHtoDAsync(devicePtr(dst), src, sizeBytes, stream),
          "cuMemcpyHtoDAsync");
}

void kiln::detail::cuda::mgpuMemcpyDtoH(void *dst, const void *src,
                                        size_t sizeBytes, CUstream stream) {
  if (sizeBytes)
    check(enter().cuMemcpyDtoHAsync(dst, devicePtr(src), sizeBytes, stream),
          "cuMemcpyDtoHAsync");
}

void kiln::detail::cuda::mgpuMemcpyDtoD(void *dst, const void *src,
                                        size_t sizeBytes, CUstream stream) {
  if (sizeBytes)
    check(enter().cuMemcpyDtoDAsync(devicePtr(dst), devicePtr(src), sizeBytes,
                                    stream),
          "cuMemcpyDtoDAsync");
}

void kiln::detail::cuda::mgpuMemset8(void *dst, uint8_t value, size_t count,
                                     CUstream stream) {
  if (count)
    check(enter().cuMemsetD8Async(devicePtr(dst), value, count, stream),
          "cuMemsetD8Async");
}

void kiln::detail::cuda::mgpuMemGetInfo(size_t *freeBytes,
                                        size_t *totalBytes) {
  check(enter().cuMemGetInfo(freeBytes, totalBytes), "cuMemGetInfo");
}
