//! Every builtin function of OpenCL C 1.2 (section 6.12), in the
//! specification's notation. One line is one overload pattern:
//!
//! `<result> <name>(<param>, ...)`
//!
//! - A *family* names a set of types the line is instantiated over: `F` (half, float,
//!   double, scalar and vectors), `Fn` (their vectors), `Ff`/`Ffn` (float only), `F4`/`F4f`
//!   (geometric: 1 to 4 lanes), `I`/`In` (the eight integer types), `Iup` (integers that
//!   `upsample` widens), `I32` (int, uint), `Ki` (signed integers), `G`/`Gn` (every number
//!   type), `Sv` (every scalar, for `vloadn`), `A32` (int, uint: 32-bit atomics), `A64`
//!   (long, ulong: 64-bit atomics). At most one family per line.
//! - Types derived from the family's binding: `S` its element, `U`/`Ku` the unsigned type of
//!   the same size and lanes, `K` the signed one, `iN` int with its lanes, `R` a comparison
//!   result (int for scalars, `K` for vectors), `W` the integer twice as wide.
//! - `{N}` in a name or after a type: vector widths 2, 3, 4, 8, 16; `{R}` in a name: the
//!   rounding suffixes "", `_rte`, `_rtz`, `_rtp`, `_rtn`.
//! - Pointers: `[const] [volatile] <space> <type>*` with a space of `global`, `local`,
//!   `private`, `constant`, or `anyspace` (global, local, private) or `anyread` (those and
//!   constant).
//!
//! - Attributes: a line `@ <word> ...` gives the lines below it (up to the next `@` line or
//!   section) their [`Attributes`](super::Attributes): `pure`, `reads`, `writes`, `query`
//!   (a work-item function), `sync` (orders memory), `group` (a work-group synchronization
//!   point), `varying` (differs per work-item for equal arguments), `vector`. A line with no
//!   `@` line above it in its section is an error: a new builtin's author says what it is.
//!
//! Conversions (`convert_*`, `as_*`), `vec_step`, `shuffle`, `shuffle2` and `printf` follow
//! rules rather than a list and are resolved by the compiler itself.

pub const TABLE: &str = r#"
# 6.12.1 Work-item functions
@ pure query
uint get_work_dim()
size_t get_global_size(uint)
@ pure query varying vector
size_t get_global_id(uint)
@ pure query
size_t get_local_size(uint)
@ pure query varying vector
size_t get_local_id(uint)
@ pure query
size_t get_num_groups(uint)
size_t get_group_id(uint)
size_t get_global_offset(uint)
# OpenCL C 2.0's, which clang-based 1.2 drivers (PoCL) provide too and the CTS calls on 1.2
# devices: without non-uniform work-groups it is get_local_size.
@ pure query
size_t get_enqueued_local_size(uint)

# 6.12.2 Math functions
@ pure
F acos(F)
F acosh(F)
F acospi(F)
F asin(F)
F asinh(F)
F asinpi(F)
F atan(F)
F atan2(F, F)
F atanh(F)
F atanpi(F)
F atan2pi(F, F)
F cbrt(F)
F ceil(F)
F copysign(F, F)
@ pure vector
F cos(F)
@ pure
F cosh(F)
F cospi(F)
F erfc(F)
F erf(F)
@ pure vector
F exp(F)
F exp2(F)
F exp10(F)
@ pure
F expm1(F)
@ pure vector
F fabs(F)
@ pure
F fdim(F, F)
F floor(F)
F fma(F, F, F)
F fmax(F, F)
Fn fmax(Fn, S)
F fmin(F, F)
Fn fmin(Fn, S)
F fmod(F, F)
@ writes
F fract(F, anyspace F*)
F frexp(F, anyspace iN*)
@ pure
F hypot(F, F)
iN ilogb(F)
F ldexp(F, iN)
Fn ldexp(Fn, int)
F lgamma(F)
@ writes
F lgamma_r(F, anyspace iN*)
@ pure vector
F log(F)
F log2(F)
F log10(F)
@ pure
F log1p(F)
F logb(F)
@ pure vector
F mad(F, F, F)
@ pure
F maxmag(F, F)
F minmag(F, F)
@ writes
F modf(F, anyspace F*)
@ pure
F nan(Ku)
F nextafter(F, F)
@ pure vector
F pow(F, F)
@ pure
F pown(F, iN)
F powr(F, F)
F remainder(F, F)
@ writes
F remquo(F, F, anyspace iN*)
@ pure
F rint(F)
F rootn(F, iN)
F round(F)
@ pure vector
F rsqrt(F)
@ pure vector
F sin(F)
@ writes
F sincos(F, anyspace F*)
@ pure
F sinh(F)
F sinpi(F)
@ pure vector
F sqrt(F)
@ pure
F tan(F)
F tanh(F)
F tanpi(F)
F tgamma(F)
F trunc(F)
@ pure vector
Ff half_cos(Ff)
@ pure
Ff half_divide(Ff, Ff)
@ pure vector
Ff half_exp(Ff)
Ff half_exp2(Ff)
Ff half_exp10(Ff)
Ff half_log(Ff)
Ff half_log2(Ff)
Ff half_log10(Ff)
@ pure
Ff half_powr(Ff, Ff)
Ff half_recip(Ff)
Ff half_rsqrt(Ff)
@ pure vector
Ff half_sin(Ff)
@ pure vector
Ff half_sqrt(Ff)
@ pure
Ff half_tan(Ff)
@ pure vector
Ff native_cos(Ff)
Ff native_divide(Ff, Ff)
Ff native_exp(Ff)
Ff native_exp2(Ff)
Ff native_exp10(Ff)
Ff native_log(Ff)
Ff native_log2(Ff)
Ff native_log10(Ff)
@ pure
Ff native_powr(Ff, Ff)
@ pure vector
Ff native_recip(Ff)
@ pure
Ff native_rsqrt(Ff)
@ pure vector
Ff native_sin(Ff)
@ pure vector
Ff native_sqrt(Ff)
@ pure
Ff native_tan(Ff)

