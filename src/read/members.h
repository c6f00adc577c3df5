/*
 * members.h - a JSON object's members read by a table (internal): each member names its key,
 * how its value is checked and where it goes in the struct being filled, so that a reader of
 * a small object (a model, a context, a llama_decode call) states its members instead of
 * looping over tokens; and an array's elements, each read by a function. Errors are set on the parser with the value's byte offset.
 * Thread safety: none (one parser per thread); the tables are constant.
 */
#ifndef OPSCOPE_READ_MEMBERS_H
#define OPSCOPE_READ_MEMBERS_H

#include "read/json.h"
#include "read/readers.h"

#include <stddef.h>

typedef enum opscope_member_kind {
    OPSCOPE_MEMBER_INT,       /* an integer in [lo, hi]: else "expected an integer" or out of range */
    OPSCOPE_MEMBER_INT_NULL,  /* the same, or null, which leaves the field as it was */
    OPSCOPE_MEMBER_UINT_NULL, /* an integer in [0, hi], or null (left as is): a negative one or
                                 another type is "expected a non-negative integer" */
    OPSCOPE_MEMBER_STR_NULL,  /* a string, copied (cut to the buffer) into the struct's buffer at
                                 buf, the field pointing at it; or null (left as is) */
    OPSCOPE_MEMBER_CALL,      /* read by fn */
} opscope_member_kind;

/* Reads the value that begins with VAL into OBJ; 0, or -1 with the error set on J. */
typedef int (*opscope_member_fn)(opscope_json_t *j, const opscope_json_token *val, void *obj);

typedef struct opscope_member {
    const char *key;
    opscope_member_kind kind;
    size_t off;        /* the field: the integer kinds, 1, 4 or 8 bytes (size); STR_NULL, a const char * */
    size_t size;       /* the integer kinds: the field's bytes; STR_NULL: the buffer's */
    int64_t lo, hi;    /* the integer kinds */
    size_t buf;        /* STR_NULL: the buffer's offset in the struct */
    opscope_member_fn fn; /* CALL */
    const char *range_msg; /* the integer kinds: a value past [lo, hi] (NULL: "number out of
                              range for this field"); static */
} opscope_member;

/* Table rows: member KEY of an object read into FIELD of struct T. */
#define OPSCOPE_MEMBER_FIELD(T, field) offsetof(T, field), sizeof(((T *)0)->field)
#define OPSCOPE_MEMBER_ROW_INT(key, T, field, lo, hi) \
    {key, OPSCOPE_MEMBER_INT, OPSCOPE_MEMBER_FIELD(T, field), lo, hi, 0, NULL, NULL}
#define OPSCOPE_MEMBER_ROW_INT_NULL(key, T, field, lo, hi) \
    {key, OPSCOPE_MEMBER_INT_NULL, OPSCOPE_MEMBER_FIELD(T, field), lo, hi, 0, NULL, NULL}
#define OPSCOPE_MEMBER_ROW_UINT_NULL(key, T, field, hi) \
    {key, OPSCOPE_MEMBER_UINT_NULL, OPSCOPE_MEMBER_FIELD(T, field), 0, hi, 0, NULL, NULL}
#define OPSCOPE_MEMBER_ROW_STR_NULL(key, T, field, buffer) \
    {key, OPSCOPE_MEMBER_STR_NULL, offsetof(T, field), sizeof(((T *)0)->buffer), 0, 0, offsetof(T, buffer), NULL, NULL}
#define OPSCOPE_MEMBER_ROW_CALL(key, fn) {key, OPSCOPE_MEMBER_CALL, 0, 0, 0, 0, 0, fn, NULL}
/* A time in ns (a uint64_t; readers.h): 0 .. OPSCOPE_READ_MAX_TIME_NS, past it "KEY is beyond
 * any real run"; _NULL: or null, left as is. */
#define OPSCOPE_MEMBER_ROW_TIME(key, T, field) \
    {key, OPSCOPE_MEMBER_INT, OPSCOPE_MEMBER_FIELD(T, field), 0, (int64_t)OPSCOPE_READ_MAX_TIME_NS, 0, NULL, \
     OPSCOPE_READ_TIME_MSG(key)}
#define OPSCOPE_MEMBER_ROW_TIME_NULL(key, T, field) \
    {key, OPSCOPE_MEMBER_UINT_NULL, OPSCOPE_MEMBER_FIELD(T, field), 0, (int64_t)OPSCOPE_READ_MAX_TIME_NS, 0, NULL, \
     OPSCOPE_READ_TIME_MSG(key)}

/* Reads the value that begins with VAL as member M into OBJ (M's struct). Returns 0, or -1
 * with the error set on J at VAL's byte offset. */
int opscope_member_read(opscope_json_t *j, const opscope_member *m, const opscope_json_token *val,
                        void *obj);

/* Reads the object that begins with OPEN (else a schema error WHAT at its offset) through its
 * closing brace: a member whose key is in MS[0..N) by opscope_member_read (a repeated key is
 * read again), any other skipped. Returns 0, or -1 with the error set on J. */
int opscope_members_read(opscope_json_t *j, const opscope_json_token *open, const char *what,
                         const opscope_member *ms, size_t n, void *obj);

/* Reads the array that begins with OPEN (else a schema error WHAT at its offset) through its
 * closing bracket: EACH(J, the element's first token, OBJ) reads each element, in order.
 * Returns 0, or -1 with the error set on J (EACH's, which ends the reading). */
int opscope_elements_read(opscope_json_t *j, const opscope_json_token *open, const char *what,
                          opscope_member_fn each, void *obj);

#endif /* OPSCOPE_READ_MEMBERS_H */
