// N-Queens completion counter: one sub-problem (a partial placement) per work-item.
//
// Bit c of a mask is column c. A node of the search is the attacks on its row
// (cols, diag_up, diag_down) plus the squares of that row not yet tried (free).
// Placing bit b gives { cols | b, (diag_up | b) << 1, (diag_down | b) >> 1 } for the next
// row; bits shifted out of the 32-bit word are dropped.
//
// The search is an iterative depth-first search in which every loop iteration places
// exactly one queen: descending, staying and backtracking are short branches (a push, a
// pop, or neither) that rejoin within the iteration, so the work-items of a SIMD group
// stay converged. The deadline is folded into the row's mask, not tested per placement. The idea follows ygch/n_queens (src/n_queens_cuda.cu): a stack in
// local memory, one queen per iteration, the last row counted with popcount, ancestors
// with no square left are not kept on the stack, and work fetched with an atomic
// counter. This is an independent OpenCL C implementation of those ideas.
//
// The row of a node is not stored: every placement adds exactly one column to `cols`,
// so row = base + popcount(cols) with base = first - popcount(cols at the root).
//
// Local memory holds the stack: entry `level` of work-item `lid` is
// stack[level * local_size + lid], so at every level the work-items of a group read and
// write consecutive 16-byte words (no bank conflicts on GPUs). Built with
// -D NQ_PRIVATE_STACK, each work-item keeps its stack in a private array instead (faster on
// CPU devices, where local memory is ordinary memory shared by the work-group's loop), and
// the local buffer argument is unused.

#ifdef NQ_PRIVATE_STACK
#define STACK_PTR uint4 *
#define STACK_AT(level) stack[(level) & 31u]
#define STACK_SPACE(local_stack) \
    uint4 stack[32];             \
    (void)(local_stack)
#else
#define STACK_PTR __local uint4 *
#define STACK_AT(level) stack[(level) * lsize + lid]
#define STACK_SPACE(local_stack) __local uint4 *stack = (local_stack)
#endif

// The helpers are plain functions, not `inline`: under OpenCL C's C99 inline rules a
// non-static `inline` function that the compiler decides not to inline has no definition,
// which some clang-based compilers report as an undefined symbol. They are inlined anyway.

// popcount is a built-in from OpenCL C 1.2 on; older compilers get the classic bit count.
#if !defined(__OPENCL_C_VERSION__) || __OPENCL_C_VERSION__ < 120
uint nq_popcount(uint x) {
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0f0f0f0fu;
    return (x * 0x01010101u) >> 24;
}
#define popcount nq_popcount
#endif

// One sub-problem; the layout matches the Rust `Sub` (#[repr(C)], five u32).
typedef struct {
    uint cols;
    uint diag_up;
    uint diag_down;
    uint first; // the next row to place
    uint rows;  // index into the rows table
} sub_t;

// What each row may use; the layout matches the Rust `RowSpec` (#[repr(C)], 34 u32).
// The host has already cut `allow` down to the board.
typedef struct {
    uint allow[32];
    uint dead_row;  // after the queen of this row is placed ...
    uint dead_cols; // ... these columns must all be taken (32 / 0 for none)
} rows_t;

// The state of one work-item's search.
typedef struct {
    uint cols, diag_up, diag_down; // attacks on the current node's row
    uint free;                     // its squares not yet tried; 0 once the sub is done
    uint sp;                       // stack depth (ancestors with squares left)
    uint base;                     // row of a node = base + popcount(cols)
    uint dead_row, dead_cols;      // the deadline of the rows spec
    __global const uint *allow;    // the allow masks of the rows spec
    ulong total;                   // completions found so far
} search_t;

// The squares row `row` may use when the columns taken before it are `cols`: its allow mask
// and, on the deadline row, only squares that complete `dead_cols` (all of them if nothing
// is missing, the missing column if exactly one is, none otherwise). Branch-free.
uint row_mask(const search_t *s, uint row, uint cols) {
    uint allow = s->allow[row & 31];
    uint missing = s->dead_cols & ~cols;
    uint dead = (missing == 0u) ? ~0u : (((missing & (missing - 1u)) == 0u) ? missing : 0u);
    return (row == s->dead_row) ? (allow & dead) : allow;
}

