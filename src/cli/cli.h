/* cli.h - the opscope command's subcommands. Each returns the process exit status:
 * 0 ok, 1 usage error, 2 bad input (or failed output), 3 a regression (`diff`). */
#ifndef OPSCOPE_CLI_H
#define OPSCOPE_CLI_H

enum { OPSCOPE_EXIT_OK = 0, OPSCOPE_EXIT_USAGE = 1, OPSCOPE_EXIT_INPUT = 2, OPSCOPE_EXIT_REGRESSION = 3 };

int opscope_cli_report(int argc, char **argv);
int opscope_cli_record(int argc, char **argv);
int opscope_cli_view(int argc, char **argv);
int opscope_cli_diff(int argc, char **argv);
int opscope_cli_peak(int argc, char **argv);
int opscope_cli_replay(int argc, char **argv);
int opscope_cli_merge(int argc, char **argv);

struct opscope_peak;
/* Loads the peaks of a --peak ARG (a file, or "cache": this machine's cache) into *OUT.
 * Returns -1 on success, else the exit status after printing "opscope CMD: ..." on stderr. */
int opscope_cli_load_peak(const char *cmd, const char *arg, struct opscope_peak *out);

#endif
