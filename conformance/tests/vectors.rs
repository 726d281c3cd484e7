//! The `vectors` suite: `vloadn`/`vstoren` of every type and width through every address
//! space at element-aligned addresses (6.12.7), `vec_step`, `shuffle`/`shuffle2` (6.12.12)
//! and the 3-vector layout, byte-exact against the host.

use clift_conformance::kernel_fixture::*;

#[test]
fn vload_and_vstore_move_vectors_at_element_offsets() {
    // §6.12.7: "vloadn ... Return sizeof (gentypen) bytes of data read from address
    // (p + (offset * n))"; "vstoren ... Write sizeof (gentypen) bytes given by data to
    // address (p + (offset * n))". The pointer need only be aligned to the element type;
    // vload3/vstore3 read and write three packed elements.
    let fx = Fixture::new();
    let k = fx.kernel(
        "kernel void vls(global const float *in, global float *o4, global float *o3,\n\
         \x20              global int *oi) {\n\
         \x20 size_t i = get_global_id(0);\n\
         \x20 float4 v = vload4(i, in + 1);\n\
         \x20 vstore4(v * 2.0f, i, o4 + 3);\n\
         \x20 float3 t = vload3(i, in);\n\
         \x20 vstore3(t + (float3)(1.0f, 2.0f, 3.0f), i, o3);\n\
         \x20 int2 p = vload2(i, (global const int *)in);\n\
         \x20 vstore2(p.yx, i, oi);\n\
         }\n",
        c"vls",
        c"",
    );
    let n = 19;
    let input: Vec<f32> = (0..4 * n + 8).map(|i| i as f32 * 0.5).collect();
    let (bi, o4, o3, oi) = (
        fx.buffer(&input),
        fx.filled(-1f32, 4 * n + 8),
        fx.filled(-1f32, 3 * n + 1),
        fx.filled(-1i32, 2 * n),
    );
    k.mem(0, &bi).mem(1, &o4).mem(2, &o3).mem(3, &oi);
    fx.run(&k, None, &[n], None);
    let mut e4 = vec![-1f32; 4 * n + 8];
    for i in 0..4 * n {
        e4[3 + i] = input[1 + i] * 2.0;
    }
    assert_same(&fx.read::<f32>(&o4, 4 * n + 8), &e4, "vload4/vstore4");
    let mut e3 = vec![-1f32; 3 * n + 1];
    for i in 0..3 * n {
        e3[i] = input[i] + [1.0, 2.0, 3.0][i % 3];
    }
    assert_same(
        &fx.read::<f32>(&o3, 3 * n + 1),
        &e3,
        "vload3/vstore3 (packed)",
    );
    let ints: Vec<i32> = input.iter().map(|f| f.to_bits() as i32).collect();
    let ei: Vec<i32> = (0..2 * n).map(|j| ints[j ^ 1]).collect();
    assert_same(&fx.read::<i32>(&oi, 2 * n), &ei, "vload2/vstore2");
}

const TYPES: [(&str, usize); 10] = [
    ("char", 1),
    ("uchar", 1),
    ("short", 2),
    ("ushort", 2),
    ("int", 4),
    ("uint", 4),
    ("long", 8),
    ("ulong", 8),
    ("float", 4),
    ("double", 8),
];

#[test]
fn vload_and_vstore_every_type_width_and_address_space() {
    // For each type and n: vloadn from global memory one element past an n-aligned
    // address, vstoren into __local memory, vloadn back, vstoren into a private array,
    // vloadn from it, and vstoren to global; plus vloadn from a __constant argument. The
    // bytes must come out exactly as they went in (the values are random bit patterns).
    let fx = Fixture::new();
    let mut rng = Rng(0xc0ffee);
    for (ty, size) in TYPES {
        let mut source = String::from("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
        for n in [2, 3, 4, 8, 16] {
            source += &format!(
                "kernel void k{n}(global const {ty} *in, global {ty} *out, constant {ty} *cin,
                                  global {ty} *cout) {{
                    local {ty} scratch[16 * 64];
                    {ty} priv[16];
                    size_t i = get_global_id(0), l = get_local_id(0);
                    {ty}{n} v = vload{n}(i, in + 1);
                    vstore{n}(v, l, scratch);
                    barrier(CLK_LOCAL_MEM_FENCE);
                    {ty}{n} w = vload{n}(l, scratch);
                    vstore{n}(w, 0, priv);
                    vstore{n}(vload{n}(0, priv), i, out + 1);
                    vstore{n}(vload{n}(i, cin + 1), i, cout + 1);
                }}\n"
            );
        }
        for n in [2usize, 3, 4, 8, 16] {
            let k = fx.kernel(
                &source,
                &std::ffi::CString::new(format!("k{n}")).unwrap(),
                c"",
            );
            let items = 64usize;
            let count = (items * n + 2) * size;
            let input: Vec<u8> = (0..count).map(|_| rng.next_u64() as u8).collect();
            let inb = fx.buffer(&input);
            let out = fx.filled(0u8, count);
            let cout = fx.filled(0u8, count);
            k.mem(0, &inb).mem(1, &out).mem(2, &inb).mem(3, &cout);
            fx.run(&k, None, &[items], Some(&[items]));
            let mut expected = vec![0u8; count];
            expected[size..size + items * n * size]
                .copy_from_slice(&input[size..size + items * n * size]);
            assert_same(
                &fx.read::<u8>(&out, count),
                &expected,
                &format!("{ty}{n} via local and private"),
            );
            assert_same(
                &fx.read::<u8>(&cout, count),
                &expected,
                &format!("{ty}{n} from constant"),
            );
        }
    }
}