// Sets `s` up for sub-problem `sub` of an `n`-column board. Trivial sub-problems (no row
// left, one row left, no free square) are settled here and leave `free` = 0.
void start(search_t *s, uint n, sub_t sub, __global const rows_t *rows) {
    __global const rows_t *spec = rows + sub.rows;
    s->allow = spec->allow;
    s->dead_row = spec->dead_row;
    s->dead_cols = spec->dead_cols;
    s->cols = sub.cols;
    s->diag_up = sub.diag_up;
    s->diag_down = sub.diag_down;
    s->sp = 0u;
    s->base = sub.first - popcount(sub.cols);
    if (sub.first >= n) {
        s->free = 0u;
        s->total = 1ul;
        return;
    }
    uint free = ~(sub.cols | sub.diag_up | sub.diag_down) & row_mask(s, sub.first, sub.cols);
    if (sub.first + 1u == n) {
        s->free = 0u;
        s->total = (ulong)popcount(free);
        return;
    }
    s->free = free;
    s->total = 0ul;
}

// Places one queen: the lowest untried square of the current node (requires free != 0).
// A child on the last row is counted with popcount; any other child with a free square
// becomes the current node, its parent pushed if it has squares left. When the current node
// has no square left it is replaced by the top of the stack; free == 0 afterwards means the
// sub-problem is done.
void step(search_t *s, uint last, STACK_PTR stack, uint lid, uint lsize) {
#ifdef NQ_PRIVATE_STACK
    (void)lid;
    (void)lsize;
#endif
    uint bit = s->free & (0u - s->free);
    uint rest = s->free ^ bit;
    uint cols = s->cols | bit;
    uint up = (s->diag_up | bit) << 1;
    uint down = (s->diag_down | bit) >> 1;
    uint row = s->base + popcount(cols);
    uint free = ~(cols | up | down) & row_mask(s, row, cols);
    bool leaf = row == last;
    s->total += leaf ? (ulong)popcount(free) : 0ul;
    if (!leaf && free != 0u) {
        if (rest != 0u) {
            STACK_AT(s->sp) = (uint4)(s->cols, s->diag_up, s->diag_down, rest);
            s->sp += 1u;
        }
        s->cols = cols;
        s->diag_up = up;
        s->diag_down = down;
        s->free = free;
    } else if (rest != 0u || s->sp == 0u) {
        s->free = rest;
    } else {
        s->sp -= 1u;
        uint4 e = STACK_AT(s->sp);
        s->cols = e.x;
        s->diag_up = e.y;
        s->diag_down = e.z;
        s->free = e.w;
    }
}

// One work-item per sub-problem: work-item i counts subs[i] into out[i].
__kernel void count_each(uint n, __global const sub_t *subs, uint count,
                         __global const rows_t *rows, __global ulong *out,
                         __local uint4 *local_stack) {
    uint i = get_global_id(0);
    if (i >= count) {
        return;
    }
    uint lid = get_local_id(0);
    uint lsize = get_local_size(0);
    STACK_SPACE(local_stack);
    search_t s;
    start(&s, n, subs[i], rows);
    while (s.free != 0u) {
        step(&s, n - 1u, stack, lid, lsize);
    }
    out[i] = s.total;
}

// Persistent work-items: each takes the next sub-problem from the atomic counter `next`
// (zero at launch) as soon as its current one is done, inside the same loop, so that a
// work-item never idles while its neighbours finish bigger sub-problems.
__kernel void count_persistent(uint n, __global const sub_t *subs, uint count,
                               __global const rows_t *rows, __global ulong *out,
                               __local uint4 *local_stack, volatile __global uint *next) {
    uint lid = get_local_id(0);
    uint lsize = get_local_size(0);
    STACK_SPACE(local_stack);
    search_t s;
    uint i = atomic_inc(next);
    if (i >= count) {
        return;
    }
    start(&s, n, subs[i], rows);
    for (;;) {
        if (s.free == 0u) {
            out[i] = s.total;
            i = atomic_inc(next);
            if (i >= count) {
                return;
            }
            start(&s, n, subs[i], rows);
        } else {
            step(&s, n - 1u, stack, lid, lsize);
        }
    }
}

// ---- Classifying solutions: total and unique counts under the 8 symmetries ----
//
// The same search, with the column of every row kept (`col`, private: the rows above the
// sub-problem come from the host) so that each solution can be compared with its 7 images.
// A solution is canonical when it is lexicographically the smallest of its class; its class
// has 8 / (symmetries that fix it) members. Per sub-problem three counts come out: solutions,
// canonical solutions, and the class sizes of the canonical ones summed.

