// SGEMM with float4 vector loads, a 4x4 register block per work-item and local tiles sized
// by macros (TS_M x TS_K of A, TS_K x TS_N of B).
#define TS_M 32
#define TS_N 32
#define TS_K 16
#define RM 4
#define RN 4
#define WG_X (TS_N / RN)
#define WG_Y (TS_M / RM)

__kernel __attribute__((reqd_work_group_size(WG_X, WG_Y, 1)))
void sgemm_vec4(const int M, const int N, const int K, __global const float *A,
                __global const float4 *B4, __global float4 *C4)
{
    __local float As[TS_K][TS_M];
    __local float4 Bs[TS_K][TS_N / 4];
    const int tx = get_local_id(0), ty = get_local_id(1);
    const int row0 = get_group_id(1) * TS_M + ty * RM;
    const int col4 = get_group_id(0) * (TS_N / 4) + tx; /* one float4 column per item */
    const int tid = ty * WG_X + tx;
    float4 acc[RM];
    for (int r = 0; r < RM; ++r)
        acc[r] = (float4)(0.0f);

    for (int k0 = 0; k0 < K; k0 += TS_K) {
        for (int idx = tid; idx < TS_M * TS_K; idx += WG_X * WG_Y) {
            int m = idx / TS_K, k = idx % TS_K;
            int gm = get_group_id(1) * TS_M + m;
            As[k][m] = (gm < M && k0 + k < K) ? A[gm * K + k0 + k] : 0.0f;
        }
        for (int idx = tid; idx < TS_K * (TS_N / 4); idx += WG_X * WG_Y) {
            int k = idx / (TS_N / 4), n4 = idx % (TS_N / 4);
            int gn4 = get_group_id(0) * (TS_N / 4) + n4;
            Bs[k][n4] = (k0 + k < K && gn4 * 4 < N) ? B4[(k0 + k) * (N / 4) + gn4] : (float4)(0.0f);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TS_K; ++k) {
            float4 b = Bs[k][tx];
            float4 a = vload4(0, &As[k][ty * RM]);
            acc[0] = mad((float4)(a.x), b, acc[0]);
            acc[1] = mad((float4)(a.y), b, acc[1]);
            acc[2] = mad((float4)(a.z), b, acc[2]);
            acc[3] = mad((float4)(a.w), b, acc[3]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int r = 0; r < RM; ++r)
        if (row0 + r < M && col4 * 4 < N)
            C4[(row0 + r) * (N / 4) + col4] = acc[r];
}
