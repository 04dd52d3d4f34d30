/*
 * inventory/freeze.c — pip freeze over an installed set (see inventory.h),
 * after pip 23's operations/freeze.py.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/alloc.h"
#include "core/fs.h"
#include "core/str.h"
#include "core/vec.h"
#include "pep/filename.h"
#include "pep/name.h"
#include "pep/requirement.h"
#include "inventory/inventory.h"
#include "source/source.h"

void ts_plan_notes_add(struct ts_plan_notes *n, char *line) {
  n->lines = ts_xrealloc(n->lines, (n->n + 1) * sizeof *n->lines);
  n->lines[n->n++] = line;
}

void ts_plan_notes_clear(struct ts_plan_notes *n) {
  ts_strv_free(n->lines, n->n);
  n->lines = NULL;
  n->n = 0;
}

/* An editable install, as pip's _get_editable_info: in a git checkout
 * "-e git+URL@COMMIT#egg=NAME[&subdirectory=SUB]", else the path after a
 * comment saying why. */
static char *editable_line(const struct ts_installed_dist *d) {
  struct ts_vcs_origin o;
  struct ts_error ignore = {0};
  if (ts_vcs_describe(d->editable_location, &o, &ignore) != TS_OK)
    return ts_xasprintf("# Editable install with no version control (%s==%s)\n-e %s",
                        d->site->name, d->version, d->editable_location);
  char *line;
  if (o.url) {
    char *egg = ts_xstrdup(d->site->name);
    for (char *c = egg; *c; c++)
      if (*c == '-')
        *c = '_';
    line = ts_xasprintf("-e %s@%s#egg=%s%s%s", o.url, o.commit, egg,
                        o.subdirectory ? "&subdirectory=" : "",
                        o.subdirectory ? o.subdirectory : "");
    free(egg);
  } else if (o.remote) {
    line = ts_xasprintf("# Editable Git install (%s==%s) with either a deleted local "
                        "remote or invalid URI:\n# '%s'\n-e %s", d->site->name, d->version,
                        o.remote, d->editable_location);
  } else {
    line = ts_xasprintf("# Editable Git install with no remote (%s==%s)\n-e %s", d->site->name,
                        d->version, d->editable_location);
  }
  ts_vcs_origin_clear(&o);
  return line;
}

char *ts_plan_freeze_line(const struct ts_installed_dist *d) {
  if (d->editable && d->editable_location)
    return editable_line(d);
  if (d->direct_reference)
    return ts_xasprintf("%s @ %s", d->site->name, d->direct_reference);
  /* pip's freeze pins a version that is not PEP 440 with ===; a PEP 825
   * variant's label follows as a comment (the line stays a requirement) */
  return ts_xasprintf("%s%s%s%s%s", d->site->name, d->md->version ? "==" : "===", d->version,
                      d->variant_label ? "  # variant " : "",
                      d->variant_label ? d->variant_label : "");
}

/* pip freeze hides itself, and below Python 3.12 the build backends that
 * venvs used to seed (pip's _dev_pkgs). */
static bool hidden(const struct ts_installed_dist *d, const struct ts_target *t) {
  if (strcmp(d->site->normalized, "pip") == 0)
    return true;
  bool old = t->python_major < 3 || (t->python_major == 3 && t->python_minor < 12);
  return old && (strcmp(d->site->normalized, "setuptools") == 0 ||
                 strcmp(d->site->normalized, "distribute") == 0 ||
                 strcmp(d->site->normalized, "wheel") == 0);
}

static bool excluded(const char *canonical, const char *const *names, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (ts_name_eq(canonical, strlen(canonical), names[i], strlen(names[i])))
      return true;
  return false;
}

/* Requirement-file lines pip freeze repeats as they are (once each). */
static bool option_line(const char *line) {
  static const char *const opts[] = {
      "-r", "--requirement", "-f", "--find-links", "-i", "--index-url", "--pre",
      "--trusted-host", "--process-dependency-links", "--extra-index-url",
      "--use-feature"};
  for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
    if (strncmp(line, opts[i], strlen(opts[i])) == 0)
      return true;
  return false;
}

/* The project a requirements line names: a PEP 508 requirement, a wheel
 * file or URL, or "#egg=NAME"; NULL when it is not clear (pip skips it). */
