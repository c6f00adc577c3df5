/* Tests of the subcommands' shared option parser (src/cli/args.c): what each argument comes
 * back as, and the exit status and message of each kind of usage error. */
#include "cli/args.h"
#include "cli/cli.h"
#include "opscope.h"
#include "test.h"

#include <fcntl.h>
#include <unistd.h>

enum { ID_JSON = 10, ID_BACKEND, ID_FLAG };

static const opscope_cli_opt opts[] = {
    {"--json", NULL, ID_JSON, true},
    {"--backend", "-b", ID_BACKEND, true},
    {"--flag", NULL, ID_FLAG, false},
};

static void usage(FILE *f) { fputs("usage: opscope t [options]\n", f); }

/* What one full parse gave: the arguments in order, the final status, both streams. */
typedef struct parsed {
    int status, n, n_inputs;
    opscope_cli_arg args[8];
    const char *inputs[2];
    bool quiet;
    char out[512], err[512];
} parsed;

/* Sends FD (STREAM) to the file PATH until release() reads it back into BUF. */
static void capture(int fd, FILE *stream, int *saved, const char *path) {
    fflush(stream);
    *saved = dup(fd);
    int t = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(t, fd);
    close(t);
}
static void release(int fd, FILE *stream, int saved, const char *path, char *buf, size_t cap) {
    fflush(stream);
    dup2(saved, fd);
    close(saved);
    char *s = test_slurp(path, NULL);
    snprintf(buf, cap, "%s", s ? s : "");
    free(s);
    unlink(path);
}

static parsed parse(bool version, int argc, char **argv) {
    parsed r = {0};
    opscope_cli_parser p = {.cmd = "t", .usage = usage, .version = version, .opts = opts,
                            .n_opts = sizeof opts / sizeof *opts, .inputs = r.inputs,
                            .max_inputs = 2, .argc = argc, .argv = argv};
    int so, se;
    capture(1, stdout, &so, "args_stdout.txt");
    capture(2, stderr, &se, "args_stderr.txt");
    opscope_cli_arg a;
    while ((r.status = opscope_cli_next(&p, &a)) == OPSCOPE_CLI_MORE && r.n < 8) r.args[r.n++] = a;
    release(2, stderr, se, "args_stderr.txt", r.err, sizeof r.err);
    release(1, stdout, so, "args_stdout.txt", r.out, sizeof r.out);
    r.quiet = p.quiet;
    r.n_inputs = p.n_inputs;
    return r;
}

#define PARSE(version, ...)                                                                 \
    parse(version, (int)(sizeof((char *[]){"t", __VA_ARGS__}) / sizeof(char *)),          \
          (char *[]){"t", __VA_ARGS__})

static int test_values_and_inputs(void) {
    parsed r = PARSE(false, "in.json", "--json", "a.json", "-b=CPU", "--backend", "Vulkan0",
                     "--json=b.json", "-", "--flag", "-q");
    ASSERT_EQ_INT(r.status, OPSCOPE_EXIT_OK);
    ASSERT_EQ_INT(r.n, 5);
    ASSERT_EQ_INT(r.args[0].id, ID_JSON);
    ASSERT_EQ_STR(r.args[0].name, "--json");
    ASSERT_EQ_STR(r.args[0].val, "a.json");
    ASSERT_EQ_INT(r.args[1].id, ID_BACKEND);
    ASSERT_EQ_STR(r.args[1].name, "-b");
    ASSERT_EQ_STR(r.args[1].val, "CPU");
    ASSERT_EQ_INT(r.args[2].id, ID_BACKEND);
    ASSERT_EQ_STR(r.args[2].name, "--backend");
    ASSERT_EQ_STR(r.args[2].val, "Vulkan0");
    /* A repeated option comes back each time, in order: the caller's last one wins. */
    ASSERT_EQ_INT(r.args[3].id, ID_JSON);
    ASSERT_EQ_STR(r.args[3].val, "b.json");
    ASSERT_EQ_INT(r.args[4].id, ID_FLAG);
    ASSERT_NULL(r.args[4].val);
    ASSERT_EQ_INT(r.n_inputs, 2);
    ASSERT_EQ_STR(r.inputs[0], "in.json");
    ASSERT_EQ_STR(r.inputs[1], "-");
    ASSERT_TRUE(r.quiet);
    ASSERT_EQ_STR(r.err, "");
    ASSERT_EQ_STR(r.out, "");
    return 0;
}

