/*
 * cap_tables.h - the process-wide backend and scheduler tables (internal; nothing here
 * includes ggml). The ggml-facing code (cap_devices.c, the hooks, cap_api.c) fills them; the
 * unit tests drive them with a fake backend. Tables are append-only arrays read without locks
 * (an entry is published by a release store of the count) and written under one mutex, so
 * lookups on the compute path never block. Thread safety: every function may be called from
 * any thread.
 */
#ifndef OPSCOPE_CAP_TABLES_H
#define OPSCOPE_CAP_TABLES_H

#include "opscope.h"

#include <stdbool.h>
#include <stdint.h>

/* ---- backends ---- */

#define OPSCOPE_CAP_MAX_BACKENDS 64

/* An entry is published only once every field but the program's abort callback is set, and
 * those fields never change afterwards: a thread that finds it reads it without a lock. */
typedef struct opscope_cap_backend {
    const void *key;           /* ggml_backend_t, or device pointer for copy-only entries */
    char name[64];
    char device[128];
    opscope_device_type device_type;
    bool is_device_key;        /* KEY is a device, not a backend */
    const void *dev;           /* ggml_backend_dev_t of the backend (copies find it by this) */
    void *set_abort;           /* the backend's real set_abort_callback, or NULL (ggml side, opaque) */
    _Atomic bool freed;        /* the program freed this backend: its address may come back */
    /* the application's abort callback and its data (chained), set whenever it sets them */
    void *_Atomic user_cb;
    void *_Atomic user_data;
} opscope_cap_backend;

/* Index of the newest entry of KEY when its device is DEV and it was not freed (lock-free), or
 * -1: a backend's address may be reused by a new backend, on another device too. */
int opscope_cap_backend_find(const void *key, const void *dev);
/* Index of the newest backend entry of KEY unless it was freed (lock-free), or -1. Exact only
 * while frees are tracked (opscope_cap_backend_frees_tracked): then no device is needed. */
int opscope_cap_backend_find_live(const void *key);
/* The program frees backend KEY: its newest entry is marked freed, so a backend later made at
 * the same address gets an entry of its own. Entries stay (records refer to them). */
void opscope_cap_backend_freed(const void *key);
/* Every ggml_backend_free of the program reaches opscope_cap_backend_freed (the resolver says
 * so once it found our interposer in place). Until then lookups must compare devices. */
void opscope_cap_backend_track_frees(void);
bool opscope_cap_backend_frees_tracked(void);
/* Finds or adds the entry of (PROTO->key, PROTO->dev). A new entry is a copy of PROTO (user_cb and
 * user_data start NULL) made before the entry is published, so no thread can find it
 * incomplete. Returns the index, or -1 when the table is full. */
int opscope_cap_backend_add(const opscope_cap_backend *proto);
/* Index of the first entry whose dev is DEV (lock-free), or -1. */
int opscope_cap_backend_find_dev(const void *dev);
/* Entry I (0 <= I < count); stable pointer. */
opscope_cap_backend *opscope_cap_backend_at(int i);
int opscope_cap_backend_count(void);

/* ---- schedulers ---- */

#define OPSCOPE_CAP_MAX_SCHEDS 256

/* Id of SCHED, registering it at first sight (-1: table full; records then carry -1). */
int opscope_cap_sched_id(const void *sched);
/* Id of SCHED if known, else -1 (lock-free). */
int opscope_cap_sched_find(const void *sched);
/* Marks SCHED freed. Returns true when no known scheduler is left alive. */
bool opscope_cap_sched_freed(const void *sched);
/* Records of scheduler ID that started before the current tick are hidden from exports. */
void opscope_cap_sched_reset(int id);
/* The tick of ID's last reset (0: never, or ID outside the table). */
uint64_t opscope_cap_sched_reset_tick(int id);
/* Per-scheduler profiling switch for the C API (default on). */
void opscope_cap_sched_set_enabled(int id, bool on);
bool opscope_cap_sched_enabled(int id);

#endif
