/* `torchsolve rules update`; see rules_update.h. */
#include "plan/rules_update.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/fs.h"
#include "core/sha256.h"
#include "core/str.h"
#include "index/url.h"
#include "pep/filename.h"
#include "pep/version.h"
#include "rules/origin.h"
#include "wheel/record.h"
#include "zip/zip.h"

#define RECORD_CAP (64u * 1024)

void ts_rules_update_result_clear(struct ts_rules_update_result *r) {
  free(r->version);
  free(r->url);
  free(r->in_force);
  free(r->label);
  ts_rules_diags_clear(&r->diags);
  memset(r, 0, sizeof *r);
}

static bool is_rules_wheel(const struct ts_wheel_filename *w) {
  if (strcmp(w->normalized_name, TS_RULES_PACKAGE) != 0)
    return false;
  for (size_t i = 0; i < w->ntags; i++)
    if (strcmp(w->tags[i].python, "py3") == 0 && strcmp(w->tags[i].abi, "none") == 0 &&
        strcmp(w->tags[i].platform, "any") == 0)
      return true;
  return false;
}

/* The newest py3-none-any wheel of the project that is not yanked. */
static const struct ts_index_file *newest_wheel(const struct ts_index_project *p,
                                                char **version) {
  const struct ts_index_file *best = NULL;
  struct ts_version *best_v = NULL;
  for (size_t i = 0; i < p->nfiles; i++) {
    const struct ts_index_file *f = &p->files[i];
    struct ts_wheel_filename *w = NULL;
    struct ts_error ignored = {0};
    if (f->yanked || ts_wheel_filename_parse(f->filename, strlen(f->filename), &w,
                                             &ignored) != TS_OK)
      continue;
    if (is_rules_wheel(w) && (!best_v || ts_version_cmp(w->version, best_v) > 0)) {
      ts_version_free(best_v);
      best_v = ts_version_dup(w->version);
      best = f;
    }
    ts_wheel_filename_free(w);
  }
  *version = best_v ? ts_xstrdup(ts_version_original(best_v)) : NULL;
  ts_version_free(best_v);
  return best;
}

static enum ts_code read_member(const struct ts_zip_archive *a, const char *name,
                                size_t cap, struct ts_buf *out, const char *wheel,
                                struct ts_error *err) {
  const struct ts_zip_entry *e = ts_zip_find(a, name, strlen(name));
  if (!e)
    return ts_error_set(err, TS_E_BAD_WHEEL, "%s has no %s", wheel, name);
  out->max = cap;
  return ts_zip_read_member(a, e, out, err);
}

/* The member's digest must be the one the wheel's RECORD lists for it. */
static enum ts_code check_record(const struct ts_zip_archive *a, const char *filename,
                                 const struct ts_buf *member, struct ts_error *err) {
  const char *dash = strchr(filename, '-');
  const char *dash2 = dash ? strchr(dash + 1, '-') : NULL;
  if (!dash2)
    return ts_error_set(err, TS_E_BAD_WHEEL, "%s: not a wheel file name", filename);
  char *record_name = ts_xasprintf("%.*s.dist-info/RECORD", (int)(dash2 - filename),
                                   filename);
  struct ts_buf rb;
  ts_buf_init(&rb, RECORD_CAP);
  struct ts_record rec = {0};
  enum ts_code rc = read_member(a, record_name, RECORD_CAP, &rb, filename, err);
  if (rc == TS_OK)
    rc = ts_record_parse(rb.data, rb.len, &rec, err);
  const struct ts_record_row *row = NULL;
  for (size_t i = 0; rc == TS_OK && i < rec.count && !row; i++)
    if (strcmp(rec.rows[i].path, TS_RULES_PACKAGE_MEMBER) == 0)
      row = &rec.rows[i];
  uint8_t want[TS_SHA256_LEN], got[TS_SHA256_LEN];
  if (rc == TS_OK && (!row || !row->hash[0]))
    rc = ts_error_set(err, TS_E_HASH_MISSING, "%s: its RECORD gives no sha256 for %s",
                      filename, TS_RULES_PACKAGE_MEMBER);
  if (rc == TS_OK)
    rc = ts_record_hash_sha256(row->hash, want, err);
  if (rc == TS_OK) {
    ts_sha256(member->data, member->len, got);
    if (memcmp(want, got, sizeof want) != 0)
      rc = ts_error_set(err, TS_E_HASH, "%s: %s does not match the sha256 its RECORD lists",
                        filename, TS_RULES_PACKAGE_MEMBER);
  }
  ts_record_clear(&rec);
  ts_buf_clear(&rb);
  free(record_name);
  return rc;
}

/* The wheel's rules.yaml, verified: the wheel against the index's sha256
 * (the download does that), the member against the wheel's RECORD. */
