/* cli.h - the opscope command's subcommands. Each returns the process exit status:
 * 0 ok, 1 usage error, 2 bad input (or failed output), 3 a regression (`diff`).
 *
 * The steps inside a subcommand (option callbacks, argument checks, loads: every cli function
 * documented as returning "a cli status") return one of:
 *   OPSCOPE_EXIT_OK (0)   success: go on;
 *   OPSCOPE_CLI_DONE      stop, the command's work is done (--help or --version printed): exit 0;
 *   any other value       an exit status above (1..3) to stop with, the reason on stderr.
 * A subcommand turns the last into its exit status with opscope_cli_exit_status. The cli
 * functions that fill an opscope_error return 0 or -1 (error), as the rest of opscope does. */
#ifndef OPSCOPE_CLI_H
#define OPSCOPE_CLI_H

enum { OPSCOPE_EXIT_OK = 0, OPSCOPE_EXIT_USAGE = 1, OPSCOPE_EXIT_INPUT = 2, OPSCOPE_EXIT_REGRESSION = 3 };

/* A cli status besides OPSCOPE_EXIT_OK and the exit statuses: stop now, with exit status 0. */
enum { OPSCOPE_CLI_DONE = -1 };

/* The exit status of cli status ST: 0 for OPSCOPE_CLI_DONE, else ST itself. */
static inline int opscope_cli_exit_status(int st) {
    return st == OPSCOPE_CLI_DONE ? OPSCOPE_EXIT_OK : st;
}

int opscope_cli_report(int argc, char **argv);
int opscope_cli_record(int argc, char **argv);
int opscope_cli_view(int argc, char **argv);
int opscope_cli_diff(int argc, char **argv);
int opscope_cli_peak(int argc, char **argv);
int opscope_cli_replay(int argc, char **argv);
int opscope_cli_merge(int argc, char **argv);
int opscope_cli_top(int argc, char **argv);
int opscope_cli_ctl(int argc, char **argv);

struct opscope_peak;
/* Loads the peaks of a --peak ARG (a file, or "cache": this machine's cache) into *OUT.
 * Returns a cli status: 0, or OPSCOPE_EXIT_INPUT after printing "opscope CMD: ..." on stderr. */
int opscope_cli_load_peak(const char *cmd, const char *arg, struct opscope_peak *out);

#endif
