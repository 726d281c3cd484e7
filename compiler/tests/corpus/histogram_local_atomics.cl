// 256-bin histogram: per-group local histograms built with local atomics, merged with
// global atomics; a second variant privatises several sub-histograms to reduce contention.
#pragma OPENCL EXTENSION cl_khr_local_int32_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_global_int32_base_atomics : enable

#define BINS 256
#define SUB_HISTS 4

__kernel void histogram256(__global const uchar *data, const uint n, __global uint *hist)
{
    __local uint lh[BINS];
    uint lid = get_local_id(0), lsz = get_local_size(0);
    for (uint b = lid; b < BINS; b += lsz)
        lh[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = get_global_id(0); i < n; i += get_global_size(0))
        atomic_inc(&lh[data[i]]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint b = lid; b < BINS; b += lsz)
        if (lh[b])
            atomic_add(&hist[b], lh[b]);
}

__kernel void histogram256_sub(__global const uchar4 *data, const uint n4, __global uint *hist)
{
    __local uint lh[SUB_HISTS * BINS];
    uint lid = get_local_id(0), lsz = get_local_size(0);
    for (uint b = lid; b < SUB_HISTS * BINS; b += lsz)
        lh[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    __local uint *mine = lh + (lid % SUB_HISTS) * BINS;
    for (uint i = get_global_id(0); i < n4; i += get_global_size(0)) {
        uchar4 v = data[i];
        atom_inc(mine + v.x);
        atom_inc(mine + v.y);
        atom_inc(mine + v.z);
        atom_inc(mine + v.w);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint b = lid; b < BINS; b += lsz) {
        uint total = 0;
        for (uint s = 0; s < SUB_HISTS; ++s)
            total += lh[s * BINS + b];
        atomic_add(hist + b, total);
    }
}

__kernel void histogram_float_bins(__global const float *x, const uint n, const float lo,
                                   const float hi, const uint nbins, __global uint *hist,
                                   __local uint *lh)
{
    uint lid = get_local_id(0);
    for (uint b = lid; b < nbins; b += get_local_size(0))
        lh[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    float inv = nbins / (hi - lo);
    for (uint i = get_global_id(0); i < n; i += get_global_size(0)) {
        float v = x[i];
        if (v >= lo && v < hi)
            atomic_inc(lh + min((uint)((v - lo) * inv), nbins - 1));
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint b = lid; b < nbins; b += get_local_size(0))
        atomic_add(hist + b, lh[b]);
}
