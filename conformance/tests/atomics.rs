//! The `atomics` suite (6.12.11 and the `cl_khr_*_atomics` extensions): every atomic
//! function on global and local memory, 32- and 64-bit, under contention from every core,
//! with exact totals and the values returned checked.

use clift_conformance::kernel_fixture::*;

/// The local sizes tried with a global size: NULL, and the explicit sizes given.
fn local_of(local: Option<usize>) -> Option<[usize; 1]> {
    local.map(|l| [l])
}

#[test]
fn atomics_under_contention_give_exact_totals() {
    // §6.12.11 atomic functions on 32-bit integers in global memory: "The function ... is
    // performed atomically" — every work-item updates the same words at once, and the
    // results are exact. atomic_inc returns the old value, so the values returned form a
    // permutation of 0 .. n-1. A compare-and-swap loop implements an add.
    let fx = Fixture::new();
    let k = fx.kernel(
        "kernel void atoms(global int *c, global int *olds, global uint *u) {\n\
         \x20 int i = (int)get_global_id(0);\n\
         \x20 atomic_add(&c[0], i + 1);\n\
         \x20 olds[i] = atomic_inc(&c[1]);\n\
         \x20 atomic_min(&c[2], 100000 - i);\n\
         \x20 atomic_max(&c[3], i * 3);\n\
         \x20 volatile global int *p = &c[4];\n\
         \x20 int old, upd;\n\
         \x20 do { old = *p; upd = old + 2; } while (atomic_cmpxchg(p, old, upd) != old);\n\
         \x20 atomic_sub(&c[5], 3);\n\
         \x20 atomic_dec(&c[6]);\n\
         \x20 atomic_xchg(&c[7], 5);\n\
         \x20 atomic_or(&u[0], 1u << (i % 32));\n\
         \x20 atomic_and(&u[1], ~(1u << (i % 32)));\n\
         \x20 atomic_xor(&u[2], 1u);\n\
         \x20 atomic_min(&u[3], (uint)i + 7u);\n\
         \x20 atomic_max(&u[4], (uint)i + 0x80000000u);\n\
         }\n",
        c"atoms",
        c"",
    );
    for (n, local) in [
        (4000usize, Some(50usize)),
        (4001, None),
        (1 << 15, Some(256)),
    ] {
        let c = fx.buffer(&[0i32, 0, i32::MAX, i32::MIN, 0, 0, 0, 0]);
        let olds = fx.filled(-1i32, n);
        let u = fx.buffer(&[0u32, u32::MAX, 0, u32::MAX, 0]);
        k.mem(0, &c).mem(1, &olds).mem(2, &u);
        fx.run(&k, None, &[n], local_of(local).as_ref().map(|l| &l[..]));
        let n32 = n as i64;
        let what = format!("n {n} local {local:?}");
        let counters: Vec<i32> = fx.read(&c, 8);
        assert_eq!(
            counters,
            [
                (n32 * (n32 + 1) / 2) as i32,
                n as i32,
                100_000 - (n as i32 - 1),
                3 * (n as i32 - 1),
                2 * n as i32,
                -3 * n as i32,
                -(n as i32),
                5,
            ],
            "{what}: add, inc, min, max, cmpxchg, sub, dec, xchg"
        );
        assert_eq!(
            fx.read::<u32>(&u, 5),
            [u32::MAX, 0, (n % 2) as u32, 7, (n as u32 - 1) + 0x8000_0000],
            "{what}: or, and, xor, unsigned min/max"
        );
        let mut seen: Vec<i32> = fx.read(&olds, n);
        seen.sort();
        assert_same(
            &seen,
            &(0..n as i32).collect::<Vec<_>>(),
            &format!("{what}: values returned by atomic_inc"),
        );
    }
}

