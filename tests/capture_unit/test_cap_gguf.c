/* Tests of the capture's GGUF header reader (cap_gguf.c) on files written here by the GGUF
 * layout (little-endian: "GGUF", version, counts, key-values, tensor infos). Expected values
 * are the literals written. */
#include "capture/store/cap_gguf.h"
#include "test.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void put_n(FILE *f, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; i++) fputc((int)((v >> (8 * i)) & 0xff), f);
}
static void put_str(FILE *f, const char *s) {
    put_n(f, strlen(s), 8);
    fwrite(s, 1, strlen(s), f);
}
static void put_kv_str(FILE *f, const char *k, const char *v) {
    put_str(f, k);
    put_n(f, 8, 4);
    put_str(f, v);
}

static char g_path[64];

/* A model: 5 key-values (two arrays among them), 3 tensors of 65536 + 256 + 512 elements.
 * CUT: bytes to keep (0: all). Returns the file's size. */
static long write_model(long cut) {
    snprintf(g_path, sizeof g_path, "/tmp/opscope-gguf-%d.gguf", (int)getpid());
    FILE *f = fopen(g_path, "wb");
    fwrite("GGUF", 1, 4, f);
    put_n(f, 3, 4);
    put_n(f, 3, 8); /* tensors */
    put_n(f, 5, 8); /* key-values */
    put_kv_str(f, "general.architecture", "llama");
    put_str(f, "tokenizer.ggml.tokens"); /* array of 3 strings */
    put_n(f, 9, 4);
    put_n(f, 8, 4);
    put_n(f, 3, 8);
    put_str(f, "a");
    put_str(f, "bc");
    put_str(f, "def");
    put_str(f, "tokenizer.ggml.scores"); /* array of 4 f32 */
    put_n(f, 9, 4);
    put_n(f, 6, 4);
    put_n(f, 4, 8);
    put_n(f, 0, 16);
    put_kv_str(f, "general.name", "tiny test");
    put_str(f, "general.file_type");
    put_n(f, 4, 4); /* u32 */
    put_n(f, 7, 4);
    const uint64_t dims[3][3] = {{256, 256, 0}, {256, 0, 0}, {32, 8, 2}};
    const int nd[3] = {2, 1, 3};
    for (int t = 0; t < 3; t++) {
        char name[16];
        snprintf(name, sizeof name, "t%d.weight", t);
        put_str(f, name);
        put_n(f, (uint64_t)nd[t], 4);
        for (int d = 0; d < nd[t]; d++) put_n(f, dims[t][d], 8);
        put_n(f, 0, 4); /* type */
        put_n(f, 0, 8); /* offset */
    }
    fwrite("data", 1, 4, f);
    long size = ftell(f);
    fclose(f);
    if (cut > 0 && truncate(g_path, cut) != 0) return -1;
    return cut > 0 ? cut : size;
}

static int test_header(void) {
    long size = write_model(0);
    opscope_cap_gguf h;
    ASSERT_EQ_INT(opscope_cap_gguf_read(g_path, &h), 0);
    ASSERT_EQ_U64(h.size, (uint64_t)size);
    ASSERT_EQ_STR(h.arch, "llama");
    ASSERT_EQ_STR(h.name, "tiny test");
    ASSERT_EQ_INT(h.file_type, 7);
    ASSERT_EQ_U64(h.n_params, 65536 + 256 + 512);
    unlink(g_path);
    return 0;
}

/* A file cut inside its tensor infos keeps what came before; no parameter count. */
static int test_cut_short(void) {
    long full = write_model(0);
    ASSERT_EQ_INT((int)write_model(full - 30), (int)(full - 30));
    opscope_cap_gguf h;
    ASSERT_EQ_INT(opscope_cap_gguf_read(g_path, &h), 0);
    ASSERT_EQ_STR(h.arch, "llama");
    ASSERT_EQ_INT(h.file_type, 7);
    ASSERT_EQ_U64(h.n_params, 0);
    unlink(g_path);
    return 0;
}

/* Not a GGUF file, a missing file, and a hostile length: nothing read, nothing allocated. */
static int test_refused(void) {
    opscope_cap_gguf h;
    FILE *f = fopen(g_path, "wb");
    fputs("{\"not\":\"gguf\"}", f);
    fclose(f);
    ASSERT_EQ_INT(opscope_cap_gguf_read(g_path, &h), -1);
    ASSERT_EQ_U64(h.size, 14);
    ASSERT_EQ_STR(h.arch, "");
    ASSERT_EQ_INT(opscope_cap_gguf_read("/nonexistent/x.gguf", &h), -1);
    f = fopen(g_path, "wb");
    fwrite("GGUF", 1, 4, f);
    put_n(f, 3, 4);
    put_n(f, 1, 8);
    put_n(f, 1, 8);
    put_n(f, (uint64_t)1 << 40, 8); /* a key of 1 TiB */
    fclose(f);
    ASSERT_EQ_INT(opscope_cap_gguf_read(g_path, &h), 0);
    ASSERT_EQ_STR(h.arch, "");
    ASSERT_EQ_U64(h.n_params, 0);
    ASSERT_EQ_INT(h.file_type, -1);
    unlink(g_path);
    return 0;
}

TEST_MAIN(TEST(test_header), TEST(test_cut_short), TEST(test_refused))
