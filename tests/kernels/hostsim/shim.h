// hostsim: run the corpus's CUDA C++ kernels on the CPU, one OS thread per CUDA thread.
//
// This header is included before a kernel's source (after a light source rewrite done by
// hostsim.py: `extern __shared__` arrays and inline `asm` statements) and the result is built with
// g++ and sanitizers. It exists to check the numpy references independently of any GPU: the
// kernels' C++ semantics (integer wrap-around, IEEE float ops without contraction, intrinsics,
// warp shuffles and votes, atomics, barriers) are reproduced here by hand, from the CUDA C++
// Programming Guide and the PTX ISA, never from NVIDIA code.
//
// Model: the CTAs of a launch run one after another; the threads of a CTA run concurrently as OS
// threads. __syncthreads is a std::barrier over the CTA (exited threads drop out of it); warp-level
// operations (shfl, vote, __syncwarp) are a rendezvous of the lanes named by their mask, which must
// all be live and all arrive (the host aborts otherwise: such a kernel is outside the model).
// __activemask() is modeled only where the warp is converged (it returns the live lanes).
#pragma once

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <bit>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <type_traits>
#include <vector>

// ------------------------------------------------------------------------------------------------
// Qualifiers

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __constant__
#define __restrict__ __restrict
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __managed__
// Static shared variables live in one section so that each CTA starts with poisoned contents
// (reading shared memory before writing it gives garbage, as on a GPU, instead of stale values).
#define __shared__ static __attribute__((section("hs_shared")))

#define __hs_fail(...)                                                                             \
    do {                                                                                           \
        std::fprintf(stderr, "hostsim: " __VA_ARGS__);                                             \
        std::fputc('\n', stderr);                                                                  \
        std::abort();                                                                              \
    } while (0)

// ------------------------------------------------------------------------------------------------
// Built-in vector types (sizes and alignments as in CUDA's vector_types.h)


#define HS_VEC2(T, N, A)                                                                           \
    struct __attribute__((aligned(A))) N##2 {                                                      \
        T x, y;                                                                                    \
    };                                                                                             \
    inline N##2 make_##N##2(T x, T y) { return N##2{x, y}; }
#define HS_VEC3(T, N)                                                                              \
    struct N##3 {                                                                                  \
        T x, y, z;                                                                                 \
    };                                                                                             \
    inline N##3 make_##N##3(T x, T y, T z) { return N##3{x, y, z}; }
#define HS_VEC4(T, N, A)                                                                           \
    struct __attribute__((aligned(A))) N##4 {                                                      \
        T x, y, z, w;                                                                              \
    };                                                                                             \
    inline N##4 make_##N##4(T x, T y, T z, T w) { return N##4{x, y, z, w}; }

HS_VEC2(signed char, char, 2)
HS_VEC4(signed char, char, 4)
HS_VEC2(unsigned char, uchar, 2)
HS_VEC4(unsigned char, uchar, 4)
HS_VEC2(short, short, 4)
HS_VEC4(short, short, 8)
HS_VEC2(unsigned short, ushort, 4)
HS_VEC4(unsigned short, ushort, 8)
HS_VEC2(int, int, 8)
HS_VEC3(int, int)
HS_VEC4(int, int, 16)
HS_VEC2(unsigned, uint, 8)
HS_VEC3(unsigned, uint)
HS_VEC4(unsigned, uint, 16)
HS_VEC2(float, float, 8)
HS_VEC3(float, float)
HS_VEC4(float, float, 16)
HS_VEC2(long long, longlong, 16)
HS_VEC2(unsigned long long, ulonglong, 16)
HS_VEC2(double, double, 16)

struct dim3 {
    unsigned x = 1, y = 1, z = 1;
};

// ------------------------------------------------------------------------------------------------
// Launch state

struct __hs_Group {  // one rendezvous of the lanes named by a mask
    unsigned arrived = 0;
    unsigned readers = 0;  // lanes yet to collect the last completed exchange
    uint64_t gen = 0;
    uint64_t vals[32] = {};
    uint64_t snap[32] = {};
};

struct __hs_Warp {
    std::mutex m;
    std::condition_variable cv;
    std::map<unsigned, __hs_Group> groups;
};

struct __hs_Cta {
    unsigned nthreads = 0;
    std::barrier<>* bar = nullptr;
    std::atomic<unsigned> live_mask[32] = {};
    __hs_Warp warps[32];
    std::atomic<long long> red[3] = {};  // __syncthreads_count/and/or accumulators
};

inline __hs_Cta* __hs_cta = nullptr;
inline uint3 __hs_blockIdx;
inline dim3 __hs_blockDim, __hs_gridDim;
inline thread_local uint3 __hs_threadIdx;
inline thread_local unsigned __hs_lane_id, __hs_warp_id;
inline unsigned char* __hs_dyn_smem = nullptr;

