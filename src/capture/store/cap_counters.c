/* cap_counters.c - the capture's counters (see cap_counters.h). */
#include "capture/store/cap_counters.h"

opscope_cap_counters opscope_cap_stats;