#[test]
fn vec_step_shuffle_and_three_vector_layout() {
    // vec_step is the lane count, 4 for 3-vectors (6.11.1); shuffle/shuffle2 pick lanes by
    // the low bits of each mask element ("Only the ilogb(2m-1) least significant bits of
    // each mask element are used"); a 3-vector occupies 4 elements in memory (sizeof(float3)
    // is 16) while vload3/vstore3 are packed.
    let fx = Fixture::new();
    let k = fx.kernel(
        "kernel void k(global int *steps, global const uint8 *masks, global uint8 *picked,
                       global uint16 *both, global float3 *threes) {
            size_t i = get_global_id(0);
            if (i == 0) {
                steps[0] = vec_step(float); steps[1] = vec_step(char2);
                steps[2] = vec_step(int3); steps[3] = vec_step(short4);
                steps[4] = vec_step(ushort16); steps[5] = (int)sizeof(float3);
                steps[6] = (int)sizeof(long3); steps[7] = vec_step((int3)(1, 2, 3));
            }
            uint8 a = (uint8)(10, 11, 12, 13, 14, 15, 16, 17);
            uint8 b = (uint8)(20, 21, 22, 23, 24, 25, 26, 27);
            picked[i] = shuffle(a, masks[i]);
            both[i] = shuffle2(a, b, (uint16)(masks[i], masks[i] >> 3));
            threes[i] = (float3)(i, i + 0.5f, -1.0f);
        }",
        c"k",
        c"",
    );
    let n = 32usize;
    let mut rng = Rng(5);
    let masks: Vec<u32> = (0..8 * n).map(|_| rng.next_u64() as u32).collect();
    let (steps, mb) = (fx.filled(0i32, 8), fx.buffer(&masks));
    let (picked, both, threes) = (
        fx.filled(0u32, 8 * n),
        fx.filled(0u32, 16 * n),
        fx.filled(0u32, 4 * n),
    );
    k.mem(0, &steps)
        .mem(1, &mb)
        .mem(2, &picked)
        .mem(3, &both)
        .mem(4, &threes);
    fx.run(&k, None, &[n], None);
    assert_eq!(fx.read::<i32>(&steps, 8), [1, 2, 4, 4, 16, 16, 32, 4]);
    let a: Vec<u32> = (10..18).collect();
    let b: Vec<u32> = (20..28).collect();
    let ab: Vec<u32> = a.iter().chain(&b).copied().collect();
    let got = fx.read::<u32>(&picked, 8 * n);
    let got2 = fx.read::<u32>(&both, 16 * n);
    for i in 0..n {
        for l in 0..8 {
            let m = masks[8 * i + l];
            assert_eq!(
                got[8 * i + l],
                a[(m & 7) as usize],
                "shuffle item {i} lane {l}"
            );
            assert_eq!(
                got2[16 * i + l],
                ab[(m & 15) as usize],
                "shuffle2 item {i} lane {l}"
            );
            assert_eq!(
                got2[16 * i + 8 + l],
                ab[((m >> 3) & 15) as usize],
                "shuffle2 item {i} lane {}",
                8 + l
            );
        }
    }
    let words = fx.read::<u32>(&threes, 4 * n);
    for i in 0..n {
        assert_eq!(f32::from_bits(words[4 * i]), i as f32);
        assert_eq!(f32::from_bits(words[4 * i + 1]), i as f32 + 0.5);
        assert_eq!(f32::from_bits(words[4 * i + 2]), -1.0);
    }
}
