/*
 * inventory/show.c — pip show over an installed set (see inventory.h),
 * after pip 23's commands/show.py.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/alloc.h"
#include "core/str.h"
#include "pep/name.h"
#include "inventory/inventory.h"

/* str.lower sort; ties by bytes so the order never depends on input order */
static int cmp_lower(const void *a, const void *b) {
  const char *x = *(const char *const *)a, *y = *(const char *const *)b;
  int c = strcasecmp(x, y);
  return c ? c : strcmp(x, y);
}

static bool requires_name(const struct ts_installed_dist *d,
                          const struct ts_marker_env *env, const char *canonical) {
  char **names = NULL;
  size_t n = 0;
  ts_installed_requires(d, env, &names, &n);
  bool found = false;
  for (size_t i = 0; i < n && !found; i++)
    found = ts_name_eq(names[i], strlen(names[i]), canonical, strlen(canonical));
  ts_installed_files_free(names, n);
  return found;
}

/* "a/./b" and "a/b/" as str(pathlib.Path(...)) writes them: "a/b". */
static char *path_normal(const char *p) {
  char *out = ts_xrealloc(NULL, strlen(p) + 1);
  size_t o = 0;
  const char *s = p;
  if (*s == '/')
    out[o++] = '/';
  while (*s) {
    while (*s == '/')
      s++;
    size_t n = strcspn(s, "/");
    if (n == 1 && s[0] == '.') {
      s += n;
      continue;
    }
    if (n) {
      if (o && out[o - 1] != '/')
        out[o++] = '/';
      memcpy(out + o, s, n);
      o += n;
    }
    s += n;
  }
  if (o == 0)
    out[o++] = '.';
  out[o] = '\0';
  return out;
}

enum ts_code ts_plan_show(const struct ts_plan_env *env, const char *const *names,
                          size_t nnames, bool with_files, struct ts_show_info **out,
                          size_t *nout, struct ts_plan_notes *missing,
                          struct ts_error *err) {
  *out = NULL;
  *nout = 0;
  const struct ts_installed_set *s = &env->installed;
  const struct ts_marker_env *menv = &env->target->markers;
  enum ts_code rc = TS_OK;
  for (size_t k = 0; k < nnames; k++) {
    const struct ts_installed_dist *d = ts_installed_find(s, names[k]);
    if (!d) {
      ts_plan_notes_add(missing, ts_xstrdup(names[k]));
      continue;
    }
    *out = ts_xrealloc(*out, (*nout + 1) * sizeof **out);
    struct ts_show_info *info = &(*out)[(*nout)++];
    memset(info, 0, sizeof *info);
    info->dist = d;
    ts_installed_requires(d, menv, &info->requires, &info->nrequires);
    if (info->nrequires > 1) /* qsort(NULL, 0) is undefined behaviour */
      qsort(info->requires, info->nrequires, sizeof *info->requires, cmp_lower);
    for (size_t i = 0; i < s->ndists; i++)
      if (requires_name(&s->dists[i], menv, d->site->normalized)) {
        info->required_by = ts_xrealloc(info->required_by,
                                     (info->nrequired_by + 1) * sizeof *info->required_by);
        info->required_by[info->nrequired_by++] = ts_xstrdup(s->dists[i].site->name);
      }
    if (info->nrequired_by > 1)
      qsort(info->required_by, info->nrequired_by, sizeof *info->required_by, cmp_lower);
    if (with_files) {
      struct ts_error e = {0};
      enum ts_code frc = ts_installed_files(d, &info->files, &info->nfiles, &e);
      info->has_record = frc == TS_OK;
      if (frc != TS_OK && frc != TS_E_NOT_FOUND) {
        *err = e;
        rc = frc;
        break;
      }
      for (size_t i = 0; i < info->nfiles; i++) {
        char *n = path_normal(info->files[i]);
        free(info->files[i]);
        info->files[i] = n;
      }
      if (info->nfiles > 1)
        qsort(info->files, info->nfiles, sizeof *info->files, ts_strv_cmp);
    }
  }
  if (missing->n > 1)
    qsort(missing->lines, missing->n, sizeof *missing->lines, ts_strv_cmp);
  return rc;
}

void ts_plan_show_free(struct ts_show_info *info, size_t n) {
  for (size_t i = 0; i < n; i++) {
    ts_installed_files_free(info[i].requires, info[i].nrequires);
    ts_installed_files_free(info[i].required_by, info[i].nrequired_by);
    ts_installed_files_free(info[i].files, info[i].nfiles);
  }
  free(info);
}
