// 64-bit LCG / splitmix64 seeding and a 2D lattice random walk counting returns to origin.
inline ulong splitmix64(ulong *state)
{
    ulong z = (*state += 0x9E3779B97F4A7C15UL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
    return z ^ (z >> 31);
}

__kernel void random_walk(__global uint *returns, __global int2 *final_pos, const ulong seed,
                          const uint steps)
{
    ulong st = seed + get_global_id(0);
    ulong lcg = splitmix64(&st);
    int2 pos = (int2)(0, 0);
    uint back = 0;
    for (uint s = 0; s < steps; ++s) {
        lcg = lcg * 6364136223846793005UL + 1442695040888963407UL;
        uint dirbits = (uint)(lcg >> 62);
        switch (dirbits) {
        case 0: pos.x++; break;
        case 1: pos.x--; break;
        case 2: pos.y++; break;
        case 3: pos.y--; break;
        }
        back += all(pos == (int2)(0));
    }
    returns[get_global_id(0)] = back;
    final_pos[get_global_id(0)] = pos;
}