static enum ts_code fetch_rules(struct ts_index *idx, const struct ts_index_file *f,
                                struct ts_buf *yaml, struct ts_error *err) {
  if (!f->sha256)
    return ts_error_set(err, TS_E_HASH_MISSING,
                        "the index gives no sha256 for %s; an update of the rules is "
                        "only taken from an index that publishes the file's hash",
                        f->filename);
  char *path = NULL;
  enum ts_code rc = ts_index_fetch_wheel(idx, f, &path, err);
  if (rc != TS_OK)
    return rc;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct ts_zip_archive *a = NULL;
  if (fd < 0)
    rc = ts_error_set(err, TS_E_IO, "%s: cannot open the downloaded wheel", f->filename);
  else
    rc = ts_zip_open_fd(fd, &a, err);
  if (fd >= 0)
    close(fd);
  if (rc == TS_OK)
    rc = read_member(a, TS_RULES_PACKAGE_MEMBER, TS_CAP_RULES_FILE, yaml, f->filename, err);
  if (rc == TS_OK)
    rc = check_record(a, f->filename, yaml, err);
  if (a)
    ts_zip_close(a);
  free(path);
  return rc;
}

/* Validates the bytes as `rules check` validates a file (they are written
 * to a scratch file beside where they would be kept, then removed), and
 * the file's own version must be the package's. */
static enum ts_code validate(const struct ts_rules_update_options *o, const struct ts_buf *yaml,
                             struct ts_rules_update_result *out, struct ts_error *err) {
  char *dir = ts_path_join(o->data_dir, "rules-v1");
  char *scratch = ts_xasprintf("%s/incoming.%ld.yaml", dir, (long)getpid());
  enum ts_code rc = ts_fs_mkdirs(dir, err);
  if (rc == TS_OK)
    rc = ts_fs_write_atomic(scratch, yaml->data, yaml->len, err);
  struct ts_rules *r = NULL;
  if (rc == TS_OK) {
    rc = ts_rules_validate_file(scratch, o->bundled, &r, &out->diags, err);
    unlink(scratch);
  }
  for (size_t i = 0; i < out->diags.n; i++) {
    free(out->diags.items[i].file);
    out->diags.items[i].file = ts_xstrdup(out->label);
  }
  if (rc == TS_OK && ts_rules_version_cmp(r->version, out->version) != 0) {
    char *msg = ts_xasprintf("its version '%s' is not the package's (%s)",
                             r->version ? r->version : "(none)", out->version);
    out->diags.items = ts_xreallocarray(out->diags.items, out->diags.n + 1,
                                        sizeof *out->diags.items);
    out->diags.items[out->diags.n++] = (struct ts_rules_diag){
        .file = ts_xstrdup(out->label), .message = msg};
    rc = ts_error_set(err, TS_E_RULES, "%s: %s", out->label, msg);
  }
  if (rc == TS_OK) {
    out->nbackends = r->nbackends;
    out->nreleases = r->nreleases;
    out->nrules = r->nrules;
    const struct ts_rules_release *newest = ts_rules_newest(r);
    snprintf(out->newest_series, sizeof out->newest_series, "%s",
             newest ? newest->series : "-");
  }
  ts_rules_free(r);
  free(scratch);
  free(dir);
  return rc;
}

enum ts_code ts_rules_update(const struct ts_rules_update_options *o,
                             struct ts_rules_update_result *out,
                             struct ts_error *err) {
  memset(out, 0, sizeof *out);
  const char *names[] = {TS_RULES_PACKAGE};
  struct ts_index_result page = {0};
  enum ts_code rc = ts_index_fetch_projects(o->idx, names, 1, &page, err);
  if (rc == TS_OK && page.code != TS_OK) {
    rc = page.code;
    *err = page.err;
  }
  const struct ts_index_file *f = NULL;
  if (rc == TS_OK && !(f = newest_wheel(&page.project, &out->version)))
    rc = ts_error_set(err, TS_E_NOT_FOUND, "%s has no %s wheel (py3-none-any)",
                      page.project.index_url ? page.project.index_url : "the index",
                      TS_RULES_PACKAGE);
  struct ts_rules_provenance now;
  ts_rules_in_force(o->bundled, o->data_dir, &now);
  if (now.version)
    out->in_force = ts_xstrdup(now.version);
  if (rc == TS_OK) {
    out->url = ts_url_redact(f->url);
    out->label = ts_xasprintf("%s!%s", f->filename, TS_RULES_PACKAGE_MEMBER);
    char bundled_version[64] = "";
    ts_rules_file_version(o->bundled, bundled_version, sizeof bundled_version);
    if (ts_rules_version_cmp(out->version, bundled_version) <= 0)
      out->outcome = TS_RULES_UPDATE_OLDER;
    else if (now.updated && !o->again && ts_rules_version_cmp(out->version, now.version) == 0)
      out->outcome = TS_RULES_UPDATE_CURRENT;
    else {
      struct ts_buf yaml;
      ts_buf_init(&yaml, TS_CAP_RULES_FILE);
      rc = fetch_rules(o->idx, f, &yaml, err);
      if (rc == TS_OK)
        rc = validate(o, &yaml, out, err);
      struct ts_rules_origin origin = {.version = out->version, .url = out->url,
                                       .sha256 = f->sha256};
      if (rc == TS_OK)
        rc = ts_rules_origin_store(o->data_dir, yaml.data, yaml.len, &origin, err);
      out->outcome = TS_RULES_UPDATE_KEPT;
      ts_buf_clear(&yaml);
    }
  }
  ts_rules_provenance_clear(&now);
  ts_index_project_clear(&page.project);
  return rc;
}
