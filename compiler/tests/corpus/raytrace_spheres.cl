// Whitted-style ray tracer of spheres with structs, user functions, a fixed-depth
// reflection loop (no recursion) and Lambert + Phong shading.
#define MAX_SPHERES 16
#define MAX_DEPTH 4
#define EPS 1e-4f

typedef struct {
    float3 origin;
    float3 dir;
} Ray;

typedef struct {
    float3 center;
    float radius;
    float3 color;
    float reflectivity;
} Sphere;

typedef struct {
    float t;
    int index;
} Hit;

typedef struct {
    float3 eye, forward, right, up;
    float fov_scale;
    int width, height;
} Camera;

float intersect_sphere(const Ray *r, __constant Sphere *s)
{
    float3 oc = r->origin - s->center;
    float b = dot(oc, r->dir);
    float c = dot(oc, oc) - s->radius * s->radius;
    float disc = b * b - c;
    if (disc < 0.0f)
        return -1.0f;
    float sq = sqrt(disc);
    float t = -b - sq;
    if (t > EPS)
        return t;
    t = -b + sq;
    return t > EPS ? t : -1.0f;
}

Hit trace(const Ray *r, __constant Sphere *spheres, int count)
{
    Hit h = { INFINITY, -1 };
    for (int i = 0; i < count && i < MAX_SPHERES; ++i) {
        float t = intersect_sphere(r, &spheres[i]);
        if (t > 0.0f && t < h.t) {
            h.t = t;
            h.index = i;
        }
    }
    return h;
}

static float3 shade(float3 p, float3 n, float3 view, float3 light, float3 base)
{
    float3 l = normalize(light - p);
    float diff = max(dot(n, l), 0.0f);
    float3 h = normalize(l + view);
    float spec = pown(max(dot(n, h), 0.0f), 32);
    return base * (0.1f + 0.9f * diff) + (float3)(spec);
}

__kernel void render(__global uchar4 *fb, __constant Sphere *spheres, const int count,
                     const Camera cam, const float3 light)
{
    int px = get_global_id(0), py = get_global_id(1);
    if (px >= cam.width || py >= cam.height)
        return;
    float aspect = (float)cam.width / cam.height;
    float u = (2.0f * (px + 0.5f) / cam.width - 1.0f) * aspect * cam.fov_scale;
    float v = (1.0f - 2.0f * (py + 0.5f) / cam.height) * cam.fov_scale;

    Ray ray;
    ray.origin = cam.eye;
    ray.dir = normalize(cam.forward + u * cam.right + v * cam.up);

    float3 color = (float3)(0.0f);
    float weight = 1.0f;
    for (int depth = 0; depth < MAX_DEPTH; ++depth) {
        Hit h = trace(&ray, spheres, count);
        if (h.index < 0) {
            color += weight * mix((float3)(1.0f), (float3)(0.5f, 0.7f, 1.0f), 0.5f * (ray.dir.y + 1.0f));
            break;
        }
        __constant Sphere *s = spheres + h.index;
        float3 p = ray.origin + h.t * ray.dir;
        float3 n = normalize(p - s->center);
        /* shadow ray */
        Ray shadow = { p + n * EPS, normalize(light - p) };
        Hit blocker = trace(&shadow, spheres, count);
        float lit = (blocker.index < 0 || blocker.t > distance(light, p)) ? 1.0f : 0.3f;
        color += weight * (1.0f - s->reflectivity) * lit * shade(p, n, -ray.dir, light, s->color);
        weight *= s->reflectivity;
        if (weight < 0.01f)
            break;
        ray.origin = p + n * EPS;
        ray.dir = ray.dir - 2.0f * dot(ray.dir, n) * n;
    }
    color = clamp(color, 0.0f, 1.0f);
    fb[py * cam.width + px] = (uchar4)(convert_uchar3_sat_rte(color * 255.0f), 255);
}
