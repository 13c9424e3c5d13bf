/* quantize_chunk: runs ggml's ggml_quantize_chunk on raw little-endian f32 input, for the
 * bit-exactness tests of ggufkit's codecs (crates/ggufkit/tests/ggml_quantize.rs).
 *
 * usage: quantize_chunk TYPE_ID NROWS N_PER_ROW SRC.f32 IMATRIX.f32|- OUT.bin
 *   SRC.f32 holds NROWS*N_PER_ROW floats; IMATRIX.f32 holds N_PER_ROW floats, or "-" for none.
 *   OUT.bin receives the quantized rows. Exit status 0 on success. */
#include <stdio.h>
#include <stdlib.h>
#include "ggml.h"

static void *slurp(const char *path, size_t want) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(2); }
    void *buf = malloc(want ? want : 1);
    if (fread(buf, 1, want, f) != want) { fprintf(stderr, "%s: short read\n", path); exit(2); }
    fclose(f);
    return buf;
}

int main(int argc, char **argv) {
    if (argc != 7) {
        fprintf(stderr, "usage: %s TYPE_ID NROWS N_PER_ROW SRC.f32 IMATRIX.f32|- OUT.bin\n", argv[0]);
        return 2;
    }
    enum ggml_type ty = (enum ggml_type) atoi(argv[1]);
    int64_t nrows = atoll(argv[2]);
    int64_t n_per_row = atoll(argv[3]);
    float *src = slurp(argv[4], (size_t)(nrows * n_per_row) * sizeof(float));
    float *imatrix = NULL;
    if (argv[5][0] != '-' || argv[5][1] != 0) {
        imatrix = slurp(argv[5], (size_t)n_per_row * sizeof(float));
    }
    size_t row_size = ggml_row_size(ty, n_per_row);
    void *dst = calloc((size_t)nrows, row_size ? row_size : 1);
    size_t n = ggml_quantize_chunk(ty, src, dst, 0, nrows, n_per_row, imatrix);
    FILE *f = fopen(argv[6], "wb");
    if (!f || fwrite(dst, 1, n, f) != n || fclose(f) != 0) { perror(argv[6]); return 2; }
    return 0;
}
