#!/usr/bin/env bash
# The AVX2+FMA builds of the kernels (core/*/*_avx2.cpp) define no symbol another object
# could share: every global or weak symbol is in their own namespaces (poslab::nn_avx2,
# poslab::kernel_avx2, Eigen renamed to poslab_eigen_avx2). A shared one (a standard-library
# template instantiated there, say) could be the copy the linker keeps for the plain code,
# and the binary would then die with SIGILL on a CPU without AVX2.
#   avx2_objects_test.sh OBJECT_DIR   (poslab_core's object folder)
set -u
mapfile -t objs < <(find "$1" -name '*_avx2.cpp.o')
[ "${#objs[@]}" -ge 1 ] || { echo "no *_avx2.cpp.o under $1"; exit 1; }
fail=0
for o in "${objs[@]}"; do
  shared=$(nm -C --defined-only "$o" | awk '$2 ~ /^[TWVuiBDR]$/' |
    grep -vE ' (poslab::nn_avx2::|poslab::kernel_avx2::|poslab_eigen_avx2::|DW\.ref\.__gxx_personality_v0$)')
  if [ -n "$shared" ]; then
    echo "FAIL: $o defines symbols outside its own namespaces:"; echo "$shared" | head -20; fail=1
  else
    echo "ok   $(basename "$o"): $(nm --defined-only "$o" | awk '$2 ~ /^[TWVuiBDR]$/' | wc -l) global symbols, all its own"
  fi
done
exit $fail
