/*
 * request/reqfile.c — pip requirements files, following pip's
 * src/pip/_internal/req/req_file.py and constructors.py step by step
 * (splitlines, join_lines, ignore_comments, expand_env_variables,
 * break_args_options, optparse over shlex tokens, parse_req_from_line).
 */
#include "request/reqfile.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/buf.h"
#include "core/fs.h"
#include "core/str.h"
#include "core/vec.h"
#include "core/text.h"
#include "pep/filename.h"
#include "pep/name.h"

/* ------------------------------------------------------------------ */
/* small helpers                                                        */

static bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
         c == '\v' || c == 0x1c || c == 0x1d || c == 0x1e || c == 0x1f;
}

static void strip(const char **s, size_t *len) {
  while (*len && is_space(**s)) {
    (*s)++;
    (*len)--;
  }
  while (*len && is_space((*s)[*len - 1]))
    (*len)--;
}


static bool has_prefix_ci(const char *s, size_t len, const char *p) {
  size_t n = strlen(p);
  if (len < n)
    return false;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (c >= 'A' && c <= 'Z')
      c = (char)(c - 'A' + 'a');
    if (c != p[i])
      return false;
  }
  return true;
}

static bool has_suffix_ci(const char *s, size_t len, const char *suf) {
  size_t n = strlen(suf);
  return len >= n && has_prefix_ci(s + len - n, n, suf);
}

/* ------------------------------------------------------------------ */
/* requirement classification (pip's parse_req_from_line)              */

/* pip's is_url: the text before the first ':' is a known scheme. */
static bool is_url(const char *s, size_t len) {
  static const char *const schemes[] = {
      "http", "https", "file", "ftp",
      "git+http", "git+https", "git+ssh", "git+git", "git+file",
      "hg+file", "hg+http", "hg+https", "hg+ssh", "hg+static-http",
      "svn+ssh", "svn+http", "svn+https", "svn+svn", "svn+file",
      "bzr+http", "bzr+https", "bzr+ssh", "bzr+sftp", "bzr+ftp", "bzr+lp",
      "bzr+file"};
  const char *colon = memchr(s, ':', len);
  if (!colon)
    return false;
  size_t n = (size_t)(colon - s);
  for (size_t i = 0; i < sizeof schemes / sizeof schemes[0]; i++)
    if (strlen(schemes[i]) == n && has_prefix_ci(s, n, schemes[i]))
      return true;
  return false;
}

static bool looks_like_path(const char *s, size_t len) {
  return memchr(s, '/', len) != NULL || (len && s[0] == '.');
}

/* pip's ARCHIVE_EXTENSIONS, with its splitext that keeps ".tar.*". */
static bool is_archive(const char *s, size_t len) {
  return ts_archive_kind_of(s, len) != TS_DIST_UNKNOWN;
}

/* Last path component of a URL's path (query and fragment removed). */
static void url_filename(const char *s, size_t len, const char **fn,
                         size_t *fn_len) {
  size_t end = 0;
  while (end < len && s[end] != '?' && s[end] != '#')
    end++;
  size_t start = 0;
  const char *sep = NULL;
  for (size_t i = 0; i + 2 < end; i++)
    if (s[i] == ':' && s[i + 1] == '/' && s[i + 2] == '/') {
      sep = s + i + 3;
      break;
    }
  if (sep) { /* skip the authority */
    size_t a = (size_t)(sep - s);
    while (a < end && s[a] != '/')
      a++;
    start = a;
  }
  size_t last = start;
  for (size_t i = start; i < end; i++)
    if (s[i] == '/')
      last = i + 1;
  *fn = s + last;
  *fn_len = end - last;
}

void ts_reqfile_entry_clear(struct ts_reqfile_entry *e) {
  if (!e)
    return;
  free(e->text);
  ts_requirement_free(e->req);
  free(e->url);
  free(e->path);
  free(e->name);
  free(e->version);
  ts_strv_free(e->extras, e->nextras);
  free(e->marker);
  ts_strv_free(e->hashes, e->nhashes);
  free(e->file);
  memset(e, 0, sizeof *e);
}

static enum ts_code from_wheel_name(struct ts_reqfile_entry *e, const char *fn,
                                    size_t fn_len, struct ts_error *err) {
  struct ts_wheel_filename *w = NULL;
  struct ts_error we = {0};
  enum ts_code rc = ts_wheel_filename_parse(fn, fn_len, &w, &we);
  if (rc != TS_OK) { /* pip's "X is not a valid wheel filename", with why */
    const char *why = strstr(we.detail, "': ");
    return ts_error_set(err, rc, "'%.*s' is not a valid wheel file name (%s)",
                        (int)fn_len, fn, why ? why + 3 : we.detail);
  }
  e->name = ts_xstrdup(w->normalized_name);
  e->version = ts_xstrdup(ts_version_str(w->version));
  ts_wheel_filename_free(w);
  return TS_OK;
}

/* "[a, b]" suffix -> normalised extras (pip's _strip_extras). */
static enum ts_code split_extras(struct ts_reqfile_entry *e, const char *s,
                                 size_t *len, struct ts_error *err) {
  if (*len < 3 || s[*len - 1] != ']')
    return TS_OK;
  size_t open = *len - 2;
  while (open > 0 && s[open] != '[' && s[open] != ']')
    open--;
  if (s[open] != '[' || open == 0 || open + 2 > *len - 1)
    return TS_OK;
  const char *p = s + open + 1, *end = s + *len - 1;
  while (p < end) {
    const char *comma = memchr(p, ',', (size_t)(end - p));
    const char *q = comma ? comma : end;
    const char *a = p;
    size_t n = (size_t)(q - p);
    strip(&a, &n);
    if (!ts_name_is_valid(a, n))
      return ts_error_set(err, TS_E_PARSE, "invalid extra '%.*s'", (int)n, a);
    char *norm = ts_name_normalize(a, n);
    ts_strv_push(&e->extras, &e->nextras, norm, strlen(norm));
    free(norm);
    p = comma ? comma + 1 : end;
  }
  *len = open;
  return TS_OK;
}

