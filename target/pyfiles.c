/*
 * target/pyfiles.c — strict readers of pyvenv.cfg, _sysconfigdata_*.py,
 * patchlevel.h and ELF headers (target/pyfiles.h).
 */
#include "target/pyfiles.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/str.h"

/* ---- pyvenv.cfg ---------------------------------------------------------- */

static bool is_key_char(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
}

/* "X.Y.Z" or "X.Y.Z.<level>.<serial>" (virtualenv's version_info). */
/* "X.Y.Z" at the start of v, digits and dots only: its length, or 0. */
static int scan_xyz(const char *v, int *major, int *minor, int *micro)
{
  int n = 0;
  if (sscanf(v, "%3d.%3d.%3d%n", major, minor, micro, &n) != 3 || n == 0)
    return 0;
  for (int i = 0; i < n; i++)
    if (!(v[i] == '.' || (v[i] >= '0' && v[i] <= '9')))
      return 0;
  return n;
}

static bool parse_cfg_version(const char *v, int *major, int *minor, int *micro)
{
  char tail[64] = "";
  int n = scan_xyz(v, major, minor, micro);
  if (n == 0)
    return false;
  v += n;
  if (!*v)
    return true;
  static const char *const levels[] = {".final.", ".candidate.", ".beta.", ".alpha."};
  for (size_t i = 0; i < 4; i++) {
    size_t k = strlen(levels[i]);
    if (strncmp(v, levels[i], k) == 0) {
      snprintf(tail, sizeof tail, "%s", v + k);
      if (!tail[0] || strspn(tail, "0123456789") != strlen(tail))
        return false;
      return true;
    }
  }
  return false;
}

enum ts_code ts_pyvenv_cfg_parse(const char *text, size_t len, struct ts_pyvenv_cfg *out,
                                 struct ts_error *err)
{
  static const char what[] = "pyvenv.cfg";
  memset(out, 0, sizeof *out);
  char *seen[32];
  size_t nseen = 0;
  int vmaj = -1, vmin = -1, vmic = -1;
  enum ts_code rc = TS_OK;
  size_t pos = 0;
  for (int line = 1; pos < len && rc == TS_OK; line++) {
    const char *s = text + pos;
    const char *nl = memchr(s, '\n', len - pos);
    if (!nl) {
      rc = ts_error_set(err, TS_E_UNSUPPORTED, "%s: line %d has no end of line", what, line);
      break;
    }
    size_t n = (size_t)(nl - s);
    pos += n + 1;
    if (n == 0)
      continue;
    size_t k = 0;
    while (k < n && is_key_char(s[k]))
      k++;
    const char *v = s + k + 3;
    size_t vn = k + 3 <= n ? n - k - 3 : 0;
    if (k == 0 || k + 3 >= n || memcmp(s + k, " = ", 3) != 0 || v[0] == ' ' ||
        v[0] == '\t' || v[vn - 1] == ' ' || v[vn - 1] == '\t' || v[vn - 1] == '\r' ||
        memchr(v, '\0', vn)) {
      rc = ts_error_set(err, TS_E_UNSUPPORTED, "%s: line %d is not 'key = value'", what, line);
      break;
    }
    for (size_t i = 0; i < nseen && rc == TS_OK; i++)
      if (strlen(seen[i]) == k && memcmp(seen[i], s, k) == 0)
        rc = ts_error_set(err, TS_E_UNSUPPORTED, "%s: line %d repeats key '%s'", what, line, seen[i]);
    if (rc != TS_OK || nseen == sizeof seen / sizeof seen[0]) {
      if (rc == TS_OK)
        rc = ts_error_set(err, TS_E_UNSUPPORTED, "%s: more than %d keys", what, (int)nseen);
      break;
    }
    seen[nseen++] = ts_xstrndup(s, k);
    char *value = ts_xstrndup(v, vn);
    const char *key = seen[nseen - 1];
    if (strcmp(key, "home") == 0) {
      out->home = value;
      value = NULL;
    } else if (strcmp(key, "version") == 0 || strcmp(key, "version_info") == 0) {
      int a, b, c;
      if (!parse_cfg_version(value, &a, &b, &c) ||
          (vmaj >= 0 && (a != vmaj || b != vmin || c != vmic)))
        rc = ts_error_set(err, TS_E_UNSUPPORTED, "%s: line %d: version '%s' is not X.Y.Z or disagrees", what, line,
                        value);
      vmaj = a, vmin = b, vmic = c;
    } else if (strcmp(key, "include-system-site-packages") == 0) {
      if (strcmp(value, "true") != 0 && strcmp(value, "false") != 0)
        rc = ts_error_set(err, TS_E_UNSUPPORTED, "%s: line %d: include-system-site-packages is '%s'", what, line,
                        value);
      out->system_site = value[0] == 't';
    }
    free(value);
  }
  for (size_t i = 0; i < nseen; i++)
    free(seen[i]);
  if (rc == TS_OK && (!out->home || vmaj < 0))
    rc = ts_error_set(err, TS_E_UNSUPPORTED, "%s: no %s", what, !out->home ? "home" : "version");
  if (rc != TS_OK) {
    ts_pyvenv_cfg_clear(out);
    return rc;
  }
  out->major = vmaj, out->minor = vmin, out->micro = vmic;
  return TS_OK;
}

