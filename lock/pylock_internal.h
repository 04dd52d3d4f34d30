/*
 * lock/pylock_internal.h — private to lock/'s pylock files: what the model
 * (pylock.c), the reader (pylock_read.c), the order (pylock_order.c) and
 * the writer (pylock_write.c) share.
 */
#pragma once

#include "core/error.h"
#include "lock/pylock.h"
#include "toml/toml.h"

/* pylock.c: frees what a package owns and zeroes it. */
void ts_pylock_package_clear(struct ts_pylock_package *p);

/* pylock_order.c: the writer's order of files (by file name, then URL,
 * then path) and of packages (name, PEP 440 version, marker, index, first
 * wheel, then the written text); qsort comparators of profiles by name
 * and key-value facts by key (strings: core/str.h's ts_strv_cmp). */

int ts_pylock_file_cmp(const struct ts_pylock_file *a, const struct ts_pylock_file *b);
int ts_pylock_package_cmp(const struct ts_pylock_package *a, const struct ts_pylock_package *b);
int ts_pylock_cmp_profile(const void *a, const void *b);
int ts_pylock_cmp_kv(const void *a, const void *b);

/* pylock_write.c: a package as its [[packages]] table (NULL on error,
 * with err set when given). */
struct ts_toml_value *ts_pylock_package_table(const struct ts_pylock_package *p,
                                              struct ts_error *err);