// The 8 symmetries of the square as maps of (row, column): an optional transpose, then an
// optional flip of the rows and of the columns. Image of `s` under symmetry `g`, row `r`:
// t[r] = fc(s[fr(r)]) without transpose, fc(inv[fr(r)]) with it (inv: the inverse permutation).
void classify(const uchar *s, uint n, ulong *acc) {
    uchar inv[32];
    for (uint r = 0u; r < n; r++) {
        inv[s[r]] = (uchar)r;
    }
    uint fixed = 0u;
    bool canonical = true;
    for (uint g = 0u; g < 8u; g++) {
        int cmp = 0;
        for (uint r = 0u; r < n && cmp == 0; r++) {
            uint fr = (g & 2u) ? n - 1u - r : r;
            uint v = (g & 4u) ? inv[fr] : s[fr];
            v = (g & 1u) ? n - 1u - v : v;
            cmp = (v < s[r]) ? -1 : ((v > s[r]) ? 1 : 0);
        }
        fixed += (cmp == 0) ? 1u : 0u;
        canonical = canonical && cmp >= 0;
    }
    acc[0] += 1ul;
    if (canonical) {
        acc[1] += 1ul;
        acc[2] += (ulong)(8u / fixed);
    }
}

// Classifies every square of `free` as the queen of row `row`, the rows above given by `col`.
void classify_row(uchar *col, uint row, uint free, uint n, ulong *acc) {
    while (free != 0u) {
        uint bit = free & (0u - free);
        free ^= bit;
        col[row] = (uchar)(31u - clz(bit));
        classify(col, n, acc);
    }
}

// Sub-problem `i`: its search, each solution classified; writes out[3i .. 3i+2]. `prefixes`
// holds 32 columns per sub-problem: those of its rows above `first`.
void classify_one(uint n, uint i, __global const sub_t *subs, __global const rows_t *rows,
                  __global const uchar *prefixes, __global ulong *out, STACK_PTR stack,
                  uint lid, uint lsize) {
#ifdef NQ_PRIVATE_STACK
    (void)lid;
    (void)lsize;
#endif
    sub_t sub = subs[i];
    uchar col[32];
    for (uint r = 0u; r < 32u; r++) {
        col[r] = prefixes[32u * i + r];
    }
    ulong acc[3] = {0ul, 0ul, 0ul};
    search_t s;
    start(&s, n, sub, rows);
    if (sub.first >= n) {
        classify(col, n, acc);
    } else if (sub.first + 1u == n) {
        uint free = ~(sub.cols | sub.diag_up | sub.diag_down) & row_mask(&s, sub.first, sub.cols);
        classify_row(col, sub.first, free, n, acc);
    }
    uint last = n - 1u;
    while (s.free != 0u) {
        // As `step`, keeping the column of each row placed and classifying at the last row.
        uint bit = s.free & (0u - s.free);
        uint rest = s.free ^ bit;
        uint cols = s.cols | bit;
        uint up = (s.diag_up | bit) << 1;
        uint down = (s.diag_down | bit) >> 1;
        uint row = s.base + popcount(cols);
        col[row - 1u] = (uchar)(31u - clz(bit));
        uint free = ~(cols | up | down) & row_mask(&s, row, cols);
        bool leaf = row == last;
        if (leaf) {
            classify_row(col, row, free, n, acc);
        }
        if (!leaf && free != 0u) {
            if (rest != 0u) {
                STACK_AT(s.sp) = (uint4)(s.cols, s.diag_up, s.diag_down, rest);
                s.sp += 1u;
            }
            s.cols = cols;
            s.diag_up = up;
            s.diag_down = down;
            s.free = free;
        } else if (rest != 0u || s.sp == 0u) {
            s.free = rest;
        } else {
            s.sp -= 1u;
            uint4 e = STACK_AT(s.sp);
            s.cols = e.x;
            s.diag_up = e.y;
            s.diag_down = e.z;
            s.free = e.w;
        }
    }
    out[3u * i] = acc[0];
    out[3u * i + 1u] = acc[1];
    out[3u * i + 2u] = acc[2];
}

// Persistent work-items, as `count_persistent`, each sub-problem classified whole.
__kernel void classify_persistent(uint n, __global const sub_t *subs, uint count,
                                  __global const rows_t *rows, __global const uchar *prefixes,
                                  __global ulong *out, __local uint4 *local_stack,
                                  volatile __global uint *next) {
    uint lid = get_local_id(0);
    uint lsize = get_local_size(0);
    STACK_SPACE(local_stack);
    for (uint i = atomic_inc(next); i < count; i = atomic_inc(next)) {
        classify_one(n, i, subs, rows, prefixes, out, stack, lid, lsize);
    }
}
