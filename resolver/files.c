/*
 * resolver/files.c — which file stands for a version: the better of two
 * files (PEP 825 variants before tags), and the PyTorch index twin of a
 * torch variant wheel that the rules judge; which requirements apply.
 */
#include "core/alloc.h"
#include "core/str.h"
#include "resolver/internal.h"
#include "resolver/state.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "pep/version.h"
#include "variant/label.h"

/* The better of two usable files: a non-yanked one, then the best variant
 * (PEP 825: variants by priority, the null variant, then wheels without a
 * label), then the best tag. */
bool ts_rs_file_better(const struct ts_index_file *f, long vrank, long prio,
                        const struct ts_index_file *g, long gvrank, long gprio) {
  if (!g)
    return f != NULL;
  if (!f)
    return false;
  if (f->yanked != g->yanked)
    return !f->yanked;
  if (vrank != gvrank)
    return vrank < gvrank;
  if (prio != gprio)
    return prio < gprio;
  /* equally good files (two platform tags of one build): the choice must
   * not follow their order on the page */
  return strcmp(f->filename, g->filename) < 0;
}

/* The better stand-in for a version no wheel of the target fits: a
 * wheel before the sdist, then the smaller file name (never page order). */
bool ts_rs_fallback_better(const struct ts_index_file *f,
                            const struct ts_index_file *g) {
  if (!g)
    return f != NULL;
  if (!f)
    return false;
  size_t fl = strlen(f->filename), gl = strlen(g->filename);
  bool fw = fl > 4 && strcmp(f->filename + fl - 4, ".whl") == 0,
       gw = gl > 4 && strcmp(g->filename + gl - 4, ".whl") == 0;
  if (fw != gw)
    return fw;
  return strcmp(f->filename, g->filename) < 0;
}

/* The twin of each version of a ruled project whose file is a variant
 * wheel of a PyTorch build (state.h). */
void ts_rs_set_twins(struct rs *rs, struct rs_proj *pj) {
  const struct ts_constraint_set *set = rs->req->rules;
  bool ruled = false;
  for (size_t c = 0; set && c < set->nconstraints && !ruled; c++)
    ruled = strcmp(set->constraints[c].subject.name, pj->name) == 0;
  if (!ruled)
    return;
  for (size_t i = 0; i < pj->nvers; i++) {
    struct rs_ver *s = &pj->vers[i];
    char *plain = NULL, *label = NULL;
    if (!s->file || s->from_sdist || ts_version_local(s->v) ||
        ts_variant_split_filename(s->file->filename, strlen(s->file->filename), &plain,
                                  &label, NULL) != TS_OK || !label) {
      free(plain);
      continue;
    }
    char *local = ts_variant_torch_twin(label);
    char *text = local ? ts_xasprintf("%s+%s", ts_version_str(s->v), local) : NULL;
    if (text && ts_version_parse(text, strlen(text), &s->twin, NULL) != TS_OK)
      s->twin = NULL;
    free(text);
    free(local);
    free(plain);
    free(label);
  }
}

bool ts_rs_named_by_root(struct rs *rs, const char *name) {
  for (size_t i = 0; i < rs->req->nrequirements; i++) {
    const struct ts_requirement *r = rs->req->requirements[i];
    if (strcmp(r->normalized_name, name) == 0 &&
        (!r->marker || ts_marker_eval(r->marker, rs->target->markers, NULL)))
      return true;
  }
  return false;
}

bool ts_rs_req_applies(const struct ts_marker_env *env, const struct ts_requirement *r,
                        const char *extra) {
  if (!r->marker)
    return extra == NULL;
  if (extra && !ts_marker_uses_extra(r->marker))
    return false; /* already on the base solvable */
  return ts_marker_eval(r->marker, env, extra);
}