#[test]
fn local_atomics_count_per_group_exactly() {
    // The same functions on __local int/uint: each group accumulates in local memory, then
    // one work-item publishes the group's totals. atomic_inc's returns within a group form a
    // permutation of 0 .. local size - 1.
    let fx = Fixture::new();
    let k = fx.kernel(
        "kernel void k(global int *totals, global int *olds) {
            local int c[6];
            local uint u[3];
            size_t l = get_local_id(0), g = get_group_id(0);
            int i = (int)l;
            if (l == 0) {
                c[0] = 0; c[1] = 0; c[2] = 1 << 30; c[3] = -(1 << 30); c[4] = 0; c[5] = 0;
                u[0] = 0; u[1] = ~0u; u[2] = 0;
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            atomic_add(&c[0], i);
            olds[get_global_id(0)] = atomic_inc(&c[1]);
            atomic_min(&c[2], 1000 - i);
            atomic_max(&c[3], i);
            int old;
            do { old = c[4]; } while (atomic_cmpxchg(&c[4], old, old + 3) != old);
            atomic_sub(&c[5], i);
            atomic_or(&u[0], 1u << (i % 32));
            atomic_and(&u[1], ~(1u << (i % 32)));
            atomic_xor(&u[2], (uint)i);
            barrier(CLK_LOCAL_MEM_FENCE);
            if (l == 0) {
                for (int j = 0; j < 6; j++) totals[g * 9 + j] = c[j];
                for (int j = 0; j < 3; j++) totals[g * 9 + 6 + j] = (int)u[j];
            }
        }",
        c"k",
        c"",
    );
    for (groups, local) in [(13usize, 64usize), (4, 250), (32, 7)] {
        let n = groups * local;
        let totals = fx.filled(0i32, groups * 9);
        let olds = fx.filled(-1i32, n);
        k.mem(0, &totals).mem(1, &olds);
        fx.run(&k, None, &[n], Some(&[local]));
        let t: Vec<i32> = fx.read(&totals, groups * 9);
        let l = local as i32;
        let xor = (0..l).fold(0, |a, i| a ^ i);
        let or = if local >= 32 {
            -1
        } else {
            (1i64 << local) as i32 - 1
        };
        let and = !or;
        for g in 0..groups {
            assert_eq!(
                &t[g * 9..g * 9 + 9],
                &[
                    l * (l - 1) / 2,
                    l,
                    1000 - (l - 1),
                    l - 1,
                    3 * l,
                    -(l * (l - 1) / 2),
                    or,
                    and,
                    xor
                ],
                "group {g} of {groups}x{local}"
            );
        }
        let olds: Vec<i32> = fx.read(&olds, n);
        for (g, chunk) in olds.chunks(local).enumerate() {
            let mut seen = chunk.to_vec();
            seen.sort();
            assert_same(
                &seen,
                &(0..l).collect::<Vec<_>>(),
                &format!("group {g} inc"),
            );
        }
    }
}

#[test]
fn extension_names_64_bit_atomics_and_float_exchange() {
    // The atom_* names of cl_khr_{global,local}_int32_{base,extended}_atomics, the 64-bit
    // atom_* of cl_khr_int64_{base,extended}_atomics on long and ulong, and atomic_xchg on
    // float (6.12.11: "atomic_xchg ... float"), all contended by every work-item.
    let fx = Fixture::new();
    let k = fx.kernel(
        "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
        #pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
        #pragma OPENCL EXTENSION cl_khr_global_int32_base_atomics : enable
        kernel void k(global int *c, global long *w, global ulong *uw, global float *f,
                      global long *olds) {
            long i = get_global_id(0);
            atom_add(&c[0], 2);
            atom_inc(&c[1]);
            atom_max(&c[2], (int)i);
            atom_add(&w[0], i << 33);
            olds[i] = atom_inc(&w[1]);
            atom_sub(&w[2], i);
            atom_min(&w[3], -i);
            atom_max(&w[4], i << 40);
            long old;
            do { old = w[5]; } while (atom_cmpxchg(&w[5], old, old + 5) != old);
            atom_xchg(&w[6], 77L);
            atom_dec(&w[7]);
            atom_or(&uw[0], 1ul << (i % 64));
            atom_and(&uw[1], ~(1ul << (i % 64)));
            atom_xor(&uw[2], (ulong)i);
            atom_min(&uw[3], (ulong)i + 9ul);
            atom_max(&uw[4], (ulong)i << 50);
            float prev = atomic_xchg(&f[0], (float)i);
            f[1 + i] = prev;
        }",
        c"k",
        c"",
    );
    let n = 4096usize;
    let c = fx.buffer(&[0i32, 0, i32::MIN]);
    let w = fx.buffer(&[0i64, 0, 0, 0, 0, 0, 0, 0]);
    let uw = fx.buffer(&[0u64, u64::MAX, 0, u64::MAX, 0]);
    let f = fx.filled(0u32, n + 1);
    let olds = fx.filled(-1i64, n);
    k.mem(0, &c).mem(1, &w).mem(2, &uw).mem(3, &f).mem(4, &olds);
    fx.run(&k, None, &[n], Some(&[64]));
    let ni = n as i64;
    assert_eq!(
        fx.read::<i32>(&c, 3),
        [2 * n as i32, n as i32, n as i32 - 1]
    );
    assert_eq!(
        fx.read::<i64>(&w, 8),
        [
            (ni * (ni - 1) / 2) << 33,
            ni,
            -(ni * (ni - 1) / 2),
            -(ni - 1),
            (ni - 1) << 40,
            5 * ni,
            77,
            -ni
        ]
    );
    let xor = (0..n as u64).fold(0, |a, i| a ^ i);
    assert_eq!(
        fx.read::<u64>(&uw, 5),
        [u64::MAX, 0, xor, 9, (n as u64 - 1) << 50]
    );
    let mut seen: Vec<i64> = fx.read(&olds, n);
    seen.sort();
    assert_same(&seen, &(0..ni).collect::<Vec<_>>(), "atom_inc on long");
    // The exchanges form one chain: every value but one was replaced exactly once, and the
    // first exchange saw the initial 0.
    let words: Vec<u32> = fx.read(&f, n + 1);
    let mut values: Vec<u32> = words[1..]
        .iter()
        .map(|w| f32::from_bits(*w) as u32)
        .collect();
    values.push(f32::from_bits(words[0]) as u32);
    values.sort();
    let mut expected: Vec<u32> = (0..n as u32).collect();
    expected.push(0);
    expected.sort();
    assert_same(&values, &expected, "atomic_xchg on float");
}
