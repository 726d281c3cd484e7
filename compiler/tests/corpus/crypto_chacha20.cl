// ChaCha20 keystream: one 64-byte block per work-item, XORed into the buffer, uint4-wide
// quarter rounds on rows (column round then diagonal round via shuffles of lanes).
#define QR(a, b, c, d)            \
    a += b; d ^= a; d = rotate(d, 16u); \
    c += d; b ^= c; b = rotate(b, 12u); \
    a += b; d ^= a; d = rotate(d, 8u);  \
    c += d; b ^= c; b = rotate(b, 7u)

typedef struct {
    uint key[8];
    uint nonce[3];
    uint counter;
} chacha_params;

__kernel void chacha20_xor(__global uchar16 *data, const chacha_params p, const uint nblocks)
{
    uint blk = get_global_id(0);
    if (blk >= nblocks)
        return;
    uint4 r0 = (uint4)(0x61707865, 0x3320646e, 0x79622d32, 0x6b206574);
    uint4 r1 = (uint4)(p.key[0], p.key[1], p.key[2], p.key[3]);
    uint4 r2 = (uint4)(p.key[4], p.key[5], p.key[6], p.key[7]);
    uint4 r3 = (uint4)(p.counter + blk, p.nonce[0], p.nonce[1], p.nonce[2]);
    uint4 s0 = r0, s1 = r1, s2 = r2, s3 = r3;

    for (int i = 0; i < 10; ++i) {
        QR(r0, r1, r2, r3);
        /* diagonalise */
        r1 = r1.yzwx;
        r2 = r2.zwxy;
        r3 = r3.wxyz;
        QR(r0, r1, r2, r3);
        r1 = r1.wxyz;
        r2 = r2.zwxy;
        r3 = r3.yzwx;
    }
    r0 += s0; r1 += s1; r2 += s2; r3 += s3;

    /* little-endian serialisation of the 16 words */
    uint4 rows[4] = { r0, r1, r2, r3 };
    for (int r = 0; r < 4; ++r) {
        uchar16 ks = as_uchar16(rows[r]);
        data[blk * 4 + r] ^= ks;
    }
}

__kernel void chacha20_scalar(__global uint *out, __constant uint *key, uint nonce0, uint counter)
{
    uint x[16], s[16];
    s[0] = 0x61707865; s[1] = 0x3320646e; s[2] = 0x79622d32; s[3] = 0x6b206574;
    for (int i = 0; i < 8; i++)
        s[4 + i] = key[i];
    s[12] = counter + (uint)get_global_id(0);
    s[13] = nonce0; s[14] = 0; s[15] = 0;
    for (int i = 0; i < 16; i++)
        x[i] = s[i];
    for (int round = 0; round < 20; round += 2) {
        QR(x[0], x[4], x[8], x[12]);
        QR(x[1], x[5], x[9], x[13]);
        QR(x[2], x[6], x[10], x[14]);
        QR(x[3], x[7], x[11], x[15]);
        QR(x[0], x[5], x[10], x[15]);
        QR(x[1], x[6], x[11], x[12]);
        QR(x[2], x[7], x[8], x[13]);
        QR(x[3], x[4], x[9], x[14]);
    }
    for (int i = 0; i < 16; i++)
        out[get_global_id(0) * 16 + i] = x[i] + s[i];
}
