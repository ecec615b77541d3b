// ptxplay: stands in for the CUDA toolkit's crt/sm_70_rt.hpp, which clang's
// __clang_cuda_intrinsics.h includes. The __match_*_sync overloads it would
// declare are in ptxplay_prelude.h.
