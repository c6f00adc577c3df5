/* time_fmt.c - durations as text (time_fmt.h). */
#include "export/fmt/time_fmt.h"

#include <math.h>
#include <stdio.h>

size_t opscope_fmt_time(char *buf, size_t size, double ns, bool sign) {
    double a = fabs(ns);
    const char *sg = sign ? (ns < 0 ? "-" : "+") : (ns < 0 ? "-" : "");
    int n;
    if (!isfinite(ns)) n = snprintf(buf, size, "-");
    else if (a < 1e3) n = snprintf(buf, size, a == floor(a) ? "%s%.0f ns" : "%s%.1f ns", sg, a);
    else if (a < 1e6) n = snprintf(buf, size, "%s%.2f us", sg, a / 1e3);
    else if (a < 1e9) n = snprintf(buf, size, "%s%.3f ms", sg, a / 1e6);
    else n = snprintf(buf, size, "%s%.3f s", sg, a / 1e9);
    return n < 0 ? 0 : (size_t)n;
}
