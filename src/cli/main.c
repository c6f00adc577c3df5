/* main.c - `opscope SUBCOMMAND ...` dispatch. */
#include "cli/cli.h"
#include "opscope.h"

#include <stdio.h>
#include <string.h>

static void usage(FILE *f) {
    fputs("usage: opscope <command> [options]\n"
          "\n"
          "Commands:\n"
          "  report PROFILE   summarise a ggml profile or a PyTorch/Chrome trace; export\n"
          "                   text, JSON, Chrome trace or an HTML timeline; of a folder or\n"
          "                   several traces: a distributed job, rank by rank\n"
          "  record -- CMD    run a ggml program with the capture library and write a profile\n"
          "  view PROFILE     write a self-contained HTML timeline of a profile\n"
          "  diff BASE NEW    compare two profiles or traces (runs, backends, builds)\n"
          "  replay PROFILE   re-run the profile's graph ops in isolation with\n"
          "                   test-backend-ops on each backend, joined to the profile\n"
          "  merge CLIENT SERVER...  put a ggml RPC client's profile and its servers' on\n"
          "                   one timeline (clock offsets estimated from the profiles)\n"
          "  top [PATH]       a live view of a running capture (tokens/s, ops of the last\n"
          "                   seconds, backends' busy share), like top(1)\n"
          "  ctl start|stop|mark TEXT  open / close a running record's capture window, mark a moment\n"
          "  peak             measure this machine's memory bandwidth and FLOP rate (the\n"
          "                   roofline of 'report --peak')\n"
          "\n"
          "Run 'opscope <command> --help' for a command's options.\n"
          "  --help, -h       this help\n"
          "  --version        print the version\n",
          f);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return OPSCOPE_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        usage(stdout);
        return OPSCOPE_EXIT_OK;
    }
    if (!strcmp(cmd, "--version")) {
        printf("opscope %s\n", OPSCOPE_VERSION_STRING);
        return OPSCOPE_EXIT_OK;
    }
    if (!strcmp(cmd, "report")) return opscope_cli_report(argc - 1, argv + 1);
    if (!strcmp(cmd, "record")) return opscope_cli_record(argc - 1, argv + 1);
    if (!strcmp(cmd, "view")) return opscope_cli_view(argc - 1, argv + 1);
    if (!strcmp(cmd, "diff")) return opscope_cli_diff(argc - 1, argv + 1);
    if (!strcmp(cmd, "merge")) return opscope_cli_merge(argc - 1, argv + 1);
    if (!strcmp(cmd, "top")) return opscope_cli_top(argc - 1, argv + 1);
    if (!strcmp(cmd, "ctl")) return opscope_cli_ctl(argc - 1, argv + 1);
    if (!strcmp(cmd, "peak")) return opscope_cli_peak(argc - 1, argv + 1);
    if (!strcmp(cmd, "replay")) return opscope_cli_replay(argc - 1, argv + 1);
    fprintf(stderr, "opscope: unknown command '%s'\n", cmd);
    usage(stderr);
    return OPSCOPE_EXIT_USAGE;
}
