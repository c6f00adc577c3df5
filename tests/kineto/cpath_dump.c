/*
 * cpath_dump - test helper: reads a trace through the reader `opscope report` uses with the
 * critical path's collector in front of the trace analysis, and prints, per window asked for
 * (START_NS END_NS pairs, from the trace's clock), or per profiler step when none is given,
 * one TSV line: step, start_ns, window_ns, length_ns, cpu, launch, kernel, comm, queue, wait,
 * idle (ns), edges, events. tests/kineto/check_critical_path.py compares these with HTA's
 * figures and its own sums. Exit status 2 on a read error.
 * Usage: cpath_dump TRACE [START_NS END_NS]...
 */
#include "analyze/kineto/critical_path.h"
#include "analyze/kineto/kineto.h"
#include "read/readers.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static void line(const opscope_critical_path *p) {
    printf("%" PRId64 "\t%" PRId64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64
           "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n",
           p->step, p->start_ns, p->window_ns, p->length_ns, p->cpu_ns, p->launch_ns, p->kernel_ns,
           p->comm_ns, p->queue_ns, p->wait_ns, p->idle_ns, p->n_edges, p->n_events);
}

int main(int argc, char **argv) {
    if (argc < 2 || argc % 2) {
        fprintf(stderr, "usage: cpath_dump TRACE [START_NS END_NS]...\n");
        return 1;
    }
    opscope_strtab_t *names = opscope_strtab_new();
    opscope_kineto_t *an = opscope_kineto_new(names);
    opscope_cpath_t *cp = opscope_cpath_new(opscope_kineto_collector_of(an));
    if (!names || !an || !cp) return 2;
    opscope_read_options opts = {0};
    opts.kineto = opscope_cpath_collector(cp);
    opscope_error err;
    int status = 0;
    if (opscope_read_file_opts(argv[1], OPSCOPE_FORMAT_AUTO, NULL, &opts, &err)) {
        char buf[512];
        opscope_error_format(&err, buf, sizeof buf);
        fprintf(stderr, "%s\n", buf);
        status = 2;
    } else if (opscope_kineto_finish(an)) {
        status = 2;
    } else if (argc == 2) {
        size_t n;
        if (opscope_cpath_run_steps(cp, opscope_kineto_get_results(an))) status = 2;
        const opscope_critical_path *v = opscope_cpath_steps(cp, &n);
        for (size_t i = 0; i < n; i++) line(&v[i]);
    } else {
        for (int i = 2; i + 1 < argc && !status; i += 2) {
            opscope_critical_path p;
            if (opscope_critical_path_compute(cp, strtoll(argv[i], NULL, 10), strtoll(argv[i + 1], NULL, 10), &p,
                                              NULL, NULL))
                status = 2;
            else line(&p);
        }
    }
    opscope_cpath_free(cp);
    opscope_kineto_free(an);
    opscope_strtab_free(names);
    return status;
}