static int test_too_many_inputs(void) {
    parsed r = PARSE(false, "a", "-q", "b", "c", "--flag");
    ASSERT_EQ_INT(r.status, OPSCOPE_EXIT_USAGE);
    ASSERT_EQ_INT(r.n_inputs, 2);
    ASSERT_EQ_INT(r.n, 0);
    ASSERT_EQ_STR(r.err, "opscope t: more than two inputs given ('c')\nTry 'opscope t --help'.\n");
    return 0;
}

static int test_unknown_option(void) {
    parsed r = PARSE(false, "in.json", "--flag", "--jsonx", "a");
    ASSERT_EQ_INT(r.status, OPSCOPE_EXIT_USAGE);
    ASSERT_EQ_INT(r.n, 1);
    ASSERT_EQ_STR(r.err, "opscope t: unknown option '--jsonx'\nTry 'opscope t --help'.\n");
    /* Neither a glued short value nor a value given to a flag is accepted. */
    r = PARSE(false, "-bCPU");
    ASSERT_EQ_INT(r.status, OPSCOPE_EXIT_USAGE);
    ASSERT_CONTAINS(r.err, "unknown option '-bCPU'");
    r = PARSE(false, "--flag=1");
    ASSERT_EQ_INT(r.status, OPSCOPE_EXIT_USAGE);
    ASSERT_CONTAINS(r.err, "unknown option '--flag=1'");
    r = PARSE(false, "-x");
    ASSERT_EQ_INT(r.status, OPSCOPE_EXIT_USAGE);
    ASSERT_CONTAINS(r.err, "unknown option '-x'");
    /* --version only where the command takes it. */
    r = PARSE(false, "--version");
    ASSERT_EQ_INT(r.status, OPSCOPE_EXIT_USAGE);
    ASSERT_CONTAINS(r.err, "unknown option '--version'");
    return 0;
}

static int test_missing_and_empty_value(void) {
    parsed r = PARSE(false, "in.json", "-b");
    ASSERT_EQ_INT(r.status, OPSCOPE_EXIT_USAGE);
    ASSERT_EQ_STR(r.err, "opscope t: option '-b' needs a value\nTry 'opscope t --help'.\n");
    r = PARSE(false, "--json=");
    ASSERT_EQ_INT(r.status, OPSCOPE_EXIT_USAGE);
    ASSERT_CONTAINS(r.err, "option '--json' needs a non-empty value");
    r = PARSE(false, "--backend", "");
    ASSERT_EQ_INT(r.status, OPSCOPE_EXIT_USAGE);
    ASSERT_CONTAINS(r.err, "option '--backend' needs a non-empty value");
    /* The value is taken whatever it looks like: "--json -q" writes to a file named -q. */
    r = PARSE(false, "--json", "-q");
    ASSERT_EQ_INT(r.status, OPSCOPE_EXIT_OK);
    ASSERT_EQ_STR(r.args[0].val, "-q");
    ASSERT_TRUE(!r.quiet);
    return 0;
}