#define threadIdx __hs_threadIdx
#define blockIdx __hs_blockIdx
#define blockDim __hs_blockDim
#define gridDim __hs_gridDim
constexpr int warpSize = 32;

extern "C" unsigned char __start_hs_shared[] __attribute__((weak));
extern "C" unsigned char __stop_hs_shared[] __attribute__((weak));

__attribute__((no_sanitize_address)) inline void __hs_poison(unsigned char* p, size_t n) {
    for (size_t i = 0; i < n; i++) {
        reinterpret_cast<volatile unsigned char*>(p)[i] = static_cast<unsigned char>(0xA5 ^ i);
    }
}

extern "C" {
__attribute__((visibility("default"))) void* hs_alloc(size_t n) {
    return std::malloc(n ? n : 1);
}
__attribute__((visibility("default"))) void hs_free(void* p) { std::free(p); }

__attribute__((visibility("default"))) void hs_begin_launch(unsigned gx, unsigned gy,
                                                                   unsigned gz, unsigned bx,
                                                                   unsigned by, unsigned bz,
                                                                   size_t dyn_smem) {
    __hs_gridDim = dim3{gx, gy, gz};
    __hs_blockDim = dim3{bx, by, bz};
    __hs_dyn_smem = dyn_smem ? static_cast<unsigned char*>(std::malloc(dyn_smem)) : nullptr;
    __hs_cta = new __hs_Cta();
}

__attribute__((visibility("default"))) void hs_end_launch() {
    std::free(__hs_dyn_smem);
    __hs_dyn_smem = nullptr;
    delete __hs_cta;
    __hs_cta = nullptr;
}

__attribute__((visibility("default"))) void hs_begin_cta(unsigned x, unsigned y,
                                                                unsigned z, size_t dyn_smem) {
    __hs_blockIdx = uint3{x, y, z};
    __hs_Cta* c = __hs_cta;
    unsigned n = __hs_blockDim.x * __hs_blockDim.y * __hs_blockDim.z;
    c->nthreads = n;
    delete c->bar;
    c->bar = new std::barrier<>(n);
    for (unsigned w = 0; w < 32; w++) {
        c->live_mask[w] = 0;
        c->warps[w].groups.clear();
    }
    for (unsigned w = 0; w * 32 < n; w++) {
        unsigned size = std::min(32u, n - w * 32);
        c->live_mask[w] = size == 32 ? 0xffffffffu : ((1u << size) - 1);
    }
    for (auto& r : c->red) r = 0;
    if (__start_hs_shared != nullptr) {
        __hs_poison(__start_hs_shared, size_t(__stop_hs_shared - __start_hs_shared));
    }
    if (__hs_dyn_smem != nullptr) __hs_poison(__hs_dyn_smem, dyn_smem);
}

__attribute__((visibility("default"))) void hs_enter(unsigned x, unsigned y, unsigned z) {
    __hs_threadIdx = uint3{x, y, z};
    unsigned lin = x + __hs_blockDim.x * (y + __hs_blockDim.y * z);
    __hs_lane_id = lin % 32;
    __hs_warp_id = lin / 32;
}

__attribute__((visibility("default"))) void hs_exit() {
    __hs_Cta* c = __hs_cta;
    {
        std::lock_guard<std::mutex> lk(c->warps[__hs_warp_id].m);
        c->live_mask[__hs_warp_id].fetch_and(~(1u << __hs_lane_id));
    }
    c->warps[__hs_warp_id].cv.notify_all();
    c->bar->arrive_and_drop();
}
}

// ------------------------------------------------------------------------------------------------
// Barriers

inline void __syncthreads() { __hs_cta->bar->arrive_and_wait(); }

inline long long __hs_bar_reduce(int which, long long v) {
    __hs_Cta* c = __hs_cta;
    if (which == 0) c->red[0] += v;
    if (which == 1) c->red[1] += (v == 0);  // number of threads with a false predicate
    if (which == 2) c->red[2] += (v != 0);
    c->bar->arrive_and_wait();
    long long r = c->red[which];
    c->bar->arrive_and_wait();
    if (__hs_threadIdx.x == 0 && __hs_threadIdx.y == 0 && __hs_threadIdx.z == 0) c->red[which] = 0;
    c->bar->arrive_and_wait();
    return r;
}
inline int __syncthreads_count(int p) { return int(__hs_bar_reduce(0, p != 0)); }
inline int __syncthreads_and(int p) { return __hs_bar_reduce(1, p) == 0; }
inline int __syncthreads_or(int p) { return __hs_bar_reduce(2, p) != 0; }

inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_block() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_system() { std::atomic_thread_fence(std::memory_order_seq_cst); }

// ------------------------------------------------------------------------------------------------
// Warp-level operations: a rendezvous of the lanes named by the mask. Every lane of the mask must
// arrive (and be live); each gets a snapshot of the values all of them offered.

