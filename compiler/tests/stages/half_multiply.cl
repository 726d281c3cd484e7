// half arithmetic (cl_khr_fp16), as the CTS's `multiply half` runs it: the loads, the
// rounding of the float product and the store are in line (codegen/func/half.rs), no calls.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void k(global half *out, global const half *a, global const half *b) {
    size_t i = get_global_id(0);
    out[i] = a[i] * b[i];
}
