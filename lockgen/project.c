/* Which packages a project's extras and groups need: see project.h. */
#include "lockgen/project.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/str.h"
#include "pep/requirement.h"
#include "lockgen/fleet.h"

/* Marks in reached[] every package the requirements reach: their names,
 * then the names in the `dependencies` of each package reached. */
static void reach(const struct ts_pylock *lock, char *const *requires, size_t n, bool *reached) {
  /* each package is walked once: room for the roots and every edge */
  size_t room = n + 1;
  for (size_t k = 0; k < lock->npackages; k++)
    room += lock->packages[k].dependencies ? lock->packages[k].dependencies->nitems : 0;
  const char **todo = ts_xcalloc(room, sizeof *todo);
  size_t ntodo = 0;
  struct ts_requirement **reqs = ts_xcalloc(n + 1, sizeof *reqs);
  for (size_t i = 0; i < n; i++) {
    struct ts_error e = {0};
    if (ts_requirement_parse(requires[i], strlen(requires[i]), &reqs[i], &e) == TS_OK)
      todo[ntodo++] = reqs[i]->normalized_name;
  }
  while (ntodo) {
    const char *name = todo[--ntodo];
    for (size_t k = 0; k < lock->npackages; k++) {
      const struct ts_pylock_package *p = &lock->packages[k];
      if (reached[k] || strcmp(p->name, name) != 0)
        continue;
      reached[k] = true;
      for (size_t d = 0; p->dependencies && d < p->dependencies->nitems; d++) {
        const struct ts_toml_value *dn = ts_toml_get(p->dependencies->items[d], "name");
        if (dn && dn->type == TS_TOML_STRING)
          todo[ntodo++] = dn->str;
      }
    }
  }
  for (size_t i = 0; i < n; i++)
    ts_requirement_free(reqs[i]);
  free(reqs);
  free(todo);
}

/* Adds the sets' names to a lock's list, each once, sorted. */
static void declare(char ***list, size_t *n, const struct ts_project_set *sets, size_t nsets) {
  for (size_t i = 0; i < nsets; i++) {
    bool have = false;
    for (size_t k = 0; k < *n && !have; k++)
      have = strcmp((*list)[k], sets[i].name) == 0;
    if (!have) {
      *list = ts_xreallocarray(*list, *n + 1, sizeof **list);
      (*list)[(*n)++] = ts_xstrdup(sets[i].name);
    }
  }
  if (*n > 1)
    qsort(*list, *n, sizeof **list, ts_strv_cmp);
}

enum ts_code ts_plan_project_mark(const struct ts_project *p, struct ts_pylock *lock,
                                  struct ts_error *err) {
  size_t n = lock->npackages, nsets = p->nextras + p->ngroups;
  bool *base = ts_xcalloc(n + 1, sizeof *base);
  bool *by = ts_xcalloc((n + 1) * (nsets + 1), sizeof *by); /* by[set * n + package] */
  reach(lock, p->requires, p->nrequires, base);
  for (size_t s = 0; s < nsets; s++) {
    const struct ts_project_set *set = s < p->nextras ? &p->extras[s] : &p->groups[s - p->nextras];
    reach(lock, set->requires, set->nrequires, &by[s * n]);
  }
  for (size_t k = 0; k < n; k++) {
    if (base[k])
      continue;
    struct ts_buf cond;
    ts_buf_init(&cond, 0);
    for (size_t s = 0; s < nsets; s++) {
      if (!by[s * n + k])
        continue;
      bool extra = s < p->nextras;
      const char *name = extra ? p->extras[s].name : p->groups[s - p->nextras].name;
      ts_buf_xprintf(&cond, "%s'%s' in %s", cond.len ? " or " : "", name,
                     extra ? "extras" : "dependency_groups");
    }
    if (cond.len) {
      struct ts_pylock_package *pkg = &lock->packages[k];
      char *marker = ts_fleet_marker_and(pkg->marker, cond.data);
      free(pkg->marker);
      pkg->marker = marker;
    }
    ts_buf_clear(&cond);
  }
  free(base);
  free(by);
  declare(&lock->extras, &lock->nextras, p->extras, p->nextras);
  declare(&lock->dependency_groups, &lock->ndependency_groups, p->groups, p->ngroups);
  return ts_pylock_validate(lock, err);
}
