/* Tests of util/out.h's path kinds: streams written through, never renamed over, never
 * opened by the check, and never blocking a writer that waits. */
#include "opscope.h"
#include "util/out.h"
#include "test.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int test_kinds(void) {
    unlink("op_file.txt");
    unlink("op_fifo");
    unlink("op_link_out");
    unlink("op_link_file");
    rmdir("op_dir");
    ASSERT_EQ_INT(opscope_out_path_kind("op_file.txt"), OPSCOPE_OUT_KIND_FILE); /* not there yet */
    FILE *f = fopen("op_file.txt", "w");
    ASSERT_NOT_NULL(f);
    fclose(f);
    ASSERT_EQ_INT(opscope_out_path_kind("op_file.txt"), OPSCOPE_OUT_KIND_FILE);
    ASSERT_EQ_INT(mkdir("op_dir", 0755), 0);
    ASSERT_EQ_INT(opscope_out_path_kind("op_dir"), OPSCOPE_OUT_KIND_DIR);
    ASSERT_EQ_INT(mkfifo("op_fifo", 0600), 0);
    ASSERT_EQ_INT(opscope_out_path_kind("op_fifo"), OPSCOPE_OUT_KIND_STREAM);
    ASSERT_EQ_INT(opscope_out_path_kind("/dev/null"), OPSCOPE_OUT_KIND_STREAM);
    ASSERT_EQ_INT(opscope_out_path_kind("-"), OPSCOPE_OUT_KIND_STREAM);
    /* by name, whatever the descriptor is (a regular file here): never followed to it */
    ASSERT_EQ_INT(opscope_out_path_kind("/dev/stdout"), OPSCOPE_OUT_KIND_STREAM);
    ASSERT_EQ_INT(opscope_out_path_kind("/dev/fd/2"), OPSCOPE_OUT_KIND_STREAM);
    ASSERT_EQ_INT(opscope_out_path_kind("/proc/self/fd/1"), OPSCOPE_OUT_KIND_STREAM);
    ASSERT_EQ_INT(symlink("/dev/stdout", "op_link_out"), 0);
    ASSERT_EQ_INT(opscope_out_path_kind("op_link_out"), OPSCOPE_OUT_KIND_STREAM);
    ASSERT_EQ_INT(symlink("op_file.txt", "op_link_file"), 0);
    ASSERT_EQ_INT(opscope_out_path_kind("op_link_file"), OPSCOPE_OUT_KIND_FILE);
    unlink("op_link_out");
    unlink("op_link_file");
    unlink("op_fifo");
    unlink("op_file.txt");
    rmdir("op_dir");
    return 0;
}

/* /dev/fd/N of a regular file: written through N's own description, after what is there,
 * the file never replaced (same inode). */
static int test_descriptor_file(void) {
    const char *path = "op_prog_output.txt";
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    ASSERT_GE_INT(fd, 0);
    ASSERT_EQ_INT((int)write(fd, "program output\n", 15), 15);
    struct stat before, after;
    ASSERT_EQ_INT(fstat(fd, &before), 0);
    char name[32];
    snprintf(name, sizeof name, "/dev/fd/%d", fd);
    opscope_error err = {0};
    opscope_out_opts o = {.stream_wait_ms = 200};
    opscope_out_t *w = opscope_out_open_opts(name, &o, &err);
    ASSERT_NOT_NULL(w);
    opscope_out_str(w, "{\"profile\":1}\n");
    ASSERT_EQ_INT(opscope_out_commit(w, &err), 0);
    ASSERT_EQ_INT((int)write(fd, "more output\n", 12), 12); /* the program goes on after it */
    ASSERT_EQ_INT(stat(path, &after), 0);
    ASSERT_EQ_U64((uint64_t)after.st_ino, (uint64_t)before.st_ino);
    char *s = test_slurp(path, NULL);
    ASSERT_EQ_STR(s, "program output\n{\"profile\":1}\nmore output\n");
    free(s);
    close(fd);
    /* a descriptor open for reading only, or not open, is refused by the check */
    fd = open(path, O_RDONLY);
    snprintf(name, sizeof name, "/dev/fd/%d", fd);
    ASSERT_EQ_INT(opscope_out_check(name, &err), -1);
    ASSERT_EQ_STR(err.msg, "the descriptor it names is open for reading only");
    close(fd);
    ASSERT_EQ_INT(opscope_out_check("/dev/fd/999", &err), -1);
    ASSERT_EQ_STR(err.msg, "the descriptor it names is not open");
    unlink(path);
    return 0;
}

