/*
 * variant/label.h — the variant label of a wheel file name (PEP 825):
 * `{name}-{ver}(-{build})?-{py}-{abi}-{plat}(-{label})?.whl`.  With six
 * dash-separated parts the third is a build tag when it starts with a
 * digit and the first of the tags otherwise, so the sixth is then a
 * label; seven parts always end in a label.  A label matches
 * ^[0-9a-z_.]+$ (no length cap); "null" is the null variant.
 *
 * Pure: inputs are pointer + length, never assumed NUL-terminated.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "pep/filename.h"

/* The null variant's label: a build that needs no property. */
#define TS_VARIANT_NULL_LABEL "null"

/* Whether s[0..len) is a valid label. */
bool ts_variant_label_valid(const char *s, size_t len);

/* Splits a wheel file name into the plain wheel name it stands for (the
 * label and its dash removed: "torch-2.10.0-cp312-cp312-linux_x86_64.whl")
 * and its label ("cuda12.8").  A wheel without a label gives *label NULL
 * and *plain a copy of the name.  TS_E_PARSE for a name that is no wheel
 * name (not ".whl", fewer than five or more than seven parts) or whose
 * label is not valid, naming it.  Caller frees *plain and *label. */
enum ts_code ts_variant_split_filename(const char *s, size_t len, char **plain,
                                       char **label, struct ts_error *err);

/* Parses a wheel file name, a variant wheel's too (pep/filename.h refuses
 * those): the plain name's parts in *out, the label in *label when label
 * is non-NULL (NULL for a wheel without one).  Caller frees both. */
enum ts_code ts_variant_wheel_filename_parse(const char *s, size_t len,
                                             struct ts_wheel_filename **out, char **label,
                                             struct ts_error *err);

/* The local version label of the PyTorch index build a variant label
 * stands for, as rules.yaml knows it: "cuda12.8" → "cu128", "rocm7.1" →
 * "rocm7.1", "xpu" → "xpu", "cpu" and the null variant → "cpu"; NULL for
 * any other label.  malloc'd. */
char *ts_variant_torch_twin(const char *label);

/* Whether `filename` is "NAME-VERSION-variants.json", the release's
 * variant metadata on an index page (PEP 825), for this project (names
 * compared as PEP 503 normalizes them) and exactly this version. */
bool ts_variant_is_metadata_file(const char *filename, const char *name,
                                 const char *version);
