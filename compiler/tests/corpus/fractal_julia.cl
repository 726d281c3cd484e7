// Julia set with float2 complex arithmetic helpers and a 3D NDRange over animation frames.
typedef float2 cfloat;

#define C_RE(z) ((z).x)
#define C_IM(z) ((z).y)

inline cfloat cmul(cfloat a, cfloat b)
{
    return (cfloat)(C_RE(a) * C_RE(b) - C_IM(a) * C_IM(b), C_RE(a) * C_IM(b) + C_IM(a) * C_RE(b));
}

inline cfloat csqr(cfloat a) { return cmul(a, a); }
inline float cabs2(cfloat a) { return dot(a, a); }

inline cfloat cexp_i(float theta)
{
    float c;
    float s = sincos(theta, &c);
    return (cfloat)(c, s);
}

__kernel void julia_frames(__global float *out, const float radius, const int max_iter)
{
    const int x = get_global_id(0), y = get_global_id(1), frame = get_global_id(2);
    const int w = get_global_size(0), h = get_global_size(1), frames = get_global_size(2);
    cfloat c = radius * cexp_i(2.0f * M_PI_F * frame / frames);
    cfloat z = (cfloat)(3.0f * x / w - 1.5f, 3.0f * y / h - 1.5f);
    int i;
    for (i = 0; i < max_iter; ++i) {
        if (cabs2(z) > 4.0f)
            break;
        z = csqr(z) + c;
    }
    out[((size_t)frame * h + y) * w + x] = (float)i / max_iter;
}