# 6.12.3 Integer functions
@ pure vector
U abs(I)
U abs_diff(I, I)
I add_sat(I, I)
I hadd(I, I)
I rhadd(I, I)
I clamp(I, I, I)
In clamp(In, S, S)
@ pure
I clz(I)
# OpenCL C 2.0's ctz, provided for 1.2 as PoCL does (the CTS's integer_ctz calls it).
@ pure
I ctz(I)
I mad_hi(I, I, I)
@ pure vector
I mad_sat(I, I, I)
I max(I, I)
In max(In, S)
I min(I, I)
In min(In, S)
I mul_hi(I, I)
@ pure
I rotate(I, I)
@ pure vector
I sub_sat(I, I)
@ pure
W upsample(Iup, Ku)
I popcount(I)
I32 mad24(I32, I32, I32)
I32 mul24(I32, I32)

# 6.12.4 Common functions
@ pure vector
F clamp(F, F, F)
Fn clamp(Fn, S, S)
@ pure
F degrees(F)
@ pure vector
F max(F, F)
Fn max(Fn, S)
F min(F, F)
Fn min(Fn, S)
@ pure
F mix(F, F, F)
Fn mix(Fn, Fn, S)
F radians(F)
F step(F, F)
Fn step(S, Fn)
F smoothstep(F, F, F)
Fn smoothstep(S, S, Fn)
F sign(F)

# 6.12.5 Geometric functions
@ pure
float4 cross(float4, float4)
float3 cross(float3, float3)
double4 cross(double4, double4)
double3 cross(double3, double3)
half4 cross(half4, half4)
half3 cross(half3, half3)
@ pure vector
S dot(F4, F4)
S distance(F4, F4)
S length(F4)
F4 normalize(F4)
@ pure
float fast_distance(F4f, F4f)
float fast_length(F4f)
F4f fast_normalize(F4f)

# 6.12.6 Relational functions
@ pure
R isequal(F, F)
R isnotequal(F, F)
R isgreater(F, F)
R isgreaterequal(F, F)
R isless(F, F)
R islessequal(F, F)
R islessgreater(F, F)
R isfinite(F)
R isinf(F)
R isnan(F)
R isnormal(F)
R isordered(F, F)
R isunordered(F, F)
R signbit(F)
int any(Ki)
int all(Ki)
G bitselect(G, G, G)
@ pure vector
G select(G, G, K)
G select(G, G, Ku)
@ pure

# 6.12.7 Vector data load and store functions
@ reads vector
Sv{N} vload{N}(size_t, const anyread Sv*)
@ writes vector
void vstore{N}(Sv{N}, size_t, anyspace Sv*)
@ reads
float vload_half(size_t, const anyread half*)
float{N} vload_half{N}(size_t, const anyread half*)
@ writes
void vstore_half{R}(float, size_t, anyspace half*)
void vstore_half{R}(double, size_t, anyspace half*)
void vstore_half{N}{R}(float{N}, size_t, anyspace half*)
void vstore_half{N}{R}(double{N}, size_t, anyspace half*)
@ reads
float{N} vloada_half{N}(size_t, const anyread half*)
@ writes
void vstorea_half{N}{R}(float{N}, size_t, anyspace half*)
void vstorea_half{N}{R}(double{N}, size_t, anyspace half*)

# 6.12.8 Synchronization functions, 6.12.9 Explicit memory fence functions
@ sync group reads writes
void barrier(uint)
@ sync reads writes
void mem_fence(uint)
void read_mem_fence(uint)
void write_mem_fence(uint)

