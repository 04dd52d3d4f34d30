/* A release's variant metadata from its wheels: see variant_wheels.h. */
#include "plan/variant_wheels.h"

#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/str.h"
#include "pep/filename.h"
#include "pep/version.h"
#include "variant/label.h"

/* The member PEP 825 puts in a variant wheel's dist-info. */
#define VARIANT_MEMBER "variant.json"

static void note(char ***notes, size_t *nnotes, char *owned)
{
  *notes = ts_xreallocarray(*notes, *nnotes + 1, sizeof **notes);
  (*notes)[(*nnotes)++] = owned;
}

/* The label of a variant wheel of `version` (malloc'd), or NULL. */
static char *label_of(const char *filename, const char *version)
{
  struct ts_wheel_filename *w = NULL;
  char *label = NULL;
  if (ts_variant_wheel_filename_parse(filename, strlen(filename), &w, &label, NULL) != TS_OK ||
      !label || strcmp(ts_version_original(w->version), version) != 0) {
    free(label);
    label = NULL;
  }
  ts_wheel_filename_free(w);
  return label;
}

static int by_filename(const void *a, const void *b)
{
  const struct ts_index_file *const *x = a, *const *y = b;
  return strcmp((*x)->filename, (*y)->filename);
}

/* One wheel's variant.json, read into *m and narrowed to its own label;
 * a note and false when it cannot be used. */
static bool wheel_entry(const struct ts_index_metadata *r, struct ts_variant_metadata *m,
                        char ***notes, size_t *nnotes)
{
  const char *fn = r->file->filename;
  memset(m, 0, sizeof *m);
  if (r->code != TS_OK) {
    note(notes, nnotes,
         ts_xasprintf("%s: cannot read its .dist-info/" VARIANT_MEMBER " (%s); this variant "
                      "wheel is skipped", fn, r->err.detail));
    return false;
  }
  struct ts_error err = {0};
  char *what = ts_xasprintf("%s's " VARIANT_MEMBER, fn);
  enum ts_code rc = ts_variant_metadata_parse(r->data, r->len, what, m, &err);
  free(what);
  if (rc != TS_OK) {
    note(notes, nnotes, ts_xasprintf("%s; this variant wheel is skipped", err.detail));
    return false;
  }
  return true;
}

bool ts_plan_variant_wheels_metadata(struct ts_index *idx, const struct ts_index_project *pr,
                                     const char *version, struct ts_variant_metadata *out,
                                     char ***notes, size_t *nnotes)
{
  memset(out, 0, sizeof *out);
  const struct ts_index_file **files = ts_xcalloc(pr->nfiles + 1, sizeof *files);
  size_t n = 0;
  for (size_t i = 0; i < pr->nfiles; i++) {
    char *label = label_of(pr->files[i].filename, version);
    if (label)
      files[n++] = &pr->files[i];
    free(label);
  }
  /* the first wheel's file speaks for the release: the first by name,
   * whatever the page's order */
  qsort(files, n, sizeof *files, by_filename);
  struct ts_index_metadata *reqs = ts_xcalloc(n + 1, sizeof *reqs);
  for (size_t i = 0; i < n; i++)
    reqs[i] = (struct ts_index_metadata){.file = files[i], .member = VARIANT_MEMBER};
  struct ts_error err = {0};
  bool any = false;
  if (n && ts_index_fetch_metadata(idx, reqs, n, &err) != TS_OK)
    note(notes, nnotes,
         ts_xasprintf("%s %s: cannot read its variant wheels' " VARIANT_MEMBER " (%s); they "
                      "are skipped", pr->name, version, err.detail));
  else
    for (size_t i = 0; i < n; i++) {
      struct ts_variant_metadata one;
      char *label = label_of(files[i]->filename, version);
      if (!wheel_entry(&reqs[i], &one, notes, nnotes)) {
        ts_variant_metadata_clear(&one);
      } else if (!ts_variant_metadata_keep_only(&one, label)) {
        note(notes, nnotes,
             ts_xasprintf("%s: its " VARIANT_MEMBER " has no variant '%s'; this variant "
                          "wheel is skipped", files[i]->filename, label));
        ts_variant_metadata_clear(&one);
      } else if (!any) {
        *out = one;
        any = true;
      } else {
        ts_variant_metadata_adopt(out, &one);
      }
      free(label);
    }
  for (size_t i = 0; i < n; i++)
    ts_index_metadata_clear(&reqs[i]);
  free(reqs);
  free(files);
  return any;
}
