/* The scripts a wheel declares and the names the environment owns; see
 * scripts.h. */
#include "wheel/scripts.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/alloc.h"
#include "core/str.h"

bool ts_wheel_protected_script_name(const char *n) {
  if (strncmp(n, "python", 6) == 0) {
    const char *r = n + 6;
    while ((*r >= '0' && *r <= '9') || *r == '.')
      r++;
    if (*r == 't' || *r == 'w')
      r++;
    return *r == '\0';
  }
  return strcmp(n, "activate") == 0 || strncmp(n, "activate.", 9) == 0 ||
         strcasecmp(n, "Activate.ps1") == 0 || strcmp(n, "activate_this.py") == 0;
}

/* "easy_install-3.11" or "pip3" / "pip3.11" after `stem` (a dash first for
 * easy_install). */
static bool versioned(const char *name, const char *stem, bool dash, bool minor_optional) {
  size_t sl = strlen(stem);
  if (strncmp(name, stem, sl) != 0)
    return false;
  const char *p = name + sl;
  if (dash && *p++ != '-')
    return false;
  size_t d = strspn(p, "0123456789");
  if (!d)
    return false;
  p += d;
  if (!*p)
    return minor_optional;
  if (*p++ != '.')
    return false;
  d = strspn(p, "0123456789");
  return d && !p[d];
}

size_t ts_wheel_launcher_names(const char *name, int major, int minor, char *out[3]) {
  size_t n = 0;
  if (major <= 0) {
    out[n++] = ts_xstrdup(name);
  } else if (!strcmp(name, "easy_install")) {
    out[n++] = ts_xstrdup(name);
    out[n++] = ts_xasprintf("easy_install-%d.%d", major, minor);
  } else if (!strcmp(name, "pip")) {
    out[n++] = ts_xstrdup(name);
    out[n++] = ts_xasprintf("pip%d", major);
    out[n++] = ts_xasprintf("pip%d.%d", major, minor);
  } else if (!versioned(name, "easy_install", true, false) &&
             !versioned(name, "pip", false, true)) {
    out[n++] = ts_xstrdup(name);
  }
  return n;
}

static bool ident_ok(const char *s, size_t n) {
  if (n == 0)
    return false;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          (c >= '0' && c <= '9') || c == '_' || c == '.'))
      return false;
  }
  return s[0] != '.' && s[n - 1] != '.';
}

static char *trim(char *s) {
  while (*s == ' ' || *s == '\t')
    s++;
  size_t n = strlen(s);
  while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
    s[--n] = '\0';
  return s;
}

/* One launcher: its name and value checked, then handed to fn. */
static enum ts_code launcher(const char *name, const char *value, ts_wheel_launcher_fn *fn,
                             void *ctx, struct ts_error *err) {
  size_t nl = strlen(name);
  if (nl == 0 || strchr(name, '/') || name[0] == '.' || strchr(name, '\\'))
    return ts_error_set(err, TS_E_UNSAFE_PATH,
                        "entry point name '%s' is not a safe file name", name);
  for (size_t i = 0; i < nl; i++)
    if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f)
      return ts_error_set(err, TS_E_UNSAFE_PATH,
                          "entry point name has a control character");
  if (ts_wheel_protected_script_name(name))
    return ts_error_set(err, TS_E_UNSAFE_PATH,
                        "entry point '%s' would replace the environment's own "
                        "interpreter or activate script", name);
  char *v = ts_xstrdup(value);
  char *br = strchr(v, '['); /* extras do not change the launcher */
  if (br)
    *br = '\0';
  char *colon = strchr(v, ':');
  enum ts_code rc = TS_OK;
  if (!colon) {
    rc = ts_error_set(err, TS_E_BAD_WHEEL,
                      "entry point '%s = %s' is not module:attribute", name,
                      value);
    free(v);
    return rc;
  }
  *colon = '\0';
  char *mod = trim(v), *attr = trim(colon + 1);
  if (!ident_ok(mod, strlen(mod)) || !ident_ok(attr, strlen(attr)))
    rc = ts_error_set(err, TS_E_BAD_WHEEL,
                      "entry point '%s = %s' is not module:attribute", name,
                      value);
  else if (fn)
    rc = fn(ctx, name, mod, attr, err);
  free(v);
  return rc;
}

enum ts_code ts_wheel_entry_points_each(const char *text, size_t len, int major, int minor,
                                        ts_wheel_launcher_fn *fn, void *ctx,
                                        struct ts_error *err) {
  char *buf = ts_xmalloc(len + 1);
  memcpy(buf, text, len);
  buf[len] = '\0';
  bool on = false;
  enum ts_code rc = TS_OK;
  char *save = buf;
  while (rc == TS_OK && save && *save) {
    char *line = save;
    char *nl = strchr(line, '\n');
    if (nl) {
      *nl = '\0';
      save = nl + 1;
    } else {
      save = NULL;
    }
    char *l = trim(line);
    if (!*l || *l == '#' || *l == ';')
      continue;
    if (*l == '[') {
      char *end = strchr(l, ']');
      if (end)
        *end = '\0';
      char *sec = trim(l + 1);
      on = strcmp(sec, "console_scripts") == 0 ||
           strcmp(sec, "gui_scripts") == 0;
      continue;
    }
    if (!on)
      continue;
    char *eq = strchr(l, '=');
    if (!eq) {
      rc = ts_error_set(err, TS_E_BAD_WHEEL,
                        "entry_points.txt line '%.80s' has no '='", l);
      break;
    }
    *eq = '\0';
    char *names[3];
    size_t nn = ts_wheel_launcher_names(trim(l), major, minor, names);
    for (size_t k = 0; k < nn; k++) {
      if (rc == TS_OK)
        rc = launcher(names[k], trim(eq + 1), fn, ctx, err);
      free(names[k]);
    }
  }
  free(buf);
  return rc;
}

enum ts_code ts_wheel_check_entry_points(const char *text, size_t len,
                                         struct ts_error *err) {
  return ts_wheel_entry_points_each(text, len, 0, 0, NULL, NULL, err);
}
