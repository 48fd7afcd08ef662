/*
 * A classic Somers-style N-Queens counter in C, the yardstick of the serial solver
 * (benches/reference.rs). Written for this project after the method of J. Somers'
 * iterative bitmask counter (2002): per-row arrays of the three attack masks and of the
 * untried squares, an explicit row index instead of recursion, mirror halving on the
 * first row (left half doubled; for odd N the middle column counted once).
 *
 * Build: gcc -O3 -o somers somers.c        Run: ./somers 15   -> prints 2279184
 */
#include <stdio.h>
#include <stdlib.h>

static unsigned long long count_from(int n, unsigned first_bit) {
    unsigned full = (n == 32) ? 0xffffffffu : ((1u << n) - 1);
    unsigned cols[32], up[32], down[32], todo[32];
    unsigned long long total = 0;
    int row = 1;
    cols[1] = first_bit;
    up[1] = first_bit << 1;
    down[1] = first_bit >> 1;
    if (n == 1) return 1;
    todo[1] = full & ~(cols[1] | up[1] | down[1]);
    for (;;) {
        unsigned avail = todo[row];
        if (avail == 0) {
            if (--row == 0) break;
            continue;
        }
        unsigned bit = avail & (0u - avail);
        todo[row] = avail ^ bit;
        if (row == n - 1) {
            total++;
            continue;
        }
        cols[row + 1] = cols[row] | bit;
        up[row + 1] = (up[row] | bit) << 1;
        down[row + 1] = (down[row] | bit) >> 1;
        row++;
        todo[row] = full & ~(cols[row] | up[row] | down[row]);
    }
    return total;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 8;
    if (n < 1 || n > 32) {
        fprintf(stderr, "N must be between 1 and 32\n");
        return 2;
    }
    unsigned long long total = 0;
    for (int c = 0; c < n / 2; c++) total += 2 * count_from(n, 1u << c);
    if (n % 2) total += count_from(n, 1u << (n / 2));
    printf("%llu\n", total);
    return 0;
}
