/*
 * cap_run.h - what ran, for the profile's capture.run (internal; docs/capture.md, "What ran"):
 * the model files the program opened, its llama contexts and their repetitions (noted by the
 * interposed gguf_init_from_file, llama_memory_clear, llama_free, llama_model_free:
 * hooks/cap_llama.c), and, gathered when a profile is written, the command line, the GGUF
 * headers (cap_gguf.c), the BLAS library among the loaded objects and the CPUs online.
 * Memory: fixed tables (16 models, 256 contexts, 4096 repetitions); what does not fit is
 * counted, never allocated. Thread safety: the note functions take a mutex, on any thread,
 * never inside a compute; get runs on the exporting thread and only tries the mutex (a
 * write from a signal that interrupted a note leaves the run out).
 */
#ifndef OPSCOPE_CAP_RUN_H
#define OPSCOPE_CAP_RUN_H

#include "opscope.h"

/* The program opened model file PATH (copied; a path seen before is not added again). */
void opscope_cap_run_model_opened(const char *path);
/* llama_memory_clear: a repetition of the current context starts now. */
void opscope_cap_run_clear(void);
/* llama_free of a context of MODEL (the llama_model pointer, a key only) with its parameters. */
void opscope_cap_run_context_freed(const void *model, uint32_t n_ctx, uint32_t n_batch,
                                   uint32_t n_ubatch, uint32_t n_threads);
/* llama_model_free: MODEL's pointer may name another model from now on. */
void opscope_cap_run_model_freed(const void *model);

/* What ran, for the next profile (static storage, valid until the next call; NULL when
 * nothing can be said or the tables are busy). Exporting thread only. */
const opscope_run_info *opscope_cap_run_get(void);
/* The same without the llama_decode calls (cap_decodes.h): the record log's RUN chunk, whose
 * hash then costs the same however many calls the run made (they travel in DECODES chunks).
 * Built again only when a note changed the tables since the last call: the capture builds it
 * once when it starts, so the watcher's checkpoints make no heap call for it until then. */
const opscope_run_info *opscope_cap_run_get_base(void);

#endif /* OPSCOPE_CAP_RUN_H */
