/*
 * cap_devices.c - ggml backends and devices as the capture's backend entries (name, device
 * description, type; the CPU backend's abort-callback setter, found in its registry).
 */
#include "capture/resolve/cap_devices.h"

#include "capture/store/cap_buf.h"
#include "capture/life/cap_life.h"
#include "capture/resolve/cap_resolve.h"
#include "capture/store/cap_tables.h"
#include "capture/store/cap_window.h"

#include <stdatomic.h>
#include <stdio.h>

static const char *str(const char *s) {
    return s ? s : "";
}

static opscope_device_type dev_kind(ggml_backend_dev_t dev) {
    switch (opscope_cap_ggml.dev_type(dev)) {
    case GGML_BACKEND_DEVICE_TYPE_CPU: return OPSCOPE_DEVICE_CPU;
    case GGML_BACKEND_DEVICE_TYPE_GPU: return OPSCOPE_DEVICE_GPU;
    case GGML_BACKEND_DEVICE_TYPE_ACCEL: return OPSCOPE_DEVICE_ACCEL;
    default: return OPSCOPE_DEVICE_OTHER;
    }
}

/* Entries are built whole, then added: another thread's compute may find one the moment it
 * is published, and must see its abort-callback setter and device already (cap_tables.h). Two
 * threads meeting a new backend at once both probe it; the first to add wins.
 * Every compute comes here: while the program's backend frees are seen, its address alone
 * names the entry; else the device is asked too, as a freed address may hold another backend. */
int opscope_cap_backend_of(ggml_backend_t backend) {
    int i = opscope_cap_backend_frees_tracked() ? opscope_cap_backend_find_live(backend) : -1;
    if (i >= 0) {
        return i;
    }
    ggml_backend_dev_t dev = opscope_cap_ggml.backend_get_device(backend);
    i = opscope_cap_backend_find(backend, dev);
    if (i >= 0) {
        return i;
    }
    ggml_backend_reg_t reg = dev ? opscope_cap_ggml.dev_backend_reg(dev) : NULL;
    opscope_cap_backend e = {
        .key = backend,
        .device_type = dev ? dev_kind(dev) : OPSCOPE_DEVICE_OTHER,
        .dev = dev,
        .set_abort = reg ? opscope_cap_ggml.reg_get_proc_address(reg, "ggml_backend_set_abort_callback") : NULL,
    };
    snprintf(e.name, sizeof e.name, "%s", str(opscope_cap_ggml.backend_name(backend)));
    snprintf(e.device, sizeof e.device, "%s", dev ? str(opscope_cap_ggml.dev_description(dev)) : "");
    return opscope_cap_backend_add(&e);
}

int opscope_cap_backend_of_buffer(ggml_backend_buffer_t buf) {
    if (!buf) {
        return OPSCOPE_CAP_BACKEND_HOST;
    }
    ggml_backend_dev_t dev = opscope_cap_ggml.buft_get_device(opscope_cap_ggml.buffer_get_type(buf));
    if (!dev) {
        return opscope_cap_ggml.buffer_is_host(buf) ? OPSCOPE_CAP_BACKEND_HOST : -1;
    }
    int i = opscope_cap_backend_find_dev(dev);
    if (i >= 0) {
        return i;
    }
    opscope_cap_backend e = {.key = dev, .is_device_key = true, .device_type = dev_kind(dev), .dev = dev};
    snprintf(e.name, sizeof e.name, "%s", str(opscope_cap_ggml.dev_name(dev)));
    snprintf(e.device, sizeof e.device, "%s", str(opscope_cap_ggml.dev_description(dev)));
    return opscope_cap_backend_add(&e);
}

bool opscope_cap_should_record(int sched) {
    if (!atomic_load_explicit(&opscope_cap_on, memory_order_relaxed)) {
        opscope_cap_life_unrecorded(); /* a fork child's graphs: said, not lost silently */
        return false;
    }
    if (sched < 0 && !atomic_load_explicit(&opscope_cap_window_on, memory_order_relaxed)) {
        return false; /* outside a scheduler's compute while paused (cap_window.h) */
    }
    if (opscope_cap_env_mode) {
        return opscope_cap_sched_enabled(sched);
    }
    return sched >= 0 && opscope_cap_sched_enabled(sched); /* C API: per scheduler */
}