static char *line_project(const char *line) {
  char *text = ts_xstrdup(line);
  bool editable = false;
  char *s = text;
  if (strncmp(s, "--editable", 10) == 0) {
    s += 10;
    editable = true;
  } else if (strncmp(s, "-e", 2) == 0) {
    s += 2;
    editable = true;
  }
  while (*s == ' ' || *s == '\t' || *s == '=')
    s++;
  char *name = NULL;
  const char *egg = strstr(s, "#egg=");
  if (egg) {
    egg += 5;
    name = ts_xstrndup(egg, strcspn(egg, "&# \t\r\n"));
  } else if (!editable) {
    /* COMMENT_RE: "#" at the start or after blanks starts a comment; an
     * option after the requirement ("--hash=...") is not part of it. */
    for (char *c = s; *c; c++)
      if ((*c == '#' && (c == s || isspace((unsigned char)c[-1]))) ||
          (c > s && c[0] == '-' && c[1] == '-' && isspace((unsigned char)c[-1]))) {
        *c = '\0';
        break;
      }
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
      s[--n] = '\0';
    struct ts_requirement *r = NULL;
    struct ts_error e = {0};
    const char *slash = strrchr(s, '/');
    const char *base = slash ? slash + 1 : s;
    struct ts_wheel_filename *w = NULL;
    if (ts_requirement_parse(s, n, &r, &e) == TS_OK) {
      name = ts_xstrdup(r->name);
      ts_requirement_free(r);
    } else if (ts_wheel_filename_parse(base, strlen(base), &w, &e) == TS_OK) {
      name = ts_xstrdup(w->name);
      ts_wheel_filename_free(w);
    }
  }
  free(text);
  return name;
}

/* Which requirements files named a project (pip's req_files), for the
 * "included multiple times" warning. */
struct seen {
  char *name;
  const char **files;
  size_t nfiles;
};

static struct seen *seen_find(struct seen **s, size_t *n, const char *name, bool add) {
  for (size_t i = 0; i < *n; i++)
    if (strcmp((*s)[i].name, name) == 0)
      return &(*s)[i];
  if (!add)
    return NULL;
  *s = ts_xrealloc(*s, (*n + 1) * sizeof **s);
  (*s)[*n] = (struct seen){.name = ts_xstrdup(name)};
  return &(*s)[(*n)++];
}

static void seen_add_file(struct seen *s, const char *file) {
  s->files = ts_xrealloc(s->files, (s->nfiles + 1) * sizeof *s->files);
  s->files[s->nfiles++] = file;
}

static int cmp_lower_name(const void *a, const void *b) {
  const struct ts_installed_dist *x = *(const struct ts_installed_dist *const *)a;
  const struct ts_installed_dist *y = *(const struct ts_installed_dist *const *)b;
  int c = strcasecmp(x->site->name, y->site->name);
  return c ? c : strcmp(x->site->normalized, y->site->normalized);
}

static void put_line(struct ts_buf *out, const char *s, size_t n) {
  ts_buf_xappend(out, s, n);
  ts_buf_xappend(out, "\n", 1);
}

/* The lines of the requirements files, in order; emitted[] marks the
 * installed dists already written. */
