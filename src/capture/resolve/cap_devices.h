/*
 * cap_devices.h - ggml backends and devices to the capture's backend entries (internal;
 * cap_tables.h holds the table). Thread safety: any thread; entries are published whole.
 */
#ifndef OPSCOPE_CAP_DEVICES_H
#define OPSCOPE_CAP_DEVICES_H

#include "ggml-backend.h"

#include <stdbool.h>

/* The capture's backend index for BACKEND, adding an entry (and probing its abort-callback
 * setter) the first time. -1 when the table is full. */
int opscope_cap_backend_of(ggml_backend_t backend);
/* The backend index for a copy touching BUF (by its device), adding a device entry. */
int opscope_cap_backend_of_buffer(ggml_backend_buffer_t buf);
/* Whether computes of scheduler SCHED (-1: none) are recorded now. */
bool opscope_cap_should_record(int sched);

#endif
