/* cap_tls.c - the per-thread compute state (see cap_tls.h), one copy for both libraries. */
#include "capture/hooks/cap_tls.h"

_Thread_local opscope_cap_tls opscope_cap_thread = {.sched_id = -1, .graph_id = -1};
