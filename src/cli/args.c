/*
 * args.c - the subcommands' shared option parser (args.h). Arguments are read in order, so
 * the first bad one is the one reported, and --help after it is not reached.
 */
#include "cli/args.h"
#include "cli/cli.h"

#include "opscope.h"

#include <stdarg.h>
#include <sys/stat.h>
#include <stdint.h>
#include <string.h>

int opscope_cli_usage_error(const char *cmd, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "opscope %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'opscope %s --help'.\n", cmd);
    return OPSCOPE_EXIT_USAGE;
}

void opscope_cli_print_error(const char *cmd, const opscope_error *err) {
    char line[768]; /* a 255-byte file name, the longest message and its position fit */
    opscope_error_format(err, line, sizeof line);
    if (cmd) fprintf(stderr, "opscope %s: %s\n", cmd, line);
    else fprintf(stderr, "%s\n", line);
}

bool opscope_cli_parse_count(const char *s, size_t *out) {
    if (!s || !*s) return false;
    size_t v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9') return false;
        size_t d = (size_t)(*p - '0');
        if (v > (SIZE_MAX - d) / 10) return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

int opscope_cli_check_outputs(const char *cmd, const char *noun, const char *const *outs,
                              size_t n) {
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (outs[i] && outs[j] && strcmp(outs[i], "-") && !strcmp(outs[i], outs[j]))
                return opscope_cli_usage_error(cmd, "two %s write the same file '%s'", noun,
                                               outs[i]);
    return OPSCOPE_EXIT_OK;
}

int opscope_cli_check_not_input(const char *cmd, const char *const *outs, size_t n,
                                const char *const *ins, size_t nin) {
    for (size_t k = 0; k < nin; k++) {
        if (!ins[k] || !strcmp(ins[k], "-")) continue;
        struct stat si;
        bool have_in = stat(ins[k], &si) == 0;
        for (size_t i = 0; i < n; i++) {
            if (!outs[i] || !strcmp(outs[i], "-")) continue;
            struct stat so;
            bool same = !strcmp(outs[i], ins[k]) ||
                        (have_in && stat(outs[i], &so) == 0 && so.st_dev == si.st_dev &&
                         so.st_ino == si.st_ino);
            if (same)
                return opscope_cli_usage_error(cmd, "%s would overwrite the input '%s'", outs[i],
                                               ins[k]);
        }
    }
    return OPSCOPE_EXIT_OK;
}

void opscope_cli_wrote(const char *cmd, const char *path, const char *what, bool quiet) {
    if (quiet || !path || !strcmp(path, "-")) return;
    if (what) fprintf(stderr, "opscope %s: wrote %s (%s)\n", cmd, path, what);
    else fprintf(stderr, "opscope %s: wrote %s\n", cmd, path);
}

/* The option ARG names (up to a '=' after a long name), or NULL; *EQ: where its value starts
 * in ARG, or NULL. A short alias takes no "-bVALUE" form, only "-b VALUE" and "-b=VALUE". */
static const opscope_cli_opt *find(const opscope_cli_parser *p, const char *arg,
                                   const char **name, const char **eq) {
    size_t len = strcspn(arg, "=");
    for (size_t k = 0; k < p->n_opts; k++) {
        const opscope_cli_opt *o = &p->opts[k];
        const char *spell[2] = {o->name, o->alias};
        for (int s = 0; s < 2; s++)
            if (spell[s] && strlen(spell[s]) == len && !strncmp(arg, spell[s], len)) {
                *name = spell[s];
                *eq = arg[len] == '=' ? arg + len + 1 : NULL;
                return o;
            }
    }
    return NULL;
}

int opscope_cli_next(opscope_cli_parser *p, opscope_cli_arg *out) {
    if (p->next < 1) {
        p->next = 1;
        p->sep = -1;
    }
    const char *arg;
    for (;;) {
        if (p->next >= p->argc) return OPSCOPE_EXIT_OK;
        arg = p->argv[p->next++];
        if (!strcmp(arg, "-q") || !strcmp(arg, "--quiet")) {
            p->quiet = true;
        } else if (p->separator && !strcmp(arg, "--")) {
            if (p->sep >= 0) return opscope_cli_usage_error(p->cmd, "'--' given twice");
            p->sep = p->n_inputs;
        } else if (arg[0] != '-' || arg[1] == '\0') {
            if (p->n_inputs == p->max_inputs)
                return p->max_inputs <= 2
                           ? opscope_cli_usage_error(p->cmd, "more than %s given ('%s')",
                                                     p->max_inputs == 1 ? "one input"
                                                                        : "two inputs", arg)
                           : opscope_cli_usage_error(p->cmd, "more than %d inputs given ('%s')",
                                                     p->max_inputs, arg);
            p->inputs[p->n_inputs++] = arg;
        } else {
            break;
        }
    }
    if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
        p->usage(stdout);
        return OPSCOPE_CLI_DONE;
    }
    if (p->version && !strcmp(arg, "--version")) {
        printf("opscope %s\n", OPSCOPE_VERSION_STRING);
        return OPSCOPE_CLI_DONE;
    }
    const char *name = NULL, *eq = NULL;
    const opscope_cli_opt *o = find(p, arg, &name, &eq);
    if (!o || (eq && !o->value)) return opscope_cli_usage_error(p->cmd, "unknown option '%s'", arg);
    const char *val = NULL;
    if (o->value) {
        val = eq ? eq : (p->next < p->argc ? p->argv[p->next++] : NULL);
        if (!val) return opscope_cli_usage_error(p->cmd, "option '%s' needs a value", name);
        if (!*val)
            return opscope_cli_usage_error(p->cmd, "option '%s' needs a non-empty value", name);
    }
    *out = (opscope_cli_arg){.id = o->id, .name = name, .val = val};
    return OPSCOPE_CLI_MORE;
}

int opscope_cli_parse(opscope_cli_parser *p,
                      int (*on_option)(void *ctx, const opscope_cli_arg *o),
                      void *ctx) {
    opscope_cli_arg o;
    int st;
    while ((st = opscope_cli_next(p, &o)) == OPSCOPE_CLI_MORE)
        if ((st = on_option(ctx, &o)) != OPSCOPE_EXIT_OK) return st;
    return st;
}

int opscope_cli_parse_profile(opscope_cli_parser *p,
                              int (*on_option)(void *ctx, const opscope_cli_arg *o),
                              void *ctx, bool *quiet, int *n_inputs, const char **input) {
    int st = opscope_cli_parse(p, on_option, ctx);
    if (st) return st;
    *quiet = p->quiet;
    *n_inputs = p->n_inputs;
    *input = p->n_inputs ? p->inputs[0] : NULL;
    if (!*input) return opscope_cli_usage_error(p->cmd, "missing PROFILE");
    return OPSCOPE_EXIT_OK;
}