# 6.12.10 Async copies and prefetch
@ reads writes
event_t async_work_group_copy(local G*, const global G*, size_t, event_t)
event_t async_work_group_copy(global G*, const local G*, size_t, event_t)
event_t async_work_group_strided_copy(local G*, const global G*, size_t, size_t, event_t)
event_t async_work_group_strided_copy(global G*, const local G*, size_t, size_t, event_t)
@ sync group reads writes
void wait_group_events(int, private event_t*)
@ reads
void prefetch(const global G*, size_t)

# 6.12.11 Atomic functions (and the atom_* names of the 1.0 extensions)
@ reads writes varying
A32 atomic_add(volatile global A32*, A32)
A32 atomic_add(volatile local A32*, A32)
A32 atomic_sub(volatile global A32*, A32)
A32 atomic_sub(volatile local A32*, A32)
A32 atomic_xchg(volatile global A32*, A32)
A32 atomic_xchg(volatile local A32*, A32)
float atomic_xchg(volatile global float*, float)
float atomic_xchg(volatile local float*, float)
A32 atomic_inc(volatile global A32*)
A32 atomic_inc(volatile local A32*)
A32 atomic_dec(volatile global A32*)
A32 atomic_dec(volatile local A32*)
A32 atomic_cmpxchg(volatile global A32*, A32, A32)
A32 atomic_cmpxchg(volatile local A32*, A32, A32)
A32 atomic_min(volatile global A32*, A32)
A32 atomic_min(volatile local A32*, A32)
A32 atomic_max(volatile global A32*, A32)
A32 atomic_max(volatile local A32*, A32)
A32 atomic_and(volatile global A32*, A32)
A32 atomic_and(volatile local A32*, A32)
A32 atomic_or(volatile global A32*, A32)
A32 atomic_or(volatile local A32*, A32)
A32 atomic_xor(volatile global A32*, A32)
A32 atomic_xor(volatile local A32*, A32)
A32 atom_add(volatile global A32*, A32)
A32 atom_add(volatile local A32*, A32)
A32 atom_sub(volatile global A32*, A32)
A32 atom_sub(volatile local A32*, A32)
A32 atom_xchg(volatile global A32*, A32)
A32 atom_xchg(volatile local A32*, A32)
A32 atom_inc(volatile global A32*)
A32 atom_inc(volatile local A32*)
A32 atom_dec(volatile global A32*)
A32 atom_dec(volatile local A32*)
A32 atom_cmpxchg(volatile global A32*, A32, A32)
A32 atom_cmpxchg(volatile local A32*, A32, A32)
A32 atom_min(volatile global A32*, A32)
A32 atom_min(volatile local A32*, A32)
A32 atom_max(volatile global A32*, A32)
A32 atom_max(volatile local A32*, A32)
A32 atom_and(volatile global A32*, A32)
A32 atom_and(volatile local A32*, A32)
A32 atom_or(volatile global A32*, A32)
A32 atom_or(volatile local A32*, A32)
A32 atom_xor(volatile global A32*, A32)
A32 atom_xor(volatile local A32*, A32)
A64 atom_add(volatile global A64*, A64)
A64 atom_add(volatile local A64*, A64)
A64 atom_sub(volatile global A64*, A64)
A64 atom_sub(volatile local A64*, A64)
A64 atom_xchg(volatile global A64*, A64)
A64 atom_xchg(volatile local A64*, A64)
A64 atom_inc(volatile global A64*)
A64 atom_inc(volatile local A64*)
A64 atom_dec(volatile global A64*)
A64 atom_dec(volatile local A64*)
A64 atom_cmpxchg(volatile global A64*, A64, A64)
A64 atom_cmpxchg(volatile local A64*, A64, A64)
A64 atom_min(volatile global A64*, A64)
A64 atom_min(volatile local A64*, A64)
A64 atom_max(volatile global A64*, A64)
A64 atom_max(volatile local A64*, A64)
A64 atom_and(volatile global A64*, A64)
A64 atom_and(volatile local A64*, A64)
A64 atom_or(volatile global A64*, A64)
A64 atom_or(volatile local A64*, A64)
A64 atom_xor(volatile global A64*, A64)
A64 atom_xor(volatile local A64*, A64)

