/*
 * record_exec.c - runs the command of `opscope record` so that shells and supervisors see
 * what they would see without us (see record.h).
 *
 * In a terminal's foreground the command stays in our process group, so the terminal's
 * Ctrl-C, Ctrl-\ and Ctrl-Z reach it directly and it may read the terminal; we pass on only
 * what other processes send to us. Elsewhere (no terminal, a background job, a supervisor) it
 * gets a process group of its own, so a signal sent to our group (a test harness's killpg,
 * timeout, a shell's `kill %1`) reaches it once, through us, never twice: a second SIGINT
 * can land on another thread while the program's handler for the first still runs
 * (llama-completion's then joins its own log thread and aborts). Signals are taken
 * synchronously (blocked, then sigwaitinfo), never in a handler: no race with the wait.
 */
#include "cli/record/record_exec.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static const int k_forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGABRT};
#define N_FORWARDED (sizeof k_forwarded / sizeof k_forwarded[0])
/* The forwarded signals whoever started us ignored (a script's background job: SIGINT and
 * SIGQUIT; nohup: SIGHUP). The command inherits them ignored, as it would without us, but a
 * program may install its handler again (llama-completion does for SIGINT) and would then
 * stop on the signal: so we take them too and pass them on, saying so once. */
static struct sigaction g_ign_sa[N_FORWARDED];
static bool g_ignored[N_FORWARDED], g_ign_said[N_FORWARDED];

static sigset_t g_waited;   /* the forwarded signals we do not ignore, and SIGCHLD */
static bool g_own_group;    /* the command leads a process group of its own */
static sigset_t g_old_mask; /* the mask we started with (the command gets it back) */
static struct sigaction g_old_chld;

int opscope_rec_exec_failed_status(const opscope_rec_child *c) {
    /* the shell's convention: 127 not found, 126 found but not runnable */
    return c->exec_errno == ENOENT || c->exec_errno == ENOTDIR ? 127 : 126;
}

/* Whether our process group is the foreground group of our controlling terminal. */
static bool terminal_foreground(void) {
    int fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        return false;
    }
    bool fg = tcgetpgrp(fd) == getpgrp();
    close(fd);
    return fg;
}

int opscope_rec_exec_start(char **argv, opscope_rec_child *c) {
    memset(c, 0, sizeof *c);
    g_own_group = !terminal_foreground();
    /* A signal we ignore stays ignored (nohup, a background job of a script): the command
     * inherits that, and we must not catch it for it either. */
    sigemptyset(&g_waited);
    for (size_t i = 0; i < N_FORWARDED; i++) {
        sigaddset(&g_waited, k_forwarded[i]);
    }
    sigaddset(&g_waited, SIGCHLD);
    sigprocmask(SIG_BLOCK, &g_waited, &g_old_mask);
    /* Blocked first: an ignored signal is discarded when it comes, a blocked default one
     * waits for sigwaitinfo. The command gets the ignoring back before its exec. */
    for (size_t i = 0; i < N_FORWARDED; i++) {
        struct sigaction sa;
        if (sigaction(k_forwarded[i], NULL, &sa) == 0 && sa.sa_handler == SIG_IGN) {
            struct sigaction dfl;
            memset(&dfl, 0, sizeof dfl);
            dfl.sa_handler = SIG_DFL;
            sigemptyset(&dfl.sa_mask);
            g_ignored[i] = sigaction(k_forwarded[i], &dfl, &g_ign_sa[i]) == 0;
        }
    }
    /* SIGCHLD ignored by whoever started us would reap the command before we see it. */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGCHLD, &dfl, &g_old_chld);

    int fds[2]; /* the child's exec error, if any; closed by a successful exec */
    if (pipe2(fds, O_CLOEXEC) != 0) {
        c->exec_errno = errno;
        fprintf(stderr, "opscope record: pipe: %s\n", strerror(errno));
        return -1;
    }
    fflush(NULL);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        c->exec_errno = errno;
        fprintf(stderr, "opscope record: fork: %s\n", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        close(fds[0]);
        if (g_own_group) {
            setpgid(0, 0);
        }
        /* A SIGKILL to us (a harness's timeout, kill -9 of our group) cannot be passed on, and
         * in a group of its own the command would outlive us unseen: it dies with us. */
        prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
        if (getppid() != parent) {
            _exit(127); /* we died before the line above */
        }
        sigaction(SIGCHLD, &g_old_chld, NULL);
        for (size_t i = 0; i < N_FORWARDED; i++) {
            if (g_ignored[i]) {
                sigaction(k_forwarded[i], &g_ign_sa[i], NULL);
            }
        }
        sigprocmask(SIG_SETMASK, &g_old_mask, NULL);
        execvp(argv[0], argv);
        int e = errno;
        ssize_t wr = write(fds[1], &e, sizeof e);
        (void)wr;
        _exit(127);
    }
    close(fds[1]);
    c->pid = pid;
    if (g_own_group) {
        setpgid(pid, pid); /* as the child does: whichever runs first */
    }
    int e = 0;
    ssize_t n;
    while ((n = read(fds[0], &e, sizeof e)) < 0 && errno == EINTR) {
    }
    close(fds[0]);
    if (n == (ssize_t)sizeof e) {
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
        }
        c->exec_errno = e ? e : ENOEXEC;
        if (e == ENOENT && !strchr(argv[0], '/')) {
            fprintf(stderr, "opscope record: %s: command not found\n", argv[0]);
        } else {
            fprintf(stderr, "opscope record: cannot run %s: %s\n", argv[0], strerror(c->exec_errno));
        }
        return -1;
    }
    return 0;
}