void ts_pyvenv_cfg_clear(struct ts_pyvenv_cfg *cfg)
{
  free(cfg->home);
  memset(cfg, 0, sizeof *cfg);
}

/* ---- _sysconfigdata_*.py ------------------------------------------------- */

/* Lowercase config vars that sysconfig's install schemes substitute: one in
 * build_time_vars would replace what sysconfig computed for this venv. */
static const char *const scheme_vars[] = {
    "base", "platbase", "installed_base", "installed_platbase", "py_version_short",
    "py_version_nodot", "abiflags", "platlibdir", "abi_thread", "userbase",
    "py_version", "prefix_scheme"};

struct wanted {
  const char *key;
  char **str;
  int *num;
  bool required;
  bool seen;
};

/* value: a complete one-line literal — 'text' (no backslash or quote inside)
 * or a decimal integer — followed by ',' or '}' and the end of the line. */
static bool read_literal(const char *v, size_t n, struct wanted *w)
{
  size_t end;
  if (n > 0 && v[0] == '\'') {
    const char *q = memchr(v + 1, '\'', n - 1);
    if (!q || memchr(v + 1, '\\', (size_t)(q - v - 1)))
      return false;
    end = (size_t)(q - v) + 1;
    if (!w->str)
      return false;
    if (end != n - 1 || (v[end] != ',' && v[end] != '}'))
      return false;
    *w->str = ts_xstrndup(v + 1, end - 2);
    return true;
  }
  end = 0;
  while (end < n && v[end] >= '0' && v[end] <= '9' && end < 9)
    end++;
  if (end == 0 || !w->num || end != n - 1 || (v[end] != ',' && v[end] != '}'))
    return false;
  int num = 0;
  for (size_t i = 0; i < end; i++)
    num = num * 10 + (v[i] - '0');
  *w->num = num;
  return true;
}

/* An entry at s ('KEY': value...) or a string continuation ('text',).
 * False on anything unexpected, with why set. */
static bool scan_entry(const char *s, size_t n, struct wanted *w, size_t nw, const char **why)
{
  size_t k = 1;
  while (k < n && s[k] != '\'' && s[k] != '\\')
    k++;
  if (k + 3 > n || s[k] != '\'' || s[k + 1] != ':' || s[k + 2] != ' ')
    return true; /* 'continuation', */
  const char *key = s + 1;
  size_t kn = k - 1;
  /* most of the ~1,000 keys are neither: one look at the first letter */
  if (key[0] >= 'a' && key[0] <= 'z') {
    for (size_t j = 0; j < sizeof scheme_vars / sizeof scheme_vars[0]; j++)
      if (scheme_vars[j][0] == key[0] && strlen(scheme_vars[j]) == kn &&
          memcmp(scheme_vars[j], key, kn) == 0) {
        *why = "install-scheme variable";
        return false;
      }
    return true;
  }
  for (size_t j = 0; j < nw; j++) {
    if (w[j].key[0] != key[0] || strlen(w[j].key) != kn || memcmp(w[j].key, key, kn) != 0)
      continue;
    if (w[j].seen) {
      *why = "repeated key";
      return false;
    }
    w[j].seen = true;
    *why = "value that is not a one-line literal";
    return read_literal(s + k + 3, n - k - 3, &w[j]);
  }
  return true;
}