static enum ts_code freeze_files(const struct ts_plan_env *env,
                                 const struct ts_freeze_options *o, bool *emitted,
                                 struct ts_buf *out, struct ts_plan_notes *warnings,
                                 struct ts_error *err) {
  char **options = NULL;
  size_t noptions = 0, options_cap = 0;
  struct seen *seen = NULL;
  size_t nseen = 0;
  enum ts_code rc = TS_OK;
  for (size_t f = 0; f < o->nrequirement_files && rc == TS_OK; f++) {
    const char *file = o->requirement_files[f];
    struct ts_buf b;
    ts_buf_init(&b, TS_CAP_LOCKFILE);
    rc = ts_fs_read_file(file, &b, err);
    const char *p = b.data ? b.data : "", *end = p + b.len;
    while (rc == TS_OK && p < end) {
      const char *nl = memchr(p, '\n', (size_t)(end - p));
      size_t len = (size_t)((nl ? nl : end) - p);
      char *line = ts_xstrndup(p, len);
      p += len + (nl != NULL);
      size_t rl = strlen(line);
      while (rl && isspace((unsigned char)line[rl - 1]))
        line[--rl] = '\0';
      const char *t = line + strspn(line, " \t");
      if (!*t || *t == '#' || option_line(line)) {
        bool dup = false;
        for (size_t k = 0; k < noptions && !dup; k++)
          dup = strcmp(options[k], line) == 0;
        if (!dup) {
          put_line(out, line, rl);
          options = ts_vec_grow(options, &options_cap, noptions + 1, sizeof *options);
          options[noptions++] = line;
        } else {
          free(line);
        }
        continue;
      }
      char *name = line_project(line);
      if (!name) {
        ts_plan_notes_add(warnings, ts_xasprintf("Skipping line in requirement file [%s] because "
                                    "it's not clear what it would install: %s",
                                    file, t));
      } else {
        const struct ts_installed_dist *d = ts_installed_find(&env->installed, name);
        size_t di = d ? (size_t)(d - env->installed.dists) : 0;
        struct seen *s = seen_find(&seen, &nseen, name, true);
        if (!d || emitted[di]) {
          if (!s->nfiles)
            ts_plan_notes_add(warnings, ts_xasprintf("Requirement file [%s] contains %s, but "
                                        "package '%s' is not installed",
                                        file, t, name));
          else
            seen_add_file(s, file);
        } else {
          char *fl = ts_plan_freeze_line(d);
          put_line(out, fl, strlen(fl));
          free(fl);
          emitted[di] = true;
          seen_add_file(s, file);
        }
      }
      free(name);
      free(line);
    }
    ts_buf_clear(&b);
  }
  for (size_t i = 0; i < nseen; i++) {
    if (seen[i].nfiles > 1) {
      if (seen[i].nfiles > 1)
        qsort(seen[i].files, seen[i].nfiles, sizeof *seen[i].files, ts_strv_cmp);
      struct ts_buf l;
      ts_buf_init(&l, TS_CAP_TEXT);
      for (size_t k = 0; k < seen[i].nfiles; k++)
        if (k == 0 || strcmp(seen[i].files[k], seen[i].files[k - 1]) != 0)
          ts_buf_xprintf(&l, "%s%s", l.len ? ", " : "", seen[i].files[k]);
      ts_plan_notes_add(warnings, ts_xasprintf("Requirement %s included multiple times [%.*s]",
                                  seen[i].name, (int)l.len, l.data ? l.data : ""));
      ts_buf_clear(&l);
    }
    free(seen[i].name);
    free(seen[i].files);
  }
  free(seen);
  ts_strv_free(options, noptions);
  if (rc == TS_OK) {
    static const char added[] = "## The following requirements were added by pip freeze:";
    put_line(out, added, sizeof added - 1);
  }
  return rc;
}

enum ts_code ts_plan_freeze(const struct ts_plan_env *env,
                            const struct ts_freeze_options *o, struct ts_buf *out,
                            struct ts_plan_notes *warnings, struct ts_error *err) {
  const struct ts_installed_set *s = &env->installed;
  bool *emitted = ts_xcalloc(s->ndists ? s->ndists : 1, sizeof *emitted);
  for (size_t i = 0; i < s->ndists; i++)
    emitted[i] = o->exclude_editable && s->dists[i].editable;
  enum ts_code rc = TS_OK;
  if (o->nrequirement_files)
    rc = freeze_files(env, o, emitted, out, warnings, err);
  const struct ts_installed_dist **rest = ts_xcalloc(s->ndists ? s->ndists : 1, sizeof *rest);
  size_t n = 0;
  for (size_t i = 0; i < s->ndists; i++) {
    const struct ts_installed_dist *d = &s->dists[i];
    if (!emitted[i] && !(hidden(d, env->target) && !o->all) &&
        !excluded(d->site->normalized, o->exclude, o->nexclude))
      rest[n++] = d;
  }
  if (n > 1)
    qsort(rest, n, sizeof *rest, cmp_lower_name);
  for (size_t i = 0; i < n && rc == TS_OK; i++) {
    char *fl = ts_plan_freeze_line(rest[i]);
    put_line(out, fl, strlen(fl));
    free(fl);
  }
  free(rest);
  free(emitted);
  return rc;
}
