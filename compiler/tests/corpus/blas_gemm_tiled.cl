// BLAS level 3: C = alpha*A*B + beta*C with square local-memory tiles and a register
// block of WPT outputs per work-item along the column dimension.
#ifndef TILE
#define TILE 16
#endif
#ifndef WPT
#define WPT 4
#endif
#define RTS (TILE / WPT)

#if TILE % WPT != 0
#error "TILE must be a multiple of WPT"
#endif

#define A_AT(r, c) A[(r) * K + (c)]
#define B_AT(r, c) B[(r) * N + (c)]
#define C_AT(r, c) C[(r) * N + (c)]

__kernel __attribute__((reqd_work_group_size(TILE, RTS, 1)))
void sgemm_tiled(const int M, const int N, const int K, const float alpha,
                 __global const float *A, __global const float *B, const float beta,
                 __global float *C)
{
    const int lrow = get_local_id(0);
    const int lcol = get_local_id(1);
    const int grow = TILE * get_group_id(0) + lrow;
    const int gcol = TILE * get_group_id(1) + lcol;

    __local float Asub[TILE][TILE];
    __local float Bsub[TILE][TILE + 1];

    float acc[WPT];
    for (int w = 0; w < WPT; w++)
        acc[w] = 0.0f;

    const int tiles = (K + TILE - 1) / TILE;
    for (int t = 0; t < tiles; t++) {
        for (int w = 0; w < WPT; w++) {
            const int trow = TILE * t + lrow;
            const int tcol = TILE * t + lcol + w * RTS;
            Asub[lcol + w * RTS][lrow] =
                (grow < M && tcol < K) ? A_AT(grow, tcol) : 0.0f;
            Bsub[lcol + w * RTS][lrow] =
                (trow < K && gcol + w * RTS < N) ? B_AT(trow, gcol + w * RTS) : 0.0f;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE; k++) {
            float a = Asub[k][lrow];
            for (int w = 0; w < WPT; w++)
                acc[w] += a * Bsub[lcol + w * RTS][k];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int w = 0; w < WPT; w++) {
        int c = gcol + w * RTS;
        if (grow < M && c < N)
            C_AT(grow, c) = alpha * acc[w] + beta * C_AT(grow, c);
    }
}