/* One line of the dict after the first; *closed when it ends it. */
static bool scan_line(const char *s, size_t n, struct wanted *w, size_t nw, bool *closed,
                      const char **why)
{
  size_t i = 0;
  while (i < n && s[i] == ' ')
    i++;
  if (i == 0 || i == n) {
    /* column 0: only 3.13's closing brace */
    *closed = n == 1 && s[0] == '}';
    *why = i == n && n ? "blank line" : "statement beside the dict";
    return *closed;
  }
  *closed = s[n - 1] == '}';
  *why = "line";
  if (s[i] != '\'')
    return s[i] == '"'; /* a continuation chunk holding a quote */
  return scan_entry(s + i, n - i, w, nw, why);
}

enum ts_code ts_sysconfigdata_scan(const char *text, size_t len, struct ts_sysconfigdata *out,
                                   struct ts_error *err)
{
  static const char what[] = "_sysconfigdata";
  static const char head[] = "# system configuration generated and used by the sysconfig module\n"
                             "build_time_vars = {";
  memset(out, 0, sizeof *out);
  struct wanted w[] = {
      {"ABIFLAGS", &out->abiflags, NULL, true, false},
      {"EXT_SUFFIX", &out->ext_suffix, NULL, true, false},
      {"MULTIARCH", &out->multiarch, NULL, true, false},
      {"PLATLIBDIR", &out->platlibdir, NULL, false, false},
      {"VERSION", &out->version, NULL, true, false},
      {"Py_GIL_DISABLED", NULL, &out->gil_disabled, false, false},
      {"Py_DEBUG", NULL, &out->debug, false, false},
  };
  size_t nw = sizeof w / sizeof w[0];
  size_t hn = sizeof head - 1;
  if (len < hn || memcmp(text, head, hn) != 0 || memchr(text, '\0', len))
    return ts_error_set(err, TS_E_UNSUPPORTED, "%s: not a generated build_time_vars file",
                        what);
  const char *why = "text";
  bool closed = false;
  int line = 2;
  /* pprint puts the first entry beside the brace; 3.13 ends the line there */
  const char *s = text + hn;
  const char *nl = memchr(s, '\n', len - hn);
  size_t n = nl ? (size_t)(nl - s) : len - hn;
  size_t pos = hn + n + (nl ? 1 : 0);
  bool ok = n == 0 || (s[0] == '\'' && scan_entry(s, n, w, nw, &why));
  closed = ok && n > 0 && s[n - 1] == '}';
  while (ok && pos < len && !closed) {
    line++;
    s = text + pos;
    nl = memchr(s, '\n', len - pos);
    n = nl ? (size_t)(nl - s) : len - pos;
    pos += n + (nl ? 1 : 0);
    ok = scan_line(s, n, w, nw, &closed, &why);
  }
  while (ok && pos < len && text[pos] == '\n')
    pos++;
  if (ok && (!closed || pos != len)) {
    ok = false;
    why = closed ? "text after the dict" : "end of file (no closing brace)";
  }
  if (!ok) {
    ts_sysconfigdata_clear(out);
    return ts_error_set(err, TS_E_UNSUPPORTED, "%s: line %d: unexpected %s", what, line, why);
  }
  for (size_t j = 0; j < nw; j++)
    if (w[j].required && !w[j].seen) {
      ts_sysconfigdata_clear(out);
      return ts_error_set(err, TS_E_UNSUPPORTED, "%s: no %s", what, w[j].key);
    }
  return TS_OK;
}

void ts_sysconfigdata_clear(struct ts_sysconfigdata *d)
{
  free(d->abiflags);
  free(d->ext_suffix);
  free(d->multiarch);
  free(d->platlibdir);
  free(d->version);
  memset(d, 0, sizeof *d);
}

/* ---- patchlevel.h ------------------------------------------------------- */

static bool release_shaped(const char *v)
{
  int a, b, c, serial;
  char level[3] = "";
  int n = scan_xyz(v, &a, &b, &c);
  if (n == 0)
    return false;
  v += n;
  if (!*v)
    return true;
  size_t ln = v[0] == 'r' ? 2 : 1;
  memcpy(level, v, ln);
  level[ln] = '\0';
  if (strcmp(level, "a") != 0 && strcmp(level, "b") != 0 && strcmp(level, "rc") != 0)
    return false;
  v += ln;
  n = 0;
  if (sscanf(v, "%4d%n", &serial, &n) != 1 || v[n] != '\0')
    return false;
  return strspn(v, "0123456789") == strlen(v);
}

