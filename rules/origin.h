/*
 * rules/origin.h — which rules file is in force.  The facts ship twice: in
 * the rules.yaml installed beside the binary (bundled), and as the data
 * package `torchsolve-rules` (version = the facts' date) that `torchsolve
 * rules update` fetches and keeps in the data folder:
 *
 *   <data>/rules-v1/rules.yaml   the updated facts, validated when written
 *   <data>/rules-v1/origin       "version V", "url U", "sha256 H" lines
 *   <data>/newer-torch-warned    when the newer-torch warning was last given
 *
 * <data> is $XDG_DATA_HOME/torchsolve (when absolute), else
 * ~/.local/share/torchsolve.  An updated file is in force only while its
 * version is newer than the bundled file's, so a newer binary's facts are
 * never shadowed by an older update.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "core/error.h"
#include "rules/rules.h"

/* The data folder; NULL when neither XDG_DATA_HOME nor HOME is set.
 * malloc'd. */
char *ts_rules_data_dir(void);

/* <data>/rules-v1/rules.yaml and <data>/rules-v1/origin; malloc'd. */
char *ts_rules_updated_path(const char *data_dir);
char *ts_rules_origin_path(const char *data_dir);

/* What the origin file records about the updated file. */
struct ts_rules_origin {
  char *version; /* "2026.11.28" */
  char *url;     /* the wheel it was read from */
  char *sha256;  /* the wheel's digest (hex) */
};
void ts_rules_origin_clear(struct ts_rules_origin *o);
/* TS_E_NOT_FOUND when there is no updated file. */
enum ts_code ts_rules_origin_read(const char *data_dir, struct ts_rules_origin *out,
                                  struct ts_error *err);
/* Writes rules (the file's bytes) and then its origin, each atomically. */
enum ts_code ts_rules_origin_store(const char *data_dir, const char *rules,
                                   size_t len, const struct ts_rules_origin *o,
                                   struct ts_error *err);

/* The `version:` of a rules file, read without parsing the whole file (a
 * top-level `version: "YYYY.MM.DD"` line); false when it has none. */
bool ts_rules_file_version(const char *path, char *out, size_t cap);

/* PEP 440 order of two rules versions; an unparsable one sorts first. */
int ts_rules_version_cmp(const char *a, const char *b);

/* The file in force: the updated one of data_dir (NULL: none) when its
 * origin names a version newer than the bundled file's, else `bundled`.
 * Fills *out (zeroed first; clear with ts_rules_provenance_clear). */
void ts_rules_in_force(const char *bundled, const char *data_dir,
                       struct ts_rules_provenance *out);

/* Whether the once-a-day warning about a torch release newer than the
 * rules is due at `now`, i.e. none was given in the 24 hours before; when
 * due, records `now` in the data folder (a folder that cannot be written
 * makes it due every time rather than never). */
bool ts_rules_newer_torch_warning_due(const char *data_dir, time_t now);