inline unsigned __hs_live() { return __hs_cta->live_mask[__hs_warp_id].load(); }

inline void __hs_rendezvous(unsigned mask, uint64_t v, uint64_t out[32], const char* what) {
    unsigned lane = __hs_lane_id;
    if (!(mask >> lane & 1u)) __hs_fail("%s: lane %u is not in its mask %08x", what, lane, mask);
    if (mask & ~__hs_live()) {
        __hs_fail("%s: mask %08x names lanes that have exited or do not exist (live %08x)", what,
                  mask, __hs_live());
    }
    __hs_Warp& W = __hs_cta->warps[__hs_warp_id];
    std::unique_lock<std::mutex> lk(W.m);
    __hs_Group& g = W.groups[mask];
    auto limit = std::chrono::seconds(20);
    if (!W.cv.wait_for(lk, limit, [&] { return g.readers == 0; })) {
        __hs_fail("%s: timed out waiting for the previous exchange (mask %08x)", what, mask);
    }
    g.vals[lane] = v;
    g.arrived |= 1u << lane;
    uint64_t gen = g.gen;
    if (g.arrived == mask) {
        std::memcpy(g.snap, g.vals, sizeof g.snap);
        g.arrived = 0;
        g.readers = unsigned(__builtin_popcount(mask));
        g.gen++;
        W.cv.notify_all();
    } else if (!W.cv.wait_for(lk, limit, [&] { return g.gen != gen; })) {
        __hs_fail("%s: lanes %08x of mask %08x never arrived (divergent warp op?)", what,
                  mask & ~g.arrived, mask);
    }
    std::memcpy(out, g.snap, sizeof g.snap);
    if (--g.readers == 0) W.cv.notify_all();
}

inline void __syncwarp(unsigned mask = 0xffffffffu) {
    uint64_t snap[32];
    __hs_rendezvous(mask & __hs_live(), 0, snap, "__syncwarp");
}

// Only meaningful where the warp is converged: every live lane meets here (a lane that finished
// early cannot have left before the others arrive, since it met them here too).
inline unsigned __activemask() {
    uint64_t snap[32];
    unsigned live = __hs_live();
    __hs_rendezvous(live, 0, snap, "__activemask");
    return live;
}

// PTX shfl.sync semantics: b = lane or offset, c = clamp (low 5 bits) | segment mask << 8.
enum class __hs_Shfl { up, down, bfly, idx };
template <class T>
inline T __hs_shfl(__hs_Shfl mode, unsigned mask, T var, int b, int width, const char* what) {
    static_assert(sizeof(T) <= 8);
    if (width <= 0 || width > 32 || (width & (width - 1))) __hs_fail("%s: bad width %d", what, width);
    unsigned segmask = unsigned(32 - width) & 31u;
    unsigned cval = mode == __hs_Shfl::up ? 0u : 31u;
    int lane = int(__hs_lane_id);
    int bval = b & 31;
    int max_lane = int((unsigned(lane) & segmask) | (cval & ~segmask));
    int min_lane = int(unsigned(lane) & segmask);
    int j = lane;
    bool p = false;
    switch (mode) {
        case __hs_Shfl::up: j = lane - bval; p = j >= max_lane; break;
        case __hs_Shfl::down: j = lane + bval; p = j <= max_lane; break;
        case __hs_Shfl::bfly: j = lane ^ bval; p = j <= max_lane; break;
        case __hs_Shfl::idx: j = min_lane | (bval & int(~segmask & 31u)); p = j <= max_lane; break;
    }
    if (!p) j = lane;
    uint64_t bits = 0;
    std::memcpy(&bits, &var, sizeof(T));
    uint64_t snap[32];
    __hs_rendezvous(mask, bits, snap, what);
    if (!(mask >> j & 1u)) __hs_fail("%s: source lane %d is not in the mask %08x", what, j, mask);
    T out;
    std::memcpy(&out, &snap[j], sizeof(T));
    return out;
}

template <class T>
inline T __shfl_sync(unsigned mask, T var, int src, int width = warpSize) {
    return __hs_shfl(__hs_Shfl::idx, mask, var, src, width, "__shfl_sync");
}
template <class T>
inline T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = warpSize) {
    return __hs_shfl(__hs_Shfl::up, mask, var, int(delta), width, "__shfl_up_sync");
}
template <class T>
inline T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = warpSize) {
    return __hs_shfl(__hs_Shfl::down, mask, var, int(delta), width, "__shfl_down_sync");
}
template <class T>
inline T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = warpSize) {
    return __hs_shfl(__hs_Shfl::bfly, mask, var, lane_mask, width, "__shfl_xor_sync");
}