enum ts_code ts_patchlevel_version(const char *text, size_t len, char out[32],
                                   struct ts_error *err)
{
  static const char define[] = "#define PY_VERSION";
  out[0] = '\0';
  int found = 0;
  size_t pos = 0;
  while (pos < len) {
    const char *s = text + pos;
    const char *nl = memchr(s, '\n', len - pos);
    size_t n = nl ? (size_t)(nl - s) : len - pos;
    pos += n + 1;
    size_t dn = sizeof define - 1;
    if (n <= dn || memcmp(s, define, dn) != 0 || (s[dn] != ' ' && s[dn] != '\t'))
      continue;
    found++;
    const char *v = s + dn;
    size_t vn = n - dn;
    while (vn && (*v == ' ' || *v == '\t'))
      v++, vn--;
    while (vn && (v[vn - 1] == ' ' || v[vn - 1] == '\t' || v[vn - 1] == '\r'))
      vn--;
    if (vn < 3 || vn > 30 || v[0] != '"' || v[vn - 1] != '"' ||
        memchr(v + 1, '"', vn - 2)) {
      found = -1;
      break;
    }
    memcpy(out, v + 1, vn - 2);
    out[vn - 2] = '\0';
  }
  if (found != 1 || !release_shaped(out)) {
    out[0] = '\0';
    return ts_error_set(err, TS_E_UNSUPPORTED,
                        "patchlevel.h: no single PY_VERSION of the form X.Y.Z[{a,b,rc}N]");
  }
  return TS_OK;
}

/* ---- ELF -------------------------------------------------------------- */

static bool host_little_endian(void)
{
  const uint16_t one = 1;
  return *(const uint8_t *)&one == 1;
}

static enum ts_code elf_facts_fd(int fd, const char *path, struct ts_elf_facts *out,
                                 struct ts_error *err)
{
  Elf64_Ehdr eh;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    return ts_error_set(err, TS_E_UNSUPPORTED, "'%s' is not a regular file", path);
  ssize_t got = pread(fd, &eh, sizeof eh, 0);
  if (got < EI_NIDENT || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0)
    return ts_error_set(err, TS_E_UNSUPPORTED, "'%s' is not an ELF file", path);
  out->elf_class = eh.e_ident[EI_CLASS];
  out->data = eh.e_ident[EI_DATA];
  if (out->elf_class != ELFCLASS64 || got != (ssize_t)sizeof eh ||
      out->data != (host_little_endian() ? ELFDATA2LSB : ELFDATA2MSB))
    return ts_error_set(err, TS_E_UNSUPPORTED, "'%s' is not a native 64-bit ELF file", path);
  out->machine = eh.e_machine;
  if ((eh.e_type != ET_EXEC && eh.e_type != ET_DYN) || eh.e_phentsize != sizeof(Elf64_Phdr) ||
      eh.e_phnum == 0 || eh.e_phnum > 256 || eh.e_phoff >= (uint64_t)st.st_size)
    return ts_error_set(err, TS_E_UNSUPPORTED, "'%s' has unexpected ELF headers", path);
  Elf64_Phdr ph[256];
  size_t want = (size_t)eh.e_phnum * sizeof ph[0];
  if (pread(fd, ph, want, (off_t)eh.e_phoff) != (ssize_t)want)
    return ts_error_set(err, TS_E_UNSUPPORTED, "'%s' has truncated ELF headers", path);
  out->interp[0] = '\0';
  for (size_t i = 0; i < eh.e_phnum; i++) {
    if (ph[i].p_type != PT_INTERP)
      continue;
    if (out->interp[0] || ph[i].p_filesz < 2 || ph[i].p_filesz > sizeof out->interp ||
        ph[i].p_offset + ph[i].p_filesz > (uint64_t)st.st_size ||
        pread(fd, out->interp, ph[i].p_filesz, (off_t)ph[i].p_offset) != (ssize_t)ph[i].p_filesz ||
        out->interp[ph[i].p_filesz - 1] != '\0' || strlen(out->interp) != ph[i].p_filesz - 1) {
      out->interp[0] = '\0';
      return ts_error_set(err, TS_E_UNSUPPORTED, "'%s' has a malformed PT_INTERP", path);
    }
  }
  return TS_OK;
}

enum ts_code ts_elf_read_facts(const char *path, struct ts_elf_facts *out, struct ts_error *err)
{
  memset(out, 0, sizeof *out);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return ts_error_set(err, TS_E_IO, "cannot open '%s': %s", path, strerror(errno));
  enum ts_code rc = elf_facts_fd(fd, path, out, err);
  close(fd);
  return rc;
}
