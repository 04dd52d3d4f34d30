/* git checkouts for "git+URL@REV#subdirectory=..." requirements: see source.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/fs.h"
#include "core/str.h"
#include "source/process.h"
#include "source/source.h"

void ts_vcs_ref_clear(struct ts_vcs_ref *r) {
  free(r->repo);
  free(r->revision);
  free(r->subdirectory);
  memset(r, 0, sizeof *r);
}

/* The value of `key=` in a #fragment, malloc'd, or NULL. */
static char *fragment_value(const char *frag, const char *key) {
  size_t kl = strlen(key);
  for (const char *p = frag; p && *p;) {
    if (strncmp(p, key, kl) == 0 && p[kl] == '=')
      return ts_xstrndup(p + kl + 1, strcspn(p + kl + 1, "&"));
    p = strchr(p, '&');
    if (p)
      p++;
  }
  return NULL;
}

enum ts_code ts_vcs_parse(const char *url, struct ts_vcs_ref *out, struct ts_error *err) {
  memset(out, 0, sizeof *out);
  if (strncmp(url, "git+", 4) != 0)
    return ts_error_set(err, TS_E_UNSUPPORTED,
                        "'%s': only git URLs (git+https://, git+ssh://, git+file://) "
                        "are supported", url);
  const char *u = url + 4;
  static const char *const schemes[] = {"https://", "http://", "ssh://", "file://", "git://"};
  bool known = false;
  for (size_t i = 0; i < sizeof schemes / sizeof schemes[0]; i++)
    known |= strncmp(u, schemes[i], strlen(schemes[i])) == 0;
  if (!known)
    return ts_error_set(err, TS_E_UNSUPPORTED,
                        "'%s': a git URL must be git+https://, git+ssh://, git+http://, "
                        "git+git:// or git+file://", url);
  size_t end = strcspn(u, "#");
  const char *frag = u[end] == '#' ? u + end + 1 : NULL;
  const char *path = strstr(u, "://") + 3;
  path += strcspn(path, "/");
  const char *at = NULL;
  for (const char *p = path; p < u + end; p++)
    if (*p == '@')
      at = p;
  size_t repo_len = at ? (size_t)(at - u) : end;
  if (at && (size_t)(u + end - at - 1) == 0)
    return ts_error_set(err, TS_E_PARSE, "'%s': empty revision after '@'", url);
  out->repo = ts_xstrndup(u, repo_len);
  if (at)
    out->revision = ts_xstrndup(at + 1, (size_t)(u + end - at - 1));
  out->subdirectory = frag ? fragment_value(frag, "subdirectory") : NULL;
  /* a revision or subdirectory is handed to git and joined to a path */
  if ((out->revision && (out->revision[0] == '-' || strpbrk(out->revision, " \t\n"))) ||
      (out->subdirectory && (out->subdirectory[0] == '/' || strstr(out->subdirectory, "..")))) {
    ts_vcs_ref_clear(out);
    return ts_error_set(err, TS_E_PARSE, "'%s': invalid revision or subdirectory", url);
  }
  return TS_OK;
}

static enum ts_code git(const char *const *argv, const char *log_path, unsigned timeout_s,
                        const volatile sig_atomic_t *cancel, const char *what,
                        struct ts_error *err) {
  static const char *const env[] = {"GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=true"};
  struct ts_process p = {.argv = argv, .extra_env = env, .nextra_env = 2,
                         .log_path = log_path, .timeout_s = timeout_s, .cancel = cancel};
  int status = -1;
  enum ts_code rc = ts_process_run(&p, &status, err);
  if (rc == TS_OK && status != 0) {
    char *tail = ts_source_log_tail(log_path, 1);
    rc = ts_error_set(err, TS_E_BUILD, "%s failed (git exit %d): %s", what, status, tail);
    free(tail);
  }
  return rc;
}

enum ts_code ts_vcs_checkout(const struct ts_vcs_ref *ref, const char *dest,
                             const char *log_path, unsigned timeout_s,
                             const volatile sig_atomic_t *cancel, char commit[41],
                             struct ts_error *err) {
  commit[0] = '\0';
  char *what = ts_xasprintf("git clone %s", ref->repo);
  const char *clone[] = {"git", "clone", "--quiet", "--no-checkout", "--", ref->repo,
                         dest, NULL};
  enum ts_code rc = git(clone, log_path, timeout_s, cancel, what, err);
  free(what);
  const char *rev = ref->revision ? ref->revision : "HEAD";
  if (rc == TS_OK) {
    what = ts_xasprintf("git checkout %s of %s", rev, ref->repo);
    const char *co[] = {"git", "-C", dest, "checkout", "--quiet", "--detach", rev, "--",
                        NULL};
    rc = git(co, log_path, timeout_s, cancel, what, err);
    free(what);
  }
  if (rc == TS_OK) {
    /* the commit id, through a file of its own (the log is shared) */
    char *out = ts_xasprintf("%s.rev", dest);
    const char *rp[] = {"git", "-C", dest, "rev-parse", "--verify", "HEAD^{commit}", NULL};
    rc = git(rp, out, timeout_s, cancel, "git rev-parse", err);
    struct ts_buf b;
    ts_buf_init(&b, 4096);
    struct ts_error re = {0};
    if (rc == TS_OK && ts_fs_read_file(out, &b, &re) == TS_OK && b.len >= 40 &&
        strspn(b.data, "0123456789abcdef") == 40)
      snprintf(commit, 41, "%.40s", b.data);
    else if (rc == TS_OK)
      rc = ts_error_set(err, TS_E_BUILD, "cannot tell the commit of %s at %s", ref->repo,
                        rev);
    ts_buf_clear(&b);
    unlink(out);
    free(out);
  }
  return rc;
}