/* The parent of PID from /proc, or -1. */
static pid_t parent_of(pid_t pid) {
    char p[64], buf[512];
    snprintf(p, sizeof p, "/proc/%ld/stat", (long)pid);
    FILE *f = fopen(p, "re");
    if (!f) {
        return -1;
    }
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *end = strrchr(buf, ')'); /* the name may hold spaces and parentheses */
    long ppid = -1;
    if (!end || sscanf(end + 1, " %*c %ld", &ppid) != 1) {
        return -1;
    }
    return (pid_t)ppid;
}

/* Whether the command needs SI passed on: it did not come from the kernel while we share
 * the terminal's foreground group (the terminal signals the whole group, the command too),
 * and its sender is neither the command nor one of its descendants (a kill(0, ...) of theirs
 * reached the command already, or was meant for us). */
static bool should_forward(const siginfo_t *si, pid_t child) {
    if (si->si_code > 0 && !g_own_group) {
        return false; /* SI_KERNEL and the like */
    }
    pid_t p = si->si_pid; /* 0: a sender outside our pid namespace */
    for (int depth = 0; p > 1 && depth < 256; depth++) {
        if (p == child || p == getpid()) {
            return false;
        }
        p = parent_of(p);
    }
    return true;
}

void opscope_rec_fresh_line(void) {
    /* stderr a file (a log): its last byte tells. A terminal or a pipe cannot be asked. */
    struct stat st;
    if (fstat(STDERR_FILENO, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
        return;
    }
    int fd = open("/proc/self/fd/2", O_RDONLY | O_CLOEXEC);
    char c = '\n';
    if (fd >= 0) {
        if (pread(fd, &c, 1, st.st_size - 1) != 1) {
            c = '\n';
        }
        close(fd);
    }
    if (c != '\n') {
        fputc('\n', stderr);
    }
}

/* Once per signal: it came to us while whoever started us had it ignored. */
static void say_ignored(int sig) {
    for (size_t i = 0; i < N_FORWARDED; i++) {
        if (k_forwarded[i] == sig && g_ignored[i] && !g_ign_said[i]) {
            g_ign_said[i] = true;
            opscope_rec_fresh_line();
            fprintf(stderr, "opscope record: %s came in ignored (record was started with it ignored, as a "
                            "script's background job is); passed on to the command, which inherited it ignored "
                            "and stops on it only if it handles it, as without record\n",
                    sig == SIGINT ? "SIGINT" : sig == SIGQUIT ? "SIGQUIT" : sig == SIGHUP ? "SIGHUP" : "a signal");
        }
    }
}

void opscope_rec_exec_wait(opscope_rec_child *c) {
    for (;;) {
        siginfo_t si;
        int sig = sigwaitinfo(&g_waited, &si);
        if (sig < 0) {
            if (errno == EINTR) {
                continue;
            }
            /* cannot happen with a valid set; wait without forwarding rather than spin */
            while (waitpid(c->pid, &c->status, 0) < 0 && errno == EINTR) {
            }
            return;
        }
        if (sig == SIGCHLD) {
            pid_t r = waitpid(c->pid, &c->status, WNOHANG);
            if (r == c->pid || (r < 0 && errno == ECHILD)) {
                return;
            }
            continue; /* stopped or continued */
        }
        if (should_forward(&si, c->pid)) {
            say_ignored(sig);
            /* its group, when it has one (and still leads it) */
            if (!g_own_group || kill(-c->pid, sig) != 0) {
                kill(c->pid, sig);
            }
        }
    }
}

int opscope_rec_exec_next_signal(int ms) {
    sigset_t set = g_waited;
    sigdelset(&set, SIGCHLD);
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    for (;;) {
        int sig = sigtimedwait(&set, NULL, &ts);
        if (sig > 0) {
            return sig;
        }
        if (errno != EINTR) {
            return 0;
        }
    }
}

void opscope_rec_exec_die_like(int status) {
    if (!WIFSIGNALED(status)) {
        return;
    }
    int sig = WTERMSIG(status);
    /* The command dumped core (or not) already; a second dump, of this process, would only
     * mislead. Not dumpable: no core through a file or a pipe. */
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    struct rlimit rl = {0, 0};
    if (getrlimit(RLIMIT_CORE, &rl) == 0) {
        rl.rlim_cur = 0;
        setrlimit(RLIMIT_CORE, &rl);
    }
    fflush(NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
    kill(getpid(), sig);
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    sigprocmask(SIG_UNBLOCK, &one, NULL);
    /* SIGSTOP-like or already pending and somehow not fatal: nothing left but a status the
     * shell reads the same way */
    _exit(128 + sig);
}