/* A FIFO: the check never opens it (a blocking open would hang here: no reader); a writer
 * that waits gives up after its wait when no reader comes, or when the reader reads
 * nothing, or gets EPIPE (no SIGPIPE: its default would end this test) when it left. */
static int test_fifo(void) {
    const char *path = "op_fifo2";
    unlink(path);
    ASSERT_EQ_INT(mkfifo(path, 0600), 0);
    opscope_error err = {0};
    ASSERT_EQ_INT(opscope_out_check(path, &err), 0);

    opscope_out_opts o = {.stream_wait_ms = 300};
    double t0 = now_s();
    ASSERT_NULL(opscope_out_open_opts(path, &o, &err));
    double waited = now_s() - t0;
    ASSERT_EQ_STR(err.msg, "no reader opened the FIFO");
    ASSERT_GE_DBL(waited, 0.29);
    ASSERT_LT_DBL(waited, 2.0);

    int rd = open(path, O_RDONLY | O_NONBLOCK); /* a reader that never reads */
    ASSERT_GE_INT(rd, 0);
    opscope_out_t *w = opscope_out_open_opts(path, &o, &err);
    ASSERT_NOT_NULL(w);
    t0 = now_s();
    for (int i = 0; i < 100000; i++) opscope_out_str(w, "0123456789"); /* 1 MB: more than a pipe holds */
    ASSERT_EQ_INT(opscope_out_commit(w, &err), -1);
    waited = now_s() - t0;
    ASSERT_EQ_STR(err.msg, "its reader took nothing for the whole wait");
    ASSERT_GE_DBL(waited, 0.29);
    ASSERT_LT_DBL(waited, 2.0);

    w = opscope_out_open_opts(path, &o, &err);
    ASSERT_NOT_NULL(w);
    close(rd); /* the reader goes away */
    opscope_out_str(w, "x");
    ASSERT_EQ_INT(opscope_out_commit(w, &err), -1);
    ASSERT_EQ_STR(err.msg, "its reader went away");
    ASSERT_EQ_INT(err.errno_value, EPIPE);
    sigset_t pending;
    ASSERT_EQ_INT(sigpending(&pending), 0);
    ASSERT_EQ_INT(sigismember(&pending, SIGPIPE), 0); /* none left behind either */

    /* a reader that reads: everything arrives, once, nothing renamed over the FIFO */
    pid_t child = fork();
    if (child == 0) {
        int r = open(path, O_RDONLY);
        int out = open("op_fifo_got.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        char buf[4096];
        ssize_t k;
        while ((k = read(r, buf, sizeof buf)) > 0) {
            if (write(out, buf, (size_t)k) != k) _exit(1);
        }
        _exit(0);
    }
    w = opscope_out_open_opts(path, &o, &err);
    ASSERT_NOT_NULL(w);
    for (int i = 0; i < 100000; i++) opscope_out_str(w, "0123456789");
    ASSERT_EQ_INT(opscope_out_commit(w, &err), 0);
    int status = -1;
    ASSERT_EQ_INT(waitpid(child, &status, 0), child);
    ASSERT_EQ_INT(status, 0);
    size_t len = 0;
    char *s = test_slurp("op_fifo_got.txt", &len);
    ASSERT_EQ_U64(len, 1000000);
    free(s);
    struct stat st;
    ASSERT_EQ_INT(stat(path, &st), 0);
    ASSERT_TRUE(S_ISFIFO(st.st_mode));
    unlink("op_fifo_got.txt");
    unlink(path);
    return 0;
}

/* A listening Unix socket: connected to, written, no SIGPIPE. A directory: refused. */
static int test_socket_and_dir(void) {
    const char *path = "op_sock";
    unlink(path);
    int ls = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    ASSERT_EQ_INT(bind(ls, (struct sockaddr *)&a, sizeof a), 0);
    ASSERT_EQ_INT(listen(ls, 1), 0);
    ASSERT_EQ_INT(opscope_out_path_kind(path), OPSCOPE_OUT_KIND_STREAM);
    opscope_error err = {0};
    opscope_out_opts o = {.stream_wait_ms = 300};
    opscope_out_t *w = opscope_out_open_opts(path, &o, &err);
    ASSERT_NOT_NULL(w);
    int c = accept(ls, NULL, NULL);
    ASSERT_GE_INT(c, 0);
    opscope_out_str(w, "over a socket");
    ASSERT_EQ_INT(opscope_out_commit(w, &err), 0);
    char buf[64] = {0};
    ASSERT_EQ_INT((int)read(c, buf, sizeof buf - 1), 13);
    ASSERT_EQ_STR(buf, "over a socket");
    close(c);
    close(ls);
    unlink(path);

    ASSERT_EQ_INT(mkdir("op_dir2", 0755), 0);
    ASSERT_EQ_INT(opscope_out_check("op_dir2", &err), -1);
    ASSERT_EQ_STR(err.msg, "it is a directory");
    ASSERT_NULL(opscope_out_open("op_dir2", &err));
    rmdir("op_dir2");
    return 0;
}

/* A file named *.gz is gzip (read back by zlib's own reader), atomically like any file. */
static int test_gzip_by_name(void) {
    const char *path = "op_out.json.gz";
    unlink(path);
    opscope_error err = {0};
    opscope_out_t *w = opscope_out_open(path, &err);
    ASSERT_NOT_NULL(w);
    opscope_out_str(w, "{\"records\":[");
    for (int i = 0; i < 200000; i++) { /* several buffers' worth: 2.2 MB before compression */
        if (i) opscope_out_char(w, ',');
        opscope_out_u64(w, 1000000000u + (uint64_t)i);
    }
    opscope_out_str(w, "]}");
    ASSERT_TRUE(access(path, F_OK) != 0); /* nothing before the commit */
    ASSERT_EQ_INT(opscope_out_commit(w, &err), 0);
    gzFile g = gzopen(path, "rb");
    ASSERT_NOT_NULL(g);
    static char got[3 << 20];
    int n = gzread(g, got, sizeof got - 1);
    gzclose(g);
    ASSERT_EQ_INT(n, 12 + 200000 * 10 + 199999 + 2);
    got[n] = 0;
    ASSERT_TRUE(!strncmp(got, "{\"records\":[1000000000,1000000001,", 34));
    ASSERT_EQ_STR(got + n - 13, ",1000199999]}");
    struct stat st;
    ASSERT_EQ_INT(stat(path, &st), 0);
    ASSERT_LT_INT(st.st_size, n / 4); /* compressed */
    unlink(path);
    return 0;
}

/* Another thread printing to stdout while /dev/stdout takes a document (llama.cpp's logger
 * at exit): none of its lines lands inside the document, all of them land in the file. */
static void *printer(void *arg) {
    (void)arg;
    for (int i = 0; i < 300; i++) {
        fputs("X-line\n", stdout);
        fflush(stdout);
        struct timespec t = {0, 200000};
        nanosleep(&t, NULL);
    }
    return NULL;
}

static int test_stdout_not_interleaved(void) {
    const char *path = "op_std.txt";
    fflush(stdout);
    int saved = dup(1);
    int f = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ASSERT_GE_INT(saved, 0);
    ASSERT_GE_INT(f, 0);
    dup2(f, 1);
    close(f);
    pthread_t th;
    pthread_create(&th, NULL, printer, NULL);
    struct timespec t = {0, 5000000};
    nanosleep(&t, NULL); /* the printer runs */
    opscope_error err = {0};
    opscope_out_opts o = {.stream_wait_ms = 1000};
    opscope_out_t *w = opscope_out_open_opts("/dev/stdout", &o, &err);
    int ok = w != NULL;
    if (w) {
        opscope_out_str(w, "<<");
        for (int i = 0; i < 400000; i++) { /* 4 MB: several write(2) calls, over some ms */
            opscope_out_str(w, "0123456789");
        }
        opscope_out_str(w, ">>");
        ok = opscope_out_commit(w, &err) == 0;
    }
    pthread_join(th, NULL);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    ASSERT_TRUE(ok);
    size_t len = 0;
    char *s = test_slurp(path, &len);
    ASSERT_NOT_NULL(s);
    char *a = strstr(s, "<<"), *b = strstr(s, ">>");
    ASSERT_TRUE(a && b && b > a);
    ASSERT_EQ_U64((uint64_t)(b - a), 4000002);
    size_t lines = 0;
    for (char *p = s; (p = strstr(p, "X-line\n")); p++) {
        ASSERT_TRUE(p < a || p > b);
        lines++;
    }
    ASSERT_EQ_U64(lines, 300);
    free(s);
    unlink(path);
    return 0;
}

TEST_MAIN(TEST(test_kinds), TEST(test_stdout_not_interleaved), TEST(test_gzip_by_name), TEST(test_descriptor_file), TEST(test_fifo), TEST(test_socket_and_dir))