# 6.12.14 Image read and write functions (sampled reads, sampler-less reads, writes)
@ reads
float4 read_imagef(image1d_t, sampler_t, int)
float4 read_imagef(image1d_t, sampler_t, float)
float4 read_imagef(image1d_array_t, sampler_t, int2)
float4 read_imagef(image1d_array_t, sampler_t, float2)
float4 read_imagef(image2d_t, sampler_t, int2)
float4 read_imagef(image2d_t, sampler_t, float2)
float4 read_imagef(image2d_array_t, sampler_t, int4)
float4 read_imagef(image2d_array_t, sampler_t, float4)
float4 read_imagef(image3d_t, sampler_t, int4)
float4 read_imagef(image3d_t, sampler_t, float4)
float4 read_imagef(image1d_t, int)
float4 read_imagef(image1d_array_t, int2)
float4 read_imagef(image2d_t, int2)
float4 read_imagef(image2d_array_t, int4)
float4 read_imagef(image3d_t, int4)
float4 read_imagef(image1d_buffer_t, int)
@ writes
void write_imagef(image1d_t, int, float4)
void write_imagef(image1d_array_t, int2, float4)
void write_imagef(image2d_t, int2, float4)
void write_imagef(image2d_array_t, int4, float4)
void write_imagef(image3d_t, int4, float4)
void write_imagef(image1d_buffer_t, int, float4)
@ reads
int4 read_imagei(image1d_t, sampler_t, int)
int4 read_imagei(image1d_t, sampler_t, float)
int4 read_imagei(image1d_array_t, sampler_t, int2)
int4 read_imagei(image1d_array_t, sampler_t, float2)
int4 read_imagei(image2d_t, sampler_t, int2)
int4 read_imagei(image2d_t, sampler_t, float2)
int4 read_imagei(image2d_array_t, sampler_t, int4)
int4 read_imagei(image2d_array_t, sampler_t, float4)
int4 read_imagei(image3d_t, sampler_t, int4)
int4 read_imagei(image3d_t, sampler_t, float4)
int4 read_imagei(image1d_t, int)
int4 read_imagei(image1d_array_t, int2)
int4 read_imagei(image2d_t, int2)
int4 read_imagei(image2d_array_t, int4)
int4 read_imagei(image3d_t, int4)
int4 read_imagei(image1d_buffer_t, int)
@ writes
void write_imagei(image1d_t, int, int4)
void write_imagei(image1d_array_t, int2, int4)
void write_imagei(image2d_t, int2, int4)
void write_imagei(image2d_array_t, int4, int4)
void write_imagei(image3d_t, int4, int4)
void write_imagei(image1d_buffer_t, int, int4)
@ reads
uint4 read_imageui(image1d_t, sampler_t, int)
uint4 read_imageui(image1d_t, sampler_t, float)
uint4 read_imageui(image1d_array_t, sampler_t, int2)
uint4 read_imageui(image1d_array_t, sampler_t, float2)
uint4 read_imageui(image2d_t, sampler_t, int2)
uint4 read_imageui(image2d_t, sampler_t, float2)
uint4 read_imageui(image2d_array_t, sampler_t, int4)
uint4 read_imageui(image2d_array_t, sampler_t, float4)
uint4 read_imageui(image3d_t, sampler_t, int4)
uint4 read_imageui(image3d_t, sampler_t, float4)
uint4 read_imageui(image1d_t, int)
uint4 read_imageui(image1d_array_t, int2)
uint4 read_imageui(image2d_t, int2)
uint4 read_imageui(image2d_array_t, int4)
uint4 read_imageui(image3d_t, int4)
uint4 read_imageui(image1d_buffer_t, int)
@ writes
void write_imageui(image1d_t, int, uint4)
void write_imageui(image1d_array_t, int2, uint4)
void write_imageui(image2d_t, int2, uint4)
void write_imageui(image2d_array_t, int4, uint4)
void write_imageui(image3d_t, int4, uint4)
void write_imageui(image1d_buffer_t, int, uint4)

# 6.12.14.5 Image query functions
@ pure
int get_image_width(image1d_t)
int get_image_width(image1d_buffer_t)
int get_image_width(image1d_array_t)
int get_image_width(image2d_t)
int get_image_width(image2d_array_t)
int get_image_width(image3d_t)
int get_image_channel_data_type(image1d_t)
int get_image_channel_data_type(image1d_buffer_t)
int get_image_channel_data_type(image1d_array_t)
int get_image_channel_data_type(image2d_t)
int get_image_channel_data_type(image2d_array_t)
int get_image_channel_data_type(image3d_t)
int get_image_channel_order(image1d_t)
int get_image_channel_order(image1d_buffer_t)
int get_image_channel_order(image1d_array_t)
int get_image_channel_order(image2d_t)
int get_image_channel_order(image2d_array_t)
int get_image_channel_order(image3d_t)
int get_image_height(image2d_t)
int get_image_height(image2d_array_t)
int get_image_height(image3d_t)
int get_image_depth(image3d_t)
int2 get_image_dim(image2d_t)
int2 get_image_dim(image2d_array_t)
int4 get_image_dim(image3d_t)
size_t get_image_array_size(image1d_array_t)
size_t get_image_array_size(image2d_array_t)
"#;
