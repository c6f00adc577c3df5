/* kernel_name.c - short forms of C++ kernel names (see kernel_name.h). */
#include "analyze/record/kernel_name.h"
#include "util/strbuf.h"

#include <stdbool.h>
#include <string.h>

static bool ident_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '>' || c == ']' || (unsigned char)c >= 0x80;
}

/* Index just past the bracket closing the one at S[I] ('<' or '('), counting both kinds;
 * strlen(S) when it never closes (a name cut by the profiler). *FLAT: nothing nested. */
static size_t skip_group(const char *s, size_t i, bool *flat) {
    int depth = 0;
    *flat = true;
    for (; s[i]; i++) {
        char c = s[i];
        if (c == '<' || c == '(' || c == '{' || c == '[') {
            if (depth > 0) *flat = false;
            depth++;
        } else if (c == '>' || c == ')' || c == '}' || c == ']') {
            if (--depth == 0) return i + 1;
        }
    }
    return i;
}

static bool word_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static bool is_open(char c) { return c == '<' || c == '(' || c == '{' || c == '['; }
static bool is_close(char c) { return c == '>' || c == ')' || c == '}' || c == ']'; }

/* The identifier ending at S[E] (exclusive), after walking back over one balanced "<...>"
 * right before E. Sets *START; returns its length (0: none). */
static size_t word_before(const char *s, size_t lo, size_t e, size_t *start) {
    if (e > lo && s[e - 1] == '>') {
        int depth = 0;
        while (e > lo) {
            char c = s[--e];
            if (c == '>') depth++;
            else if (c == '<' && --depth == 0) break;
        }
    }
    size_t b = e;
    while (b > lo && word_char(s[b - 1])) b--;
    *start = b;
    return e - b;
}

/* Words that name no kernel: numbers, C++ keywords and built-in types found in template
 * arguments. */
static bool dull_word(const char *w, size_t n) {
    static const char *const words[] = {"operator", "decltype", "const", "unsigned", "signed",
                                        "long", "short", "int", "char", "float", "double",
                                        "bool", "void", "auto", "true", "false", "std",
                                        "nullptr"};
    if (n && w[0] >= '0' && w[0] <= '9') return true; /* a number */
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (strlen(words[i]) == n && !memcmp(words[i], w, n)) return true;
    return false;
}

/* The most telling identifier of a nested template argument list S[LO..HI) (without its
 * angle brackets), for "<…HINT…>": in the first argument that is not a plain type or number,
 * the function a lambda or call belongs to ("sigmoid_kernel_cuda(...)::{lambda...}"), else
 * the innermost template ("AUnaryFunctor<..., MulFunctor<float> >" -> MulFunctor), else its
 * last identifier. Returns the length (0: none) and sets *START. */
static size_t template_hint(const char *s, size_t lo, size_t hi, size_t *start) {
    size_t a = lo;
    while (a < hi) {
        size_t b = a;
        int depth = 0;
        bool nested = false;
        for (; b < hi; b++) {
            if (is_open(s[b])) depth++, nested = true;
            else if (is_close(s[b])) depth--;
            else if (s[b] == ',' && depth == 0) break;
        }
        if (nested) {
            size_t n;
            for (size_t i = a; i < b; i++) { /* a function: "name(" or "name<...>(" */
                if (s[i] != '(' || i == a || !(word_char(s[i - 1]) || s[i - 1] == '>')) continue;
                if (i >= a + 6 && !memcmp(s + i - 6, "lambda", 6)) continue;
                n = word_before(s, a, i, start);
                if (n > 0 && !dull_word(s + *start, n)) return n;
            }
            for (size_t i = b; i > a; i--) { /* the innermost template: the last "name<" */
                if (s[i - 1] != '<' || i - 1 == a || !word_char(s[i - 2])) continue;
                n = word_before(s, a, i - 1, start);
                if (n > 0 && !dull_word(s + *start, n)) return n;
            }
            for (size_t e = b; e > a;) { /* else the last identifier */
                while (e > a && !word_char(s[e - 1])) e--;
                n = word_before(s, a, e, start);
                if (n > 0 && !dull_word(s + *start, n)) return n;
                e = *start;
            }
        }
        a = b + 1;
    }
    return 0;
}

/* S[LO..HI) is one identifier ("cutlass_80_tensorop_s1688gemm_256x64_16x4_nt_align4"):
 * the whole identity of a wrapper template such as cutlass::Kernel<...>. */
static bool one_word(const char *s, size_t lo, size_t hi) {
    if (hi <= lo || hi - lo > 2 * OPSCOPE_KERNEL_NAME_MAX_TARGS) return false;
    for (size_t i = lo; i < hi; i++)
        if (!word_char(s[i])) return false;
    return true;
}

/* Does "operator" end right before NAME[I]? */
static bool after_operator(const char *name, size_t i) {
    return i >= 8 && !memcmp(name + i - 8, "operator", 8);
}

size_t opscope_kernel_name_short(char *buf, size_t size, const char *name) {
    static const char anon[] = "(anonymous namespace)::";
    opscope_strbuf b; /* bounded: the full length counted, a cut at a UTF-8 boundary */
    opscope_strbuf_fixed(&b, buf, size);
    size_t i = 0, n = strlen(name);
    if (!strncmp(name, "void ", 5) && n > 5) i = 5;
    /* A return type written by std::enable_if (SFINAE) is no part of the kernel's name. */
    static const char en[] = "std::enable_if<", ty[] = "::type ";
    if (!strncmp(name + i, en, sizeof en - 1)) {
        bool flat;
        size_t end = skip_group(name, i + sizeof en - 2, &flat);
        if (!strncmp(name + end, ty, sizeof ty - 1)) i = end + sizeof ty - 1;
    }
    while (i < n) {
        char c = name[i];
        if (c == '(' && !strncmp(name + i, anon, sizeof anon - 1)) {
            i += sizeof anon - 1;
            continue;
        }
        if (c == '(' && after_operator(name, i) && name[i + 1] == ')') {
            opscope_strbuf_add(&b, "()", 2); /* operator() is a name, not a parameter list */
            i += 2;
            continue;
        }
        if ((c == '<' || c == '(') && i > 0 && ident_char(name[i - 1]) && !after_operator(name, i)) {
            bool flat;
            size_t end = skip_group(name, i, &flat);
            if (c == '(') {
                if (end == n) break; /* the parameter list: the rest of the name */
                opscope_strbuf_add(&b, name + i, end - i); /* "(...)" inside the name: kept */
            } else if (flat && name[end - 1] == '>' &&
                       (end - i - 2 <= OPSCOPE_KERNEL_NAME_MAX_TARGS || one_word(name, i + 1, end - 1))) {
                opscope_strbuf_add(&b, name + i, end - i);
            } else {
                size_t hs = 0, hn = end == n ? 0 : template_hint(name, i + 1, end - 1, &hs);
                opscope_strbuf_add(&b, "<\xe2\x80\xa6", 4); /* "<…" */
                if (hn && hn <= OPSCOPE_KERNEL_NAME_MAX_TARGS) {
                    opscope_strbuf_add(&b, name + hs, hn);
                    opscope_strbuf_add(&b, "\xe2\x80\xa6", 3);
                }
                opscope_strbuf_add(&b, ">", 1);
            }
            i = end;
            continue;
        }
        size_t clen = 1; /* one whole UTF-8 character */
        while (i + clen < n && ((unsigned char)name[i + clen] & 0xC0) == 0x80) clen++;
        opscope_strbuf_add(&b, name + i, clen);
        i += clen;
    }
    return opscope_strbuf_wanted(&b);
}
