/* Unit tests for request/pipconf.h: pip.conf as configparser reads it. */
#include <criterion/criterion.h>
#include <string.h>

#include "request/pipconf.h"

static struct ts_pipconf parse_ok(const char *text) {
  struct ts_pipconf c;
  struct ts_error err = {0};
  cr_assert_eq(ts_pipconf_parse(text, strlen(text), "pip.conf", &c, &err), TS_OK, "%s",
               err.detail);
  return c;
}

Test(pipconf, sections_keys_and_delimiters) {
  struct ts_pipconf c = parse_ok("# comment\n[global]\nindex-url = https://a/simple\n"
                                 "; also a comment\nTimeout: 60\r\n\n[install]\n"
                                 "--No_Cache_Dir=true\n");
  cr_assert_eq(c.n, 3);
  cr_assert_str_eq(ts_pipconf_get(&c, "global", "index-url"), "https://a/simple");
  cr_assert_str_eq(ts_pipconf_get(&c, "global", "timeout"), "60");
  cr_assert_str_eq(ts_pipconf_get(&c, "install", "no-cache-dir"), "true");
  cr_assert_null(ts_pipconf_get(&c, "install", "index-url"));
  cr_assert_eq(c.entries[2].line, 8);
  ts_pipconf_clear(&c);
}

Test(pipconf, continuation_lines_join_a_list) {
  struct ts_pipconf c = parse_ok("[global]\nfind-links =\n    /a\n    /b\nextra-index-url = x\n"
                                 "  y\n");
  cr_assert_str_eq(ts_pipconf_get(&c, "global", "find-links"), "/a\n/b");
  cr_assert_str_eq(ts_pipconf_get(&c, "global", "extra-index-url"), "x\ny");
  ts_pipconf_clear(&c);
}

Test(pipconf, what_pip_refuses_too) {
  static const char *const bad[] = {
      "index-url = x\n",                        /* before any section */
      "[global]\njust a line\n",                /* no delimiter */
      "[global]\nindex-url = a\nINDEX_URL = b\n", /* the same key twice */
      "[global\nx = 1\n",                       /* unclosed header */
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    struct ts_pipconf c;
    struct ts_error err = {0};
    cr_assert_eq(ts_pipconf_parse(bad[i], strlen(bad[i]), "f.conf", &c, &err), TS_E_PARSE,
                 "%s", bad[i]);
    cr_assert(strstr(err.detail, "f.conf line"), "%s", err.detail);
    cr_assert_eq(c.n, 0);
  }
}

Test(pipconf, same_key_in_two_sections) {
  struct ts_pipconf c = parse_ok("[global]\ntimeout = 1\n[install]\ntimeout = 2\n");
  cr_assert_str_eq(ts_pipconf_get(&c, "global", "timeout"), "1");
  cr_assert_str_eq(ts_pipconf_get(&c, "install", "timeout"), "2");
  ts_pipconf_clear(&c);
}
