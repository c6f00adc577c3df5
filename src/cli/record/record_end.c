/*
 * record_end.c - how a recorded process ended, from its wait status (see record.h). A
 * process that dies without its final write leaves the file of its last checkpoint, whose
 * capture "end" says "checkpoint"; record_session.c has export/capture/end_patch.c write this there.
 */
#include "cli/record/record_end.h"

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/wait.h>

const char *opscope_rec_end_how(int status, const char **sig) {
    *sig = NULL;
    if (!WIFSIGNALED(status)) {
        return NULL;
    }
    int s = WTERMSIG(status);
    static const struct { int sig; const char *name; bool crash; } k[] = {
        {SIGKILL, "SIGKILL", false}, {SIGSEGV, "SIGSEGV", true}, {SIGABRT, "SIGABRT", true},
        {SIGBUS, "SIGBUS", true},    {SIGFPE, "SIGFPE", true},   {SIGILL, "SIGILL", true},
        {SIGTRAP, "SIGTRAP", true},  {SIGSYS, "SIGSYS", true},   {SIGTERM, "SIGTERM", false},
        {SIGINT, "SIGINT", false},   {SIGHUP, "SIGHUP", false},  {SIGQUIT, "SIGQUIT", false},
        {SIGUSR1, "SIGUSR1", false}, {SIGUSR2, "SIGUSR2", false}, {SIGALRM, "SIGALRM", false},
        {SIGPIPE, "SIGPIPE", false}, {SIGXCPU, "SIGXCPU", false}, {SIGXFSZ, "SIGXFSZ", false},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        if (k[i].sig == s) {
            *sig = k[i].name;
            return k[i].crash ? "crash" : "killed";
        }
    }
    return "killed";
}

