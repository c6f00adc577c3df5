/* args.h - the command-line parser the opscope subcommands share: -h/--help, --version,
 * -q/--quiet and a table of the command's own options ("--opt VALUE", "--opt=VALUE", a short
 * alias such as "-b VALUE"), with the one usage-error message every subcommand prints. */
#ifndef OPSCOPE_CLI_ARGS_H
#define OPSCOPE_CLI_ARGS_H

#include "opscope.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* One option of a command. */
typedef struct opscope_cli_opt {
    const char *name;  /* "--json" */
    const char *alias; /* "-b", or NULL */
    int id;            /* the caller's own number, returned in opscope_cli_arg.id */
    bool value;        /* takes a (non-empty) value */
} opscope_cli_opt;

/* A parse in progress: the caller fills the first fields (designated initialisers), the
 * parser the rest. Lives on the caller's stack; one per thread. */
typedef struct opscope_cli_parser {
    const char *cmd;                /* "report": names the command in messages */
    void (*usage)(FILE *f);         /* prints the --help text */
    bool version;                   /* --version accepted */
    const opscope_cli_opt *opts;    /* the command's options, searched in order */
    size_t n_opts;
    const char **inputs;            /* out: the operands ("-" is one), in order */
    int max_inputs;                 /* room in INPUTS (more is an error) */
    bool separator;                 /* "--" divides the operands (diff: BASE runs -- NEW runs) */
    int argc;
    char **argv;                    /* argv[0] is the subcommand, not parsed */
    int n_inputs;                   /* out: how many operands */
    bool quiet;                     /* out: -q/--quiet was given */
    int sep;                        /* out: operands before "--" (with .separator); -1: none */
    int next;                       /* the next argv index to read (0 = not started) */
} opscope_cli_parser;

/* An option opscope_cli_next returned: ID from the table, NAME as spelt on the command line,
 * VAL its value (NULL for an option that takes none). */
typedef struct opscope_cli_arg {
    int id;
    const char *name;
    const char *val;
} opscope_cli_arg;

/* opscope_cli_next's return besides a cli status (cli/cli.h): an option was read. */
enum { OPSCOPE_CLI_MORE = -2 };

/* Reads up to the next option of the table, keeping -q and operands in the parser. Returns
 * OPSCOPE_CLI_MORE with *OUT filled, else a cli status (cli/cli.h): 0 when all were read;
 * OPSCOPE_CLI_DONE after --help (usage on stdout) or --version; OPSCOPE_EXIT_USAGE after an
 * unknown option, a missing or empty value, a value given to an option that takes none, or one
 * operand too many (message on stderr). Options may repeat; each is returned. */
int opscope_cli_next(opscope_cli_parser *p, opscope_cli_arg *out);

/* Reads every argument, passing each option to ON_OPTION(CTX, option), which returns a cli
 * status: 0 to go on, else the status to stop with. Returns 0 when all were read, else the cli
 * status of opscope_cli_next or ON_OPTION that stopped the parse. */
int opscope_cli_parse(opscope_cli_parser *p,
                      int (*on_option)(void *ctx, const opscope_cli_arg *o),
                      void *ctx);

/* opscope_cli_parse for a command that reads a profile (or a job): then *QUIET, *N_INPUTS
 * and *INPUT (the first operand) from P; an operand is required ("missing PROFILE"). Returns
 * a cli status (cli/cli.h): 0 when all were read and there is an operand. */
int opscope_cli_parse_profile(opscope_cli_parser *p,
                              int (*on_option)(void *ctx, const opscope_cli_arg *o),
                              void *ctx, bool *quiet, int *n_inputs, const char **input);

/* The .opts and .n_opts of a parser from a static table. */
#define OPSCOPE_CLI_OPTS(table) .opts = (table), .n_opts = sizeof(table) / sizeof *(table)

/* Prints "opscope CMD: MESSAGE" and the hint to --help on stderr; returns OPSCOPE_EXIT_USAGE. */
int opscope_cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Prints ERR on stderr as one line, opscope_error_format's "FILE:LINE:COL: error: MSG" (or
 * "FILE: error: MSG"), after "opscope CMD: " unless CMD is NULL. ERR is not kept. */
void opscope_cli_print_error(const char *cmd, const opscope_error *err);

/* Parses a decimal count (digits only, no sign, fits size_t) into *OUT. False otherwise, with
 * *OUT untouched. S may be NULL. */
bool opscope_cli_parse_count(const char *s, size_t *out);

/* Fails when two of the N output paths (NULL: not asked for; "-": stdout, may repeat) name
 * the same file: prints "opscope CMD: two NOUN write the same file 'F'" and returns
 * OPSCOPE_EXIT_USAGE; else returns 0 (a cli status, cli/cli.h). */
int opscope_cli_check_outputs(const char *cmd, const char *noun, const char *const *outs,
                              size_t n);

/* Fails when one of the N outputs (NULL: not asked for; "-": stdout) would replace one of the
 * NIN inputs ("-": stdin): the same name, or an existing file that is the same file (device
 * and inode: another path, a link). Prints "opscope CMD: OUTPUT would overwrite the input
 * INPUT" and returns OPSCOPE_EXIT_USAGE; else returns 0 (a cli status, cli/cli.h). */
int opscope_cli_check_not_input(const char *cmd, const char *const *outs, size_t n,
                                const char *const *ins, size_t nin);

/* Names a written file on stderr: "opscope CMD: wrote PATH (WHAT)", unless QUIET or PATH is
 * stdout ("-"). WHAT may be NULL. */
void opscope_cli_wrote(const char *cmd, const char *path, const char *what, bool quiet);

#endif
