// CRC-32 (IEEE, reflected) per message with a table built at program scope by a kernel,
// and base64 encoding of 3-byte groups with a __constant alphabet.
__constant char B64[64] = {
    'A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'J', 'K', 'L', 'M', 'N', 'O', 'P',
    'Q', 'R', 'S', 'T', 'U', 'V', 'W', 'X', 'Y', 'Z', 'a', 'b', 'c', 'd', 'e', 'f',
    'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o', 'p', 'q', 'r', 's', 't', 'u', 'v',
    'w', 'x', 'y', 'z', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '+', '/'
};

__kernel void crc32_table(__global uint *table)
{
    uint n = get_global_id(0);
    uint c = n;
    for (int k = 0; k < 8; k++)
        c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    table[n] = c;
}

__kernel void crc32_messages(__global const uchar *data, __global const uint *offsets,
                             __constant uint *table, __global uint *crcs)
{
    uint m = get_global_id(0);
    uint crc = 0xFFFFFFFFu;
    for (uint i = offsets[m]; i < offsets[m + 1]; ++i)
        crc = table[(crc ^ data[i]) & 0xFF] ^ (crc >> 8);
    crcs[m] = ~crc;
}

__kernel void base64_encode(__global const uchar *in, const uint len, __global char4 *out)
{
    uint g = get_global_id(0);
    uint i = g * 3;
    if (i >= len)
        return;
    uint rem = len - i;
    uint b0 = in[i];
    uint b1 = rem > 1 ? in[i + 1] : 0;
    uint b2 = rem > 2 ? in[i + 2] : 0;
    uint triple = (b0 << 16) | (b1 << 8) | b2;
    char4 c;
    c.x = B64[(triple >> 18) & 63];
    c.y = B64[(triple >> 12) & 63];
    c.z = rem > 1 ? B64[(triple >> 6) & 63] : '=';
    c.w = rem > 2 ? B64[triple & 63] : '=';
    out[g] = c;
}
