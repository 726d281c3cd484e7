/* Spheres as (centre, radius) and (colour, unused): a primary ray per pixel, the nearest
   hit, diffuse light and a shadow ray. */
kernel void raytrace(constant float4 *spheres, global uchar4 *img, int count,
                     int width, int height) {
    int x = get_global_id(0), y = get_global_id(1);
    float3 origin = (float3)(0.0f, 0.0f, -4.0f);
    float3 dir = normalize((float3)((x - 0.5f * width) / height, (y - 0.5f * height) / height, 1.0f));
    float best = 1e30f;
    int hit = -1;
    for (int s = 0; s < count; s++) {
        float3 oc = origin - spheres[2 * s].xyz;
        float r = spheres[2 * s].w;
        float b = dot(oc, dir), disc = b * b - (dot(oc, oc) - r * r);
        if (disc > 0.0f) {
            float t = -b - sqrt(disc);
            if (t > 1e-3f && t < best) { best = t; hit = s; }
        }
    }
    float3 color = (float3)(0.1f, 0.1f, 0.15f);
    if (hit >= 0) {
        float3 p = origin + best * dir;
        float3 n = normalize(p - spheres[2 * hit].xyz);
        float3 light = normalize((float3)(1.0f, 1.0f, -1.0f));
        float diffuse = max(dot(n, light), 0.0f);
        for (int s = 0; s < count; s++) {
            float3 oc = p - spheres[2 * s].xyz;
            float r = spheres[2 * s].w;
            float b = dot(oc, light), disc = b * b - (dot(oc, oc) - r * r);
            if (s != hit && disc > 0.0f && -b - sqrt(disc) > 1e-3f) diffuse *= 0.25f;
        }
        color = spheres[2 * hit + 1].xyz * (0.15f + 0.85f * diffuse);
    }
    img[y * width + x] = convert_uchar4_sat((float4)(color * 255.0f, 255.0f));
}
