/* git checkouts for "git+URL@REV#subdirectory=..." requirements: see source.h. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
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

/* The line of git's output that says what went wrong: its first
 * "fatal:" or "error:" line ("fatal: 'x' does not appear to be a git
 * repository", not the advice after it), else its last line.  malloc'd. */
static char *git_error_line(const char *out) {
  const char *last = out;
  for (const char *s = out; *s;) {
    size_t n = strcspn(s, "\n");
    if (!strncmp(s, "fatal:", 6) || !strncmp(s, "error:", 6))
      return ts_xstrndup(s, n);
    if (n)
      last = s;
    s += n + (s[n] == '\n');
  }
  return ts_xstrndup(last, strcspn(last, "\n"));
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
    char *tail = ts_source_log_tail(log_path, 20);
    char *line = git_error_line(tail);
    /* no build ran: a repository or revision that cannot be had */
    enum ts_code code = strstr(line, "unable to access") || strstr(line, "Could not resolve")
                            ? TS_E_NETWORK : TS_E_NOT_FOUND;
    rc = ts_error_set(err, code, "%s failed (git exit %d): %s", what, status, line);
    free(line);
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
    ts_buf_init(&b, TS_CAP_TINY_FILE);
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

/* ---- what pip freeze says of an editable checkout ---------------------- */

/* git's stdout for argv run in dir (stderr goes with it, so only commands
 * whose failure is the exit status are asked); *out malloc'd. */
static enum ts_code git_output(const char *dir, const char *const *argv, int *status,
                               char **out, struct ts_error *err) {
  *out = NULL;
  char *tmpl = ts_path_join(ts_fs_temp_dir(), "torchsolve-git-XXXXXX");
  int fd = mkstemp(tmpl);
  if (fd < 0) {
    free(tmpl);
    return ts_error_set(err, TS_E_IO, "cannot create a temporary file");
  }
  close(fd);
  static const char *const env[] = {"GIT_TERMINAL_PROMPT=0", "LC_ALL=C"};
  struct ts_process p = {.argv = argv, .cwd = dir, .extra_env = env, .nextra_env = 2,
                         .log_path = tmpl, .timeout_s = 60};
  enum ts_code rc = ts_process_run(&p, status, err);
  struct ts_buf b;
  ts_buf_init(&b, TS_CAP_SMALL_FILE);
  if (rc == TS_OK && ts_fs_read_file(tmpl, &b, err) == TS_OK)
    *out = b.data ? ts_buf_take(&b, NULL) : ts_xstrdup("");
  else if (rc == TS_OK)
    rc = err->code;
  ts_buf_clear(&b);
  unlink(tmpl);
  free(tmpl);
  return rc;
}

static void chomp(char *s) {
  size_t n = strlen(s);
  while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
    s[--n] = '\0';
}

/* pip's _git_remote_to_pip_url: a URL as it is, a local path as file://,
 * scp-like "user@host:path" as ssh://user@host/path; NULL otherwise. */
static char *remote_to_url(const char *url) {
  size_t scheme = 0;
  while (url[scheme] && (isalnum((unsigned char)url[scheme]) || url[scheme] == '_'))
    scheme++;
  if (scheme && strncmp(url + scheme, "://", 3) == 0)
    return ts_xstrdup(url);
  if (access(url, F_OK) == 0) {
    char *abs = realpath(url, NULL);
    char *u = ts_xasprintf("file://%s", abs ? abs : url);
    free(abs);
    return u;
  }
  const char *colon = strchr(url, ':');
  const char *at = strchr(url, '@');
  if (colon && colon > url && !memchr(url, '/', (size_t)(colon - url)) &&
      isalnum((unsigned char)colon[1]) && !strchr(colon + 1, ':') &&
      (!at || at > colon || strspn(url, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                        "0123456789_") == (size_t)(at - url)))
    return ts_xasprintf("ssh://%.*s/%s", (int)(colon - url), url, colon + 1);
  return NULL;
}

void ts_vcs_origin_clear(struct ts_vcs_origin *o) {
  free(o->url);
  free(o->remote);
  free(o->commit);
  free(o->subdirectory);
  memset(o, 0, sizeof *o);
}

enum ts_code ts_vcs_describe(const char *dir, struct ts_vcs_origin *out,
                             struct ts_error *err) {
  memset(out, 0, sizeof *out);
  int status = -1;
  char *root = NULL, *remotes = NULL;
  const char *top[] = {"git", "rev-parse", "--show-toplevel", NULL};
  enum ts_code rc = git_output(dir, top, &status, &root, err);
  if (rc == TS_OK && status != 0)
    rc = ts_error_set(err, TS_E_NOT_FOUND, "'%s' is in no git checkout", dir);
  if (rc == TS_OK) {
    chomp(root);
    char *rroot = realpath(root, NULL), *rdir = realpath(dir, NULL);
    size_t rl = rroot ? strlen(rroot) : 0;
    if (rroot && rdir && strncmp(rdir, rroot, rl) == 0 && rdir[rl] == '/')
      out->subdirectory = ts_xstrdup(rdir + rl + 1);
    free(rroot);
    free(rdir);
    const char *head[] = {"git", "rev-parse", "HEAD", NULL};
    rc = git_output(dir, head, &status, &out->commit, err);
    if (rc == TS_OK && status != 0)
      rc = ts_error_set(err, TS_E_NOT_FOUND, "'%s': its checkout has no commit", dir);
    if (rc == TS_OK)
      chomp(out->commit);
  }
  if (rc == TS_OK) {
    /* the remote called origin, else the first one, as pip */
    const char *cfg[] = {"git", "config", "--get-regexp", "remote\\..*\\.url", NULL};
    rc = git_output(dir, cfg, &status, &remotes, err);
    const char *pick = NULL;
    for (const char *line = remotes; rc == TS_OK && line && *line;) {
      if (!pick || strncmp(line, "remote.origin.url ", 18) == 0)
        pick = line;
      if (strncmp(pick, "remote.origin.url ", 18) == 0)
        break;
      line = strchr(line, '\n');
      line = line ? line + 1 : NULL;
    }
    const char *sp = pick ? strchr(pick, ' ') : NULL;
    if (sp) {
      out->remote = ts_xstrndup(sp + 1, strcspn(sp + 1, "\n"));
      chomp(out->remote);
      char *u = remote_to_url(out->remote);
      /* "git+" unless the URL names git already, as pip's prefix rule */
      if (u)
        out->url = strncasecmp(u, "git:", 4) == 0 ? ts_xstrdup(u) : ts_xasprintf("git+%s", u);
      free(u);
    }
  }
  free(root);
  free(remotes);
  if (rc != TS_OK)
    ts_vcs_origin_clear(out);
  return rc;
}
