/* Fixed seeds for a server the perf guard (bench/guard.py) measures,
 * preloaded with LD_PRELOAD: the server seeds random() from the clock and
 * its hash tables from /dev/urandom, so each run lays out skiplist levels
 * and hash buckets anew, and walks of the same data cost a few percent more
 * or less from one run to the next. With fixed seeds every run builds the
 * same structures and counts the same instructions. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void srandom(unsigned int seed) {
    (void)seed;
    void (*real)(unsigned int) = (void (*)(unsigned int))dlsym(RTLD_NEXT, "srandom");
    real(1);
}

void srand(unsigned int seed) {
    (void)seed;
    void (*real)(unsigned int) = (void (*)(unsigned int))dlsym(RTLD_NEXT, "srand");
    real(1);
}

/* The hash seed: the server reads 64 bytes of /dev/urandom once. */
static const char fixed_bytes[256] = "zkit perf guard: the same seed on every run";

static FILE *open_fixed(const char *path, const char *mode, const char *name) {
    if (strcmp(path, "/dev/urandom") == 0 || strcmp(path, "/dev/random") == 0)
        return fmemopen((void *)fixed_bytes, sizeof(fixed_bytes), "r");
    FILE *(*real)(const char *, const char *) =
        (FILE * (*)(const char *, const char *)) dlsym(RTLD_NEXT, name);
    return real(path, mode);
}

FILE *fopen(const char *path, const char *mode) { return open_fixed(path, mode, "fopen"); }

FILE *fopen64(const char *path, const char *mode) { return open_fixed(path, mode, "fopen64"); }
