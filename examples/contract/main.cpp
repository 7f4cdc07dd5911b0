#include "kiln/Kiln.h"
#include <cstdio>
using namespace kiln;

int main() {
  DispatchDevice flex = DispatchDevice::flex();
  DispatchDevice ad = DispatchDevice::autodiff(flex, CheckpointingStrategy::Balanced);

  DispatchTensor a = DispatchTensor::fromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3}, flex);
  DispatchTensor b = DispatchTensor::full({3}, 0.5f, DType::F32, flex);
  DispatchTensor c = exp(a * b + 1.0f).sum(/*axis=*/1, /*keepdim=*/false); // nothing runs yet
  std::printf("%s %s rank=%zu\n", c.shape().str().c_str(), c.dtype().str().c_str(), c.rank());
  std::vector<float> v = c.toVector<float>(); // materializes
  std::printf("%.4f %.4f\n", v[0], v[1]);

  DispatchTensor w = DispatchTensor::randn({3, 4}, DType::F32, ad, /*seed=*/7);
  std::printf("tracked=%d\n", (int)w.checkpointing.has_value());
  try {
    (void)(a + DispatchTensor::zeros({4}, DType::F32, flex)).toVector<float>();
  } catch (const kiln::Error &e) {
    std::printf("error: %s\n", e.what());
  }
}
