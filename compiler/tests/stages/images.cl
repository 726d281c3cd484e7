// Sampled reads, sampler-less reads, writes.
constant sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;

kernel void k(read_only image2d_t src, write_only image2d_t dst, read_only image2d_t plain) {
    int2 p = (int2)(get_global_id(0), get_global_id(1));
    float4 a = read_imagef(src, s, p);
    uint4 b = read_imageui(plain, p + (int2)(1, 0));
    write_imagef(dst, p, a + convert_float4(b));
}
