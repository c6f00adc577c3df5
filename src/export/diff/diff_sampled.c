/*
 * diff_sampled.c - the console and text diff's section on sampled device timing: per group,
 * how many graph computes each side timed on the device, of how many, and its total
 * estimated over all of them (marked as estimates; docs/diff.md). The main table compares
 * what was measured; a side whose device records carry sampling weights measured only its
 * timed computes, so its estimates are what compares with a run timed in full.
 */
#include "export/diff/diff_report.h"

#include <inttypes.h>
#include <stdio.h>

bool opscope_diff_row_sampled(const opscope_diff_row *r) {
    return (r->base && r->base->timed_computes) || (r->newg && r->newg->timed_computes);
}

/* One side's group: its cells "12 / 97" (timed / computes; "all" when every compute was
 * timed), the estimated total over the whole run and the time per compute that holds the
 * group ("est." after each estimate; "-" when absent). Returns the time per compute (0:
 * absent). Per compute, so that runs of different length compare. */
static double side_cells(const opscope_diff_group *g, char cell[3][48]) {
    if (!g || !g->sampled_computes) {
        for (int i = 0; i < 3; i++) snprintf(cell[i], 48, "-");
        return 0;
    }
    const char *est = g->timed_computes ? " est." : "";
    if (g->timed_computes)
        snprintf(cell[0], 48, "%" PRIu64 " / %" PRIu64, g->timed_computes, g->sampled_computes);
    else
        snprintf(cell[0], 48, "all %" PRIu64, g->sampled_computes);
    double per = (double)g->est_ns / (double)g->sampled_computes;
    size_t n = opscope_fmt_time(cell[1], 40, (double)g->est_ns, false);
    snprintf(cell[1] + n, 48 - n, "%s", est);
    n = opscope_fmt_time(cell[2], 40, per, false);
    snprintf(cell[2] + n, 48 - n, "%s", est);
    return per;
}

void opscope_diff_write_sampled(opscope_out_t *w, const opscope_diff_t *d, size_t limit,
                                bool all) {
    size_t nr = opscope_diff_n_rows(d), listed = 0, more = 0;
    for (size_t i = 0; i < nr; i++) {
        const opscope_diff_row *r = opscope_diff_row_get(d, i);
        if (!opscope_diff_row_sampled(r) || (!all && !r->shown)) continue;
        if (limit && listed == limit) {
            more++;
            continue;
        }
        if (!listed++) {
            opscope_out_str(w, "\n  Sampled device timing (estimates): groups whose graph computes "
                               "a side device-timed in part (the\n"
                               "  default; `opscope record --gpu-timing all` times every one). "
                               "Timed / computes that hold the group;\n"
                               "  est.: the measured time scaled to all those computes, an "
                               "estimate; 'all N': every compute timed.\n");
            opscope_out_printf(w, "  %-13s %16s %16s %-13s %16s %16s %8s  %s\n", "BASE timed",
                               "BASE total", "BASE /compute", "NEW timed", "NEW total",
                               "NEW /compute", "d%", "Group");
        }
        char b[3][48], n[3][48], pc[24];
        double bp = side_cells(r->base, b), np = side_cells(r->newg, n);
        if (bp > 0 && np > 0) snprintf(pc, sizeof pc, "%+.1f%%", 100.0 * (np - bp) / bp);
        else snprintf(pc, sizeof pc, "-");
        opscope_out_printf(w, "  %-13s %16s %16s %-13s %16s %16s %8s  %s\n", b[0], b[1], b[2], n[0],
                           n[1], n[2], pc, r->name);
    }
    if (more) opscope_out_printf(w, "  ... %zu more (--text FILE lists all)\n", more);
}