inline unsigned __hs_ballot(unsigned mask, int pred, const char* what) {
    uint64_t snap[32];
    __hs_rendezvous(mask, pred != 0, snap, what);
    unsigned r = 0;
    for (unsigned l = 0; l < 32; l++) {
        if ((mask >> l & 1u) && snap[l]) r |= 1u << l;
    }
    return r;
}
inline unsigned __ballot_sync(unsigned mask, int pred) {
    return __hs_ballot(mask, pred, "__ballot_sync");
}
inline int __any_sync(unsigned mask, int pred) { return __hs_ballot(mask, pred, "__any_sync") != 0; }
inline int __all_sync(unsigned mask, int pred) {
    return __hs_ballot(mask, pred, "__all_sync") == mask;
}
inline int __uni_sync(unsigned mask, int pred) {
    unsigned b = __hs_ballot(mask, pred, "__uni_sync");
    return b == 0 || b == mask;
}

// ------------------------------------------------------------------------------------------------
// Atomics (CUDA's overload sets)

#define HS_AT(p) __atomic_load_n(p, __ATOMIC_SEQ_CST)
#define HS_FETCH(op, T)                                                                            \
    inline T atomic##op(T* p, T v) { return __atomic_fetch_##op##_hs(p, v); }

template <class T>
inline T __hs_cas(T* p, T cmp, T val) {
    __atomic_compare_exchange_n(p, &cmp, val, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    return cmp;  // the old value, whether or not the exchange happened
}
template <class T, class F>
inline T __hs_rmw(T* p, F f) {
    T old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
    while (!__atomic_compare_exchange_n(p, &old, f(old), false, __ATOMIC_SEQ_CST,
                                        __ATOMIC_SEQ_CST)) {
    }
    return old;
}
template <class T, class F>
inline T __hs_rmw_float(T* p, F f) {
    using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
    U* q = reinterpret_cast<U*>(p);
    return std::bit_cast<T>(__hs_rmw(q, [&](U old) { return std::bit_cast<U>(f(std::bit_cast<T>(old))); }));
}

#define HS_INT_TYPES(X) X(int) X(unsigned) X(unsigned long long)
#define HS_ADD(T)                                                                                  \
    inline T atomicAdd(T* p, T v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
#define HS_AND(T)                                                                                  \
    inline T atomicAnd(T* p, T v) { return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST); }
#define HS_OR(T)                                                                                   \
    inline T atomicOr(T* p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); }
#define HS_XOR(T)                                                                                  \
    inline T atomicXor(T* p, T v) { return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST); }
#define HS_EXCH(T)                                                                                 \
    inline T atomicExch(T* p, T v) { return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); }
#define HS_CAS(T)                                                                                  \
    inline T atomicCAS(T* p, T c, T v) { return __hs_cas(p, c, v); }
#define HS_MIN(T)                                                                                  \
    inline T atomicMin(T* p, T v) {                                                                \
        return __hs_rmw(p, [&](T o) { return v < o ? v : o; });                                    \
    }
#define HS_MAX(T)                                                                                  \
    inline T atomicMax(T* p, T v) {                                                                \
        return __hs_rmw(p, [&](T o) { return v > o ? v : o; });                                    \
    }
HS_INT_TYPES(HS_ADD)
HS_INT_TYPES(HS_AND)
HS_INT_TYPES(HS_OR)
HS_INT_TYPES(HS_XOR)
HS_INT_TYPES(HS_EXCH)
HS_INT_TYPES(HS_CAS)
HS_INT_TYPES(HS_MIN)
HS_INT_TYPES(HS_MAX)
HS_MIN(long long)
HS_MAX(long long)
HS_AND(long long)
HS_OR(long long)
HS_XOR(long long)
inline unsigned short atomicCAS(unsigned short* p, unsigned short c, unsigned short v) {
    return __hs_cas(p, c, v);
}
inline int atomicSub(int* p, int v) { return __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST); }
inline unsigned atomicSub(unsigned* p, unsigned v) {
    return __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST);
}
inline unsigned atomicInc(unsigned* p, unsigned v) {
    return __hs_rmw(p, [&](unsigned o) { return o >= v ? 0u : o + 1; });
}
inline unsigned atomicDec(unsigned* p, unsigned v) {
    return __hs_rmw(p, [&](unsigned o) { return (o == 0 || o > v) ? v : o - 1; });
}
inline float atomicAdd(float* p, float v) {
    return __hs_rmw_float(p, [&](float o) { return o + v; });
}
inline double atomicAdd(double* p, double v) {
    return __hs_rmw_float(p, [&](double o) { return o + v; });
}
inline float atomicExch(float* p, float v) {
    return __hs_rmw_float(p, [&](float) { return v; });
}

