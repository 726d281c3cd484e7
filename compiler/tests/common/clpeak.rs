//! clpeak's float16 bandwidth kernel and its host model, shared by the tests of the
//! passes that shape its loop (`run_scheduled.rs`, `run_stepped_pointers.rs`).

/// clpeak's float16 bandwidth kernel (`global_bandwidth_v16_lo`, 16 fetches of 64 bytes per
/// item at a stride of the local size).
pub const BANDWIDTH16: &str = "
#define FETCH_2(sum, id, A, jump) sum += A[id]; id += jump; sum += A[id]; id += jump;
#define FETCH_4(sum, id, A, jump) FETCH_2(sum, id, A, jump); FETCH_2(sum, id, A, jump);
kernel void bandwidth(global float16 *A, global float *B) {
    int id = (get_group_id(0) * get_local_size(0) * 16) + get_local_id(0);
    float16 sum = 0;
    for (int i = 0; i < 4; i++) {
        FETCH_4(sum, id, A, get_local_size(0));
    }
    float t = (sum.S0) + (sum.S1) + (sum.S2) + (sum.S3) + (sum.S4) + (sum.S5) + (sum.S6) + (sum.S7);
    t += (sum.S8) + (sum.S9) + (sum.SA) + (sum.SB) + (sum.SC) + (sum.SD) + (sum.SE) + (sum.SF);
    B[get_global_id(0)] = t;
}
";

/// What `bandwidth` writes for item `g` of groups of `local` items over `a`.
pub fn bandwidth16_want(g: usize, local: usize, a: &[f32]) -> f32 {
    let (group, lid) = (g / local, g % local);
    let mut sum = [0f32; 16];
    for k in 0..16 {
        let id = group * local * 16 + lid + k * local;
        for (c, s) in sum.iter_mut().enumerate() {
            *s += a[16 * id + c];
        }
    }
    // `t = S0 + ... + S7; t += S8 + ... + SF`, each sum left to right.
    let t = sum[1..8].iter().fold(sum[0], |t, &s| t + s);
    t + sum[9..].iter().fold(sum[8], |t, &s| t + s)
}
