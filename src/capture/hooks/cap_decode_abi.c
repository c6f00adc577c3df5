/*
 * cap_decode_abi.c - the llama_batch layout cap_decode.c reads, checked at build time against
 * the installed llama.h where there is one (the forky root: libllama-dev 0.7.0). A mismatch
 * fails the build; without llama.h this file is empty (the run-time guards of cap_decode.c
 * stay). Its own file: cap_decode.c defines llama_decode with its own argument type.
 */
#include "capture/hooks/cap_llama.h"

#include <stddef.h>

#if defined(__has_include)
#if __has_include(<llama.h>)
#include <llama.h>
#define SAME(m) (offsetof(struct llama_batch, m) == offsetof(opscope_llama_batch, m))
_Static_assert(sizeof(struct llama_batch) == sizeof(opscope_llama_batch), "llama_batch's size");
_Static_assert(SAME(n_tokens) && SAME(token) && SAME(embd) && SAME(pos), "llama_batch's members");
_Static_assert(SAME(n_seq_id) && SAME(seq_id) && SAME(logits), "llama_batch's members");
#endif
#endif

/* ISO C wants a declaration in every file. */
typedef int opscope_cap_decode_abi_checked;