static int test_help_and_version(void) {
    parsed r = PARSE(true, "in.json", "--help", "--bogus");
    ASSERT_EQ_INT(r.status, OPSCOPE_CLI_DONE);
    ASSERT_EQ_STR(r.out, "usage: opscope t [options]\n");
    ASSERT_EQ_STR(r.err, "");
    /* Arguments are read in order: an error before --help is the one reported. */
    r = PARSE(true, "--bogus", "-h");
    ASSERT_EQ_INT(r.status, OPSCOPE_EXIT_USAGE);
    ASSERT_EQ_STR(r.out, "");
    r = PARSE(true, "--version");
    ASSERT_EQ_INT(r.status, OPSCOPE_CLI_DONE);
    ASSERT_EQ_INT(opscope_cli_exit_status(r.status), OPSCOPE_EXIT_OK);
    ASSERT_EQ_STR(r.out, "opscope " OPSCOPE_VERSION_STRING "\n");
    return 0;
}

static int test_parse_count(void) {
    size_t v = 7;
    ASSERT_TRUE(opscope_cli_parse_count("0", &v));
    ASSERT_EQ_U64(v, 0);
    ASSERT_TRUE(opscope_cli_parse_count("18446744073709551615", &v));
    ASSERT_EQ_U64(v, UINT64_MAX);
    v = 7;
    ASSERT_TRUE(!opscope_cli_parse_count("18446744073709551616", &v));
    ASSERT_TRUE(!opscope_cli_parse_count("", &v));
    ASSERT_TRUE(!opscope_cli_parse_count(NULL, &v));
    ASSERT_TRUE(!opscope_cli_parse_count("-1", &v));
    ASSERT_TRUE(!opscope_cli_parse_count("+1", &v));
    ASSERT_TRUE(!opscope_cli_parse_count("12a", &v));
    ASSERT_EQ_U64(v, 7);
    return 0;
}

static int test_check_outputs(void) {
    const char *ok[] = {"-", NULL, "-", "a.json", "b.json"};
    ASSERT_EQ_INT(opscope_cli_check_outputs("t", "outputs", ok, 5), OPSCOPE_EXIT_OK);
    const char *clash[] = {"a.json", NULL, "b.json", "a.json"};
    int so;
    capture(2, stderr, &so, "args_stderr.txt");
    int st = opscope_cli_check_outputs("t", "exports", clash, 4);
    char err[256];
    release(2, stderr, so, "args_stderr.txt", err, sizeof err);
    ASSERT_EQ_INT(st, OPSCOPE_EXIT_USAGE);
    ASSERT_EQ_STR(err, "opscope t: two exports write the same file 'a.json'\n"
                       "Try 'opscope t --help'.\n");
    return 0;
}

/* Counts the options it sees; the second --flag stops the parse with status 3. */
static int count_flags(void *ctx, const opscope_cli_arg *o) {
    int *n = ctx;
    if (o->id == ID_FLAG && ++*n == 2) return 3;
    return OPSCOPE_EXIT_OK;
}

static int test_parse_stops_on_callback_status(void) {
    char *argv[] = {"t", "--flag", "--json", "x", "--flag", "--bogus"};
    opscope_cli_parser p = {.cmd = "t", .usage = usage, OPSCOPE_CLI_OPTS(opts), .argc = 6,
                            .argv = argv};
    int n = 0;
    ASSERT_EQ_INT(opscope_cli_parse(&p, count_flags, &n), 3);
    ASSERT_EQ_INT(n, 2);
    ASSERT_EQ_INT(p.next, 5); /* --bogus never read */
    char *ok[] = {"t", "--flag", "-q"};
    opscope_cli_parser q = {.cmd = "t", .usage = usage, OPSCOPE_CLI_OPTS(opts), .argc = 3,
                            .argv = ok};
    n = 0;
    ASSERT_EQ_INT(opscope_cli_parse(&q, count_flags, &n), OPSCOPE_EXIT_OK);
    ASSERT_EQ_INT(n, 1);
    ASSERT_TRUE(q.quiet);
    return 0;
}

TEST_MAIN(TEST(test_parse_stops_on_callback_status), TEST(test_values_and_inputs), TEST(test_too_many_inputs), TEST(test_unknown_option),
          TEST(test_missing_and_empty_value), TEST(test_help_and_version), TEST(test_parse_count),
          TEST(test_check_outputs))
