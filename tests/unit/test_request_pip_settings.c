/* Unit tests for request/pip_settings.h: pip's configuration layered as
 * pip layers it (files lowest first, then PIP_* variables). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "request/pip_settings.h"

Test(pip_settings, truth_reads_strtobool) {
  cr_assert_eq(ts_pip_truth("Yes"), 1);
  cr_assert_eq(ts_pip_truth("t"), 1);
  cr_assert_eq(ts_pip_truth("OFF"), 0);
  cr_assert_eq(ts_pip_truth("0"), 0);
  cr_assert_eq(ts_pip_truth("maybe"), -1);
}

Test(pip_settings, variables_override_and_normalise_keys) {
  struct ts_pip_settings st = {0};
  const char *first[] = {"PIP_INDEX_URL=https://a/simple", "PIP_NO_CACHE_DIR=1",
                         "PIP_CONFIG_FILE=/x", "PIP_EMPTY=", "HOME=/h", NULL};
  const char *second[] = {"PIP_INDEX_URL=https://b/simple", NULL};
  ts_pip_settings_read_environment(&st, first);
  ts_pip_settings_read_environment(&st, second);
  cr_assert_eq(st.n, 2);
  const struct ts_pip_setting *s = ts_pip_settings_get(&st, "index-url");
  cr_assert_not_null(s);
  cr_assert_str_eq(s->value, "https://b/simple");
  cr_assert_str_eq(s->where, "PIP_INDEX_URL");
  cr_assert_not_null(ts_pip_settings_get(&st, "no-cache-dir"));
  cr_assert_null(ts_pip_settings_get(&st, "config-file"));
  cr_assert_null(ts_pip_settings_get(&st, "empty"));
  ts_pip_settings_free(&st);
}

static char *write_conf(const char *text) {
  char tmpl[] = "/tmp/pip_settings_XXXXXX";
  int fd = mkstemp(tmpl);
  cr_assert_geq(fd, 0);
  cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
  close(fd);
  return strdup(tmpl);
}

Test(pip_settings, config_file_command_section_over_global) {
  char *path = write_conf("[global]\ntimeout = 10\nindex-url = https://g/simple\n"
                          "[install]\ntimeout = 20\n[list]\ntimeout = 30\n");
  setenv("PIP_CONFIG_FILE", path, 1);
  setenv("XDG_CONFIG_DIRS", "/nonexistent", 1);
  struct ts_pip_settings st = {0};
  struct ts_error err = {0};
  cr_assert_eq(ts_pip_settings_read_files("install", NULL, true, &st, &err), TS_OK, "%s",
               err.detail);
  const struct ts_pip_setting *t = ts_pip_settings_get(&st, "timeout");
  cr_assert_not_null(t);
  cr_assert_str_eq(t->value, "20");
  cr_assert(strstr(t->where, "[install]"));
  cr_assert_str_eq(ts_pip_settings_get(&st, "index-url")->value, "https://g/simple");
  ts_pip_settings_free(&st);
  unlink(path);
  free(path);
}

Test(pip_settings, a_file_pip_refuses_is_a_parse_error) {
  char *path = write_conf("timeout = 10\n");
  setenv("PIP_CONFIG_FILE", path, 1);
  setenv("XDG_CONFIG_DIRS", "/nonexistent", 1);
  struct ts_pip_settings st = {0};
  struct ts_error err = {0};
  cr_assert_eq(ts_pip_settings_read_files("install", NULL, true, &st, &err), TS_E_PARSE);
  cr_assert(strstr(err.detail, path));
  ts_pip_settings_free(&st);
  unlink(path);
  free(path);
}
