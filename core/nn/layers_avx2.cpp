// The world model's layer kernels built with AVX2+FMA (CMake adds -mavx2 -mfma to this file
// only); layers.cpp calls them when the CPU has both. Eigen is included under a renamed
// namespace so none of its inline functions or templates compiled here can be merged by the
// linker with the plain builds elsewhere (as core/attention/attention_kernel_avx2.cpp).
#define Eigen poslab_eigen_avx2
#include <Eigen/Dense>
#undef Eigen

#define POSLAB_NN_NS poslab::nn_avx2
#define POSLAB_EIGEN poslab_eigen_avx2
#include "core/nn/layers_body.ipp"
