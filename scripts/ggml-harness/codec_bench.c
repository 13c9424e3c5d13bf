/* codec_bench: ggml's side of the codec comparison (crates/ggufkit-bench, `--bin codecs`). A
 * long-lived subprocess that times ggml's to_float (ggml_get_type_traits(type)->to_float) and
 * ggml_quantize_chunk on inputs the runner writes to files, so the runner can interleave ggml's
 * runs with its own in one process pair and compare results without FFI.
 *
 * Commands, one per line on stdin; one reply line on stdout each:
 *   blocks TYPE_ID N PATH        load N elements of TYPE_ID blocks from PATH      -> ok | none | err
 *   src N PATH                   load N f32 (the quantizers' input) from PATH     -> ok | err
 *   imatrix N_PER_ROW PATH|-     importance weights for quantize, "-" for none    -> ok | err
 *   deq REPS                     to_float over the loaded blocks, REPS times      -> ok NS HASH
 *   quant TYPE_ID N_PER_ROW REPS ggml_quantize_chunk over the loaded src   -> ok NS HASH | none
 *   quit
 * NS is the total nanoseconds of the REPS runs (the runner divides); HASH (16 hex digits) is
 * hash64 of the output bytes of the last run, the same function as the runner's
 * (crates/ggufkit-bench/src/ggml.rs). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ggml.h"

static void *blocks, *src, *fout, *qout;
static size_t blocks_len, src_n, fout_n, qout_len;
static int64_t blocks_n;
static enum ggml_type blocks_ty;
static float *imatrix;
static int64_t imatrix_n;

/* 64-bit words (the tail zero-padded), each mixed in: h = (h ^ w) * prime, then a final fold. */
static uint64_t hash64(const void *p, size_t len) {
    const unsigned char *b = p;
    uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)len;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, b + i, 8);
        h = (h ^ w) * 0x100000001b3ull;
    }
    if (i < len) {
        uint64_t w = 0;
        memcpy(&w, b + i, len - i);
        h = (h ^ w) * 0x100000001b3ull;
    }
    return h ^ (h >> 32);
}

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* Reads exactly len bytes of path into a fresh buffer (freeing *buf), or returns -1. */
static int load(const char *path, size_t len, void **buf) {
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    free(*buf);
    *buf = malloc(len ? len : 1);
    size_t got = *buf ? fread(*buf, 1, len, f) : 0;
    fclose(f);
    return got == len ? 0 : -1;
}

/* A buffer of at least len bytes, touched so the first timed run pays no page faults. */
static void *sized(void *buf, size_t *have, size_t len) {
    if (*have < len) {
        free(buf);
        buf = malloc(len ? len : 1);
        if (!buf) { fprintf(stderr, "codec_bench: out of memory\n"); exit(2); }
        memset(buf, 0, len);
        *have = len;
    }
    return buf;
}

/* The types ggml_quantize_chunk has a case for (any other aborts there). */
static int quantizable(enum ggml_type t) {
    switch (t) {
    case GGML_TYPE_Q1_0: case GGML_TYPE_Q2_0: case GGML_TYPE_Q4_0: case GGML_TYPE_Q4_1:
    case GGML_TYPE_Q5_0: case GGML_TYPE_Q5_1: case GGML_TYPE_Q8_0: case GGML_TYPE_MXFP4:
    case GGML_TYPE_NVFP4: case GGML_TYPE_Q2_K: case GGML_TYPE_Q3_K: case GGML_TYPE_Q4_K:
    case GGML_TYPE_Q5_K: case GGML_TYPE_Q6_K: case GGML_TYPE_TQ1_0: case GGML_TYPE_TQ2_0:
    case GGML_TYPE_IQ2_XXS: case GGML_TYPE_IQ2_XS: case GGML_TYPE_IQ3_XXS: case GGML_TYPE_IQ3_S:
    case GGML_TYPE_IQ2_S: case GGML_TYPE_IQ1_S: case GGML_TYPE_IQ1_M: case GGML_TYPE_IQ4_NL:
    case GGML_TYPE_IQ4_XS: case GGML_TYPE_F16: case GGML_TYPE_BF16: case GGML_TYPE_F32:
        return 1;
    default:
        return 0;
    }
}

int main(void) {
    char line[4096], path[4000];
    setvbuf(stdout, NULL, _IOLBF, 0);
    while (fgets(line, sizeof line, stdin)) {
        int ty;
        long long n, reps, npr;
        if (sscanf(line, "blocks %d %lld %3999s", &ty, &n, path) == 3) {
            const struct ggml_type_traits *tr = ggml_get_type_traits((enum ggml_type)ty);
            if (ty < 0 || ty >= GGML_TYPE_COUNT || !tr->to_float || tr->blck_size == 0) { puts("none"); continue; }
            size_t len = ggml_row_size((enum ggml_type)ty, n);
            if (load(path, len, &blocks) != 0) { puts("err load"); continue; }
            blocks_len = len; blocks_n = n; blocks_ty = (enum ggml_type)ty;
            fout = sized(fout, &fout_n, (size_t)n * sizeof(float));
            puts("ok");
        } else if (sscanf(line, "src %lld %3999s", &n, path) == 2) {
            if (load(path, (size_t)n * sizeof(float), &src) != 0) { puts("err load"); continue; }
            src_n = (size_t)n;
            puts("ok");
        } else if (sscanf(line, "imatrix %lld %3999s", &n, path) == 2) {
            free(imatrix); imatrix = NULL; imatrix_n = 0;
            if (strcmp(path, "-") != 0) {
                void *w = NULL;
                if (load(path, (size_t)n * sizeof(float), &w) != 0) { puts("err load"); continue; }
                imatrix = w; imatrix_n = n;
            }
            puts("ok");
        } else if (sscanf(line, "deq %lld", &reps) == 1) {
            if (!blocks) { puts("err no blocks"); continue; }
            ggml_to_float_t f = ggml_get_type_traits(blocks_ty)->to_float;
            uint64_t t0 = now_ns();
            for (long long r = 0; r < reps; r++) f(blocks, fout, blocks_n);
            uint64_t t1 = now_ns();
            printf("ok %llu %016llx\n", (unsigned long long)(t1 - t0),
                   (unsigned long long)hash64(fout, (size_t)blocks_n * sizeof(float)));
        } else if (sscanf(line, "quant %d %lld %lld", &ty, &npr, &reps) == 3) {
            enum ggml_type t = (enum ggml_type)ty;
            if (!src || npr <= 0 || src_n % (size_t)npr != 0) { puts("err no src"); continue; }
            if (ty < 0 || ty >= GGML_TYPE_COUNT || !quantizable(t)) { puts("none"); continue; }
            if (ggml_quantize_requires_imatrix(t) && !imatrix) { puts("none"); continue; }
            if (imatrix && imatrix_n != npr) { puts("err imatrix length"); continue; }
            int64_t nrows = (int64_t)(src_n / (size_t)npr);
            size_t len = ggml_row_size(t, npr) * (size_t)nrows;
            qout = sized(qout, &qout_len, len);
            ggml_quantize_init(t);
            uint64_t t0 = now_ns();
            size_t got = 0;
            for (long long r = 0; r < reps; r++) got = ggml_quantize_chunk(t, src, qout, 0, nrows, npr, imatrix);
            uint64_t t1 = now_ns();
            if (reps > 0 && got != len) { puts("err size"); continue; }
            printf("ok %llu %016llx\n", (unsigned long long)(t1 - t0), (unsigned long long)hash64(qout, len));
        } else if (strncmp(line, "quit", 4) == 0) {
            break;
        } else {
            puts("err command");
        }
    }
    return 0;
}
