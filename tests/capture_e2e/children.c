/*
 * children.c - a ggml program that starts ggml children, for t_children.py (built inside the
 * test root against Debian's ggml; no opscope header, no link to opscope).
 *
 *   children child               computes the "child" graph 3 times
 *   children exec|spawn          starts `children child` (fork+exec | posix_spawn) BEFORE its
 *                                own first compute, waits for it, then computes "parent" twice
 *   children fork                forks before any compute; the fork child computes "forkchild"
 *                                and leaves through exit(); then the parent computes "parent"
 *   children fork-late           the same, but the parent computes once before the fork
 *   children idle                starts `children child`, waits, computes nothing itself
 *
 * The graphs differ by output name ("<role>_out") and shape, so a profile tells whose it is.
 * Prints "child_pid=N" for every child it started, and "FAIL ..." for a failed check of its
 * own: after a plain fork child ended, no profile may exist yet (the child must write none).
 */
#define _GNU_SOURCE
#include "ggml-backend.h"
#include "ggml.h"

#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Computes a MUL_MAT + SILU graph named ROLE_out with ROWS output rows, REPS times. */
static int compute(const char *role, int rows, int reps) {
    ggml_backend_t cpu = ggml_backend_init_by_type(GGML_BACKEND_DEVICE_TYPE_CPU, NULL);
    if (!cpu) {
        printf("FAIL %s: no CPU backend\n", role);
        return 1;
    }
    /* One thread: ggml's OpenMP pool does not survive a fork (a fork child hangs in it). */
    ggml_backend_dev_t dev = ggml_backend_get_device(cpu);
    void (*set_threads)(ggml_backend_t, int) = (void (*)(ggml_backend_t, int))
        ggml_backend_reg_get_proc_address(ggml_backend_dev_backend_reg(dev), "ggml_backend_set_n_threads");
    if (set_threads) {
        set_threads(cpu, 1);
    }
    ggml_backend_sched_t sched = ggml_backend_sched_new(&cpu, NULL, 1, 64, false, true);
    struct ggml_init_params ip = {ggml_tensor_overhead() * 16 + ggml_graph_overhead(), NULL, true};
    struct ggml_context *ctx = ggml_init(ip);
    struct ggml_tensor *a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 64, rows);
    struct ggml_tensor *b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 64, 4);
    ggml_set_input(a);
    ggml_set_input(b);
    struct ggml_tensor *out = ggml_silu(ctx, ggml_mul_mat(ctx, a, b));
    char name[32];
    snprintf(name, sizeof name, "%s_out", role);
    ggml_set_name(out, name);
    ggml_set_output(out);
    struct ggml_cgraph *g = ggml_new_graph(ctx);
    ggml_build_forward_expand(g, out);
    int rc = 0;
    if (!ggml_backend_sched_alloc_graph(sched, g)) {
        printf("FAIL %s: alloc_graph\n", role);
        rc = 1;
    }
    static float buf[64 * 64];
    for (int i = 0; i < 64 * 64; i++) {
        buf[i] = (float)(i % 7) * 0.01f;
    }
    ggml_backend_tensor_set(a, buf, 0, ggml_nbytes(a));
    ggml_backend_tensor_set(b, buf, 0, ggml_nbytes(b));
    for (int r = 0; r < reps && rc == 0; r++) {
        if (ggml_backend_sched_graph_compute(sched, g) != GGML_STATUS_SUCCESS) {
            printf("FAIL %s: compute\n", role);
            rc = 1;
        }
    }
    ggml_backend_sched_free(sched);
    ggml_free(ctx);
    ggml_backend_free(cpu);
    return rc;
}

static int wait_for(pid_t pid) {
    int st = 0;
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        printf("FAIL child %ld ended badly (status %d)\n", (long)pid, st);
        return 1;
    }
    return 0;
}

static int start_child(const char *how, pid_t *pid) {
    char *args[] = {(char *)"children", (char *)"child", NULL};
    if (strcmp(how, "spawn") == 0) {
        int e = posix_spawn(pid, "/proc/self/exe", NULL, NULL, args, environ);
        if (e != 0) {
            printf("FAIL posix_spawn: %s\n", strerror(e));
            return 1;
        }
    } else {
        fflush(stdout);
        *pid = fork();
        if (*pid < 0) {
            printf("FAIL fork\n");
            return 1;
        }
        if (*pid == 0) {
            execv("/proc/self/exe", args);
            _exit(127);
        }
    }
    printf("child_pid=%ld\n", (long)*pid);
    fflush(stdout);
    return 0;
}

/* After a plain fork child ended: it must have written no profile at all. */
static int no_profile_yet(pid_t child) {
    const char *p = getenv("GGML_PROFILE");
    if (!p || !*p) {
        return 0;
    }
    char withpid[4200];
    snprintf(withpid, sizeof withpid, "%s.%ld", p, (long)child);
    struct stat st;
    int bad = 0;
    if (stat(p, &st) == 0) {
        printf("FAIL %s exists after the fork child ended\n", p);
        bad = 1;
    }
    if (stat(withpid, &st) == 0) {
        printf("FAIL %s exists after the fork child ended\n", withpid);
        bad = 1;
    }
    return bad;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    setvbuf(stdout, NULL, _IOLBF, 0);
    ggml_backend_load_all(); /* Debian's backends are modules */
    if (strcmp(mode, "child") == 0) {
        return compute("child", 16, 3);
    }
    if (strcmp(mode, "exec") == 0 || strcmp(mode, "spawn") == 0 || strcmp(mode, "idle") == 0) {
        pid_t pid;
        if (start_child(strcmp(mode, "spawn") == 0 ? "spawn" : "exec", &pid) || wait_for(pid)) {
            return 1;
        }
        return strcmp(mode, "idle") == 0 ? 0 : compute("parent", 32, 2);
    }
    if (strcmp(mode, "fork") == 0 || strcmp(mode, "fork-late") == 0) {
        int rc = 0;
        if (strcmp(mode, "fork-late") == 0) {
            rc |= compute("parent", 32, 1);
        }
        fflush(stdout);
        pid_t pid = fork();
        if (pid < 0) {
            printf("FAIL fork\n");
            return 1;
        }
        if (pid == 0) {
            exit(compute("forkchild", 8, 2)); /* exit(): atexit handlers run in the child */
        }
        printf("child_pid=%ld\n", (long)pid);
        rc |= wait_for(pid);
        if (strcmp(mode, "fork") == 0) {
            rc |= no_profile_yet(pid);
        }
        return rc | compute("parent", 32, strcmp(mode, "fork") == 0 ? 2 : 1);
    }
    fprintf(stderr, "usage: children child|exec|spawn|fork|fork-late|idle\n");
    return 1;
}