static enum ts_code check_marker_text(const char *m, size_t n,
                                      struct ts_error *err) {
  struct ts_marker *mk = NULL;
  struct ts_error me = {0};
  if (ts_marker_parse(m, n, &mk, &me) != TS_OK)
    return ts_error_set(err, TS_E_PARSE, "invalid marker '%.*s': %s", (int)n,
                        m, me.detail);
  ts_marker_free(mk);
  return TS_OK;
}

bool ts_reqfile_is_dir_real(void *ctx, const char *path) {
  (void)ctx;
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool names_dir(const struct ts_reqfile_opts *opts, const char *s,
                      size_t len) {
  char *p = ts_xstrndup(s, len);
  if (!p)
    return false;
  bool d;
  if (opts && opts->reader)
    d = opts->reader->is_dir && opts->reader->is_dir(opts->reader->ctx, p);
  else
    d = ts_reqfile_is_dir_real(NULL, p);
  free(p);
  return d;
}

enum ts_code ts_reqfile_mark_editable(struct ts_reqfile_entry *e,
                                      struct ts_error *err) {
  if (e->kind != TS_REQFILE_PATH || is_archive(e->path, strlen(e->path)))
    return ts_error_set(err, TS_E_INVALID,
                        "-e %s: editable installs need a local project "
                        "directory", e->text);
  e->editable = true;
  return TS_OK;
}

enum ts_code ts_reqfile_parse_requirement(const char *s, size_t len,
                                          const struct ts_reqfile_opts *opts,
                                          struct ts_reqfile_entry *e,
                                          struct ts_error *err) {
  memset(e, 0, sizeof *e);
  strip(&s, &len);
  if (len == 0)
    return ts_error_set(err, TS_E_PARSE, "empty requirement");
  if (memchr(s, '\0', len))
    return ts_error_set(err, TS_E_PARSE, "requirement holds a NUL byte");
  enum ts_code rc;
  e->text = ts_xstrndup(s, len);
  bool url = is_url(s, len);
  /* pip splits markers off first: at "; " after a URL, else at ";" */
  const char *name = s, *marker = NULL;
  size_t name_len = len, marker_len = 0;
  for (size_t i = 0; i < len; i++) {
    if (s[i] == ';' && (!url || (i + 1 < len && s[i + 1] == ' '))) {
      name_len = i;
      marker = s + i + 1;
      marker_len = len - i - 1;
      strip(&marker, &marker_len);
      if (marker_len == 0)
        marker = NULL;
      break;
    }
  }
  strip(&name, &name_len);
  if (name_len == 0) {
    rc = ts_error_set(err, TS_E_PARSE, "invalid requirement '%s'", e->text);
    goto fail;
  }
  if (marker && (rc = check_marker_text(marker, marker_len, err)) != TS_OK)
    goto fail;

  if (url) {
    e->kind = TS_REQFILE_URL;
    e->url = ts_xstrndup(name, name_len);
    const char *fn;
    size_t fn_len;
    url_filename(name, name_len, &fn, &fn_len);
    if (has_suffix_ci(fn, fn_len, ".whl")) {
      if ((rc = from_wheel_name(e, fn, fn_len, err)) != TS_OK)
        goto fail;
    } else {
      /* an #egg=name fragment names an sdist or VCS URL */
      const char *hash = memchr(name, '#', name_len);
      for (const char *p = hash; p && p < name + name_len; p++) {
        if ((*p == '#' || *p == '&') &&
            (size_t)(name + name_len - p) > 5 && memcmp(p + 1, "egg=", 4) == 0) {
          const char *v = p + 5;
          size_t n = 0;
          while (v + n < name + name_len && v[n] != '&')
            n++;
          if (!ts_name_is_valid(v, n)) {
            rc = ts_error_set(err, TS_E_PARSE,
                              "invalid #egg= fragment '%.*s' in '%s'", (int)n,
                              v, e->text);
            goto fail;
          }
          e->name = ts_name_normalize(v, n);
          break;
        }
      }
    }
  } else {
    size_t plen = name_len;
    if ((rc = split_extras(e, name, &plen, err)) != TS_OK)
      goto fail;
    /* pip: an archive name is a path (unless it reads "name @ URL"); any
     * other text that looks like a path is one only if the directory
     * exists; everything else is PEP 508. */
    bool looks = looks_like_path(name, name_len);
    bool archive = is_archive(name, plen);
    bool path_like = archive || (looks && names_dir(opts, name, plen));
    const char *at = memchr(name, '@', name_len);
    if (archive && at && !looks_like_path(name, (size_t)(at - name)))
      path_like = false;
    if (path_like) {
      e->kind = TS_REQFILE_PATH;
      e->path = ts_xstrndup(name, plen);
      const char *slash = plen ? memrchr(name, '/', plen) : NULL;
      const char *fn = slash ? slash + 1 : name;
      size_t fn_len = plen - (size_t)(fn - name);
      if (has_suffix_ci(fn, fn_len, ".whl") &&
          (rc = from_wheel_name(e, fn, fn_len, err)) != TS_OK)
        goto fail;
    } else {
      ts_strv_free(e->extras, e->nextras); /* the PEP 508 parser owns extras */
      e->extras = NULL;
      e->nextras = 0;
      e->kind = TS_REQFILE_NAMED;
      struct ts_error re = {0};
      if (ts_requirement_parse(name, name_len, &e->req, &re) != TS_OK) {
        if (looks)
          rc = ts_error_set(err, TS_E_PARSE,
                            "invalid requirement '%s': it looks like a path, "
                            "but no directory '%.*s' exists",
                            e->text, (int)plen, name);
        else
          rc = ts_error_set(err, TS_E_PARSE, "invalid requirement '%s': %s",
                            e->text, re.detail);
        goto fail;
      }
      /* packaging's tokenizer takes "Numpy_" as a name; PEP 508 does not
       * (a name ends with a letter or digit), and no index can serve it */
      if (!ts_name_is_valid(e->req->name, strlen(e->req->name))) {
        rc = ts_error_set(err, TS_E_PARSE,
                          "invalid project name '%s': a name is letters, "
                          "digits, '.', '_' and '-', starting and ending with a "
                          "letter or digit (PEP 508)",
                          e->req->name);
        goto fail;
      }
      if (marker) {
        if (e->req->marker) {
          rc = ts_error_set(err, TS_E_PARSE, "invalid requirement '%s'",
                            e->text);
          goto fail;
        }
        if ((rc = ts_marker_parse(marker, marker_len, &e->req->marker, err)) != TS_OK)
          goto fail;
        marker = NULL;
      }
      e->name = ts_xstrdup(e->req->normalized_name);
    }
  }
  if (marker)
    e->marker = ts_xstrndup(marker, marker_len);
  return TS_OK;
fail:

  ts_reqfile_entry_clear(e);
  return rc;
}

/* ------------------------------------------------------------------ */
/* reading files                                                        */

enum ts_code ts_reqfile_read_real(void *ctx, const char *path, char **data,
                                  size_t *len, struct ts_error *err) {
  (void)ctx;
  struct ts_buf b;
  ts_buf_init(&b, TS_REQFILE_MAX_BYTES);
  enum ts_code rc = ts_fs_read_file(path, &b, err);
  if (rc != TS_OK) {
    ts_buf_clear(&b);
    return rc;
  }
  if (!b.data)
    ts_buf_xappend(&b, "", 0);
  *data = ts_buf_take(&b, len);
  return TS_OK;
}

void ts_reqfile_init(struct ts_reqfile *rf) {
  memset(rf, 0, sizeof *rf);
}

void ts_reqfile_clear(struct ts_reqfile *rf) {
  for (size_t i = 0; i < rf->nentries; i++)
    ts_reqfile_entry_clear(&rf->entries[i]);
  free(rf->entries);
  free(rf->index_url);
  ts_strv_free(rf->extra_index_urls, rf->nextra_index_urls);
  ts_strv_free(rf->find_links, rf->nfind_links);
  ts_strv_free(rf->trusted_hosts, rf->ntrusted_hosts);
  ts_strv_free(rf->no_binary, rf->nno_binary);
  ts_strv_free(rf->only_binary, rf->nonly_binary);
  ts_reqfile_init(rf);
}

/* The parse of one top-level call: caps, include stack, options. */
struct ctx {
  struct ts_reqfile *rf;
  const struct ts_reqfile_opts *opts;
  struct ts_error *err;
  char *stack[TS_REQFILE_MAX_DEPTH + 1]; /* normalised names being read */
  size_t depth;
};

static enum ts_code at_line(struct ctx *c, const char *file, unsigned line,
                            enum ts_code code, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static enum ts_code at_line(struct ctx *c, const char *file, unsigned line,
                            enum ts_code code, const char *fmt, ...) {
  char msg[TS_ERROR_DETAIL_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (line)
    return ts_error_set(c->err, code, "%s:%u: %s", file, line, msg);
  return ts_error_set(c->err, code, "%s: %s", file, msg);
}

/* Lexical clean-up of a relative or absolute path: "a/./b/../c" -> "a/c".
 * Leading ".." of a relative path stay. */
static char *clean_path(const char *p) {
  size_t n = strlen(p);
  char *out = ts_xmalloc(n + 2);
  bool abs = p[0] == '/';
  size_t o = 0;
  if (abs)
    out[o++] = '/';
  size_t base = o; /* components start here */
  const char *s = p;
  while (*s) {
    while (*s == '/')
      s++;
    if (!*s)
      break;
    const char *e = strchr(s, '/');
    size_t len = e ? (size_t)(e - s) : strlen(s);
    if (len == 1 && s[0] == '.') {
      /* skip */
    } else if (len == 2 && s[0] == '.' && s[1] == '.') {
      /* pop the last component unless it is itself ".." */
      size_t start = o;
      while (start > base && out[start - 1] != '/')
        start--;
      bool last_dotdot = o - start == 2 && out[start] == '.' &&
                         out[start + 1] == '.';
      if (o > base && !last_dotdot) {
        o = start > base ? start - 1 : base;
      } else if (!abs) {
        if (o > base)
          out[o++] = '/';
        out[o++] = '.';
        out[o++] = '.';
      }
    } else {
      if (o > base)
        out[o++] = '/';
      memcpy(out + o, s, len);
      o += len;
    }
    s += len;
  }
  if (o == 0)
    out[o++] = '.';
  out[o] = '\0';
  return out;
}

/* dirname(includer) + "/" + name, cleaned; name as is when absolute. */
static char *join_include(const char *includer, const char *name) {
  if (name[0] == '/')
    return clean_path(name);
  const char *slash = strrchr(includer, '/');
  if (!slash)
    return clean_path(name);
  size_t dl = (size_t)(slash - includer);
  size_t nl = strlen(name);
  char *j = ts_xmalloc(dl + 1 + nl + 1);
  memcpy(j, includer, dl);
  j[dl] = '/';
  memcpy(j + dl + 1, name, nl + 1);
  char *c = clean_path(j);
  free(j);
  return c;
}

/* ---- lines ---------------------------------------------------------- */

/* Python's str.splitlines(): length of the line break at s[i], or 0. */
static size_t line_break(const char *s, size_t len, size_t i) {
  unsigned char c = (unsigned char)s[i];
  if (c == '\r')
    return i + 1 < len && s[i + 1] == '\n' ? 2 : 1;
  if (c == '\n' || c == '\v' || c == '\f' || c == 0x1c || c == 0x1d ||
      c == 0x1e)
    return 1;
  if (c == 0xC2 && i + 1 < len && (unsigned char)s[i + 1] == 0x85)
    return 2;
  if (c == 0xE2 && i + 2 < len && (unsigned char)s[i + 1] == 0x80 &&
      ((unsigned char)s[i + 2] == 0xA8 || (unsigned char)s[i + 2] == 0xA9))
    return 3;
  return 0;
}

/* pip's COMMENT_RE.match: a line that is a comment ("#..." or "  #..."). */
static bool is_comment_line(const char *s, size_t len) {
  size_t i = 0;
  while (i < len && is_space(s[i]))
    i++;
  return i < len && s[i] == '#';
}

/* ---- options -------------------------------------------------------- */

enum opt_id {
  O_REQUIREMENT, O_CONSTRAINT, O_EDITABLE, O_INDEX_URL, O_EXTRA_INDEX_URL,
  O_NO_INDEX, O_FIND_LINKS, O_PRE, O_REQUIRE_HASHES, O_PREFER_BINARY,
  O_ONLY_BINARY, O_NO_BINARY, O_TRUSTED_HOST, O_USE_FEATURE, O_HASH,
  O_CONFIG_SETTINGS, O_GLOBAL_OPTION,
};

static const struct opt {
  char short_name; /* 0: none */
  const char *long_name;
  bool takes_arg;
  bool per_requirement;
  enum opt_id id;
} options[] = {
    {'r', "--requirement", true, false, O_REQUIREMENT},
    {'c', "--constraint", true, false, O_CONSTRAINT},
    {'e', "--editable", true, false, O_EDITABLE},
    {'i', "--index-url", true, false, O_INDEX_URL},
    {0, "--pypi-url", true, false, O_INDEX_URL},
    {0, "--extra-index-url", true, false, O_EXTRA_INDEX_URL},
    {0, "--no-index", false, false, O_NO_INDEX},
    {'f', "--find-links", true, false, O_FIND_LINKS},
    {0, "--pre", false, false, O_PRE},
    {0, "--require-hashes", false, false, O_REQUIRE_HASHES},
    {0, "--prefer-binary", false, false, O_PREFER_BINARY},
    {0, "--only-binary", true, false, O_ONLY_BINARY},
    {0, "--no-binary", true, false, O_NO_BINARY},
    {0, "--trusted-host", true, false, O_TRUSTED_HOST},
    {0, "--use-feature", true, false, O_USE_FEATURE},
    {0, "--hash", true, true, O_HASH},
    {0, "--config-settings", true, true, O_CONFIG_SETTINGS},
    {0, "--global-option", true, true, O_GLOBAL_OPTION},
};
#define NOPTIONS (sizeof options / sizeof options[0])

/* One parsed option with its value. */
struct optval {
  const struct opt *opt;
  char *value; /* NULL for flags */
};

struct tokens {
  char **v;
  size_t n;
};

static void tokens_free(struct tokens *t) {
  ts_strv_free(t->v, t->n);
  t->v = NULL;
  t->n = 0;
}

/* shlex.split(s) in POSIX mode, without comments. */
static enum ts_code shlex_split(const char *s, size_t len, struct tokens *out,
                                const char **why) {
  struct ts_buf tok;
  ts_buf_init(&tok, TS_REQFILE_MAX_LINE);
  bool in_tok = false;
  size_t i = 0;
  enum ts_code rc = TS_OK;
  out->v = NULL;
  out->n = 0;
  while (i < len && rc == TS_OK) {
    char c = s[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (in_tok) {
        ts_strv_push(&out->v, &out->n, tok.data ? tok.data : "", tok.len);
        ts_buf_reset(&tok);
        in_tok = false;
      }
      i++;
      continue;
    }
    in_tok = true;
    if (c == '\\') {
      if (i + 1 >= len) {
        *why = "no escaped character";
        rc = TS_E_PARSE;
        break;
      }
      rc = ts_buf_append(&tok, s + i + 1, 1);
      i += 2;
    } else if (c == '\'') {
      const char *q = memchr(s + i + 1, '\'', len - i - 1);
      if (!q) {
        *why = "no closing quotation";
        rc = TS_E_PARSE;
        break;
      }
      rc = ts_buf_append(&tok, s + i + 1, (size_t)(q - s - i - 1));
      i = (size_t)(q - s) + 1;
    } else if (c == '"') {
      i++;
      for (;;) {
        if (i >= len) {
          *why = "no closing quotation";
          rc = TS_E_PARSE;
          break;
        }
        if (s[i] == '"') {
          i++;
          break;
        }
        if (s[i] == '\\' && i + 1 < len && (s[i + 1] == '"' || s[i + 1] == '\\'))
          i++;
        if ((rc = ts_buf_append(&tok, s + i, 1)) != TS_OK)
          break;
        i++;
      }
      if (rc == TS_OK && i > len)
        rc = TS_E_PARSE;
    } else {
      rc = ts_buf_append(&tok, s + i, 1);
      i++;
    }
  }
  if (rc == TS_OK && in_tok)
    ts_strv_push(&out->v, &out->n, tok.data ? tok.data : "", tok.len);
  ts_buf_clear(&tok);
  if (rc != TS_OK)
    tokens_free(out);
  return rc;
}

/* optparse's _match_abbrev over the long names. */
static const struct opt *match_long(const char *name, size_t len,
                                    bool *ambiguous) {
  const struct opt *found = NULL;
  size_t count = 0;
  *ambiguous = false;
  for (size_t i = 0; i < NOPTIONS; i++) {
    const char *ln = options[i].long_name;
    if (strlen(ln) == len && memcmp(ln, name, len) == 0)
      return &options[i];
    if (strlen(ln) > len && memcmp(ln, name, len) == 0) {
      found = &options[i];
      count++;
    }
  }
  if (count > 1) {
    *ambiguous = true;
    return NULL;
  }
  return found;
}

static void optvals_free(struct optval *v, size_t n) {
  for (size_t i = 0; i < n; i++)
    free(v[i].value);
  free(v);
}

/* Parses option tokens; every token must be an option or its value. */
static enum ts_code parse_options(struct ctx *c, const char *file,
                                  unsigned line, const struct tokens *t,
                                  struct optval **out, size_t *nout) {
  *out = NULL;
  *nout = 0;
  struct optval *v = NULL;
  size_t n = 0, cap = 0;
  enum ts_code rc = TS_OK;
  for (size_t i = 0; i < t->n && rc == TS_OK; i++) {
    const char *tok = t->v[i];
    const struct opt *o = NULL;
    const char *value = NULL;
    if (strcmp(tok, "--") == 0) {
      if (i + 1 < t->n)
        rc = at_line(c, file, line, TS_E_PARSE, "unexpected argument '%s'",
                     t->v[i + 1]);
      break;
    }
    if (tok[0] == '-' && tok[1] == '-') {
      const char *eq = strchr(tok, '=');
      size_t nl = eq ? (size_t)(eq - tok) : strlen(tok);
      bool amb;
      o = match_long(tok, nl, &amb);
      if (!o) {
        rc = at_line(c, file, line, TS_E_PARSE, "%s option: %.*s",
                     amb ? "ambiguous" : "no such", (int)nl, tok);
        break;
      }
      if (eq) {
        if (!o->takes_arg) {
          rc = at_line(c, file, line, TS_E_PARSE,
                       "%s option does not take a value", o->long_name);
          break;
        }
        value = eq + 1;
      }
    } else if (tok[0] == '-' && tok[1]) {
      for (size_t k = 0; k < NOPTIONS; k++)
        if (options[k].short_name == tok[1])
          o = &options[k];
      if (!o) {
        rc = at_line(c, file, line, TS_E_PARSE, "no such option: -%c", tok[1]);
        break;
      }
      if (tok[2])
        value = tok + 2; /* "-rfile" */
    } else {
      rc = at_line(c, file, line, TS_E_PARSE, "unexpected argument '%s'", tok);
      break;
    }
    if (o->takes_arg && !value) {
      if (i + 1 >= t->n) {
        rc = at_line(c, file, line, TS_E_PARSE, "%s option requires 1 argument",
                     o->long_name);
        break;
      }
      value = t->v[++i];
    }
    v = ts_vec_grow(v, &cap, n + 1, sizeof *v);
    v[n].opt = o;
    v[n].value = ts_xstrdup(value);
    n++;
  }
  if (rc != TS_OK) {
    optvals_free(v, n);
    return rc;
  }
  *out = v;
  *nout = n;
  return TS_OK;
}

/* --hash=sha256:<hex>, as pip's _handle_merge_hash (+ a length check). */
static enum ts_code check_hash(struct ctx *c, const char *file, unsigned line,
                               const char *v) {
  const char *colon = strchr(v, ':');
  if (!colon)
    return at_line(c, file, line, TS_E_PARSE,
                   "arguments to --hash must be a hash name followed by a "
                   "value, like --hash=sha256:abcdef...");
  size_t al = (size_t)(colon - v), want = 0;
  if (al == 6 && memcmp(v, "sha256", 6) == 0)
    want = 64;
  else if (al == 6 && memcmp(v, "sha384", 6) == 0)
    want = 96;
  else if (al == 6 && memcmp(v, "sha512", 6) == 0)
    want = 128;
  else
    return at_line(c, file, line, TS_E_PARSE,
                   "allowed hash algorithms for --hash are sha256, sha384, "
                   "sha512 (got '%.*s')",
                   (int)al, v);
  const char *h = colon + 1;
  size_t n = strlen(h);
  bool hex = n == want;
  for (size_t i = 0; i < n && hex; i++)
    hex = (h[i] >= '0' && h[i] <= '9') || (h[i] >= 'a' && h[i] <= 'f') ||
          (h[i] >= 'A' && h[i] <= 'F');
  if (!hex)
    return at_line(c, file, line, TS_E_PARSE,
                   "--hash value for %.*s must be %zu hex digits", (int)al, v,
                   want);
  return TS_OK;
}

static enum ts_code parse_file(struct ctx *c, const char *name,
                               const char *data, size_t len,
                               bool is_constraint);

static enum ts_code include(struct ctx *c, const char *file, unsigned line,
                            const char *target, bool is_constraint) {
  if (is_url(target, strlen(target)) || is_url(file, strlen(file)))
    return at_line(c, file, line, TS_E_UNSUPPORTED,
                   "requirements files from URLs are not supported ('%s')",
                   target);
  if (!*target)
    return at_line(c, file, line, TS_E_PARSE, "empty file name");
  char *path = join_include(file, target);
  enum ts_code rc = TS_OK;
  for (size_t i = 0; i < c->depth; i++) {
    if (strcmp(c->stack[i], path) == 0) {
      rc = at_line(c, file, line, TS_E_PARSE,
                   "'%s' includes itself (through '%s')", path, file);
      free(path);
      return rc;
    }
  }
  if (c->depth >= TS_REQFILE_MAX_DEPTH) {
    rc = at_line(c, file, line, TS_E_TOO_BIG,
                 "requirements files nested deeper than %d",
                 TS_REQFILE_MAX_DEPTH);
    free(path);
    return rc;
  }
  char *data = NULL;
  size_t dlen = 0;
  rc = TS_OK;
  if (c->rf->files_read >= TS_REQFILE_MAX_FILES) {
    rc = at_line(c, file, line, TS_E_TOO_BIG,
                 "more than %d requirements files read", TS_REQFILE_MAX_FILES);
  } else {
    struct ts_error re = {0};
    const struct ts_reqfile_reader *rd = c->opts ? c->opts->reader : NULL;
    enum ts_code r2 = rd ? rd->read(rd->ctx, path, &data, &dlen, &re)
                         : ts_reqfile_read_real(NULL, path, &data, &dlen, &re);
    if (r2 != TS_OK)
      rc = at_line(c, file, line, r2, "cannot read '%s': %s", path, re.detail);
  }
  if (rc == TS_OK)
    rc = parse_file(c, path, data, dlen, is_constraint);
  free(data);
  free(path);
  return rc;
}

static enum ts_code add_entry(struct ctx *c, const char *file, unsigned line,
                              const char *req, size_t req_len,
                              const struct optval *ov, size_t nov,
                              bool is_constraint) {
  struct ts_reqfile_entry e;
  struct ts_error pe = {0};
  enum ts_code rc = ts_reqfile_parse_requirement(req, req_len, c->opts, &e, &pe);
  if (rc != TS_OK)
    return at_line(c, file, line, rc, "%s", pe.detail);
  for (size_t i = 0; i < nov && rc == TS_OK; i++) {
    if (ov[i].opt->id != O_HASH)
      continue;
    rc = check_hash(c, file, line, ov[i].value);
    if (rc == TS_OK) {
      char *h = ov[i].value;
      /* hex in lower case: hashes compare as strings downstream */
      for (char *p = strchr(h, ':'); p && *p; p++)
        if (*p >= 'A' && *p <= 'F')
          *p = (char)(*p - 'A' + 'a');
      ts_strv_push(&e.hashes, &e.nhashes, h, strlen(h));
    }
  }
  if (rc == TS_OK && is_constraint) {
    bool extras = e.nextras || (e.req && e.req->nextras);
    if (!e.name)
      rc = at_line(c, file, line, TS_E_PARSE,
                   "unnamed requirements are not allowed as constraints");
    else if (extras)
      rc = at_line(c, file, line, TS_E_PARSE, "constraints cannot have extras");
  }
  e.is_constraint = is_constraint;
  e.line = line;
  if (rc == TS_OK) {
    e.file = ts_xstrdup(file);
    c->rf->entries = ts_xreallocarray(c->rf->entries, c->rf->nentries + 1,
                                      sizeof *c->rf->entries);
    c->rf->entries[c->rf->nentries++] = e;
    return TS_OK;
  }
  ts_reqfile_entry_clear(&e);
  return rc;
}

/* One logical line (joined, comments removed, variables expanded). */
static enum ts_code handle_line(struct ctx *c, const char *file, unsigned line,
                                const char *s, size_t len, bool is_constraint) {
  /* break_args_options: args are the tokens of line.split(" ") before the
   * first one starting with '-'; the rest are options */
  size_t opt_start = len, i = 0;
  for (;;) {
    size_t j = i;
    while (j < len && s[j] != ' ')
      j++;
    if (j > i && s[i] == '-') {
      opt_start = i;
      break;
    }
    if (j >= len)
      break;
    i = j + 1;
  }
  const char *args = s;
  size_t args_len = opt_start == len ? len : (opt_start ? opt_start - 1 : 0);
  struct tokens toks = {0};
  const char *why = "";
  if (opt_start < len &&
      shlex_split(s + opt_start, len - opt_start, &toks, &why) != TS_OK)
    return at_line(c, file, line, TS_E_PARSE, "invalid options: %s", why);
  struct optval *ov = NULL;
  size_t nov = 0;
  enum ts_code rc = parse_options(c, file, line, &toks, &ov, &nov);
  tokens_free(&toks);
  if (rc != TS_OK)
    return rc;
  /* "-e PATH": the option's value is the requirement (a project
   * directory); nothing else may share the line */
  for (size_t k = 0; k < nov && rc == TS_OK; k++) {
    if (ov[k].opt->id != O_EDITABLE)
      continue;
    if (args_len > 0 || nov > 1) {
      rc = at_line(c, file, line, TS_E_PARSE,
                   "-e %s: an editable requirement stands alone on its line",
                   ov[k].value);
      break;
    }
    rc = add_entry(c, file, line, ov[k].value, strlen(ov[k].value), NULL, 0,
                   is_constraint);
    if (rc == TS_OK) {
      struct ts_reqfile_entry *e = &c->rf->entries[c->rf->nentries - 1];
      rc = ts_reqfile_mark_editable(e, NULL);
      if (rc != TS_OK)
        rc = at_line(c, file, line, rc,
                     "-e %s: editable installs need a local project "
                     "directory", ov[k].value);
    }
    goto out;
  }
  if (rc != TS_OK)
    goto out;
  if (args_len > 0) {
    for (size_t k = 0; k < nov && rc == TS_OK; k++)
      if (!ov[k].opt->per_requirement)
        rc = at_line(c, file, line, TS_E_PARSE,
                     "option %s is not allowed on a requirement line",
                     ov[k].opt->long_name);
    if (rc == TS_OK)
      rc = add_entry(c, file, line, args, args_len, ov, nov, is_constraint);
    goto out;
  }
  struct ts_reqfile *rf = c->rf;
  for (size_t k = 0; k < nov && rc == TS_OK; k++) {
    const char *v = ov[k].value;
    switch (ov[k].opt->id) {
    case O_REQUIREMENT:
      rc = include(c, file, line, v, false);
      break;
    case O_CONSTRAINT:
      rc = include(c, file, line, v, true);
      break;
    case O_INDEX_URL: {
      free(rf->index_url);
      rf->index_url = ts_xstrdup(v);
      break;
    }
    case O_EXTRA_INDEX_URL:
      ts_strv_push(&rf->extra_index_urls, &rf->nextra_index_urls, v, strlen(v));
      break;
    case O_NO_INDEX:
      rf->no_index = true;
      break;
    case O_FIND_LINKS:
      ts_strv_push(&rf->find_links, &rf->nfind_links, v, strlen(v));
      break;
    case O_PRE:
      rf->pre = true;
      break;
    case O_REQUIRE_HASHES:
      rf->require_hashes = true;
      break;
    case O_PREFER_BINARY:
      rf->prefer_binary = true;
      break;
    case O_ONLY_BINARY:
      ts_strv_push(&rf->only_binary, &rf->nonly_binary, v, strlen(v));
      break;
    case O_NO_BINARY:
      ts_strv_push(&rf->no_binary, &rf->nno_binary, v, strlen(v));
      break;
    case O_TRUSTED_HOST:
      ts_strv_push(&rf->trusted_hosts, &rf->ntrusted_hosts, v, strlen(v));
      break;
    case O_USE_FEATURE:
      break;
    case O_HASH:
    case O_CONFIG_SETTINGS:
    case O_GLOBAL_OPTION:
      rc = at_line(c, file, line, TS_E_PARSE,
                   "option %s needs a requirement on the same line",
                   ov[k].opt->long_name);
      break;
    case O_EDITABLE:
      break;
    }

  }
out:
  optvals_free(ov, nov);
  return rc;
}

/* ${VAR} with VAR in [A-Z0-9_]+, as pip's ENV_VAR_RE; unset or empty
 * variables stay as written. */
static enum ts_code expand_env(struct ctx *c, const char *s, size_t len,
                               struct ts_buf *out) {
  size_t run = 0;
  enum ts_code rc = TS_OK;
  for (size_t i = 0; i < len && rc == TS_OK; i++) {
    if (s[i] != '$' || i + 1 >= len || s[i + 1] != '{')
      continue;
    size_t j = i + 2;
    while (j < len && ((s[j] >= 'A' && s[j] <= 'Z') ||
                       (s[j] >= '0' && s[j] <= '9') || s[j] == '_'))
      j++;
    if (j == i + 2 || j >= len || s[j] != '}')
      continue;
    char name[TS_REQFILE_MAX_ENV_NAME + 1];
    size_t nl = j - i - 2;
    if (nl >= sizeof name)
      continue;
    memcpy(name, s + i + 2, nl);
    name[nl] = '\0';
    const char *val = c->opts && c->opts->getenv
                          ? c->opts->getenv(c->opts->getenv_ctx, name)
                          : getenv(name);
    if (!val || !*val)
      continue;
    rc = ts_buf_append(out, s + run, i - run);
    if (rc == TS_OK)
      rc = ts_buf_append_str(out, val);
    run = j + 1;
    i = j;
  }
  if (rc == TS_OK)
    rc = ts_buf_append(out, s + run, len - run);
  return rc;
}

/* A line that failed and still holds ${VAR}: pip leaves unset variables
 * as written, so the error shows the symptom ("invalid requirement
 * 'x==${VER}'"); name the cause after it. */
static void note_unset_env(struct ctx *c, const char *s, size_t len) {
  if (!c->err)
    return;
  for (size_t i = 0; i + 3 < len; i++) {
    if (s[i] != '$' || s[i + 1] != '{')
      continue;
    size_t j = i + 2;
    while (j < len && ((s[j] >= 'A' && s[j] <= 'Z') ||
                       (s[j] >= '0' && s[j] <= '9') || s[j] == '_'))
      j++;
    if (j == i + 2 || j >= len || s[j] != '}' || j - i - 2 > TS_REQFILE_MAX_ENV_NAME)
      continue;
    size_t used = strlen(c->err->detail);
    snprintf(c->err->detail + used, sizeof c->err->detail - used,
             " (the environment variable %.*s is unset or empty)", (int)(j - i - 2),
             s + i + 2);
    return;
  }
}

/* ignore_comments + expand_env_variables + handle_line for one joined
 * line. */
static enum ts_code process_line(struct ctx *c, const char *file,
                                 unsigned line, const char *s, size_t len,
                                 bool is_constraint) {
  /* COMMENT_RE.sub: cut at the first '#' that starts the line or follows
   * whitespace, together with that whitespace */
  for (size_t i = 0; i < len; i++) {
    if (s[i] == '#' && (i == 0 || is_space(s[i - 1]))) {
      size_t k = i;
      while (k > 0 && is_space(s[k - 1]))
        k--;
      len = k;
      break;
    }
  }
  strip(&s, &len);
  if (len == 0)
    return TS_OK;
  struct ts_buf x;
  ts_buf_init(&x, TS_REQFILE_MAX_LINE);
  enum ts_code rc = expand_env(c, s, len, &x);
  if (rc == TS_E_TOO_BIG)
    rc = at_line(c, file, line, rc, "line longer than %u bytes",
                 TS_REQFILE_MAX_LINE);
  else
    rc = handle_line(c, file, line, x.data ? x.data : "", x.len,
                     is_constraint);
  if (rc != TS_OK)
    note_unset_env(c, x.data ? x.data : "", x.len);
  ts_buf_clear(&x);
  return rc;
}

static enum ts_code parse_file(struct ctx *c, const char *name,
                               const char *data, size_t len,
                               bool is_constraint) {
  struct ts_reqfile *rf = c->rf;
  if (len > TS_REQFILE_MAX_BYTES)
    return at_line(c, name, 0, TS_E_TOO_BIG, "larger than %u bytes",
                   TS_REQFILE_MAX_BYTES);
  if (rf->bytes_read + len > TS_REQFILE_MAX_TOTAL)
    return at_line(c, name, 0, TS_E_TOO_BIG,
                   "requirements files larger than %u bytes in all",
                   TS_REQFILE_MAX_TOTAL);
  rf->files_read++;
  rf->bytes_read += len;
  if (len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0) {
    data += 3;
    len -= 3;
  }
  size_t bad = ts_utf8_check(data, len);
  if (bad != len) {
    unsigned ln = 1;
    for (size_t i = 0; i < bad; i++)
      ln += data[i] == '\n';
    return at_line(c, name, ln, TS_E_PARSE, "not UTF-8 text");
  }
  c->stack[c->depth++] = clean_path(name);


  /* join_lines: a line ending in '\' continues on the next one, unless it
   * is a comment; the joined pieces lose their leading/trailing '\'. */
  struct ts_buf joined;
  ts_buf_init(&joined, TS_REQFILE_MAX_LINE);
  bool joining = false;
  unsigned primary = 0, lineno = 0;
  enum ts_code rc = TS_OK;
  size_t pos = 0;
  while (pos < len && rc == TS_OK) {
    size_t e = pos, br = 0;
    while (e < len && (br = line_break(data, len, e)) == 0)
      e++;
    const char *ls = data + pos;
    size_t ll = e - pos;
    lineno++;
    pos = e + br;
    if (memchr(ls, '\0', ll)) {
      rc = at_line(c, name, lineno, TS_E_PARSE, "NUL byte in the line");
      break;
    }
    bool comment = is_comment_line(ls, ll);
    if (ll == 0 || ls[ll - 1] != '\\' || comment) {
      if (joining) {
        if (comment)
          rc = ts_buf_append(&joined, " ", 1);
        if (rc == TS_OK)
          rc = ts_buf_append(&joined, ls, ll);
        if (rc == TS_OK)
          rc = process_line(c, name, primary, joined.data, joined.len,
                            is_constraint);
        else
          rc = at_line(c, name, primary, rc, "line longer than %u bytes",
                       TS_REQFILE_MAX_LINE);
        ts_buf_reset(&joined);
        joining = false;
      } else {
        rc = process_line(c, name, lineno, ls, ll, is_constraint);
      }
    } else {
      if (!joining) {
        primary = lineno;
        joining = true;
      }
      size_t a = 0, b = ll; /* str.strip("\\") */
      while (a < b && ls[a] == '\\')
        a++;
      while (b > a && ls[b - 1] == '\\')
        b--;
      rc = ts_buf_append(&joined, ls + a, b - a);
      if (rc != TS_OK)
        rc = at_line(c, name, primary, rc, "line longer than %u bytes",
                     TS_REQFILE_MAX_LINE);
    }
  }
  if (rc == TS_OK && joining)
    rc = process_line(c, name, primary, joined.data ? joined.data : "",
                      joined.len, is_constraint);
  ts_buf_clear(&joined);
  free(c->stack[--c->depth]);
  return rc;
}

enum ts_code ts_reqfile_add_buffer(struct ts_reqfile *rf, const char *name,
                                   const char *data, size_t len,
                                   bool is_constraint,
                                   const struct ts_reqfile_opts *opts,
                                   struct ts_error *err) {
  struct ctx c = {.rf = rf, .opts = opts, .err = err};
  if (!name || (!data && len))
    return ts_error_set(err, TS_E_INVALID, "no requirements file given");
  return parse_file(&c, name, data ? data : "", len, is_constraint);
}

enum ts_code ts_reqfile_add_file(struct ts_reqfile *rf, const char *path,
                                 bool is_constraint,
                                 const struct ts_reqfile_opts *opts,
                                 struct ts_error *err) {
  if (!path || !*path)
    return ts_error_set(err, TS_E_INVALID, "no requirements file given");
  if (is_url(path, strlen(path)))
    return ts_error_set(err, TS_E_UNSUPPORTED,
                        "requirements files from URLs are not supported ('%s')",
                        path);
  if (rf->files_read >= TS_REQFILE_MAX_FILES)
    return ts_error_set(err, TS_E_TOO_BIG, "more than %d requirements files",
                        TS_REQFILE_MAX_FILES);
  char *data = NULL;
  size_t len = 0;
  struct ts_error re = {0};
  const struct ts_reqfile_reader *rd = opts ? opts->reader : NULL;
  enum ts_code rc = rd ? rd->read(rd->ctx, path, &data, &len, &re)
                       : ts_reqfile_read_real(NULL, path, &data, &len, &re);
  if (rc != TS_OK)
    return ts_error_set(err, rc, "cannot read requirements file '%s': %s",
                        path, re.detail);
  rc = ts_reqfile_add_buffer(rf, path, data, len, is_constraint, opts, err);
  free(data);
  return rc;
}
