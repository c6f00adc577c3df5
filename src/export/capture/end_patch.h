/*
 * end_patch.h - how a process ended, written into the profile of its last checkpoint
 * (capture "end", docs/formats.md), for `opscope record`, which saw it die.
 * Thread safety: independent calls on different paths may run concurrently.
 */
#ifndef OPSCOPE_END_PATCH_H
#define OPSCOPE_END_PATCH_H

/* Rewrites the last `"end":{"how":"checkpoint",...}` of the JSON profile PATH as
 * `{"how":HOW,"signal":SIG,...,"died_ns":DIED_NS}` (SIG NULL: no signal member), through a
 * temporary file and a rename (util/out.c: PATH's mode and symlink kept). Returns 0, or -1
 * with PATH unchanged when it cannot be read or written or holds no checkpoint end. */
/* A record log (docs/formats.md) gets an END chunk appended instead, when its last END says
 * "checkpoint" (a chunk a death cut short is cut off first); the chunks before are untouched. */
int opscope_end_patch(const char *path, const char *how, const char *sig, unsigned long long died_ns);

#endif /* OPSCOPE_END_PATCH_H */