// Scope variants behave the same here.
#define atomicAdd_block atomicAdd
#define atomicAdd_system atomicAdd
#define atomicMax_block atomicMax
#define atomicMin_block atomicMin
#define atomicOr_block atomicOr
#define atomicAnd_block atomicAnd
#define atomicXor_block atomicXor
#define atomicExch_block atomicExch
#define atomicCAS_block atomicCAS
#define atomicInc_block atomicInc
#define atomicDec_block atomicDec

// ------------------------------------------------------------------------------------------------
// Integer intrinsics

inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(unsigned(x)); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned __brev(unsigned x) {
    unsigned r = 0;
    for (int i = 0; i < 32; i++) r |= ((x >> i) & 1u) << (31 - i);
    return r;
}
inline unsigned long long __brevll(unsigned long long x) {
    unsigned long long r = 0;
    for (int i = 0; i < 64; i++) r |= ((x >> i) & 1ull) << (63 - i);
    return r;
}
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
    uint64_t v = (uint64_t(y) << 32) | x;
    unsigned r = 0;
    for (int i = 0; i < 4; i++) r |= unsigned((v >> (8 * ((s >> (4 * i)) & 7u))) & 0xffu) << (8 * i);
    return r;
}
inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned s) {
    uint64_t v = (uint64_t(hi) << 32) | lo;
    return unsigned((v << (s & 31u)) >> 32);
}
inline unsigned __funnelshift_lc(unsigned lo, unsigned hi, unsigned s) {
    uint64_t v = (uint64_t(hi) << 32) | lo;
    return unsigned((v << std::min(s, 32u)) >> 32);
}
inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned s) {
    uint64_t v = (uint64_t(hi) << 32) | lo;
    return unsigned(v >> (s & 31u));
}
inline unsigned __funnelshift_rc(unsigned lo, unsigned hi, unsigned s) {
    uint64_t v = (uint64_t(hi) << 32) | lo;
    return unsigned(v >> std::min(s, 32u));
}
inline int __mulhi(int a, int b) { return int((int64_t(a) * int64_t(b)) >> 32); }
inline unsigned __umulhi(unsigned a, unsigned b) { return unsigned((uint64_t(a) * b) >> 32); }
inline long long __mul64hi(long long a, long long b) {
    return (long long)((__int128(a) * __int128(b)) >> 64);
}
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
    return (unsigned long long)((unsigned __int128)(a) * b >> 64);
}
inline int __hs_sext24(int a) { return int(unsigned(a) << 8) >> 8; }
inline int __mul24(int a, int b) {
    return int(uint32_t(int64_t(__hs_sext24(a)) * int64_t(__hs_sext24(b))));
}
inline unsigned __umul24(unsigned a, unsigned b) { return (a & 0xffffffu) * (b & 0xffffffu); }
inline unsigned __sad(int x, int y, unsigned z) {
    return z + (x > y ? unsigned(x) - unsigned(y) : unsigned(y) - unsigned(x));
}
inline unsigned __usad(unsigned x, unsigned y, unsigned z) { return z + (x > y ? x - y : y - x); }
inline int __hadd(int a, int b) { return int((int64_t(a) + b) >> 1); }
inline int __rhadd(int a, int b) { return int((int64_t(a) + b + 1) >> 1); }
inline unsigned __uhadd(unsigned a, unsigned b) { return unsigned((uint64_t(a) + b) >> 1); }
inline unsigned __urhadd(unsigned a, unsigned b) { return unsigned((uint64_t(a) + b + 1) >> 1); }
inline int __dp4a(int a, int b, int c) {
    int s = c;
    for (int i = 0; i < 4; i++) {
        int x = int(int8_t(uint32_t(a) >> (8 * i))), y = int(int8_t(uint32_t(b) >> (8 * i)));
        s = int(uint32_t(s) + uint32_t(x * y));
    }
    return s;
}
inline unsigned __dp4a(unsigned a, unsigned b, unsigned c) {
    unsigned s = c;
    for (int i = 0; i < 4; i++) s += ((a >> (8 * i)) & 0xffu) * ((b >> (8 * i)) & 0xffu);
    return s;
}
// SIMD-within-a-word intrinsics (per the CUDA Math API): lanes of 8 or 16 bits.
template <int W, class F>
inline unsigned __hs_lanes(unsigned a, unsigned b, F f) {
    const unsigned m = (1u << W) - 1u;
    unsigned r = 0;
    for (int k = 0; k < 32; k += W) {
        unsigned x = (a >> k) & m, y = (b >> k) & m;
        r |= (unsigned(f(x, y)) & m) << k;
    }
    return r;
}
template <int W>
inline int __hs_sext(unsigned v) {
    return int(v << (32 - W)) >> (32 - W);
}
inline unsigned __vadd2(unsigned a, unsigned b) {
    return __hs_lanes<16>(a, b, [](unsigned x, unsigned y) { return x + y; });
}
inline unsigned __vadd4(unsigned a, unsigned b) {
    return __hs_lanes<8>(a, b, [](unsigned x, unsigned y) { return x + y; });
}
inline unsigned __vsub2(unsigned a, unsigned b) {
    return __hs_lanes<16>(a, b, [](unsigned x, unsigned y) { return x - y; });
}
inline unsigned __vsub4(unsigned a, unsigned b) {
    return __hs_lanes<8>(a, b, [](unsigned x, unsigned y) { return x - y; });
}
inline unsigned __vaddss2(unsigned a, unsigned b) {
    return __hs_lanes<16>(a, b, [](unsigned x, unsigned y) {
        int s = __hs_sext<16>(x) + __hs_sext<16>(y);
        return unsigned(std::min(32767, std::max(-32768, s)));
    });
}
inline unsigned __vaddus4(unsigned a, unsigned b) {
    return __hs_lanes<8>(a, b, [](unsigned x, unsigned y) { return std::min(255u, x + y); });
}
inline unsigned __vabsdiffu4(unsigned a, unsigned b) {
    return __hs_lanes<8>(a, b, [](unsigned x, unsigned y) { return x > y ? x - y : y - x; });
}
inline unsigned __vavgu4(unsigned a, unsigned b) {
    return __hs_lanes<8>(a, b, [](unsigned x, unsigned y) { return (x + y + 1) >> 1; });
}
inline unsigned __vhaddu2(unsigned a, unsigned b) {
    return __hs_lanes<16>(a, b, [](unsigned x, unsigned y) { return (x + y) >> 1; });
}
inline unsigned __vcmpgtu4(unsigned a, unsigned b) {
    return __hs_lanes<8>(a, b, [](unsigned x, unsigned y) { return x > y ? 0xffu : 0u; });
}
inline unsigned __vcmpeq2(unsigned a, unsigned b) {
    return __hs_lanes<16>(a, b, [](unsigned x, unsigned y) { return x == y ? 0xffffu : 0u; });
}
inline unsigned __vmaxs2(unsigned a, unsigned b) {
    return __hs_lanes<16>(a, b, [](unsigned x, unsigned y) {
        return unsigned(std::max(__hs_sext<16>(x), __hs_sext<16>(y)));
    });
}
inline unsigned __vminu4(unsigned a, unsigned b) {
    return __hs_lanes<8>(a, b, [](unsigned x, unsigned y) { return std::min(x, y); });
}
inline unsigned __vneg4(unsigned a) {
    return __hs_lanes<8>(a, 0, [](unsigned x, unsigned) { return 0u - x; });
}
inline unsigned __vabsss4(unsigned a) {
    return __hs_lanes<8>(a, 0, [](unsigned x, unsigned) {
        int v = __hs_sext<8>(x);
        return unsigned(v == -128 ? 127 : (v < 0 ? -v : v));
    });
}
inline unsigned __vsadu4(unsigned a, unsigned b) {
    unsigned s = 0;
    for (int k = 0; k < 32; k += 8) {
        unsigned x = (a >> k) & 0xffu, y = (b >> k) & 0xffu;
        s += x > y ? x - y : y - x;
    }
    return s;
}
inline int __dp2a_lo(int a, int b, int c) {
    unsigned ua = unsigned(a), ub = unsigned(b);
    int64_t s = c;
    s += int64_t(__hs_sext<16>(ua & 0xffffu)) * __hs_sext<8>(ub & 0xffu);
    s += int64_t(__hs_sext<16>(ua >> 16)) * __hs_sext<8>((ub >> 8) & 0xffu);
    return int(uint32_t(s));
}
inline int __dp2a_hi(int a, int b, int c) {
    unsigned ua = unsigned(a), ub = unsigned(b);
    int64_t s = c;
    s += int64_t(__hs_sext<16>(ua & 0xffffu)) * __hs_sext<8>((ub >> 16) & 0xffu);
    s += int64_t(__hs_sext<16>(ua >> 16)) * __hs_sext<8>(ub >> 24);
    return int(uint32_t(s));
}

inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline long long max(long long a, long long b) { return a > b ? a : b; }
inline unsigned long long min(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long max(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
inline long long llmin(long long a, long long b) { return a < b ? a : b; }
inline long long llmax(long long a, long long b) { return a > b ? a : b; }
inline unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned umax(unsigned a, unsigned b) { return a > b ? a : b; }
inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }

// ------------------------------------------------------------------------------------------------
// Float intrinsics (IEEE round-to-nearest-even on the host: SSE, no contraction)

inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline float __fsqrt_rn(float a) { return std::sqrt(a); }
inline float __int_as_float(int x) { return std::bit_cast<float>(x); }
inline float __uint_as_float(unsigned x) { return std::bit_cast<float>(x); }
inline int __float_as_int(float x) { return std::bit_cast<int>(x); }
inline unsigned __float_as_uint(float x) { return std::bit_cast<unsigned>(x); }
inline long long __double_as_longlong(double x) { return std::bit_cast<long long>(x); }
inline double __longlong_as_double(long long x) { return std::bit_cast<double>(x); }
inline float __saturatef(float x) { return x != x ? 0.0f : (x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x)); }
inline float __int2float_rn(int x) { return float(x); }
inline float __uint2float_rn(unsigned x) { return float(x); }
inline int __hs_f2i_sat(double r) {
    if (r != r) return 0;
    if (r >= 2147483647.0) return INT_MAX;
    if (r <= -2147483648.0) return INT_MIN;
    return int(r);
}
inline int __float2int_rz(float x) { return __hs_f2i_sat(std::trunc(double(x))); }
inline int __float2int_rn(float x) { return __hs_f2i_sat(std::nearbyint(double(x))); }
inline int __float2int_rd(float x) { return __hs_f2i_sat(std::floor(double(x))); }
inline int __float2int_ru(float x) { return __hs_f2i_sat(std::ceil(double(x))); }

