/*
 * core/str.h — string copies, under core/alloc.h's policy (out of memory
 * aborts; ts_xstrdup(NULL) is NULL, the others never return NULL).  The
 * caller owns (and frees) every returned string.
 */
#pragma once

#include <stdarg.h>
#include <stddef.h>

#include "core/alloc.h"

/* strdup; NULL in gives NULL out. */
char *ts_xstrdup(const char *s);
/* Copies n bytes of s and NUL-terminates. */
char *ts_xstrndup(const char *s, size_t n);
/* asprintf. */
char *ts_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* vasprintf. */
char *ts_xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
/* Copies n bytes of s with ASCII A-Z lowered (tags, file-name parts). */
char *ts_xstrndup_lower(const char *s, size_t n);
/* Appends a copy of s[0..n) to the string vector *v of *count entries
 * (grown by one; the vector owns the copy). */
void ts_strv_push(char ***v, size_t *count, const char *s, size_t n);
/* Frees the n strings of v and v. */
void ts_strv_free(char **v, size_t n);
/* qsort's comparator for an array of strings (char * or const char *
 * elements), in strcmp order. */
int ts_strv_cmp(const void *a, const void *b);
