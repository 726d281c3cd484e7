/* Vector addition with the plain OpenCL C API, through the system's ICD loader:
 *   gcc -O2 vector_add.c -lOpenCL -o vector_add && ./vector_add
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>

static const char *source =
    "kernel void add(global const float *a, global const float *b, global float *c) {\n"
    "    size_t i = get_global_id(0);\n"
    "    c[i] = a[i] + b[i];\n"
    "}\n";

#define CHECK(call) do { cl_int e_ = (call); if (e_ != CL_SUCCESS) { \
    fprintf(stderr, "%s failed: %d\n", #call, e_); return 1; } } while (0)

int main(void) {
    enum { N = 1 << 20 };
    cl_platform_id platform;
    cl_device_id device;
    cl_int err;
    char name[256];
    CHECK(clGetPlatformIDs(1, &platform, NULL));
    CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL));
    CHECK(clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof name, name, NULL));
    printf("platform: %s\n", name);
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    CHECK(err);
    cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
    CHECK(err);
    cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
    CHECK(err);
    if (clBuildProgram(program, 1, &device, "", NULL, NULL) != CL_SUCCESS) {
        char log[4096];
        clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        fprintf(stderr, "build failed:\n%s", log);
        return 1;
    }
    cl_kernel kernel = clCreateKernel(program, "add", &err);
    CHECK(err);
    float *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b), *c = malloc(N * sizeof *c);
    for (int i = 0; i < N; i++) { a[i] = (float)i; b[i] = 2.0f * i; }
    cl_mem da = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, N * sizeof *a, a, &err);
    CHECK(err);
    cl_mem db = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, N * sizeof *b, b, &err);
    CHECK(err);
    cl_mem dc = clCreateBuffer(context, CL_MEM_WRITE_ONLY, N * sizeof *c, NULL, &err);
    CHECK(err);
    CHECK(clSetKernelArg(kernel, 0, sizeof da, &da));
    CHECK(clSetKernelArg(kernel, 1, sizeof db, &db));
    CHECK(clSetKernelArg(kernel, 2, sizeof dc, &dc));
    size_t global = N;
    CHECK(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL));
    CHECK(clEnqueueReadBuffer(queue, dc, CL_TRUE, 0, N * sizeof *c, c, 0, NULL, NULL));
    for (int i = 0; i < N; i++) {
        if (c[i] != 3.0f * i) { fprintf(stderr, "c[%d] = %f, expected %f\n", i, c[i], 3.0f * i); return 1; }
    }
    printf("vector_add: %d sums correct\n", N);
    clReleaseMemObject(da); clReleaseMemObject(db); clReleaseMemObject(dc);
    clReleaseKernel(kernel); clReleaseProgram(program);
    clReleaseCommandQueue(queue); clReleaseContext(context);
    free(a); free(b); free(c);
    return 0;
}