// Cache-hinted loads and stores are plain accesses here.
template <class T> inline T __ldg(const T* p) { return *p; }
template <class T> inline T __ldca(const T* p) { return *p; }
template <class T> inline T __ldcg(const T* p) { return *p; }
template <class T> inline T __ldcs(const T* p) { return *p; }
template <class T> inline T __ldlu(const T* p) { return *p; }
template <class T> inline T __ldcv(const T* p) { return *p; }
template <class T> inline void __stwb(T* p, T v) { *p = v; }
template <class T> inline void __stcg(T* p, T v) { *p = v; }
template <class T> inline void __stcs(T* p, T v) { *p = v; }
template <class T> inline void __stwt(T* p, T v) { *p = v; }

// ------------------------------------------------------------------------------------------------
// Inline PTX: hostsim.py rewrites each single-instruction `asm` statement into a call of the
// function named after its opcode (dots become underscores), sources in order, result returned.

template <class T>
inline T __hs_bfe(T a, unsigned pos, unsigned len, bool is_signed) {
    // PTX bfe: pos and len are taken from their low 8 bits; the sign bit for the signed form is
    // bit min(pos + len - 1, msb) of a (0 when len is 0).
    using U = std::make_unsigned_t<T>;
    const unsigned msb = sizeof(T) * 8 - 1;
    pos &= 0xffu;
    len &= 0xffu;
    U ua = U(a);
    bool sbit = false;
    if (is_signed && len != 0) {
        unsigned b = std::min(pos + len - 1, msb);
        sbit = (ua >> b) & 1u;
    }
    U d = 0;
    for (unsigned i = 0; i <= msb; i++) {
        bool bit;
        if (i < len && pos + i <= msb) {
            bit = (ua >> (pos + i)) & 1u;
        } else {
            bit = sbit;
        }
        d |= U(bit) << i;
    }
    return T(d);
}
template <class T>
inline T __hs_bfi(T a, T b, unsigned pos, unsigned len) {
    const unsigned msb = sizeof(T) * 8 - 1;
    pos &= 0xffu;
    len &= 0xffu;
    T f = b;
    for (unsigned i = 0; i < len && pos + i <= msb; i++) {
        f = (f & ~(T(1) << (pos + i))) | (((a >> i) & T(1)) << (pos + i));
    }
    return f;
}
inline unsigned ptx_bfe_u32(unsigned a, unsigned b, unsigned c) { return __hs_bfe(a, b, c, false); }
inline int ptx_bfe_s32(int a, unsigned b, unsigned c) { return __hs_bfe(a, b, c, true); }
inline unsigned long long ptx_bfe_u64(unsigned long long a, unsigned b, unsigned c) {
    return __hs_bfe(a, b, c, false);
}
inline long long ptx_bfe_s64(long long a, unsigned b, unsigned c) { return __hs_bfe(a, b, c, true); }
inline unsigned ptx_bfi_b32(unsigned a, unsigned b, unsigned c, unsigned d) {
    return __hs_bfi(a, b, c, d);
}
inline unsigned long long ptx_bfi_b64(unsigned long long a, unsigned long long b, unsigned c,
                                      unsigned d) {
    return __hs_bfi(a, b, c, d);
}
inline unsigned ptx_lop3_b32(unsigned a, unsigned b, unsigned c, unsigned lut) {
    unsigned r = 0;
    for (int i = 0; i < 32; i++) {
        unsigned idx = (((a >> i) & 1u) << 2) | (((b >> i) & 1u) << 1) | ((c >> i) & 1u);
        r |= ((lut >> idx) & 1u) << i;
    }
    return r;
}
inline unsigned ptx_prmt_b32(unsigned a, unsigned b, unsigned c) {
    // Default mode: selector nibble bits [2:0] pick a byte of {b, a}; bit 3 replicates its sign.
    uint64_t v = (uint64_t(b) << 32) | a;
    unsigned r = 0;
    for (int i = 0; i < 4; i++) {
        unsigned sel = (c >> (4 * i)) & 0xfu;
        unsigned byte = unsigned(v >> (8 * (sel & 7u))) & 0xffu;
        if (sel & 8u) byte = (byte & 0x80u) ? 0xffu : 0u;
        r |= byte << (8 * i);
    }
    return r;
}
inline unsigned ptx_shf_l_wrap_b32(unsigned lo, unsigned hi, unsigned s) {
    return __funnelshift_l(lo, hi, s);
}
inline unsigned ptx_shf_r_wrap_b32(unsigned lo, unsigned hi, unsigned s) {
    return __funnelshift_r(lo, hi, s);
}
inline unsigned ptx_shf_l_clamp_b32(unsigned lo, unsigned hi, unsigned s) {
    return __funnelshift_lc(lo, hi, s);
}
inline unsigned ptx_shf_r_clamp_b32(unsigned lo, unsigned hi, unsigned s) {
    return __funnelshift_rc(lo, hi, s);
}
inline unsigned ptx_bfind_u32(unsigned a) { return a == 0 ? 0xffffffffu : 31u - __builtin_clz(a); }
inline unsigned ptx_bfind_s32(int a) {
    unsigned u = a < 0 ? ~unsigned(a) : unsigned(a);
    return u == 0 ? 0xffffffffu : 31u - __builtin_clz(u);
}
inline unsigned ptx_bfind_shiftamt_u32(unsigned a) {
    return a == 0 ? 0xffffffffu : unsigned(__builtin_clz(a));
}
inline unsigned ptx_mov_u32_laneid() { return __hs_lane_id; }
inline unsigned ptx_mov_u32_lanemask_eq() { return 1u << __hs_lane_id; }
inline unsigned ptx_mov_u32_lanemask_lt() { return (1u << __hs_lane_id) - 1u; }
inline unsigned ptx_mov_u32_lanemask_le() { return unsigned((2ull << __hs_lane_id) - 1u); }
inline unsigned ptx_mov_u32_lanemask_gt() { return ~unsigned((2ull << __hs_lane_id) - 1u); }
inline unsigned ptx_mov_u32_lanemask_ge() { return ~((1u << __hs_lane_id) - 1u); }
inline unsigned ptx_mov_u32_warpid() { return __hs_warp_id; }  // not compared (check: false)
inline unsigned ptx_mov_u32_smid() { return 0; }
inline unsigned ptx_mov_u32_nsmid() { return 1; }
inline unsigned ptx_mov_u32_nwarpid() { return 64; }
inline short ptx_div_s16(short a, short b) { return short(a / b); }
inline short ptx_rem_s16(short a, short b) { return short(a % b); }
inline unsigned short ptx_div_u16(unsigned short a, unsigned short b) { return a / b; }
inline unsigned short ptx_rem_u16(unsigned short a, unsigned short b) { return a % b; }
inline int ptx_div_s32(int a, int b) { return a / b; }
inline int ptx_rem_s32(int a, int b) { return a % b; }
inline unsigned ptx_div_u32(unsigned a, unsigned b) { return a / b; }
inline unsigned ptx_rem_u32(unsigned a, unsigned b) { return a % b; }
inline long long ptx_div_s64(long long a, long long b) { return a / b; }
inline long long ptx_rem_s64(long long a, long long b) { return a % b; }
inline unsigned long long ptx_div_u64(unsigned long long a, unsigned long long b) { return a / b; }
inline unsigned long long ptx_rem_u64(unsigned long long a, unsigned long long b) { return a % b; }

// ------------------------------------------------------------------------------------------------
// Launch: the CTAs one after another, the threads of a CTA as concurrent OS threads. hostsim.py
// generates one launcher per launch spec that unpacks the arguments and calls this.

template <class F>
void __hs_run_grid(size_t dyn_smem, F&& body) {
    const dim3 g = __hs_gridDim, b = __hs_blockDim;
    std::vector<std::thread> threads;
    threads.reserve(b.x * b.y * b.z);
    for (unsigned cz = 0; cz < g.z; cz++) {
        for (unsigned cy = 0; cy < g.y; cy++) {
            for (unsigned cx = 0; cx < g.x; cx++) {
                hs_begin_cta(cx, cy, cz, dyn_smem);
                for (unsigned tz = 0; tz < b.z; tz++) {
                    for (unsigned ty = 0; ty < b.y; ty++) {
                        for (unsigned tx = 0; tx < b.x; tx++) {
                            threads.emplace_back([=, &body] {
                                hs_enter(tx, ty, tz);
                                body();
                                hs_exit();
                            });
                        }
                    }
                }
                for (auto& t : threads) t.join();
                threads.clear();
            }
        }
    }
}
