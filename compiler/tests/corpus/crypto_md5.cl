// MD5 of short messages (< 56 bytes, one block) per work-item, with the four round
// functions as macros and the per-round shift table in __constant memory.
__constant uint MD5_K[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391
};
__constant uchar MD5_S[4][4] = { { 7, 12, 17, 22 }, { 5, 9, 14, 20 }, { 4, 11, 16, 23 }, { 6, 10, 15, 21 } };

#define F(b, c, d) (((b) & (c)) | (~(b) & (d)))
#define G(b, c, d) (((b) & (d)) | ((c) & ~(d)))
#define H(b, c, d) ((b) ^ (c) ^ (d))
#define I(b, c, d) ((c) ^ ((b) | ~(d)))

__kernel void md5_short(__global const uchar *msgs, __global const uchar *lens, const uint stride,
                        __global uint4 *out)
{
    uint id = get_global_id(0);
    uint len = lens[id];
    __global const uchar *m = msgs + id * stride;
    uint x[16];
    for (int i = 0; i < 16; i++)
        x[i] = 0;
    for (uint i = 0; i < len; i++)
        x[i >> 2] |= (uint)m[i] << ((i & 3) * 8);
    x[len >> 2] |= 0x80u << ((len & 3) * 8);
    x[14] = len * 8;

    uint a0 = 0x67452301, b0 = 0xefcdab89, c0 = 0x98badcfe, d0 = 0x10325476;
    uint A = a0, B = b0, C = c0, D = d0;
    for (uint i = 0; i < 64; i++) {
        uint f, g;
        uint round = i >> 4;
        switch (round) {
        case 0: f = F(B, C, D); g = i; break;
        case 1: f = G(B, C, D); g = (5 * i + 1) & 15; break;
        case 2: f = H(B, C, D); g = (3 * i + 5) & 15; break;
        default: f = I(B, C, D); g = (7 * i) & 15; break;
        }
        uint tmp = D;
        D = C;
        C = B;
        B = B + rotate(A + f + MD5_K[i] + x[g], (uint)MD5_S[round][i & 3]);
        A = tmp;
    }
    out[id] = (uint4)(a0 + A, b0 + B, c0 + C, d0 + D);
}
