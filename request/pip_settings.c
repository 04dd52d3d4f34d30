/* pip's configuration, layered as pip layers it: see pip_settings.h. */
#include "request/pip_settings.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/fs.h"
#include "core/str.h"
#include "request/pipconf.h"

int ts_pip_truth(const char *value) {
  static const char *const yes[] = {"1", "true", "yes", "on", "y", "t"};
  static const char *const no[] = {"0", "false", "no", "off", "n", "f"};
  for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
    if (!strcasecmp(value, yes[i]))
      return 1;
    if (!strcasecmp(value, no[i]))
      return 0;
  }
  return -1;
}

/* Sets key (the last source wins); takes where. */
static void put(struct ts_pip_settings *st, const char *key, const char *value, char *where) {
  for (size_t i = 0; i < st->n; i++)
    if (!strcmp(st->s[i].key, key)) {
      free(st->s[i].value);
      free(st->s[i].where);
      st->s[i].value = ts_xstrdup(value);
      st->s[i].where = where;
      return;
    }
  st->s = ts_xreallocarray(st->s, st->n + 1, sizeof *st->s);
  st->s[st->n++] = (struct ts_pip_setting){ts_xstrdup(key), ts_xstrdup(value), where};
}

const struct ts_pip_setting *ts_pip_settings_get(const struct ts_pip_settings *st,
                                                 const char *key) {
  for (size_t i = 0; i < st->n; i++)
    if (!strcmp(st->s[i].key, key))
      return &st->s[i];
  return NULL;
}

void ts_pip_settings_free(struct ts_pip_settings *st) {
  for (size_t i = 0; i < st->n; i++) {
    free(st->s[i].key);
    free(st->s[i].value);
    free(st->s[i].where);
  }
  free(st->s);
  *st = (struct ts_pip_settings){0};
}

/* One pip.conf: [global], then the command's section over it. */
static enum ts_code read_file(const char *path, const char *command,
                              struct ts_pip_settings *st, struct ts_error *err) {
  struct ts_buf b;
  ts_buf_init(&b, TS_CAP_SMALL_FILE);
  struct ts_error ignored = {0};
  if (ts_fs_read_file(path, &b, &ignored) != TS_OK) {
    ts_buf_clear(&b);
    return TS_OK; /* absent (or unreadable): pip reads what it can */
  }
  struct ts_pipconf c;
  enum ts_code rc = ts_pipconf_parse(b.data ? b.data : "", b.len, path, &c, err);
  ts_buf_clear(&b);
  if (rc != TS_OK)
    return rc;
  const char *sections[] = {"global", command};
  for (size_t k = 0; k < 2; k++)
    for (size_t i = 0; i < c.n; i++)
      if (!strcmp(c.entries[i].section, sections[k]) && c.entries[i].value[0])
        put(st, c.entries[i].key, c.entries[i].value,
            ts_xasprintf("%s [%s]", path, sections[k]));
  ts_pipconf_clear(&c);
  return TS_OK;
}

/* ~/.pip/pip.conf, then the XDG user file. */
static enum ts_code read_user_files(const char *home, const char *command,
                                    struct ts_pip_settings *st, struct ts_error *err) {
  char *legacy = ts_xasprintf("%s/.pip/pip.conf", home);
  const char *xdg = getenv("XDG_CONFIG_HOME");
  char *user = xdg && *xdg ? ts_xasprintf("%s/pip/pip.conf", xdg)
                           : ts_xasprintf("%s/.config/pip/pip.conf", home);
  enum ts_code rc = read_file(legacy, command, st, err);
  if (rc == TS_OK)
    rc = read_file(user, command, st, err);
  free(legacy);
  free(user);
  return rc;
}

enum ts_code ts_pip_settings_read_files(const char *command, const char *env_prefix,
                                        bool isolated, struct ts_pip_settings *st,
                                        struct ts_error *err) {
  const char *cf = getenv("PIP_CONFIG_FILE");
  if (cf && !strcmp(cf, "/dev/null"))
    return TS_OK;
  enum ts_code rc = TS_OK;
  const char *dirs = getenv("XDG_CONFIG_DIRS");
  char *list = ts_xstrdup(dirs && *dirs ? dirs : "/etc/xdg");
  for (char *save = NULL, *d = strtok_r(list, ":", &save); d && rc == TS_OK;
       d = strtok_r(NULL, ":", &save)) {
    char *p = ts_xasprintf("%s/pip/pip.conf", d);
    rc = read_file(p, command, st, err);
    free(p);
  }
  free(list);
  if (rc == TS_OK)
    rc = read_file("/etc/pip.conf", command, st, err);
  const char *home = getenv("HOME");
  if (rc == TS_OK && !isolated && !(cf && access(cf, F_OK) == 0) && home)
    rc = read_user_files(home, command, st, err);
  if (rc == TS_OK && env_prefix) {
    char *site = ts_xasprintf("%s/pip.conf", env_prefix);
    rc = read_file(site, command, st, err);
    free(site);
  }
  if (rc == TS_OK && cf)
    rc = read_file(cf, command, st, err);
  return rc;
}

void ts_pip_settings_read_environment(struct ts_pip_settings *st, const char *const *env) {
  for (const char *const *e = env; *e; e++) {
    if (strncmp(*e, "PIP_", 4) != 0 || !strncmp(*e, "PIP_CONFIG_FILE=", 16))
      continue;
    const char *eq = strchr(*e, '=');
    if (!eq || !eq[1])
      continue; /* pip ignores empty values */
    char *key = ts_xstrndup(*e + 4, (size_t)(eq - *e - 4));
    for (char *c = key; *c; c++)
      *c = *c == '_' ? '-' : (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
    put(st, key, eq + 1, ts_xstrndup(*e, (size_t)(eq - *e)));
    free(key);
  }
}
